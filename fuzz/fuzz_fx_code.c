/* fuzz_fx_code.c — libFuzzer harness: readable-code (gm.print_readable()) parser and printers. */
#include "fuzz/fuzz.h"

FXSH_FUZZ_ENTRY(fx_code)
{
    diag_sink d;
    diag_init(&d);
    fuzz_use_fx(fx_parse_code_text((const char *)data, size, "fuzz.readable.txt", &d), &d);
    diag_free(&d);
    return 0;
}
