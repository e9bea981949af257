/* onnx_values.h — named values read from files, for `run --inputs` and `verify --expected`.
 *
 * Formats, recognised by content: .npz (a zip of .npy), .npy, an ONNX TensorProto /
 * SequenceProto / OptionalProto (.pb, as in ONNX's backend test data), and JSON — the corpus's
 * io.json ({"inputs": [{"name", "dtype", "shape", "data"}], "outputs": [...]}) or a plain object
 * {"x": [[1, 2], [3, 4]], ...} whose numbers take the graph input's type.
 * Ownership: oe_values owns its names and tensors; release with view_values_free. */
#ifndef FXSH_ONNX_VALUES_H
#define FXSH_ONNX_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "eval/onnx_eval.h"

/* Which side of a model a value belongs to: unknown, an input, an expected output. */
enum { OE_ROLE_ANY = 0, OE_ROLE_INPUT = 1, OE_ROLE_OUTPUT = 2 };

typedef struct oe_value {
    char *name;
    oe_tensor value;
    int role;
    bool untyped;        /* JSON numbers without a declared dtype: cast to the graph's type */
} oe_value;

typedef struct oe_values {
    oe_value *items;
    size_t len;
} oe_values;

/* Reads a value file (format by content). -1 after reporting an error naming the file. */
int view_values_read(const char *path, oe_values *out, diag_sink *d);
/* The same for bytes already in memory; `path` names them in messages and gives a lone .npy or
 * .pb value its name. */
int view_values_read_buffer(const char *buf, size_t len, const char *path, oe_values *out, diag_sink *d);
void view_values_free(oe_values *v);
/* Appends a value (name copied, *t moved). */
void view_values_add(oe_values *v, const char *name, oe_tensor *t, int role);

/* The value for a graph input or output: by name; else named input_<pos> / output_<pos>; else
 * the pos-th value of that role when no value of the file is named like any of the graph's
 * (`names`, count n). NULL if none. */
const oe_value *view_values_pick(const oe_values *v, int role, const char *name, size_t pos,
                               const char *const *names, size_t n);

/* Decodes a .pb value: a TensorProto, or a SequenceProto / OptionalProto (tried in this order
 * unless `kind` (OE_KIND_*, -1 = unknown) says which). -1 after reporting. */
int view_value_from_pb(const void *data, size_t len, int kind, const char *what, oe_tensor *out, char **name,
                     diag_sink *d);

/* numpy's dtype name ("float32") of an ONNX element type, and back (-1 if unknown). */
const char *view_numpy_dtype_name(int dtype);
int view_dtype_from_numpy(const char *name);

#endif
