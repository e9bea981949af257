/* optimize.c — the optimizer's driver: options and the order of the passes (opt_*.c). */
#include "optimize/optimize.h"

#include <string.h>

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

int optimize_model(ox_model *m, const optimize_options *o, optimize_stats *stats, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!stats) stats = &sb;
    int rc = 0;
    if (o->inline_functions) rc |= opt_inline_functions(m, o, stats, d);
    /* Like onnxscript's optimize_ir: fold / simplify / clean up twice, then finish. */
    for (int round = 0; round < 2; round++) {
        optimize_stats before = *stats;
        if (o->fold) rc |= opt_fold_constants(m, o, stats, d);
        if (o->remove_noops) rc |= opt_remove_noops(m, o, stats, d);
        if (o->rewrite) rc |= opt_rewrite_split_to_sequence(m, o, stats, d);
        if (o->rewrite) rc |= opt_fuse_conv_batchnorm(m, o, stats, d);
        if (o->dce) rc |= opt_remove_dead(m, o, stats, d);
        if (!memcmp(&before, stats, sizeof before)) break;
    }
    if (o->lift) rc |= opt_lift_constants(m, o, stats, d);
    if (o->dedup) rc |= opt_dedup_initializers(m, o, stats, d);
    if (o->cse) rc |= opt_cse(m, o, stats, d);
    if (o->dce) rc |= opt_remove_dead(m, o, stats, d);
    return rc ? -1 : 0;
}
