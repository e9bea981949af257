/* fuzz_util.c — what the harnesses do with a loaded program or model: print and inspect it as
 * the REPL would, so that printers and views see every odd IR the loaders accept. */
#include "fuzz/fuzz.h"

#include "onnx/onnx_check.h"
#include "view/onnx_dot.h"
#include "view/onnx_inspect.h"
#include "onnx/onnx_print.h"
#include "view/onnx_summary.h"

void fuzz_use_fx(fx_program *p, diag_sink *d)
{
    if (!p) return;
    strbuf sb;
    sb_init(&sb);
    static const fx_form forms[] = {FX_FORM_GRAPH, FX_FORM_CODE, FX_FORM_MODULE, FX_FORM_TABULAR};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        sb_reset(&sb);
        fx_print(p, forms[i], &sb);
    }
    sb_reset(&sb);
    fx_print_nodes(p, &sb);
    sb_reset(&sb);
    fx_print_stats(p, &sb);
    sb_reset(&sb);
    fx_print_dot(p, &sb);
    sb_reset(&sb);
    fx_find(p, "Linear", true, &sb);
    sb_reset(&sb);
    fx_program_params(p, &sb, d);
    sb_reset(&sb);
    fx_program_signature(p, &sb, d);
    for (const fx_weight *w = p->weights; w; w = w->next) {
        sb_reset(&sb);
        fx_program_weight_summary(p, w->fqn, &sb, d);
    }
    if (p->source_form == FX_FORM_EXPORT) {
        sb_reset(&sb);
        fx_print_program(p, &sb, d);
    }
    sb_free(&sb);
    fx_program_free(p);
}

void fuzz_use_onnx(ox_model *m, diag_sink *d)
{
    if (!m) return;
    strbuf sb;
    sb_init(&sb);
    ox_print_model(m->proto, &sb, NULL);
    sb_reset(&sb);
    view_summary(m, &sb);
    sb_reset(&sb);
    view_show_nodes(m, &sb);
    sb_reset(&sb);
    view_show_stats(m, &sb);
    sb_reset(&sb);
    view_dot(m, &sb);
    sb_reset(&sb);
    view_show_params(m, &sb);
    sb_reset(&sb);
    view_find(m, "gemm", true, &sb);
    const Onnx__GraphProto *g = m->proto->graph;
    for (size_t i = 0; g && i < g->n_initializer && i < 16; i++) {
        sb_reset(&sb);
        if (g->initializer[i]->name) view_show_initializer(m, g->initializer[i]->name, &sb, d);
    }
    sb_free(&sb);
    ox_check(m, d);
    ox_model_free(m);
}
