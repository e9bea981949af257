/* onnx_eval_control.c — control flow and containers: If, Loop, Scan (their bodies run through
 * onnx_eval_graph.c), the Sequence* ops, SplitToSequence, ConcatFromSequence, SequenceMap, and
 * Optional, OptionalHasElement, OptionalGetElement. */
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* Element type declared for a graph value (tensor, or a sequence's / optional's tensors). */
static int declared_elem_type(const Onnx__TypeProto *t)
{
    for (int depth = 0; t && depth < 8; depth++) {
        switch (t->value_case) {
        case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: return t->tensor_type ? t->tensor_type->elem_type : 0;
        case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: t = t->sequence_type ? t->sequence_type->elem_type : NULL; break;
        case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: t = t->optional_type ? t->optional_type->elem_type : NULL; break;
        default: return 0;
        }
    }
    return 0;
}

/* Stacks n tensors of one shape along a new axis `axis` (an empty stack has shape [0]). */
static int stack_into(ectx *c, oe_tensor *items, int64_t n, int64_t axis, int dtype, oe_tensor *out)
{
    if (n == 0) {
        int64_t z = 0;
        if (ot_tensor_init(out, dtype ? dtype : T_FLOAT, &z, 1)) return oe_fail(c, "bad element type");
        return OE_OK;
    }
    const oe_tensor *f = &items[0];
    if (f->kind != OE_KIND_TENSOR || f->rank + 1 > OE_MAX_RANK) return oe_fail(c, "cannot stack these values");
    if (axis < 0) axis += f->rank + 1;
    if (axis < 0 || axis > f->rank) return oe_fail(c, "bad axis");
    for (int64_t t = 1; t < n; t++)
        if (items[t].dtype != f->dtype || items[t].rank != f->rank ||
            memcmp(items[t].dims, f->dims, sizeof(int64_t) * (size_t)f->rank))
            return oe_fail(c, "values to stack differ in shape or type");
    int64_t dims[OE_MAX_RANK];
    for (int i = 0, j = 0; i <= f->rank; i++) dims[i] = i == axis ? n : f->dims[j++];
    if (ot_tensor_init(out, f->dtype, dims, f->rank + 1)) return oe_fail(c, "output too large");
    int64_t outer = ot_numel_of(f->dims, (int)axis), inner = ot_numel_of(f->dims + axis, f->rank - (int)axis);
    size_t es = ot_esize(f->dtype);
    for (int64_t t = 0; t < n; t++)
        for (int64_t o = 0; o < outer; o++)
            if (inner)
                memcpy((char *)out->data + ((o * n + t) * inner) * (int64_t)es,
                       (const char *)items[t].data + o * inner * (int64_t)es, (size_t)inner * es);
    return OE_OK;
}

/* The slice of a at index i along axis, without that axis. */
static int slice_of(ectx *c, const oe_tensor *a, int64_t axis, int64_t i, oe_tensor *out)
{
    int64_t dims[OE_MAX_RANK];
    for (int k = 0, j = 0; k < a->rank; k++)
        if (k != axis) dims[j++] = a->dims[k];
    if (ot_tensor_init(out, a->dtype, dims, a->rank - 1)) return oe_fail(c, "bad slice");
    oe_take_range(a, axis, i, 1, out);
    return OE_OK;
}

static void free_all(oe_tensor *v, size_t n)
{
    for (size_t i = 0; i < n; i++) ot_tensor_free(&v[i]);
}

/* ---- If ----------------------------------------------------------------------------------------- */

static int k_if(ectx *c)
{
    const oe_tensor *cond = oe_in_tensor(c, 0);
    if (!c->run) return OE_UNSUPPORTED;
    if (!cond || cond->numel != 1) return oe_fail(c, "the condition must hold one element");
    const Onnx__GraphProto *g = oe_attr_graph(c, ot_get_f(cond, 0) != 0 ? "then_branch" : "else_branch");
    if (!g) return oe_fail(c, "missing branch");
    if (g->n_output != c->nout) return oe_fail(c, "the branch has %zu outputs, the node %zu", g->n_output, c->nout);
    return oe_run_subgraph(c, g, NULL, 0, c->out);
}

/* ---- Loop --------------------------------------------------------------------------------------- */

typedef struct loop_state {
    size_t ncarry, nscan;
    oe_tensor *carry;            /* current loop-carried values */
    oe_tensor **scans;           /* per scan output: the values of every iteration */
    int64_t iters, cap;
} loop_state;

static void loop_free(loop_state *s)
{
    free_all(s->carry, s->ncarry);
    free(s->carry);
    for (size_t k = 0; k < s->nscan; k++) {
        free_all(s->scans[k], (size_t)s->iters);
        free(s->scans[k]);
    }
    free(s->scans);
}

/* One iteration: runs the body on (i, cond, carried), keeps the new state; *go is the new cond. */
static int loop_step(ectx *c, const Onnx__GraphProto *body, loop_state *s, int64_t i, bool *go)
{
    size_t nb = 2 + s->ncarry;
    oe_tensor iter, cnd, *res = xcalloc(body->n_output + 1, sizeof *res);
    const oe_tensor **args = xcalloc(nb, sizeof *args);
    ot_tensor_from_i(&iter, T_INT64, NULL, 0, &i);
    int64_t one = 1;
    ot_tensor_from_i(&cnd, T_BOOL, NULL, 0, &one);
    args[0] = &iter;
    args[1] = &cnd;
    for (size_t k = 0; k < s->ncarry; k++) args[2 + k] = &s->carry[k];
    int rc = oe_run_subgraph(c, body, args, nb, res);
    ot_tensor_free(&iter);
    ot_tensor_free(&cnd);
    free(args);
    if (rc == OE_OK) {
        *go = res[0].numel == 1 && ot_get_f(&res[0], 0) != 0;
        for (size_t k = 0; k < s->ncarry; k++) {
            ot_tensor_free(&s->carry[k]);
            s->carry[k] = res[1 + k];
            memset(&res[1 + k], 0, sizeof res[1 + k]);
        }
        if (s->iters == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 8;
            for (size_t k = 0; k < s->nscan; k++) s->scans[k] = xrealloc(s->scans[k], (size_t)s->cap * sizeof **s->scans);
        }
        for (size_t k = 0; k < s->nscan; k++) {
            s->scans[k][s->iters] = res[1 + s->ncarry + k];
            memset(&res[1 + s->ncarry + k], 0, sizeof *res);
        }
        s->iters++;
    }
    free_all(res, body->n_output);
    free(res);
    return rc;
}

static int k_loop(ectx *c)
{
    if (!c->run) return OE_UNSUPPORTED;
    const Onnx__GraphProto *body = oe_attr_graph(c, "body");
    const oe_tensor *M = oe_in_tensor(c, 0), *cond = oe_in_tensor(c, 1);
    if (!body) return oe_fail(c, "missing body");
    if (c->nin < 2 || body->n_input != c->nin || body->n_output < 1 + (c->nin - 2))
        return oe_fail(c, "the body's inputs and outputs do not match the node");
    loop_state s = {c->nin - 2, body->n_output - 1 - (c->nin - 2), NULL, NULL, 0, 0};
    if (s.ncarry + s.nscan != c->nout) return oe_fail(c, "the node has %zu outputs, the body makes %zu", c->nout, s.ncarry + s.nscan);
    s.carry = xcalloc(s.ncarry + 1, sizeof *s.carry);
    s.scans = xcalloc(s.nscan + 1, sizeof *s.scans);
    for (size_t k = 0; k < s.ncarry; k++) {
        if (!IN(c, 2 + k)) {
            loop_free(&s);
            return oe_fail(c, "loop-carried input %zu is missing", k);
        }
        ot_tensor_copy(&s.carry[k], IN(c, 2 + k));
    }
    if ((M && M->numel != 1) || (cond && cond->numel != 1)) {
        loop_free(&s);
        return oe_fail(c, "the trip count and the condition must hold one element");
    }
    int64_t trip = M ? (ot_get_i(M, 0) > 0 ? ot_get_i(M, 0) : 0) : -1, cap = oe_loop_limit(c);
    bool go = cond ? ot_get_f(cond, 0) != 0 : true;
    int rc = OE_OK;
    for (int64_t i = 0; rc == OE_OK && go && (trip < 0 || i < trip); i++) {
        if (i >= cap) {
            rc = oe_fail(c, "stopped after %lld iterations (the loop does not end)", (long long)cap);
            break;
        }
        rc = loop_step(c, body, &s, i, &go);
    }
    for (size_t k = 0; rc == OE_OK && k < s.ncarry; k++) {
        c->out[k] = s.carry[k];
        memset(&s.carry[k], 0, sizeof s.carry[k]);
    }
    for (size_t k = 0; rc == OE_OK && k < s.nscan; k++) {
        const Onnx__ValueInfoProto *vi = body->output[1 + s.ncarry + k];
        rc = stack_into(c, s.scans[k], s.iters, 0, declared_elem_type(vi->type), &c->out[s.ncarry + k]);
    }
    loop_free(&s);
    return rc;
}

/* ---- Scan --------------------------------------------------------------------------------------- */

enum { SCAN_MAX = 16 };

typedef struct scan_spec {
    size_t nstate, nin, nout;
    int64_t in_axes[SCAN_MAX], in_dirs[SCAN_MAX], out_axes[SCAN_MAX], out_dirs[SCAN_MAX];
    int64_t len;
    const oe_tensor *vals[2 * SCAN_MAX];   /* initial states, then scan inputs */
} scan_spec;

/* Reads the attributes and checks the values (vals[0..nvals): states then scan inputs). Opset 8
 * names the directions `directions` and scans axis 0 of each (batch-free) value. */
static int scan_spec_read(ectx *c, const Onnx__GraphProto *body, const oe_tensor *const *vals, size_t nvals, scan_spec *sp)
{
    memset(sp, 0, sizeof *sp);
    int64_t m = oe_attr_i(c, "num_scan_inputs", -1);
    if (m < 0 || (size_t)m > nvals || m > SCAN_MAX || nvals - (size_t)m > SCAN_MAX) return oe_fail(c, "bad num_scan_inputs");
    sp->nin = (size_t)m;
    sp->nstate = nvals - sp->nin;
    if (body->n_input != nvals || body->n_output < sp->nstate || body->n_output - sp->nstate > SCAN_MAX)
        return oe_fail(c, "the body's inputs and outputs do not match the node");
    sp->nout = body->n_output - sp->nstate;
    bool v8 = c->opset < 9;
    if (oe_attr_ints(c, v8 ? "directions" : "scan_input_directions", sp->in_dirs, SCAN_MAX) == -2 ||
        (!v8 && (oe_attr_ints(c, "scan_input_axes", sp->in_axes, SCAN_MAX) == -2 ||
                 oe_attr_ints(c, "scan_output_axes", sp->out_axes, SCAN_MAX) == -2 ||
                 oe_attr_ints(c, "scan_output_directions", sp->out_dirs, SCAN_MAX) == -2)))
        return oe_fail(c, "bad scan axes or directions");
    sp->len = -1;
    for (size_t j = 0; j < nvals; j++) {
        sp->vals[j] = vals[j];
        if (!vals[j]) return oe_fail(c, "input %zu is missing", j);
    }
    for (size_t j = 0; j < sp->nin; j++) {
        const oe_tensor *x = vals[sp->nstate + j];
        if (x->kind != OE_KIND_TENSOR || oe_norm_axis(sp->in_axes[j], x->rank, &sp->in_axes[j]))
            return oe_fail(c, "bad scan input %zu", j);
        int64_t d = x->dims[sp->in_axes[j]];
        if (sp->len >= 0 && d != sp->len) return oe_fail(c, "scan inputs differ in length");
        sp->len = d;
    }
    if (sp->len < 0) sp->len = 0;
    return OE_OK;
}

static int scan_iteration(ectx *c, const Onnx__GraphProto *body, const scan_spec *sp, int64_t t, oe_tensor *state,
                          oe_tensor **outs)
{
    size_t nb = sp->nstate + sp->nin;
    const oe_tensor **args = xcalloc(nb + 1, sizeof *args);
    oe_tensor *slices = xcalloc(sp->nin + 1, sizeof *slices), *res = xcalloc(body->n_output + 1, sizeof *res);
    int rc = OE_OK;
    for (size_t k = 0; k < sp->nstate; k++) args[k] = &state[k];
    for (size_t j = 0; j < sp->nin && rc == OE_OK; j++) {
        int64_t at = sp->in_dirs[j] ? sp->len - 1 - t : t;
        rc = slice_of(c, sp->vals[sp->nstate + j], sp->in_axes[j], at, &slices[j]);
        args[sp->nstate + j] = &slices[j];
    }
    if (rc == OE_OK) rc = oe_run_subgraph(c, body, args, nb, res);
    if (rc == OE_OK) {
        for (size_t k = 0; k < sp->nstate; k++) {
            ot_tensor_free(&state[k]);
            state[k] = res[k];
            memset(&res[k], 0, sizeof res[k]);
        }
        for (size_t k = 0; k < sp->nout; k++) {
            outs[k][sp->out_dirs[k] ? sp->len - 1 - t : t] = res[sp->nstate + k];
            memset(&res[sp->nstate + k], 0, sizeof res[k]);
        }
    }
    free_all(slices, sp->nin);
    free_all(res, body->n_output);
    free(slices);
    free(res);
    free(args);
    return rc;
}

/* Runs the scan; out[0..nstate) final states, out[nstate..) the stacked scan outputs. */
static int scan_run(ectx *c, const Onnx__GraphProto *body, const scan_spec *sp, oe_tensor *out)
{
    oe_tensor *state = xcalloc(sp->nstate + 1, sizeof *state), **outs = xcalloc(sp->nout + 1, sizeof *outs);
    for (size_t k = 0; k < sp->nstate; k++) ot_tensor_copy(&state[k], sp->vals[k]);
    for (size_t k = 0; k < sp->nout; k++) outs[k] = xcalloc(oe_cnt(sp->len), sizeof **outs);
    int rc = OE_OK;
    for (int64_t t = 0; t < sp->len && rc == OE_OK; t++) rc = scan_iteration(c, body, sp, t, state, outs);
    for (size_t k = 0; k < sp->nstate; k++) {
        if (rc == OE_OK) out[k] = state[k];
        else ot_tensor_free(&state[k]);
    }
    for (size_t k = 0; k < sp->nout; k++) {
        if (rc == OE_OK)
            rc = stack_into(c, outs[k], sp->len, sp->out_axes[k], declared_elem_type(body->output[sp->nstate + k]->type),
                            &out[sp->nstate + k]);
        free_all(outs[k], (size_t)sp->len);
        free(outs[k]);
    }
    free(state);
    free(outs);
    return rc;
}

/* Opset 8: every value has a batch axis 0; each batch element is scanned on its own and the
 * results stacked again (sequence_lens, when given, must be the full length). */
static int scan8(ectx *c, const Onnx__GraphProto *body)
{
    const oe_tensor *lens = oe_in_tensor(c, 0);
    size_t nv = c->nin - 1;
    const oe_tensor *first = nv ? oe_in_tensor(c, 1) : NULL;
    if (!first || first->rank < 1 || nv > 2 * SCAN_MAX) return oe_fail(c, "expects batched states and scan inputs");
    int64_t batch = first->dims[0];
    oe_tensor *slices = xcalloc(nv + 1, sizeof *slices), **res = xcalloc((size_t)oe_cnt(batch), sizeof *res);
    const oe_tensor **vals = xcalloc(nv + 1, sizeof *vals);
    int rc = OE_OK;
    for (int64_t b = 0; b < batch && rc == OE_OK; b++) {
        scan_spec sp;
        for (size_t j = 0; j < nv && rc == OE_OK; j++) {
            const oe_tensor *x = oe_in_tensor(c, 1 + j);
            rc = !x || x->rank < 1 || x->dims[0] != batch ? oe_fail(c, "input %zu has no batch axis", j) : slice_of(c, x, 0, b, &slices[j]);
            vals[j] = &slices[j];
        }
        if (rc == OE_OK) rc = scan_spec_read(c, body, vals, nv, &sp);
        if (rc == OE_OK && lens && ot_get_i(lens, b) != sp.len) rc = OE_UNSUPPORTED;
        res[b] = xcalloc(body->n_output + 1, sizeof **res);
        if (rc == OE_OK) rc = scan_run(c, body, &sp, res[b]);
        free_all(slices, nv);
    }
    for (size_t k = 0; k < c->nout && rc == OE_OK; k++) {
        oe_tensor *items = xcalloc((size_t)oe_cnt(batch), sizeof *items);
        for (int64_t b = 0; b < batch; b++) items[b] = res[b][k];
        rc = stack_into(c, items, batch, 0, declared_elem_type(body->output[k]->type), &c->out[k]);
        free(items);
    }
    for (int64_t b = 0; b < batch; b++) {
        if (res[b]) free_all(res[b], body->n_output);
        free(res[b]);
    }
    free(res);
    free(slices);
    free(vals);
    return rc;
}

static int k_scan(ectx *c)
{
    if (!c->run) return OE_UNSUPPORTED;
    const Onnx__GraphProto *body = oe_attr_graph(c, "body");
    if (!body) return oe_fail(c, "missing body");
    if (body->n_output != c->nout) return oe_fail(c, "the body has %zu outputs, the node %zu", body->n_output, c->nout);
    if (c->opset < 9) return scan8(c, body);
    scan_spec sp;
    if (scan_spec_read(c, body, (const oe_tensor *const *)c->in, c->nin, &sp)) return OE_ERROR;
    return scan_run(c, body, &sp, c->out);
}

/* ---- sequences ---------------------------------------------------------------------------------- */

static const oe_tensor *in_seq(ectx *c, size_t i)
{
    const oe_tensor *t = IN(c, i);
    return t && t->kind == OE_KIND_SEQUENCE ? t : NULL;
}

/* A position input (absent: dflt) made non-negative against n (insert allows n itself). */
static int position(ectx *c, size_t input, int64_t n, int64_t dflt, bool insert, int64_t *pos)
{
    const oe_tensor *p = oe_in_tensor(c, input);
    int64_t v = p ? ot_get_i(p, 0) : dflt;
    if (p && p->numel != 1) return oe_fail(c, "position must be a scalar");
    if (v < 0) v += n;
    if (v < 0 || v > n || (!insert && v == n)) return oe_fail(c, "position %lld is out of range for %lld elements",
                                                           (long long)(p ? ot_get_i(p, 0) : dflt), (long long)n);
    *pos = v;
    return OE_OK;
}

static int k_sequence_empty(ectx *c)
{
    ot_seq_init(&c->out[0], (int)oe_attr_i(c, "dtype", T_FLOAT));
    return OE_OK;
}

static int k_sequence_construct(ectx *c)
{
    ot_seq_init(&c->out[0], 0);
    for (size_t i = 0; i < c->nin; i++) {
        const oe_tensor *t = oe_in_tensor(c, i);
        if (!t) return oe_fail(c, "input %zu is not a tensor", i);
        oe_tensor copy;
        ot_tensor_copy(&copy, t);
        ot_seq_push(&c->out[0], &copy);
    }
    return OE_OK;
}

static int k_sequence_insert(ectx *c)
{
    const oe_tensor *s = in_seq(c, 0), *t = oe_in_tensor(c, 1);
    int64_t pos;
    if (!s || !t) return oe_fail(c, "expects a sequence and a tensor");
    if (position(c, 2, s->n_items, s->n_items, true, &pos)) return OE_ERROR;
    ot_seq_init(&c->out[0], s->dtype ? s->dtype : t->dtype);
    for (int64_t i = 0; i <= s->n_items; i++) {
        oe_tensor copy;
        if (i == pos) ot_tensor_copy(&copy, t);
        if (i == pos) ot_seq_push(&c->out[0], &copy);
        if (i == s->n_items) break;
        ot_tensor_copy(&copy, &s->items[i]);
        ot_seq_push(&c->out[0], &copy);
    }
    return OE_OK;
}

static int k_sequence_erase(ectx *c)
{
    const oe_tensor *s = in_seq(c, 0);
    int64_t pos;
    if (!s) return oe_fail(c, "expects a sequence");
    if (position(c, 1, s->n_items, -1, false, &pos)) return OE_ERROR;
    ot_seq_init(&c->out[0], s->dtype);
    for (int64_t i = 0; i < s->n_items; i++) {
        if (i == pos) continue;
        oe_tensor copy;
        ot_tensor_copy(&copy, &s->items[i]);
        ot_seq_push(&c->out[0], &copy);
    }
    return OE_OK;
}

static int k_sequence_at(ectx *c)
{
    const oe_tensor *s = in_seq(c, 0);
    int64_t pos;
    if (!s) return oe_fail(c, "expects a sequence");
    if (position(c, 1, s->n_items, 0, false, &pos)) return OE_ERROR;
    ot_tensor_copy(&c->out[0], &s->items[pos]);
    return OE_OK;
}

static int k_sequence_length(ectx *c)
{
    const oe_tensor *s = in_seq(c, 0);
    if (!s) return oe_fail(c, "expects a sequence");
    return ot_tensor_from_i(&c->out[0], T_INT64, NULL, 0, &s->n_items);
}

static int k_split_to_sequence(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *sp = oe_in_tensor(c, 1);
    int64_t axis;
    if (!a || oe_norm_axis(oe_attr_i(c, "axis", 0), a->rank, &axis)) return oe_fail(c, "bad input or axis");
    int64_t d = a->dims[axis], chunk = 1, nparts;
    bool squeeze = !sp && oe_attr_i(c, "keepdims", 1) == 0;
    if (sp && sp->rank == 0) {
        chunk = ot_get_i(sp, 0);
        if (chunk <= 0) return oe_fail(c, "split must be positive");
    } else if (sp && sp->rank != 1) {
        return oe_fail(c, "split must be a scalar or 1-D");
    }
    nparts = sp && sp->rank == 1 ? sp->numel : (d + chunk - 1) / chunk;
    ot_seq_init(&c->out[0], a->dtype);
    for (int64_t k = 0, start = 0; k < nparts; k++) {
        int64_t len = sp && sp->rank == 1 ? ot_get_i(sp, k) : (d - start < chunk ? d - start : chunk);
        if (len < 0 || start + len > d) return oe_fail(c, "split sizes exceed the dimension");
        int64_t dims[OE_MAX_RANK];
        memcpy(dims, a->dims, sizeof dims);
        dims[axis] = len;
        oe_tensor part;
        if (ot_tensor_init(&part, a->dtype, dims, a->rank)) return oe_fail(c, "bad part");
        oe_take_range(a, axis, start, len, &part);
        if (squeeze) {
            memmove(part.dims + axis, part.dims + axis + 1, sizeof(int64_t) * (size_t)(part.rank - axis - 1));
            part.rank--;
        }
        ot_seq_push(&c->out[0], &part);
        start += len;
    }
    if (sp && sp->rank == 1) {
        int64_t total = 0;
        for (int64_t k = 0; k < sp->numel; k++) total += ot_get_i(sp, k);
        if (total != d) return oe_fail(c, "split sizes do not add up to the dimension");
    }
    return OE_OK;
}

static int k_concat_from_sequence(ectx *c)
{
    const oe_tensor *s = in_seq(c, 0);
    if (!s || s->n_items == 0) return oe_fail(c, "expects a non-empty sequence");
    int64_t axis = oe_attr_i(c, "axis", 0);
    if (oe_attr_i(c, "new_axis", 0)) return stack_into(c, s->items, s->n_items, axis, s->dtype, &c->out[0]);
    const oe_tensor **ts = xmalloc((size_t)s->n_items * sizeof *ts);
    for (int64_t i = 0; i < s->n_items; i++) ts[i] = &s->items[i];
    int rc = oe_concat_into(c, ts, (size_t)s->n_items, axis, &c->out[0]);
    free(ts);
    return rc;
}

static int k_sequence_map(ectx *c)
{
    const oe_tensor *s = in_seq(c, 0);
    const Onnx__GraphProto *body = oe_attr_graph(c, "body");
    if (!c->run) return OE_UNSUPPORTED;
    if (!s || !body || body->n_input != c->nin || body->n_output != c->nout) return oe_fail(c, "bad sequence or body");
    for (size_t k = 0; k < c->nout; k++) ot_seq_init(&c->out[k], declared_elem_type(body->output[k]->type));
    const oe_tensor **args = xcalloc(c->nin + 1, sizeof *args);
    oe_tensor *res = xcalloc(c->nout + 1, sizeof *res);
    int rc = OE_OK;
    for (int64_t i = 0; i < s->n_items && rc == OE_OK; i++) {
        for (size_t j = 0; j < c->nin && rc == OE_OK; j++) {
            const oe_tensor *x = IN(c, j);
            if (x && x->kind == OE_KIND_SEQUENCE) {
                if (x->n_items != s->n_items) rc = oe_fail(c, "sequences differ in length");
                else args[j] = &x->items[i];
            } else {
                args[j] = x;
            }
        }
        if (rc == OE_OK) rc = oe_run_subgraph(c, body, args, c->nin, res);
        for (size_t k = 0; rc == OE_OK && k < c->nout; k++) ot_seq_push(&c->out[k], &res[k]);
    }
    free(args);
    free(res);
    return rc;
}

/* ---- optionals ---------------------------------------------------------------------------------- */

static int k_optional(ectx *c)
{
    const oe_tensor *x = IN(c, 0);
    if (!x) {
        Onnx__AttributeProto *ta = oe_attr(c, "type");
        ot_optional_init(&c->out[0], ta ? declared_elem_type(ta->tp) : 0, NULL);
        return OE_OK;
    }
    oe_tensor copy;
    ot_tensor_copy(&copy, x);
    ot_optional_init(&c->out[0], copy.dtype, &copy);
    return OE_OK;
}

static int k_optional_has(ectx *c)
{
    const oe_tensor *x = IN(c, 0);
    int64_t has = x && (x->kind != OE_KIND_OPTIONAL || x->n_items > 0);
    return ot_tensor_from_i(&c->out[0], T_BOOL, NULL, 0, &has);
}

static int k_optional_get(ectx *c)
{
    const oe_tensor *x = IN(c, 0);
    if (!x) return oe_fail(c, "missing input");
    if (x->kind != OE_KIND_OPTIONAL) {
        ot_tensor_copy(&c->out[0], x);
        return OE_OK;
    }
    if (x->n_items == 0) return oe_fail(c, "the optional holds no value");
    ot_tensor_copy(&c->out[0], &x->items[0]);
    return OE_OK;
}

const oe_op_def oe_ops_control[] = {
    {"If", k_if, 0, false}, {"Loop", k_loop, 0, false}, {"Scan", k_scan, 0, false},
    {"SequenceEmpty", k_sequence_empty, 0, false}, {"SequenceConstruct", k_sequence_construct, 0, false},
    {"SequenceInsert", k_sequence_insert, 0, false}, {"SequenceErase", k_sequence_erase, 0, false},
    {"SequenceAt", k_sequence_at, 0, false}, {"SequenceLength", k_sequence_length, 0, false},
    {"SplitToSequence", k_split_to_sequence, 0, false}, {"ConcatFromSequence", k_concat_from_sequence, 0, false},
    {"SequenceMap", k_sequence_map, 0, false}, {"Optional", k_optional, 0, false},
    {"OptionalHasElement", k_optional_has, 0, false}, {"OptionalGetElement", k_optional_get, 0, false},
    {NULL, NULL, 0, false},
};
