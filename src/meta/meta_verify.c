/* meta_verify.c — a loaded program checked against itself: every node's declared value meta
 * (a .pt2's tensor_values, a readable graph's annotations) must be what its op computes from its
 * arguments' declared metas, as torch's fake tensors would compute it. A declared shape is never
 * copied through into a model: a disagreement is an error at the node. */
#include "meta/meta_verify.h"

#include <stdio.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/shape.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_control.h"
#include "fx/fx_format.h"
#include "meta/meta_autocast.h"
#include "meta/meta_infer.h"
#include "tables/aten_schemas.h"

/* After this many disagreements the rest are no news: the program is inconsistent. */
#define MAX_REPORTED 8

typedef struct verifier {
    fx_program *p;
    const meta_rules *rules;
    autocast_regions autocast;   /* torch.autocast regions: their ops' dtypes are autocast's */
    diag_sink *d;
    arena keys;
    hashmap bad;       /* nodes reported (key: address): their users are not compared again */
    size_t errors;
} verifier;

static const char *node_key(const fx_node *n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%p", (const void *)n);
    return buf;
}

static void note_bad_input(fx_node *in, void *ctx)
{
    verifier *V = ((void **)ctx)[0];
    char k[32];
    if (hm_has(&V->bad, node_key(in, k, sizeof k)))
        *(bool *)((void **)ctx)[1] = true;
}

/* An input already reported: n's value follows from a wrong one, and comparing it is noise. */
static bool after_bad(verifier *V, const fx_node *n)
{
    bool hit = false;
    void *ctx[2] = { V, &hit };
    fx_arg_each_node(n->args, note_bad_input, ctx);
    fx_arg_each_node(n->kwargs, note_bad_input, ctx);
    return hit;
}

/* Two sizes disagree only when both are integers: a symbolic size is what torch's symbolic
 * shapes made of the program's range constraints (slice(x, 1, 0, s70) is s70, not min(s70, 64),
 * because s70 <= 64), which the rules do not know; unbacked symbols (u0) are fresh at each
 * inference. So dynamic dimensions are not compared, static ones exactly. */
static bool same_size(const char *a, const char *b)
{
    int64_t x, y;
    return !strcmp(a, b) || shape_parse_dim(a, &x) != 1 || shape_parse_dim(b, &y) != 1 || x == y;
}

/* The declared value decl against the inferred one got: false with what differs in why. */
static bool same_value(verifier *V, const fx_value *decl, const fx_value *got, strbuf *why)
{
    if (!decl || !got)
        return true;
    if (decl->kind == FX_VAL_TUPLE && got->kind == FX_VAL_TUPLE) {
        if (decl->n_items != got->n_items) {
            sb_printf(why, "%zu results, not %zu", got->n_items, decl->n_items);
            return false;
        }
        for (size_t i = 0; i < decl->n_items; i++)
            if (!same_value(V, decl->items[i], got->items[i], why)) {
                sb_printf(why, " (result %zu)", i);
                return false;
            }
        return true;
    }
    if (decl->kind != FX_VAL_TENSOR || got->kind != FX_VAL_TENSOR)
        return true;   /* SymInts and opaque annotations: not compared */
    bool same = (decl->dtype == FX_DT_UNKNOWN || got->dtype == FX_DT_UNKNOWN || decl->dtype == got->dtype) &&
                decl->rank == got->rank;
    for (size_t i = 0; same && i < decl->rank; i++)
        same = same_size(decl->sizes[i], got->sizes[i]);
    if (same)
        return true;
    sb_puts(why, "computes ");
    fx_value_annot(why, got);
    sb_puts(why, " but the program declares ");
    fx_value_annot(why, decl);
    return false;
}

/* n's arguments bound to torch's schema of its ATen target, as torch.export.load binds them: more
 * positional arguments than the schema takes, a keyword it
 * does not name, or a required argument missing (a number where a Tensor goes is how export
 * records a scalar operand: add.Tensor(x, 1)). false with the
 * reason in why. Other namespaces (custom ops) are not checked. */
static bool binds_to_schema(verifier *V, const fx_node *n, char *why, size_t cap)
{
    const char *t = n->target;
    if (strncmp(t, "torch.ops.aten.", 15) != 0)
        return true;
    aten_schema s;
    /* an overload torch's table does not have is left to export, which names it and how to add
     * a lowering for it (a user's own op, an op newer than the table) */
    if (!aten_schemas_parse(&V->keys, t, &s, NULL))
        return true;
    size_t na = n->args ? n->args->u.seq.len : 0, nk = n->kwargs ? n->kwargs->u.seq.len : 0;
    if (na > s.nargs) {
        snprintf(why, cap, "%zu positional arguments for a schema of %zu (%s)", na, s.nargs, s.text);
        return false;
    }
    for (size_t i = 0; i < s.nargs; i++) {
        const fx_arg *a = i < na ? n->args->u.seq.items[i] : NULL;
        if (!a)
            for (size_t k = 0; k < nk; k++)
                if (!strcmp(n->kwargs->u.seq.keys[k], s.args[i].name))
                    a = n->kwargs->u.seq.items[k];
        if (!a && !s.args[i].has_default && !s.args[i].optional) {
            snprintf(why, cap, "argument '%s' is missing (%s)", s.args[i].name, s.text);
            return false;
        }
        /* a bool parameter takes True / False: Python's parser refuses a number there ("must be
         * bool, not int"), and an int kept as one would reach ONNX as keepdims=10 */
        if (a && s.args[i].base == ATY_BOOL && !s.args[i].is_list && (a->kind == FX_ARG_INT || a->kind == FX_ARG_FLOAT)) {
            snprintf(why, cap, "argument '%s' must be bool, not %s (%s)", s.args[i].name,
                     a->kind == FX_ARG_INT ? "int" : "float", s.text);
            return false;
        }
    }
    for (size_t k = 0; k < nk; k++)
        if (aten_schema_find(&s, n->kwargs->u.seq.keys[k]) < 0) {
            snprintf(why, cap, "unexpected keyword argument '%s' (%s)", n->kwargs->u.seq.keys[k], s.text);
            return false;
        }
    return true;
}

/* In an enabled autocast region the op's float result is in the dtype autocast runs it in. */
static void autocast_dtype(const verifier *V, const fx_node *n, fx_value *got)
{
    const autocast_region *r = autocast_region_of(&V->autocast, n->graph);
    if (!r || r->dtype == FX_DT_UNKNOWN || got->kind != FX_VAL_TENSOR) return;
    bool fl = got->dtype == FX_DT_F32 || got->dtype == FX_DT_F64 || got->dtype == FX_DT_F16 || got->dtype == FX_DT_BF16;
    if (!fl) return;
    autocast_policy pol = autocast_policy_cpu(n->target);
    if (pol == AC_LOWER) got->dtype = r->dtype;
    else if (pol == AC_FP32) got->dtype = FX_DT_F32;
}

static void verify_node(verifier *V, fx_node *n)
{
    if (n->op != FX_OP_CALL_FUNCTION || !n->target)
        return;
    /* higher-order ops and Python control flow: their values are their subgraphs' results,
     * which the subgraphs' own nodes are checked for */
    if (fx_control_kind_of(n) != FX_CTRL_NONE || !strncmp(n->target, "torch.ops.higher_order.", 23) ||
        !strcmp(n->target, "operator.getitem"))
        return;
    char key[32];
    if (after_bad(V, n)) {
        hm_put(&V->bad, arena_strdup(&V->keys, node_key(n, key, sizeof key)), n);
        return;
    }
    char why[400];
    strbuf msg;
    sb_init(&msg);
    bool bad = false;
    fx_value *got = NULL;
    bool call = false;   /* the call itself, not its recorded value */
    if (!binds_to_schema(V, n, why, sizeof why)) {
        sb_printf(&msg, "%s", why);
        bad = call = true;
    } else if (!n->meta.val) {
        /* nothing recorded to compare (a multi-output call whose items carry the values, a
         * readable-code line without an annotation), but a call torch would reject is still
         * an error: split_with_sizes whose sizes do not sum to the dim */
        if (!meta_infer_node_again(V->p, V->rules, n, why, sizeof why) && why[0]) {
            sb_printf(&msg, "%s", why);
            bad = true;
        }
    } else if (!(got = meta_infer_node_again(V->p, V->rules, n, why, sizeof why)) && why[0]) {
        sb_printf(&msg, "%s", why);
        bad = true;
    } else if (got) {
        autocast_dtype(V, n, got);
        bad = !same_value(V, n->meta.val, got, &msg);
    }
    if (bad) {
        if (V->errors < MAX_REPORTED) {
            diagnostic *dg = diag_error(V->d, (diag_loc){ V->p->file, n->src_line, 0 },
                                        "inconsistent program at %%%s (%s): %s", n->name, n->target, msg.s);
            if (call)
                diag_set_hint(dg, "torch.export.load refuses such a call too (an edited file, or one written by "
                                  "another version of torch?); export it again with torch.export");
            else
                diag_set_hint(dg, "the program's recorded shapes do not follow from its operators and inputs (an "
                                  "edited or corrupted file?); export it again with torch.export");
        }
        hm_put(&V->bad, arena_strdup(&V->keys, node_key(n, key, sizeof key)), n);
        V->errors++;
    }
    sb_free(&msg);
}

static void verify_graph(verifier *V, fx_graph *g)
{
    for (fx_node *n = g ? g->first : NULL; n && !interrupt_pending(); n = n->next) {
        verify_node(V, n);
    }
}

static void verify_modules(verifier *V, fx_module *m)
{
    if (m->graph && m->graph != fx_program_graph(V->p))
        verify_graph(V, m->graph);
    for (fx_module *c = m->first_child; c; c = c->next_sibling)
        verify_modules(V, c);
}

bool meta_verify_program(fx_program *p, diag_sink *d)
{
    /* broken tables are reported by the pass that needs them (export); a load is not refused
     * for a check that cannot run */
    diag_sink quiet;
    diag_init(&quiet);
    const meta_rules *rules = meta_rules_shipped(&quiet);
    diag_free(&quiet);
    if (!rules)
        return true;
    verifier V = { .p = p, .rules = rules, .d = d };
    arena_init(&V.keys);
    hm_init(&V.bad);
    autocast_regions_find(p, &V.autocast);
    verify_graph(&V, fx_program_graph(p));
    if (p->root)
        verify_modules(&V, p->root);
    hm_free(&V.bad);
    arena_free(&V.keys);
    autocast_regions_free(&V.autocast);
    if (V.errors > MAX_REPORTED)
        diag_note(d, (diag_loc){ p->file, 0, 0 }, "%zu more nodes disagree with their declared values",
                  V.errors - MAX_REPORTED);
    return V.errors == 0;
}

/* Each ATen call of g (and of its subgraphs' modules, below) bound to its schema. */
static void check_calls_graph(verifier *V, const fx_graph *g)
{
    for (const fx_node *n = g ? g->first : NULL; n && !interrupt_pending(); n = n->next) {
        char why[400];
        if (n->op != FX_OP_CALL_FUNCTION || !n->target || binds_to_schema(V, n, why, sizeof why))
            continue;
        if (V->errors++ < MAX_REPORTED) {
            diagnostic *dg = diag_error(V->d, (diag_loc){ V->p->file, n->src_line, 0 }, "%%%s calls %s with arguments "
                                        "its schema refuses: %s", n->name, n->target, why);
            diag_set_hint(dg, "torch refuses that call too (an edited program?)");
        }
    }
}

static void check_calls_modules(verifier *V, const fx_module *m)
{
    if (m->graph && m->graph != fx_program_graph(V->p))
        check_calls_graph(V, m->graph);
    for (const fx_module *c = m->first_child; c; c = c->next_sibling)
        check_calls_modules(V, c);
}

bool meta_check_calls(fx_program *p, diag_sink *d)
{
    verifier V = { .p = p, .d = d };
    arena_init(&V.keys);
    check_calls_graph(&V, fx_program_graph(p));
    if (p->root)
        check_calls_modules(&V, p->root);
    arena_free(&V.keys);
    return V.errors == 0;
}
