/* fuzz_pt2.c — libFuzzer harness: torch.export archives (.pt2: zip, JSON, weights) and the
 * program JSON alone, with the printers and weight summaries. */
#include <string.h>

#include "fuzz/fuzz.h"

FXSH_FUZZ_ENTRY(pt2)
{
    diag_sink d;
    diag_init(&d);
    fx_program *p = size >= 4 && memcmp(data, "PK\003\004", 4) == 0
                        ? pt2_load_buffer(data, size, "fuzz.pt2", &d)
                        : pt2_load_json((const char *)data, size, "fuzz.json", &d);
    fuzz_use_fx(p, &d);
    diag_free(&d);
    return 0;
}
