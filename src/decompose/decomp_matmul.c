/* decomp_matmul.c — torch's matmul decomposition (_matmul_impl) by shape and layout. */
#include "decompose/decomp_matmul.h"

#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

static fx_node *call2(const dm_emitter *e, const char *target, fx_node *x, fx_arg *y)
{
    fx_arg *args[2] = { fx_arg_node(e->p, x), y };
    return e->call(e->ctx, target, args, 2);
}

/* should_fold(): the larger operand t1 (rank >= 3, the other a vector or matrix) folds into a
 * matrix when its leading dimensions are laid out contiguously (no copy needed). The
 * requires-grad clause never holds here: exported programs run without autograd. */
static bool should_fold(const dl_tensor *a, const dl_tensor *b)
{
    if (a->rank < b->rank || a->rank < 3 || b->rank > 2)
        return false;
    int64_t numel = 1;
    for (size_t i = 0; i < a->rank; i++)
        numel *= a->size[i];
    if (!numel)
        return true;
    for (size_t i = 0; i + 2 < a->rank; i++)
        if (a->stride[i] != a->stride[i + 1] * a->size[i + 1])
            return false;
    return true;
}

fx_node *decomp_matmul(const dm_emitter *e, fx_node *a, fx_node *b, bool *failed)
{
    *failed = false;
    dl_tensor ta, tb;
    if (!dl_static(a->meta.val, &ta) || !dl_static(b->meta.val, &tb) || ta.rank + 1 > DL_MAX_RANK ||
        tb.rank + 1 > DL_MAX_RANK)
        return NULL;
    size_t d1 = ta.rank, d2 = tb.rank;
    fx_node *r;
    if (d1 == 2 && d2 == 2) {
        r = call2(e, "torch.ops.aten.mm.default", a, fx_arg_node(e->p, b));
        *failed = !r;
        return r;
    }
    if (should_fold(&ta, &tb)) {
        int64_t shape[DL_MAX_RANK + 1], folded[2] = { 1, ta.size[d1 - 1] };
        size_t n = d1 - 1;
        for (size_t i = 0; i < n; i++) {
            shape[i] = ta.size[i];
            folded[0] *= ta.size[i];
        }
        if (d2 == 2)
            shape[n++] = tb.size[1];
        fx_node *t1 = call2(e, "torch.ops.aten.reshape.default", a, dc_int_list(e->p, folded, 2));
        fx_node *m = t1 ? call2(e, d2 == 2 ? "torch.ops.aten.mm.default" : "torch.ops.aten.mv.default", t1,
                                fx_arg_node(e->p, b)) : NULL;
        r = m ? call2(e, "torch.ops.aten._unsafe_view.default", m, dc_int_list(e->p, shape, n)) : NULL;
        *failed = !r;
        return r;
    }
    /* vectors and the transposed fold of a matrix times a batch are not modelled */
    if (d1 < 2 || d2 < 2 || (d1 < 3 && d2 < 3))
        return NULL;
    /* broadcast the batch dimensions, flatten them, bmm, and view the result back */
    size_t nb1 = d1 - 2, nb2 = d2 - 2, nb = nb1 > nb2 ? nb1 : nb2;
    int64_t batch[DL_MAX_RANK], prod = 1;
    for (size_t i = 0; i < nb; i++) {
        int64_t x = i + nb1 >= nb ? ta.size[i + nb1 - nb] : 1, y = i + nb2 >= nb ? tb.size[i + nb2 - nb] : 1;
        if (x != y && x != 1 && y != 1)
            return NULL;
        batch[i] = x == 1 ? y : x;
        prod *= batch[i];
    }
    int64_t n = ta.size[d1 - 2], m1 = ta.size[d1 - 1], m2 = tb.size[d2 - 2], p = tb.size[d2 - 1];
    int64_t size1[DL_MAX_RANK + 2], size2[DL_MAX_RANK + 2], out[DL_MAX_RANK + 2];
    memcpy(size1, batch, nb * sizeof *batch);
    memcpy(size2, batch, nb * sizeof *batch);
    memcpy(out, batch, nb * sizeof *batch);
    size1[nb] = n, size1[nb + 1] = m1;
    size2[nb] = m2, size2[nb + 1] = p;
    out[nb] = n, out[nb + 1] = p;
    int64_t flat1[3] = { prod, n, m1 }, flat2[3] = { prod, m2, p };
    fx_node *e1 = call2(e, "torch.ops.aten.expand.default", a, dc_int_list(e->p, size1, nb + 2));
    fx_node *r1 = e1 ? call2(e, "torch.ops.aten.reshape.default", e1, dc_int_list(e->p, flat1, 3)) : NULL;
    fx_node *e2 = r1 ? call2(e, "torch.ops.aten.expand.default", b, dc_int_list(e->p, size2, nb + 2)) : NULL;
    fx_node *r2 = e2 ? call2(e, "torch.ops.aten.reshape.default", e2, dc_int_list(e->p, flat2, 3)) : NULL;
    fx_node *bm = r2 ? call2(e, "torch.ops.aten.bmm.default", r1, fx_arg_node(e->p, r2)) : NULL;
    r = bm ? call2(e, "torch.ops.aten._unsafe_view.default", bm, dc_int_list(e->p, out, nb + 2)) : NULL;
    *failed = !r;
    return r;
}
