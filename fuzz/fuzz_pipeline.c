/* fuzz_pipeline.c — libFuzzer harness over the whole pipeline, as `load F` + `export` + `check` +
 * `save` run it: any file (by content: FX text, TorchScript, .pt2 / JSON, ONNX), loaded through
 * the pipeline's entry point, every user input without an example given one (so that capture
 * runs), exported through every stage, and the resulting model checked and serialized. The input
 * goes through a file because archives and binary ONNX are mapped from their file, as `load`
 * maps them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_check.h"
#include "onnx/onnx_edit.h"
#include "onnx/onnx_pb.h"
#include "pipeline/pipeline.h"
#include "fuzz/fuzz.h"

/* "name=f32[2,3]" for each placeholder of a torch-level program that has no example value: the
 * `inputs` setting a user would give. */
static void example_inputs(const fx_program *p, strbuf *out)
{
    const fx_graph *g = fx_program_graph((fx_program *)p);
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next)
        if (n->op == FX_OP_PLACEHOLDER && !n->meta.val && strlen(n->name) < 64)
            sb_printf(out, "%s%s=f32[2,3]", out->len ? "," : "", n->name);
}

/* The serialized model, as `save` writes it (to a memory buffer). */
static void serialize(const ox_model *m)
{
    size_t len = 0;
    free(ox_pack(m, &len));
}

FXSH_FUZZ_ENTRY(pipeline)
{
    char path[64];
    snprintf(path, sizeof path, "%s/fxsh-fuzz-pipeline-%ld", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t wrote = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || wrote != size) {
        unlink(path);
        return 0;
    }
    diag_sink d;
    diag_init(&d);
    struct ops_registry *ops = NULL;
    pl_env env = {.diag = &d, .ops = &ops};
    pl_stage stages[PL_N_STAGES];
    pl_stages_init(stages);
    pl_loaded l;
    if (pl_load_file(path, NULL, &l, &d)) {
        if (l.fx) pl_stage_set_fx(&stages[l.stage], l.fx, path);
        else pl_stage_set_onnx(&stages[l.stage], l.onnx, path);
        export_settings cfg;
        settings_init(&cfg);
        cfg.verbose = false;
        strbuf inputs;
        sb_init(&inputs);
        if (l.fx && l.stage == PL_STAGE_FX) example_inputs(l.fx, &inputs);
        if (inputs.len && !settings_set(&cfg, "inputs", inputs.s, &d)) sb_reset(&inputs);
        if (l.fx) pl_export(stages, &cfg, NULL, &env, NULL);
        /* the last model made (or loaded): check it, print it and write it, as the shell would */
        for (int i = PL_N_STAGES - 1; i >= 0; i--)
            if (stages[i].kind == PL_ONNX) {
                ox_check(stages[i].onnx, &d);
                serialize(stages[i].onnx);
                fuzz_use_onnx(ox_model_copy(stages[i].onnx, &d), &d);
                break;
            }
        sb_free(&inputs);
        settings_free(&cfg);
    }
    for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&stages[i]);
    pl_free_ops(ops);
    diag_free(&d);
    unlink(path);
    return 0;
}
