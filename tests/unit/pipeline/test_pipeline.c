/* test_pipeline.c — the library entry point: load by content with options, the export stages, the
 * models of stages and programs, and the errors a caller gets instead of a half-made pipeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_paths.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_check.h"
#include "onnx/onnx_ir.h"
#include "pipeline/pipeline.h"

#define FIX TEST_FIXTURES

/* What one run of the pipeline needs: stages, a sink, the op tables, torch's lines collected. */
typedef struct fixture {
    pl_stage stages[PL_N_STAGES];
    diag_sink diag;
    struct ops_registry *ops;
    strbuf progress, torch;
    pl_env env;
    export_settings cfg;
} fixture;

static void collect(void *ctx, pl_print_kind kind, const char *text)
{
    fixture *f = ctx;
    sb_puts(kind == PL_PRINT_PROGRESS ? &f->progress : &f->torch, text);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pl_stages_init(f->stages);
    diag_init(&f->diag);
    sb_init(&f->progress);
    sb_init(&f->torch);
    f->env = (pl_env){.diag = &f->diag, .ops = &f->ops, .print = collect, .print_ctx = f};
    settings_init(&f->cfg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&f->stages[i]);
    diag_free(&f->diag);
    pl_free_ops(f->ops);
    sb_free(&f->progress);
    sb_free(&f->torch);
    settings_free(&f->cfg);
    free(f);
    return 0;
}

/* The first error's message, or "" (for assertion messages). */
static const char *first_error(const diag_sink *d)
{
    for (size_t i = 0; i < d->len; i++)
        if (d->items[i].severity == DIAG_ERROR) return d->items[i].message;
    return "";
}

static void load_into(fixture *f, const char *path, const pl_load_options *o)
{
    pl_loaded l;
    if (!pl_load_file(path, o, &l, &f->diag)) fail_msg("load %s: %s", path, first_error(&f->diag));
    if (l.fx) pl_stage_set_fx(&f->stages[l.stage], l.fx, path);
    else pl_stage_set_onnx(&f->stages[l.stage], l.onnx, path);
}

/* Each format is recognised by its content and lands in the stage torch's pipeline has it at. */
static void test_load_by_content(void **state)
{
    fixture *f = *state;
    static const struct { const char *file; int stage; pl_stage_kind kind; } cases[] = {
        {FIX "/pt2/mlp.pt2", PL_STAGE_EXPORTED, PL_FX},
        {FIX "/pt2/mlp.json", PL_STAGE_EXPORTED, PL_FX},
        {FIX "/fx/mlp_exported.fx.txt", PL_STAGE_EXPORTED, PL_FX},
        {FIX "/fx/mlp_exported.readable.txt", PL_STAGE_EXPORTED, PL_FX},
        {FIX "/fx/mlp_torch_level.module.txt", PL_STAGE_FX, PL_FX},
        {FIX "/onnx/test_if/model.onnx", PL_STAGE_ONNX, PL_ONNX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pl_loaded l;
        if (!pl_load_file(cases[i].file, NULL, &l, &f->diag)) fail_msg("%s: %s", cases[i].file, first_error(&f->diag));
        assert_int_equal(l.stage, cases[i].stage);
        assert_true(cases[i].kind == PL_FX ? l.fx != NULL && !l.onnx : l.onnx != NULL && !l.fx);
        pl_loaded_free(&l);
    }
    assert_false(diag_has_errors(&f->diag));
}

/* A file that is none of the formats is refused with what it looks like; nothing is loaded. */
static void test_load_refuses(void **state)
{
    fixture *f = *state;
    static const char png[] = "\x89PNG\r\n\x1a\n rest of an image";
    pl_loaded l;
    assert_false(pl_load_buffer(png, sizeof png - 1, "picture.png", NULL, &l, &f->diag));
    assert_null(l.fx);
    assert_null(l.onnx);
    assert_non_null(strstr(first_error(&f->diag), "a PNG image"));
    diag_clear(&f->diag);
    /* archives need a file: their weights are mapped from it */
    assert_false(pl_load_buffer("{\"graph_module\": {}}", 20, "<paste>", NULL, &l, &f->diag));
    assert_non_null(strstr(first_error(&f->diag), "must be loaded from a file"));
}

/* --input and --weights must name what the program has; the error lists what it has. */
static void test_load_options_checked(void **state)
{
    fixture *f = *state;
    ts_input_decl in;
    assert_true(ts_parse_input_decl("nosuch=f32[2,3]", &in));
    pl_load_options o = {.inputs = &in, .n_inputs = 1};
    pl_loaded l;
    assert_false(pl_load_file(FIX "/fx/mlp_exported.fx.txt", &o, &l, &f->diag));
    assert_non_null(strstr(first_error(&f->diag), "the program has no input 'nosuch'"));
    diag_clear(&f->diag);
    /* an ONNX model carries its own initializers */
    pl_load_options w = {.weights = FIX "/pt2/mlp.pt2"};
    assert_false(pl_load_file(FIX "/onnx/test_if/model.onnx", &w, &l, &f->diag));
    assert_non_null(strstr(first_error(&f->diag), "carries its own initializers"));
    diag_clear(&f->diag);
    /* weights of another model name nothing of this one */
    pl_load_options other = {.weights = FIX "/pt2/mlp.pt2"};
    assert_false(pl_load_file(FIX "/pt2/cond_dynamic.json", &other, &l, &f->diag));
    assert_non_null(strstr(first_error(&f->diag), "load --weights"));
}

/* A torch.export archive through every stage: torch's progress lines, a model onnx's checks
 * accept, and the earlier stages left as they were. */
static void test_export_all_stages(void **state)
{
    fixture *f = *state;
    load_into(f, FIX "/pt2/mlp.pt2", NULL);
    const fx_program *loaded = f->stages[PL_STAGE_EXPORTED].fx;
    pl_export_result res;
    if (!pl_export(f->stages, &f->cfg, NULL, &f->env, &res)) fail_msg("export: %s", first_error(&f->diag));
    assert_int_equal(res.failed_stage, -1);
    assert_false(res.ran[PL_STAGE_EXPORTED]);   /* an archive starts at exported: no capture */
    for (int i = PL_STAGE_DECOMPOSED; i < PL_N_STAGES; i++) {
        assert_true(res.ran[i]);
        assert_int_not_equal(f->stages[i].kind, PL_EMPTY);
    }
    assert_ptr_equal(f->stages[PL_STAGE_EXPORTED].fx, loaded);
    assert_string_equal(f->progress.s,
                        "[torch.onnx] Run decompositions...\n[torch.onnx] Run decompositions... ✅\n"
                        "[torch.onnx] Translate the graph into ONNX...\n[torch.onnx] Translate the graph into ONNX... ✅\n"
                        "[torch.onnx] Optimize the ONNX graph...\n[torch.onnx] Optimize the ONNX graph... ✅\n");
    diag_sink problems;
    diag_init(&problems);
    assert_int_equal(ox_check(f->stages[PL_STAGE_OPTIMIZED].onnx, &problems), 0);
    diag_free(&problems);
    /* optimize off stops at onnx; verbose off prints nothing */
    f->cfg.optimize = false;
    f->cfg.verbose = false;
    sb_reset(&f->progress);
    assert_true(pl_export(f->stages, &f->cfg, NULL, &f->env, NULL));
    assert_int_equal(f->progress.len, 0);
    assert_int_equal(f->stages[PL_STAGE_ONNX].kind, PL_ONNX);
}

/* torch's settings warnings come as torch's text, and the settings are adjusted as torch does. */
static void test_settings_adjusted(void **state)
{
    fixture *f = *state;
    f->cfg.opset_version = 17;
    pl_adjust_settings(&f->cfg, &f->env);
    assert_int_equal(f->cfg.opset_version, 18);
    assert_non_null(strstr(f->torch.s, "Setting ONNX exporter to use operator set version 18"));
}

/* A torch-level program without example inputs stops before capture, with the load to run. */
static void test_missing_inputs_refused(void **state)
{
    fixture *f = *state;
    load_into(f, FIX "/fx/mlp_torch_level.module.txt", NULL);
    f->env.load_command = "load mlp.module.txt";
    pl_export_result res;
    assert_false(pl_export(f->stages, &f->cfg, NULL, &f->env, &res));
    assert_int_equal(res.failed_stage, PL_STAGE_EXPORTED);
    assert_int_equal(f->stages[PL_STAGE_EXPORTED].kind, PL_EMPTY);
    assert_non_null(strstr(first_error(&f->diag), "has no dtype and shape"));
    const diagnostic *e = NULL;
    for (size_t i = 0; i < f->diag.len && !e; i++)
        if (f->diag.items[i].severity == DIAG_ERROR) e = &f->diag.items[i];
    assert_non_null(e->hint);
    assert_non_null(strstr(e->hint, "load mlp.module.txt --input x=f32["));
}

/* The same program with its inputs declared goes through capture, and the model of any FX stage
 * can be had without running the later stages. */
static void test_torch_level_export_and_stage_model(void **state)
{
    fixture *f = *state;
    ts_input_decl in;
    assert_true(ts_parse_input_decl("x=f32[2,8]", &in));
    pl_load_options o = {.inputs = &in, .n_inputs = 1};
    load_into(f, FIX "/fx/mlp_torch_level.module.txt", &o);
    f->cfg.verbose = false;
    assert_true(pl_run_stage(f->stages, PL_STAGE_EXPORTED, &f->cfg, NULL, &f->env));
    assert_int_equal(f->stages[PL_STAGE_EXPORTED].kind, PL_FX);
    bool owned;
    ox_model *m = pl_stage_model(f->stages, PL_STAGE_EXPORTED, &f->cfg, "run", &f->env, &owned);
    if (!m) fail_msg("stage model: %s", first_error(&f->diag));
    assert_true(owned);
    assert_int_equal(f->stages[PL_STAGE_DECOMPOSED].kind, PL_EMPTY);   /* nothing else made */
    ox_model_free(m);
    /* the fx stage is not yet exported: the message says which step comes first */
    assert_null(pl_stage_model(f->stages, PL_STAGE_FX, &f->cfg, "run", &f->env, &owned));
    assert_non_null(strstr(first_error(&f->diag), "not yet exported"));
    diag_clear(&f->diag);
    m = pl_program_model(f->stages[PL_STAGE_FX].fx, &f->cfg, &f->env);
    if (!m) fail_msg("program model: %s", first_error(&f->diag));
    assert_int_equal(f->diag.len, 0);   /* a successful internal run says nothing */
    ox_model_free(m);
}

/* Export with nothing loaded is an error, not a crash. */
static void test_export_nothing(void **state)
{
    fixture *f = *state;
    assert_false(pl_export(f->stages, &f->cfg, NULL, &f->env, NULL));
    assert_non_null(strstr(first_error(&f->diag), "no FX program loaded"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_by_content, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_options_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_all_stages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_settings_adjusted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_inputs_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torch_level_export_and_stage_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
