/* fuzz.h — shared by the libFuzzer harnesses: their entry point (LLVMFuzzerTestOneInput, or a
 * named function when the harnesses are linked into tests/unit/test_fuzz_replay to replay the
 * saved crash inputs in make check) and helpers that exercise what a loader returned. */
#ifndef FXSH_FUZZ_H
#define FXSH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "load/pt2_load.h"
#include "onnx/onnx_ir.h"

#ifdef FXSH_FUZZ_REPLAY
#define FXSH_FUZZ_ENTRY(name) int fxsh_fuzz_##name(const uint8_t *data, size_t size)
#else
#define FXSH_FUZZ_ENTRY(name) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

/* Prints a loaded FX program in every form and summarises its weights, as the REPL would
 * (show, show code, show module, show tabular, nodes, stats, params, signature, weights NAME),
 * then frees it; p may be NULL. */
void fuzz_use_fx(fx_program *p, diag_sink *d);
/* What the REPL shows of an ONNX model (the text printer, summary, views, DOT, checker), then
 * frees it; m may be NULL. */
void fuzz_use_onnx(ox_model *m, diag_sink *d);

#endif
