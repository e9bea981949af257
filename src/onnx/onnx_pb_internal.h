/* onnx_pb_internal.h — shared by onnx_pb*.c only: unpacking with weight views, the save sink.
 *
 * Ownership: ox_unpack_views allocates the message in m's arena; the views it makes point into
 * map, which m then holds (ox_model_hold). */
#ifndef FXSH_ONNX_PB_INTERNAL_H
#define FXSH_ONNX_PB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/fmap.h"
#include "onnx/onnx_ir.h"

/* raw_data fields of at least this many bytes become views instead of copies */
#define OX_VIEW_MIN 256

/* Unpacks the ModelProto in buf[0, len) (already validated by ox_pb_validate), which lies inside
 * map, into m: every TensorProto.raw_data of OX_VIEW_MIN bytes or more is a view into map rather
 * than a copy. NULL when protobuf-c rejects the message. */
Onnx__ModelProto *ox_unpack_views(ox_model *m, const uint8_t *buf, size_t len, fmap *map);

#endif
