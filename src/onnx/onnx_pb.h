/* onnx_pb.h — reading and writing ONNX protobuf files (.onnx) with external data.
 *
 * Ownership: ox_load_* return a new model the caller releases with ox_model_free(), or NULL
 * after reporting at least one error to the sink. ox_load_file* map the file (and its external
 * data files): raw_data of 256 bytes and more are views into those mappings, which the model
 * holds (onnx_ir.h, "Tensor bytes"); ox_load_bytes* copy. ox_pack returns a malloc'd buffer the
 * caller free()s. Saving never modifies the model (external-data conversion is undone after
 * writing) and never copies its weights (see onnx_pb_save.c). */
#ifndef FXSH_ONNX_PB_H
#define FXSH_ONNX_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"

/* Nested graphs (If/Loop/Scan bodies inside bodies ...) deeper than this are rejected. */
#define OX_MAX_GRAPH_DEPTH 64
/* Nested protobuf messages of any kind deeper than this are rejected (protobuf-c recurses). */
#define OX_MAX_MESSAGE_DEPTH 512

typedef struct ox_save_opts {
    bool external_data;          /* move large initializers to a side file (onnx save_as_external_data) */
    const char *external_file;   /* side file name, relative to the model's directory; NULL = "<model file name>.data" */
    size_t threshold;            /* only tensors with at least this many bytes; 0 = 1024 (like torch) */
} ox_save_opts;

typedef struct ox_load_opts {
    bool keep_external;      /* leave external-data references as they are (onnx.load(..., load_external_data=False)) */
    bool missing_is_warning; /* a missing/unreadable data file is a warning and the reference is kept */
    bool unchecked;          /* skip ox_check_tensors (the caller runs it: ox_model_copy) */
} ox_load_opts;

/* Loads path; tensors stored in external files are found in the model's directory and turned
 * into ordinary raw_data tensors (what onnx.load does), views into the mapped data files: their
 * pages are read from the disk when first touched. */
ox_model *ox_load_file(const char *path, diag_sink *d);
/* Loads a serialized ModelProto. path (may be NULL) names the input in diagnostics and locates
 * external data; without a path external references are kept as they are. */
ox_model *ox_load_bytes(const void *data, size_t len, const char *path, diag_sink *d);
/* The same with options (opts may be NULL for the defaults above). */
ox_model *ox_load_file_opts(const char *path, const ox_load_opts *opts, diag_sink *d);
ox_model *ox_load_bytes_opts(const void *data, size_t len, const char *path,
                             const ox_load_opts *opts, diag_sink *d);

/* Checks the wire format of buf as a message of type desc (lengths, wire types, nesting) without
 * allocating; returns 0 or -1 after reporting to d. Exposed for tests and other loaders. */
int ox_pb_validate(const void *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                   const char *name, diag_sink *d);

/* Checks every tensor of the model (initializers, attribute and sparse tensors, in subgraphs
 * and functions too) with ox_tensor_problem: dims none negative, counts within int64, data of
 * exactly the size they describe; returns 0 or -1 after reporting the first problem to d, named
 * with name (the file). ox_load_* and ox_parse_model run it on every model they return. Value
 * types (float[-1] x) are the checker's to judge, as in onnx: they hold no data. elided_ok accepts tensors whose raw_data is empty (the text form's "...", data the
 * printer did not show); a loaded file must have all its data. */
int ox_check_tensors(ox_model *m, const char *name, bool elided_ok, diag_sink *d);

/* Serializes the model; NULL only if the model is too large to address. */
uint8_t *ox_pack(const ox_model *m, size_t *len);
/* Packs any message (a node, an attribute) into a malloc'd buffer: like protobuf-c's pack, but a
 * derived weight it holds (onnx_derive.h) is computed into the buffer, never read in place. */
uint8_t *ox_pack_message(const ProtobufCMessage *msg, size_t *len);
/* Writes the model to path as base/file.h writes files (temporary, fsync, rename; a link's
 * target; a device directly), streamed: each tensor's bytes go to the file in one piece, copied
 * by the kernel from the file they are mapped from when they are a view. A model larger than
 * FXSH_MAX_PROTOBUF (base/limits.h: 2 GB, protobuf's limit) is saved with external data as if
 * opts->external_data were set, with a note on d. Returns 0 or -1 (+ diag). */
int ox_save_file(ox_model *m, const char *path, const ox_save_opts *opts, diag_sink *d);

#endif
