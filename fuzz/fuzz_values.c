/* fuzz_values.c — libFuzzer harness: value files for `run --inputs` / `verify --expected`
 * (.npz, .npy, TensorProto / SequenceProto / OptionalProto .pb, io.json and plain JSON), then
 * each value printed as `run` prints it (numpy's repr). */
#include "fuzz/fuzz.h"
#include "view/onnx_repr.h"
#include "view/onnx_values.h"

FXSH_FUZZ_ENTRY(values)
{
    diag_sink d;
    diag_init(&d);
    oe_values v;
    if (view_values_read_buffer((const char *)data, size, "fuzz.npz", &v, &d) == 0) {
        for (size_t i = 0; i < v.len; i++) {
            strbuf out;
            sb_init(&out);
            view_repr(&v.items[i].value, &out);
            sb_free(&out);
        }
        view_values_free(&v);
    }
    diag_free(&d);
    return 0;
}
