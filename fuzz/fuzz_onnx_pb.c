/* fuzz_onnx_pb.c — libFuzzer harness: ONNX protobuf loader (wire validation, unpack, tensor
 * checks), then the text printer, checker, summary, inspection views and DOT output. */
#include "fuzz/fuzz.h"
#include "onnx/onnx_pb.h"

FXSH_FUZZ_ENTRY(onnx_pb)
{
    diag_sink d;
    diag_init(&d);
    fuzz_use_onnx(ox_load_bytes(data, size, NULL, &d), &d);
    diag_free(&d);
    return 0;
}
