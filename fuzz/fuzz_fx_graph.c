/* fuzz_fx_graph.c — libFuzzer harness: FX graph text (print(gm.graph)) parser and printers. */
#include "fuzz/fuzz.h"

FXSH_FUZZ_ENTRY(fx_graph)
{
    diag_sink d;
    diag_init(&d);
    fuzz_use_fx(fxp_parse_graph_text((const char *)data, size, "fuzz.fx.txt", &d), &d);
    diag_free(&d);
    return 0;
}
