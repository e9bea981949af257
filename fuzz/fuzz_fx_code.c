/* fuzz_fx_code.c — libFuzzer harness: readable-code (gm.print_readable()) and print(ep) parsers, and
 * the printers. */
#include <string.h>

#include "fuzz/fuzz.h"

FXSH_FUZZ_ENTRY(fx_code)
{
    diag_sink d;
    diag_init(&d);
    static const char ep[] = "ExportedProgram:";
    if (size >= sizeof ep - 1 && !memcmp(data, ep, sizeof ep - 1))
        fuzz_use_fx(fxp_parse_exported_text((const char *)data, size, "fuzz.program.txt", &d), &d);
    else
        fuzz_use_fx(fxp_parse_code_text((const char *)data, size, "fuzz.readable.txt", &d), &d);
    diag_free(&d);
    return 0;
}
