/* onnx_repr.h — numpy's repr of evaluator values, as `print(repr(array))` shows them.
 *
 * Follows numpy 2.x's defaults: `array([[1. , 2.5]], dtype=float32)`, floats in the shortest
 * form that round-trips in their own type with at most 8 fractional digits (maxprec), the
 * scientific form when numpy picks it (a value >= 1e8, a non-zero value < 1e-4, or a ratio above
 * 1000), line width 75, arrays over 1000 elements summarized to 3 edge items with `...` and
 * `shape=(...)`; the dtype is shown unless it is float64, int64 or bool. A sequence prints as a
 * Python list of arrays, an optional as its value or None. bfloat16 prints as
 * `dtype=bfloat16` (ml_dtypes' name). */
#ifndef FXSH_ONNX_REPR_H
#define FXSH_ONNX_REPR_H

#include "base/strbuf.h"
#include "eval/onnx_eval.h"

void view_repr(const oe_tensor *t, strbuf *out);

/* The value as JSON, what json.dumps(array.tolist()) writes: nested lists by dimension (a 0-d
 * tensor a bare number), each float in the fewest digits that read back as the same value of
 * its own type (float32: 0.1, not 0.10000000149011612), integers exact, bools true / false; a
 * value that is not finite as the string "NaN", "Infinity" or "-Infinity" (valid JSON, where
 * Python writes the invalid NaN). A sequence is a list of its items, an optional its value or
 * null. */
struct json_writer;
void view_json_value(struct json_writer *w, const oe_tensor *t);
/* One number of an element type as view_json_value writes it (a float32's min: 0.30971584). */
void view_json_number(struct json_writer *w, double x, int dtype);

#endif
