/* pl_stages.c — the pipeline's stages: their names, and what each holds (see pipeline.h). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "pipeline/pipeline.h"

static const char *const stage_names[PL_N_STAGES] = {
    "fx", "exported", "decomposed", "onnx", "optimized",
};

int pl_stage_index(const char *name)
{
    for (int i = 0; name && i < PL_N_STAGES; i++)
        if (strcmp(stage_names[i], name) == 0) return i;
    return -1;
}

const char *pl_stage_name(int index)
{
    return index >= 0 && index < PL_N_STAGES ? stage_names[index] : NULL;
}

void pl_stages_init(pl_stage stages[PL_N_STAGES])
{
    memset(stages, 0, PL_N_STAGES * sizeof *stages);
    for (int i = 0; i < PL_N_STAGES; i++) stages[i].name = stage_names[i];
}

void pl_stage_clear(pl_stage *st)
{
    if (st->fx) fx_program_free(st->fx);
    if (st->onnx) ox_model_free(st->onnx);
    for (int i = 0; i < 2; i++) {
        if (st->keepalive[i]) fx_program_free(st->keepalive[i]);
        st->keepalive[i] = NULL;
    }
    free(st->source);
    st->fx = NULL;
    st->onnx = NULL;
    st->source = NULL;
    st->kind = PL_EMPTY;
}

void pl_stage_set_fx(pl_stage *st, struct fx_program *p, const char *source)
{
    pl_stage_clear(st);
    st->kind = PL_FX;
    st->fx = p;
    st->source = source ? xstrdup(source) : NULL;
}

void pl_stage_set_onnx(pl_stage *st, struct ox_model *m, const char *source)
{
    pl_stage_clear(st);
    st->kind = PL_ONNX;
    st->onnx = m;
    st->source = source ? xstrdup(source) : NULL;
}

int pl_first_fx_stage(const pl_stage stages[PL_N_STAGES])
{
    for (int i = 0; i < PL_N_STAGES; i++)
        if (stages[i].kind == PL_FX) return i;
    return -1;
}
