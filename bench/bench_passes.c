/* bench_passes.c — time of each pipeline pass against graph size (`make bench`): it must grow linearly.
 *
 * Builds a transformer-like torch-level FX program of N blocks (torch.mm with a weight, bias add,
 * relu, scale, residual add, softmax every 4th block) as print(gm.graph) text, then runs it
 * through the pipeline's entry point as the shell does — load (with its example inputs), capture
 * (torch.export), decompose (the ONNX table), translate and optimize — best of a few runs each,
 * and prints ms and ns per node. A pass whose ns/node grows with N is not linear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "pipeline/pipeline.h"

enum { RUNS = 3 };

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
    sb_printf(sb, "    %%x : [num_users=2] = placeholder[target=x]\n");
    sb_printf(sb, "    %%w : [num_users=%d] = placeholder[target=w]\n", blocks);
    sb_printf(sb, "    %%b : [num_users=%d] = placeholder[target=b]\n", blocks);
    const char *prev = "x";
    char cur[32], prevbuf[32];
    int n = 0;
    for (int i = 0; i < blocks; i++) {
        bool soft = i % 4 == 3;
        sb_printf(sb, "    %%mm_%d : [num_users=1] = call_function[target=torch.mm](args = (%%%s, %%w), kwargs = {})\n", i, prev);
        sb_printf(sb, "    %%bias_%d : [num_users=1] = call_function[target=operator.add](args = (%%mm_%d, %%b), kwargs = {})\n", i, i);
        sb_printf(sb, "    %%relu_%d : [num_users=1] = call_function[target=torch.relu](args = (%%bias_%d,), kwargs = {})\n", i, i);
        sb_printf(sb, "    %%scale_%d : [num_users=1] = call_function[target=operator.mul](args = (%%relu_%d, 0.5), kwargs = {})\n", i, i);
        sb_printf(sb, "    %%res_%d : [num_users=%d] = call_function[target=operator.add](args = (%%scale_%d, %%%s), kwargs = {})\n",
                  i, i + 1 < blocks ? 2 : 1, i, prev);
        n += 5;
        snprintf(cur, sizeof cur, "res_%d", i);
        if (soft) {
            sb_printf(sb, "    %%soft_%d : [num_users=%d] = call_function[target=torch.softmax](args = (%%res_%d, -1), kwargs = {})\n",
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

static void fail(const char *what, diag_sink *d)
{
    for (size_t i = 0; i < d->len; i++)
        if (d->items[i].severity == DIAG_ERROR) {
            fprintf(stderr, "bench: %s failed: %s\n", what, d->items[i].message);
            exit(1);
        }
    fprintf(stderr, "bench: %s failed\n", what);
    exit(1);
}

int main(int argc, char **argv)
{
    int sizes[] = {1000, 4000, 16000, 64000};
    int nsizes = argc > 1 ? 1 : 4;
    if (argc > 1) sizes[0] = atoi(argv[1]);
    diag_sink d;
    diag_init(&d);
    struct ops_registry *ops = NULL;
    pl_env env = {.diag = &d, .ops = &ops};
    if (!pl_ensure_ops(&env)) fail("loading the op tables", &d);
    export_settings cfg;
    settings_init(&cfg);
    cfg.verbose = false;
    ts_input_decl in[3];
    if (!ts_parse_input_decl("x=f32[4,16]", &in[0]) || !ts_parse_input_decl("w=f32[16,16]", &in[1]) ||
        !ts_parse_input_decl("b=f32[16]", &in[2]))
        fail("declaring the inputs", &d);
    pl_load_options lo = {.inputs = in, .n_inputs = 3};
    static const char *const names[] = {"load", "capture", "decomp", "transl", "optim"};
    printf("%-10s", "nodes");
    for (int k = 0; k < 5; k++) printf(" %8s ms", names[k]);
    printf(" %10s   %s\n", "total ms", "ns/node (load capture decomp transl optim)");
    for (int s = 0; s < nsizes; s++) {
        strbuf text;
        sb_init(&text);
        int n_nodes = 0;
        make_graph(&text, sizes[s] / 5, &n_nodes);
        double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
        for (int r = 0; r < RUNS; r++) {
            pl_stage stages[PL_N_STAGES];
            pl_stages_init(stages);
            double t[6];
            t[0] = now_ms();
            pl_loaded l;
            if (!pl_load_buffer(text.s, text.len, "bench", &lo, &l, &d)) fail("load", &d);
            pl_stage_set_fx(&stages[l.stage], l.fx, "bench");
            t[1] = now_ms();
            for (int to = PL_STAGE_EXPORTED; to <= PL_STAGE_OPTIMIZED; to++) {
                if (!pl_run_stage(stages, to, &cfg, NULL, &env)) fail(pl_stage_name(to), &d);
                t[to + 1] = now_ms();
            }
            for (int k = 0; k < 5; k++)
                if (t[k + 1] - t[k] < best[k]) best[k] = t[k + 1] - t[k];
            for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&stages[i]);
            diag_clear(&d);
        }
        double total = 0;
        printf("%-10d", n_nodes);
        for (int k = 0; k < 5; k++) {
            printf(" %11.1f", best[k]);
            total += best[k];
        }
        printf(" %10.1f  ", total);
        for (int k = 0; k < 5; k++) printf(" %.0f", best[k] * 1e6 / n_nodes);
        printf("\n");
        sb_free(&text);
    }
    settings_free(&cfg);
    pl_free_ops(ops);
    diag_free(&d);
    return 0;
}
