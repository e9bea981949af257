/* fuzz_fx_module.c — libFuzzer harness: GraphModule text (print(gm)) parser and printers. */
#include "fuzz/fuzz.h"

FXSH_FUZZ_ENTRY(fx_module)
{
    diag_sink d;
    diag_init(&d);
    fuzz_use_fx(fxp_parse_module_text((const char *)data, size, "fuzz.module.txt", &d), &d);
    diag_free(&d);
    return 0;
}
