/* meta_layout.c — layout predicates of the decompositions, read from value meta with meta inference's stride model. */
#include "meta/meta_layout.h"

#include <stdlib.h>
#include <string.h>

#include "meta/meta_internal.h"

static bool parse_int(const char *s, int64_t *out)
{
    char *e;
    if (!s || !*s)
        return false;
    long long v = strtoll(s, &e, 10);
    if (*e)
        return false;
    *out = v;
    return true;
}

bool dl_static(const fx_value *v, dl_tensor *t)
{
    if (!v || v->kind != FX_VAL_TENSOR || !v->sizes || v->rank > DL_MAX_RANK)
        return false;
    t->dtype = v->dtype;
    t->rank = v->rank;
    for (size_t i = 0; i < v->rank; i++)
        if (!parse_int(v->sizes[i], &t->size[i]))
            return false;
    bool strided = v->strides != NULL;
    for (size_t i = 0; strided && i < v->rank; i++)
        strided = parse_int(v->strides[i], &t->stride[i]);
    if (!strided) {
        /* torch's contiguous strides: a size-0 dim does not zero the outer ones */
        int64_t s = 1;
        for (size_t i = t->rank; i-- > 0;) {
            t->stride[i] = s;
            s *= t->size[i] > 1 ? t->size[i] : 1;
        }
    }
    return true;
}

/* The working form meta inference computes strides on (sizes and strides as expressions). */
static mi_tensor *tensor(mi_ctx *c, const fx_value *v) { return mi_tensor_of_value(c, v, "the tensor"); }

bool dl_contiguous(const fx_value *v)
{
    arena a;
    arena_init(&a);
    mi_ctx c = { .a = &a };
    const mi_tensor *t = tensor(&c, v);
    bool ok = t && mi_is_contiguous(t);
    arena_free(&a);
    return ok;
}

bool dl_last_stride_1(const fx_value *v)
{
    int64_t s;
    if (!v || v->kind != FX_VAL_TENSOR || !v->rank || !v->strides || !parse_int(v->strides[v->rank - 1], &s))
        return true;
    return s == 1;
}

/* Whether torch's guards would settle comparisons of x (it has a value on the example input;
 * opaque atoms such as Max(...) have none here). */
static bool comparable(const sx *x)
{
    int64_t v;
    return x && sx_estimate(x, &v);
}

bool dl_viewable(const fx_value *v, const fx_arg *shape)
{
    arena a;
    arena_init(&a);
    mi_ctx c = { .a = &a, .prm = &shape, .np = 1 };
    mi_tensor *t = tensor(&c, v);
    mi_tensor *view = arena_alloc(&a, sizeof *view);
    size_t n = 0;
    bool known = t && t->strided && mi_sx_list_param(&c, 0, view->size, &n, MI_MAX_RANK) &&
                 mi_infer_size(&c, t, view->size, n);
    for (size_t i = 0; known && i < t->rank; i++)
        known = comparable(t->size[i]) && comparable(t->stride[i]);
    for (size_t i = 0; known && i < n; i++)
        known = comparable(view->size[i]);
    view->rank = n;
    /* unrecorded strides are contiguous, and a contiguous tensor views as any shape */
    bool ok = !known || mi_view_strides(&c, t, view);
    arena_free(&a);
    return ok;
}
