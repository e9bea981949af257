/* bench_passes.c — time of each pipeline pass against graph size (`make bench`): it must grow linearly.
 *
 * Builds a transformer-like FX program of N blocks (mm with a weight, bias add, relu, scale,
 * residual add, softmax every 4th block) as print(gm.graph) text, then times parse, decompose
 * (the ONNX table), translate and optimize on it, best of a few runs each, and prints ms and
 * ns per node. A pass whose ns/node grows with N is not linear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "decompose/decompose.h"
#include "optimize/optimize.h"
#include "translate/translate.h"

enum { DIM = 16, ROWS = 4, RUNS = 3 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* print(gm.graph) text of `blocks` blocks; *n_nodes gets the number of call_function nodes. */
static void make_graph(strbuf *sb, int blocks, int *n_nodes)
{
    sb_puts(sb, "graph():\n");
    sb_printf(sb, "    %%p_w : [num_users=%d] = placeholder[target=p_w]\n", blocks);
    sb_printf(sb, "    %%p_b : [num_users=%d] = placeholder[target=p_b]\n", blocks);
    sb_puts(sb, "    %x : [num_users=2] = placeholder[target=x]\n");
    const char *prev = "x";
    char cur[32], prevbuf[32];
    int n = 0;
    for (int i = 0; i < blocks; i++) {
        bool soft = i % 4 == 3;
        sb_printf(sb, "    %%mm_%d : [num_users=1] = call_function[target=torch.ops.aten.mm.default](args = (%%%s, %%p_w), kwargs = {})\n", i, prev);
        sb_printf(sb, "    %%bias_%d : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%%mm_%d, %%p_b), kwargs = {})\n", i, i);
        sb_printf(sb, "    %%relu_%d : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%%bias_%d,), kwargs = {})\n", i, i);
        sb_printf(sb, "    %%scale_%d : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%%relu_%d, 0.5), kwargs = {})\n", i, i);
        sb_printf(sb, "    %%res_%d : [num_users=%d] = call_function[target=torch.ops.aten.add.Tensor](args = (%%scale_%d, %%%s), kwargs = {})\n",
                  i, i + 1 < blocks ? 2 : 1, i, prev);
        n += 5;
        snprintf(cur, sizeof cur, "res_%d", i);
        if (soft) {
            sb_printf(sb, "    %%soft_%d : [num_users=%d] = call_function[target=torch.ops.aten._softmax.default](args = (%%res_%d, -1, False), kwargs = {})\n",
                      i, i + 1 < blocks ? 2 : 1, i);
            snprintf(cur, sizeof cur, "soft_%d", i);
            n++;
        }
        snprintf(prevbuf, sizeof prevbuf, "%s", cur);
        prev = prevbuf;
    }
    sb_printf(sb, "    return (%s,)", prev);
    *n_nodes = n;
}

/* Every node gets the meta torch.export would record (all values are f32[ROWS, DIM]); the
 * weights are parameters with data, so translate makes initializers. */
static void add_meta_and_weights(fx_program *p)
{
    static float w[DIM * DIM], b[DIM];
    for (size_t i = 0; i < DIM * DIM; i++) w[i] = (float)((i % 7) - 3) / 16.0f;
    fx_graph *g = fx_program_graph(p);
    for (fx_node *n = g->first; n; n = n->next) {
        if (n->op == FX_OP_OUTPUT) continue;
        fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
        v->dtype = FX_DT_F32;
        bool weight = !strcmp(n->name, "p_w"), bias = !strcmp(n->name, "p_b");
        v->rank = bias ? 1 : 2;
        v->sizes = fx_alloc(p, 2 * sizeof *v->sizes);
        v->sizes[0] = bias ? "16" : weight ? "16" : "4";
        v->sizes[1] = "16";
        n->meta.val = v;
    }
    static fx_input_spec in[3];
    in[0] = (fx_input_spec){FX_IN_PARAMETER, "p_w", "w", false};
    in[1] = (fx_input_spec){FX_IN_PARAMETER, "p_b", "b", false};
    in[2] = (fx_input_spec){FX_IN_USER_INPUT, "x", NULL, false};
    static fx_output_spec out[1];
    out[0] = (fx_output_spec){FX_OUT_USER_OUTPUT, g->last->prev->name, NULL};
    p->sig = (fx_signature){in, 3, out, 1, true};
    fx_program_add_weight(p, "w", FX_TENSOR_PARAMETER, FX_DT_F32, (const int64_t[]){DIM, DIM}, 2, w, sizeof w, false);
    fx_program_add_weight(p, "b", FX_TENSOR_PARAMETER, FX_DT_F32, (const int64_t[]){DIM}, 1, b, sizeof b, false);
}

static void fail(const char *what, diag_sink *d)
{
    fprintf(stderr, "bench: %s failed: %s\n", what, d->len ? d->items[0].message : "?");
    exit(1);
}

int main(int argc, char **argv)
{
    int sizes[] = {1000, 4000, 16000, 64000};
    int nsizes = argc > 1 ? 1 : 4;
    if (argc > 1) sizes[0] = atoi(argv[1]);
    ops_registry reg;
    ops_registry_init(&reg);
    diag_sink d;
    diag_init(&d);
    if (!ops_load_default(&reg, &d)) fail("loading the op tables", &d);
    printf("%-10s %10s %10s %10s %10s %10s   %s\n", "nodes", "parse ms", "decomp ms", "transl ms", "optim ms", "total ms",
           "ns/node (parse decomp transl optim)");
    for (int s = 0; s < nsizes; s++) {
        strbuf text;
        sb_init(&text);
        int n_nodes = 0;
        make_graph(&text, sizes[s] / 5, &n_nodes);
        double best[4] = {1e30, 1e30, 1e30, 1e30};
        for (int r = 0; r < RUNS; r++) {
            double t0 = now_ms();
            fx_program *p = fx_parse_graph_text(text.s, text.len, "bench", &d);
            double t1 = now_ms();
            if (!p) fail("parse", &d);
            add_meta_and_weights(p);
            double t1b = now_ms();
            fx_program *dp = decompose_program(p, DECOMP_ONNX, &d);
            double t2 = now_ms();
            if (!dp) fail("decompose", &d);
            translate_options o;
            translate_options_init(&o);
            o.registry = &reg;
            ox_model *m = translate_program(dp, &o, &d);
            double t3 = now_ms();
            if (!m) fail("translate", &d);
            if (optimize_model(m, NULL, NULL, &d) != 0) fail("optimize", &d);
            double t4 = now_ms();
            double t[4] = {t1 - t0, t2 - t1b, t3 - t2, t4 - t3};
            for (int k = 0; k < 4; k++)
                if (t[k] < best[k]) best[k] = t[k];
            ox_model_free(m);
            fx_program_free(dp);
            fx_program_free(p);
            diag_clear(&d);
        }
        printf("%-10d %10.1f %10.1f %10.1f %10.1f %10.1f   %.0f %.0f %.0f %.0f\n", n_nodes, best[0], best[1], best[2], best[3],
               best[0] + best[1] + best[2] + best[3], best[0] * 1e6 / n_nodes, best[1] * 1e6 / n_nodes,
               best[2] * 1e6 / n_nodes, best[3] * 1e6 / n_nodes);
        sb_free(&text);
    }
    diag_free(&d);
    ops_registry_free(&reg);
    return 0;
}
