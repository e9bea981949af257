/* cmd_program.c — commands on torch.export programs: signature, params, weights. */
#include <string.h>

#include "base/strbuf.h"
#include "onnx/onnx_tensor.h"
#include "fx/fx.h"
#include "fx/fx_ir.h"
#include "load/pt2_load.h"
#include "view/onnx_inspect.h"
#include "view/onnx_summary.h"
#include "onnx/onnx_ir.h"
#include "repl/cmd_handlers.h"

static stage *need_fx(session *s, const char *cmd)
{
    stage *st = session_current(s);
    if (!st) {
        session_error(s, "%s: nothing loaded (use `load FILE` first)", cmd);
        return NULL;
    }
    if (st->kind != PL_FX) {
        session_error(s, "%s: the %s stage is an ONNX model, not a torch.export program", cmd, st->name);
        return NULL;
    }
    return st;
}

int cmd_signature(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = need_fx(s, "signature");
    if (!st) return 1;
    if (!st->fx->sig.present) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "signature: the %s stage has no graph signature",
                                    st->name);
        diag_set_hint(dg, "signatures come with torch.export programs (.pt2 or its JSON)");
        return 1;
    }
    strbuf sb;
    sb_init(&sb);
    bool ok = true;
    if (json) cmd_json_signature(st, &sb);
    else ok = fx_program_signature(st->fx, &sb, &s->diag);
    if (ok) session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return ok ? 0 : 1;
}

/* params: a program's parameters, buffers and constants, or an ONNX model's initializers (what
 * its weights became). */
int cmd_params(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = session_current(s);
    if (!st) {
        session_error(s, "params: nothing loaded (use `load FILE` first)");
        return 1;
    }
    strbuf sb;
    sb_init(&sb);
    bool ok = true;
    if (json) cmd_json_params(st, &sb);
    else if (st->kind == PL_ONNX) view_show_params(st->onnx, &sb);
    else ok = fx_program_params(st->fx, &sb, &s->diag);
    if (ok) session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return ok ? 0 : 1;
}

/* The values of a weight for `weights --json`: an ONNX initializer, or a program's tensor in the
 * evaluator's form (its dtype's ONNX type); false when they cannot be held (external data, a
 * dtype the evaluator lacks). */
static bool weight_values(const stage *st, const char *name, oe_tensor *t, const char **kind)
{
    memset(t, 0, sizeof *t);
    if (st->kind == PL_ONNX) {
        *kind = "initializer";
        const Onnx__GraphProto *g = st->onnx->proto->graph;
        for (size_t i = 0; g && i < g->n_initializer; i++)
            if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name))
                return ot_from_proto(g->initializer[i], 0, t) == OE_OK;
        return false;
    }
    const fx_weight *w = fx_program_weight_named(st->fx, name);
    if (!w) return false;
    *kind = w->role == FX_TENSOR_PARAMETER ? "parameter" : w->role == FX_TENSOR_BUFFER ? "buffer" : "constant";
    int type = fx_dtype_get(w->dtype)->onnx_type;
    if (!w->data || !ot_dtype_supported(type) || ot_esize(type) != fx_dtype_get(w->dtype)->elem_size ||
        w->rank > OE_MAX_RANK || ot_tensor_init(t, type, w->shape, (int)w->rank) != OE_OK)
        return false;
    if (t->numel) memcpy(t->data, w->data, (size_t)t->numel * ot_esize(type));
    return true;
}

int cmd_weights(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 1, &json)) return 1;
    if (argc < 2) {
        session_error(s, "weights: which one? (usage: weights NAME [--json])");
        return 1;
    }
    stage *st = session_current(s);
    if (!st) {
        session_error(s, "weights: nothing loaded (use `load FILE` first)");
        return 1;
    }
    strbuf sb;
    sb_init(&sb);
    diag_sink *d = &s->diag;
    /* the text form checks the name and the data (its errors are the JSON form's too) */
    int rc = st->kind == PL_FX ? (fx_program_weight_summary(st->fx, argv[1], &sb, d) ? 0 : -1)
                                  : view_show_initializer(st->onnx, argv[1], &sb, d);
    if (rc == 0 && json) {
        oe_tensor t;
        const char *kind = NULL;
        bool have = weight_values(st, argv[1], &t, &kind);
        sb_reset(&sb);
        cmd_json_weights(st, argv[1], kind, have ? &t : NULL, &sb);
        if (have) ot_tensor_free(&t);
    }
    if (rc == 0) session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return rc ? 1 : 0;
}
