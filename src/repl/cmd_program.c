/* cmd_program.c — commands on torch.export programs: signature, params, weights. */
#include "base/strbuf.h"
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

int cmd_weights(session *s, int argc, char **argv)
{
    stage *st = session_current(s);
    if (!st) {
        session_error(s, "weights: nothing loaded (use `load FILE` first)");
        return 1;
    }
    strbuf sb;
    sb_init(&sb);
    diag_sink *d = &s->diag;
    int rc = st->kind == PL_FX ? (fx_program_weight_summary(st->fx, argv[1], &sb, d) ? 0 : -1)
                                  : view_show_initializer(st->onnx, argv[1], &sb, d);
    if (rc == 0) session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return rc ? 1 : 0;
}
