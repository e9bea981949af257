/* onnx_infer_control.c — type and shape inference of If, Loop, Scan and SequenceMap as onnx/defs
 * computes it: each body inferred in its scope by the graph walker, the node's outputs made from
 * the bodies' outputs. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "onnx/onnx_infer_internal.h"

enum { MAX_IO = 256 };   /* bodies with more inputs or outputs are left uninferred */

bool oi_is_control(const Onnx__NodeProto *n)
{
    if (!n->op_type || (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))) return false;
    return !strcmp(n->op_type, "If") || !strcmp(n->op_type, "Loop") || !strcmp(n->op_type, "Scan") ||
           !strcmp(n->op_type, "SequenceMap");
}

static const Onnx__GraphProto *graph_attr(const Onnx__NodeProto *n, const char *name)
{
    const Onnx__AttributeProto *a = ox_node_attr(n, name);
    return a && a->g ? a->g : NULL;
}

static int failf(char *why, size_t cap, const char *fmt, const char *a, const char *b, size_t k)
{
    snprintf(why, cap, fmt, k, a, b);
    return -1;
}

/* onnx's UnionTypeInfo of two branch outputs: the element types must agree; a dimension both
 * give the same stays, any other is unknown; different ranks leave no shape. */
static int unite(const oi_type *a, const oi_type *b, oi_type *out, size_t k, char *why, size_t cap)
{
    if (!a->elem || !b->elem) {   /* a branch tells nothing: neither does the node */
        *out = (oi_type){.elem = 0, .rank = -1};
        return 0;
    }
    if (a->kind != b->kind) {   /* a tensor in one branch, a sequence in the other */
        snprintf(why, cap, "output %zu: then_branch and else_branch give values of different kinds (tensor, sequence, optional)", k);
        return -1;
    }
    if (a->elem != b->elem)
        return failf(why, cap, "output %zu: then_branch gives %s, else_branch %s", ox_dtype_name(a->elem),
                     ox_dtype_name(b->elem), k);
    *out = (oi_type){.elem = a->elem, .rank = -1, .kind = a->kind};
    if (a->rank < 0 || b->rank < 0 || a->rank != b->rank) return 0;
    out->rank = a->rank;
    for (int i = 0; i < a->rank; i++) {
        const oi_dim *x = &a->d[i], *y = &b->d[i];
        if (x->v >= 0 && x->v == y->v) out->d[i] = *x;
        else if (x->v < 0 && y->v < 0 && x->sym && y->sym && !strcmp(x->sym, y->sym)) out->d[i] = *x;
        else out->d[i] = (oi_dim){-1, NULL, false};
    }
    return 0;
}

static int infer_if(const Onnx__NodeProto *n, oi_type *out, size_t nout, oi_body_fn body, void *w, char *why,
                    size_t cap)
{
    const Onnx__GraphProto *th = graph_attr(n, "then_branch"), *el = graph_attr(n, "else_branch");
    if (!th || !el || nout > MAX_IO) return 0;
    if (th->n_output != el->n_output) {
        snprintf(why, cap, "then_branch has %zu outputs and else_branch %zu", th->n_output, el->n_output);
        return -1;
    }
    if (th->n_output != nout) {
        snprintf(why, cap, "the node has %zu outputs and its branches %zu", nout, th->n_output);
        return -1;
    }
    oi_type t[MAX_IO], e[MAX_IO];
    if (body(w, th, NULL, 0, t, nout, why, cap) || body(w, el, NULL, 0, e, nout, why, cap)) return -1;
    for (size_t k = 0; k < nout; k++)
        if (unite(&t[k], &e[k], &out[k], k, why, cap)) return -1;
    return 0;
}

static int infer_loop(const Onnx__NodeProto *n, const oi_type *in, size_t nin, oi_type *out, size_t nout,
                      oi_body_fn body, void *w, char *why, size_t cap)
{
    const Onnx__GraphProto *b = graph_attr(n, "body");
    if (!b || nin < 2 || nin > MAX_IO || nout + 1 > MAX_IO) return 0;
    size_t carried = nin - 2;
    oi_type bound[MAX_IO];
    bound[0] = (oi_type){.elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, .rank = -1};   /* the iteration number */
    bound[1] = in[1];
    bound[1].value = NULL;
    /* a carried value's shape may change from one iteration to the next: the body sees its type only */
    for (size_t i = 0; i < carried; i++) bound[2 + i] = (oi_type){.elem = in[2 + i].elem, .rank = -1, .kind = in[2 + i].kind};
    oi_type bo[MAX_IO];
    if (body(w, b, bound, nin, bo, nout + 1, why, cap)) return -1;
    if (b->n_output != nout + 1) {
        snprintf(why, cap, "the body has %zu outputs, the node %zu (the body's first is the condition)", b->n_output, nout);
        return -1;
    }
    for (size_t k = 0; k < nout; k++) {
        const oi_type *o = &bo[k + 1];
        if (k < carried) {
            int elem = in[2 + k].elem ? in[2 + k].elem : o->elem;
            if (in[2 + k].elem && o->elem && in[2 + k].elem != o->elem) {
                snprintf(why, cap, "loop-carried value %zu enters the body as %s and leaves it as %s", k,
                         ox_dtype_name(in[2 + k].elem), ox_dtype_name(o->elem));
                return -1;
            }
            out[k] = (oi_type){.elem = elem, .rank = -1, .kind = o->elem ? o->kind : in[2 + k].kind};   /* the body says what leaves it */
        } else {
            /* a scan output: one body output per iteration, stacked along a new first axis */
            out[k] = (oi_type){.elem = o->elem, .rank = -1};
            if (o->elem && o->rank >= 0 && o->rank < OE_MAX_RANK) {
                out[k].rank = o->rank + 1;
                out[k].d[0] = (oi_dim){-1, NULL, false};
                for (int i = 0; i < o->rank; i++) out[k].d[i + 1] = o->d[i];
            }
        }
    }
    return 0;
}

static int norm(int64_t a, int rank, const char *what, char *why, size_t cap, int *res)
{
    if (a < -rank || a >= rank) {
        snprintf(why, cap, "%s value %" PRId64 " is out of range for rank %d", what, a, rank);
        return -1;
    }
    *res = (int)(a < 0 ? a + rank : a);
    return 0;
}

static int infer_scan(const Onnx__NodeProto *n, int64_t opset, const oi_type *in, size_t nin, oi_type *out,
                      size_t nout, oi_body_fn body, void *w, char *why, size_t cap)
{
    const Onnx__GraphProto *b = graph_attr(n, "body");
    const Onnx__AttributeProto *ns = ox_node_attr(n, "num_scan_inputs");
    if (!b || !ns || opset < 9 || nin > MAX_IO || nout > MAX_IO) return 0;   /* Scan-8 has a batch axis: not inferred */
    if (ns->i < 1 || (size_t)ns->i > nin) return 0;
    size_t n_scan = (size_t)ns->i, n_state = nin - n_scan;
    if (nout < n_state) return 0;
    const Onnx__AttributeProto *ia = ox_node_attr(n, "scan_input_axes"), *oa = ox_node_attr(n, "scan_output_axes");
    if ((ia && ia->n_ints != n_scan) || (oa && oa->n_ints != nout - n_state)) {
        snprintf(why, cap, "scan_input_axes / scan_output_axes do not have one entry per scan input / output");
        return -1;
    }
    oi_dim seq = {-1, NULL, false};
    oi_type bound[MAX_IO];
    for (size_t i = 0; i < nin; i++) {
        bound[i] = in[i];
        bound[i].value = NULL;
        if (i < n_state || !in[i].elem || in[i].rank < 0) continue;
        int axis;
        if (in[i].rank < 1) {
            snprintf(why, cap, "scan input %zu has rank 0, but it is scanned along an axis", i);
            return -1;
        }
        if (norm(ia ? ia->ints[i - n_state] : 0, in[i].rank, "scan_input_axes", why, cap, &axis)) return -1;
        oi_dim d = in[i].d[axis];
        if (d.v >= 0 && seq.v >= 0 && d.v != seq.v) {
            snprintf(why, cap, "scan inputs have different sequence lengths (%" PRId64 " and %" PRId64 ")", seq.v, d.v);
            return -1;
        }
        if (d.v >= 0 || (seq.v < 0 && !seq.sym)) seq = d;
        bound[i].rank = in[i].rank - 1;
        for (int k = axis; k < bound[i].rank; k++) bound[i].d[k] = in[i].d[k + 1];
    }
    oi_type bo[MAX_IO];
    if (body(w, b, bound, nin, bo, nout, why, cap)) return -1;
    for (size_t k = 0; k < nout; k++) {
        const oi_type *o = &bo[k];
        if (k < n_state) {
            if (in[k].elem && o->elem && in[k].elem != o->elem) {
                snprintf(why, cap, "state variable %zu enters the body as %s and leaves it as %s", k,
                         ox_dtype_name(in[k].elem), ox_dtype_name(o->elem));
                return -1;
            }
            out[k] = *o;
            out[k].value = NULL;
            continue;
        }
        out[k] = (oi_type){.elem = o->elem, .rank = -1};
        if (!o->elem || o->rank < 0 || o->rank >= OE_MAX_RANK) continue;
        int axis;
        if (norm(oa ? oa->ints[k - n_state] : 0, o->rank + 1, "scan_output_axes", why, cap, &axis)) return -1;
        out[k].rank = o->rank + 1;
        for (int i = 0, j = 0; i < out[k].rank; i++) out[k].d[i] = i == axis ? seq : o->d[j++];
    }
    return 0;
}

/* SequenceMap: the body sees one tensor of each sequence input (and the tensor inputs as they
 * are); each output is a sequence of what the body gives. */
static int infer_sequence_map(const Onnx__NodeProto *n, const oi_type *in, size_t nin, oi_type *out, size_t nout,
                              oi_body_fn body, void *w, char *why, size_t cap)
{
    const Onnx__GraphProto *b = graph_attr(n, "body");
    if (!b || nin > MAX_IO || nout > MAX_IO) return 0;
    if (b->n_input != nin || b->n_output != nout) {
        snprintf(why, cap, "the body has %zu inputs and %zu outputs, the node %zu and %zu", b->n_input, b->n_output, nin, nout);
        return -1;
    }
    oi_type bound[MAX_IO], bo[MAX_IO];
    for (size_t i = 0; i < nin; i++) {
        bound[i] = in[i];
        bound[i].value = NULL;
        if (in[i].kind == OI_SEQUENCE) bound[i].kind = OI_TENSOR;
    }
    if (body(w, b, bound, nin, bo, nout, why, cap)) return -1;
    for (size_t k = 0; k < nout; k++) {
        out[k] = bo[k];
        out[k].value = NULL;
        if (out[k].elem) out[k].kind = OI_SEQUENCE;
    }
    return 0;
}

int oi_infer_control(const Onnx__NodeProto *n, int64_t opset, const oi_type *in, size_t nin, oi_type *out, size_t nout,
                     oi_body_fn body_fn, void *walker, char *why, size_t why_cap)
{
    for (size_t i = 0; i < nout; i++) out[i] = (oi_type){.elem = 0, .rank = -1};
    if (why && why_cap) *why = 0;
    int rc = 0;
    if (!strcmp(n->op_type, "If")) rc = infer_if(n, out, nout, body_fn, walker, why, why_cap);
    else if (!strcmp(n->op_type, "Loop")) rc = infer_loop(n, in, nin, out, nout, body_fn, walker, why, why_cap);
    else if (!strcmp(n->op_type, "SequenceMap")) rc = infer_sequence_map(n, in, nin, out, nout, body_fn, walker, why, why_cap);
    else rc = infer_scan(n, opset, in, nin, out, nout, body_fn, walker, why, why_cap);
    for (size_t i = 0; i < nout; i++)
        if (!out[i].elem) out[i].rank = -1;
    return rc;
}
