/* fuzz_onnx_text.c — libFuzzer harness: ONNX text parser (onnx.parser syntax), then what the
 * REPL shows of the model (the printer, checker, views). */
#include "fuzz/fuzz.h"
#include "onnx/onnx_parse.h"

FXSH_FUZZ_ENTRY(onnx_text)
{
    diag_sink d;
    diag_init(&d);
    fuzz_use_onnx(ox_parse_model((const char *)data, size, "fuzz.onnxtxt", &d), &d);
    diag_free(&d);
    return 0;
}
