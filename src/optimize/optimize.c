/* optimize.c — the optimizer's driver: options and the order of the passes (opt_*.c). */
#include "optimize/optimize.h"

#include <string.h>

#include "base/interrupt.h"
#include "optimize/optimize_internal.h"

void optimize_options_default(optimize_options *o)
{
    memset(o, 0, sizeof *o);
    o->fold_output_limit = 512 * 512;
    o->fold_input_limit = 8192;
    o->max_depth = 64;
    o->inline_functions = o->fold = o->dce = o->dedup = o->cse = o->remove_noops = o->lift =
        o->rewrite = true;
}

/* ---- driver -------------------------------------------------------------------------------- */

bool optimize_model(ox_model *m, const optimize_options *o, optimize_stats *stats, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!stats) stats = &sb;
    bool ok = true;
    /* each pass is linear; Ctrl-C is looked at between them */
#define RUN(on, pass) if ((on) && !interrupt_pending()) ok &= pass(m, o, stats, d)
    RUN(o->inline_functions, opt_inline_functions);
    /* Like onnxscript's optimize_ir: fold / simplify / clean up twice, then finish. */
    for (int round = 0; round < 2; round++) {
        optimize_stats before = *stats;
        RUN(o->fold, opt_fold_constants);
        RUN(o->remove_noops, opt_remove_noops);
        RUN(o->rewrite, opt_rewrite_split_to_sequence);
        RUN(o->rewrite, opt_fuse_conv_batchnorm);
        RUN(o->dce, opt_remove_dead);
        if (!memcmp(&before, stats, sizeof before)) break;
    }
    RUN(o->lift, opt_lift_constants);
    RUN(o->dedup, opt_dedup_initializers);
    RUN(o->cse, opt_cse);
    RUN(o->dce, opt_remove_dead);
    RUN(true, opt_order_value_info);
#undef RUN
    return ok && !interrupt_pending();
}
