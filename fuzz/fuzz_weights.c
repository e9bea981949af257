/* fuzz_weights.c — libFuzzer harness: weight files for load --weights (.safetensors, .onnx
 * initializers, .pt2 / JSON), then `params` and `weights NAME` on every weight attached. */
#include "fuzz/fuzz.h"
#include "load/fx_weight_source.h"

FXSH_FUZZ_ENTRY(weights)
{
    diag_sink d;
    diag_init(&d);
    fx_program *p = fx_program_new(NULL);
    size_t n;
    load_attach_weights_buffer(p, (const char *)data, size, "fuzz.weights", &n, &d);
    fuzz_use_fx(p, &d);
    diag_free(&d);
    return 0;
}
