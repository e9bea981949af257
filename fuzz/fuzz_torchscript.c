/* fuzz_torchscript.c — libFuzzer harness: TorchScript IR loader, the argument forms and value
 * meta `load` gives it (ts_normalize, meta inference), and the printers. */
#include <stdbool.h>
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "load/ts_load.h"
#include "meta/meta_infer.h"
#include "meta/meta_rules.h"
#include "capture/ts_normalize.h"

FXSH_FUZZ_ENTRY(torchscript)
{
    /* the rule tables are read once (from the source tree's share/fxsh) */
    static meta_rules rules;
    static bool have_rules;
    if (!have_rules) {
        diag_sink rd;
        diag_init(&rd);
        meta_rules_init(&rules);
        if (!meta_rules_load_default(&rules, &rd)) abort();
        diag_free(&rd);
        have_rules = true;
    }
    diag_sink d;
    diag_init(&d);
    ts_input_decl in;
    ts_parse_input_decl("x=f32[2,8]", &in);
    ts_load_options o = {.inputs = &in, .n_inputs = 1};
    fx_program *p = ts_load_text((const char *)data, size, "fuzz.torchscript.txt", &o, &d);
    if (p) {
        tsn_normalize_program_with(p, &rules);
        meta_infer_program_with(p, &rules, &d);
    }
    fuzz_use_fx(p, &d);
    diag_free(&d);
    return 0;
}
