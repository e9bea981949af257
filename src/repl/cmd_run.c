/* cmd_run.c — evaluating stages with the reference evaluator: `run` prints a stage's outputs
 * (numpy's repr) on given or random inputs, `verify` compares them with expected values or with
 * another stage's. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/interrupt.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "view/onnx_compare.h"
#include "eval/onnx_eval.h"
#include "fx/fx.h"
#include "onnx/onnx_ir.h"
#include "view/onnx_npz.h"
#include "view/onnx_repr.h"
#include "view/onnx_values.h"
#include "repl/cmd_handlers.h"
#include "repl/cmd_run.h"

/* ---- options ---------------------------------------------------------------------------------- */

static bool parse_number(session *s, const char *cmd, const char *opt, const char *text, double *out)
{
    char *end;
    double v = text ? strtod(text, &end) : 0;
    /* inf (1e999 overflows to it) and nan are no tolerance: every difference would pass */
    if (!text || !*text || *end || !(v >= 0) || isinf(v)) {
        session_error(s, "%s: %s needs a finite non-negative number%s%s", cmd, opt, text ? ", not " : "", text ? text : "");
        return false;
    }
    *out = v;
    return true;
}

/* NAME=SIZES or INPUT:AXIS=SIZES, SIZES comma-separated integers >= 0. */
static bool parse_sweep(session *s, const char *cmd, const char *v, run_opts *o)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1]) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: --shapes needs NAME=SIZES, not '%s'", cmd, v);
        diag_set_hint(dg, "e.g. --shapes batch=1,2,7 (a dimension the inputs name) or --shapes x:0=1,2,7 (input x's axis 0)");
        return false;
    }
    if (o->n_sweep >= RUN_MAX_SWEEP_DIMS) {
        session_error(s, "%s: --shapes: at most %d dimensions", cmd, RUN_MAX_SWEEP_DIMS);
        return false;
    }
    run_sweep_dim *d = &o->sweep[o->n_sweep];
    memset(d, 0, sizeof *d);
    d->name = v;
    d->name_len = (size_t)(eq - v);
    d->axis = -1;
    const char *colon = memchr(v, ':', d->name_len);
    if (colon) {
        char *end;
        long ax = strtol(colon + 1, &end, 10);
        if (end != eq || colon == v || ax < 0 || ax >= OE_MAX_RANK) {
            session_error(s, "%s: --shapes: '%.*s' is not INPUT:AXIS with an axis from 0 to %d", cmd, (int)d->name_len, v,
                          OE_MAX_RANK - 1);
            return false;
        }
        d->axis = (int)ax;
        d->name_len = (size_t)(colon - v);
    }
    for (const char *p = eq + 1; *p;) {
        char *end;
        errno = 0;
        long long n = strtoll(p, &end, 10);
        if (end == p || (*end && *end != ',') || n < 0 || n > (1LL << 24) || errno) {
            session_error(s, "%s: --shapes %.*s: sizes are integers from 0 to %d, comma-separated, not '%s'", cmd,
                          (int)(eq - v), v, 1 << 24, eq + 1);
            return false;
        }
        if (d->n_sizes >= RUN_MAX_SWEEP_SIZES) {
            session_error(s, "%s: --shapes %.*s: at most %d sizes", cmd, (int)(eq - v), v, RUN_MAX_SWEEP_SIZES);
            return false;
        }
        d->sizes[d->n_sizes++] = n;
        p = *end ? end + 1 : end;
    }
    d->at = d->sizes[0];
    o->n_sweep++;
    return true;
}

void run_sweep_text(const run_opts *o, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->n_sweep && at < cap; i++) {
        const run_sweep_dim *d = &o->sweep[i];
        if (d->axis >= 0)
            at += (size_t)snprintf(buf + at, cap - at, "%s%.*s:%d=%lld", i ? ", " : "", (int)d->name_len, d->name, d->axis,
                                   (long long)d->at);
        else
            at += (size_t)snprintf(buf + at, cap - at, "%s%.*s=%lld", i ? ", " : "", (int)d->name_len, d->name, (long long)d->at);
    }
}

bool run_parse_opts(session *s, const char *cmd, int argc, char **argv, const char *allowed, int max_stages, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->atol = 1e-4;
    o->rtol = 1e-3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') {
            if (!strstr(allowed, a) || i + 1 >= argc) {
                session_error(s, "%s: %s '%s'", cmd, strstr(allowed, a) ? "missing value after" : "unknown option", a);
                return false;
            }
            const char *v = argv[++i];
            double num;
            if (!strcmp(a, "--shapes")) {
                if (!parse_sweep(s, cmd, v, o)) return false;
                continue;
            }
            if (!strcmp(a, "--decode") || !strcmp(a, "--prefill")) {
                char *end;
                errno = 0;
                long long n = strtoll(v, &end, 10);
                bool dec = a[2] == 'd';
                if (!*v || *end || errno || n < 1 || n > RUN_MAX_DECODE_STEPS) {
                    session_error(s, "%s: %s needs an integer from 1 to %d, not '%s'", cmd, a, RUN_MAX_DECODE_STEPS, v);
                    return false;
                }
                if (dec) o->decode = (int)n;
                else o->prefill = (int)n;
                continue;
            }
            if (!strcmp(a, "--inputs")) o->inputs = v;
            else if (!strcmp(a, "--expected")) o->expected = v;
            else if (!strcmp(a, "--save")) o->save = v;
            else if (!strcmp(a, "--seed")) {
                /* an integer that fits the generator's 64-bit state, read exactly (a double
                 * would round, and beyond 2^64 the conversion is undefined) */
                char *end;
                errno = 0;
                unsigned long long seed = strtoull(v, &end, 10);
                if (!*v || *end || *v == '-' || errno == ERANGE) {
                    session_error(s, "%s: --seed needs an integer from 0 to %llu, not %s", cmd, (unsigned long long)UINT64_MAX, v);
                    return false;
                }
                (void)num;
                o->seed = (uint64_t)seed;
            } else if (!strcmp(a, "--atol")) {
                if (!parse_number(s, cmd, a, v, &o->atol)) return false;
            } else if (!parse_number(s, cmd, a, v, &o->rtol)) {
                return false;
            }
        } else if (o->n_stages < max_stages) {
            if (session_stage_index(a) < 0 && access(a, R_OK) != 0) {
                diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: '%s' is neither a stage nor a readable file", cmd, a);
                diag_set_hint(dg, "stages: fx, exported, decomposed, onnx, optimized; or an .onnx / ONNX text file");
                return false;
            }
            o->stages[o->n_stages++] = a;
        } else {
            session_error(s, "%s: unexpected argument '%s'", cmd, a);
            return false;
        }
    }
    return true;
}

/* ---- inputs ----------------------------------------------------------------------------------- */

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *state)
{
    return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Random values of a declared tensor type, as Polygraphy makes them: floats uniform in [0, 1)
 * (no NaN from a square root or log of a made-up weight), integers uniform in [0, 4) (valid
 * indices of most small dimensions), bools 50/50; a dynamic dimension takes 2. */
/* What a sweep binds in one model: each sweep dimension's symbol (its own NAME, or the symbol
 * the INPUT:AXIS it names carries, so the other inputs of that symbol take the same size). */
typedef struct sweep_binding {
    const run_opts *o;
    const char *symbol[RUN_MAX_SWEEP_DIMS];   /* NULL: an INPUT:AXIS of a numbered or unnamed dim */
    bool used[RUN_MAX_SWEEP_DIMS];            /* the dimension sized an input */
} sweep_binding;

static const Onnx__TensorShapeProto__Dimension *input_axis(const Onnx__ValueInfoProto *vi, int i)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type->shape) return NULL;
    return i < (int)tp->tensor_type->shape->n_dim ? tp->tensor_type->shape->dim[i] : NULL;
}

static const char *dim_symbol(const Onnx__TensorShapeProto__Dimension *d)
{
    return d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param && d->dim_param[0]
               ? d->dim_param : NULL;
}

static void sweep_bind(sweep_binding *b, const run_opts *o, const Onnx__ValueInfoProto **vis, size_t n)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    for (int k = 0; o && k < o->n_sweep; k++) {
        const run_sweep_dim *w = &o->sweep[k];
        if (w->axis < 0) continue;
        for (size_t i = 0; i < n; i++)
            if (strlen(vis[i]->name) == w->name_len && !strncmp(vis[i]->name, w->name, w->name_len))
                b->symbol[k] = dim_symbol(input_axis(vis[i], w->axis));
    }
}

/* A derived dimension's size ("2*dx + 1", "dx - 1": as dynamic_shapes derives one) when the
 * sweep sizes its root symbol; false for any other text. */
static bool derived_size(sweep_binding *b, const char *sym, int64_t *out)
{
    const char *p = sym;
    long long c = 1, k = 0;
    char *end;
    if (isdigit((unsigned char)*p)) {
        c = strtoll(p, &end, 10);
        if (*end != '*') return false;
        p = end + 1;
    }
    const char *nm = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    size_t nl = (size_t)(p - nm);
    while (*p == ' ') p++;
    if (*p == '+' || *p == '-') {
        bool minus = *p++ == '-';
        while (*p == ' ') p++;
        if (!isdigit((unsigned char)*p)) return false;
        k = strtoll(p, &end, 10);
        if (minus) k = -k;
        p = end;
    }
    if (*p || !nl || (c == 1 && k == 0)) return false;
    for (int i = 0; b && b->o && i < b->o->n_sweep; i++) {
        const run_sweep_dim *w = &b->o->sweep[i];
        const char *root = w->axis >= 0 ? b->symbol[i] : w->name;
        size_t rl = w->axis >= 0 ? (root ? strlen(root) : 0) : w->name_len;
        if (root && rl == nl && !strncmp(root, nm, nl)) {
            b->used[i] = true;
            *out = c * w->at + k;
            return *out >= 0;
        }
    }
    return false;
}

/* The size of input vi's axis i (declared d) in the run: a sweep dimension that names it, by
 * symbol or as INPUT:AXIS (or a dimension derived from one), else d's value, else 2. */
static int64_t input_dim(sweep_binding *b, const Onnx__ValueInfoProto *vi, int i, const Onnx__TensorShapeProto__Dimension *d)
{
    const char *sym = dim_symbol(d);
    for (int k = 0; b && b->o && k < b->o->n_sweep; k++) {
        const run_sweep_dim *w = &b->o->sweep[k];
        bool here = w->axis >= 0 ? (w->axis == i && strlen(vi->name) == w->name_len && !strncmp(vi->name, w->name, w->name_len)) ||
                                       (sym && b->symbol[k] && !strcmp(sym, b->symbol[k]))
                                 : sym && strlen(sym) == w->name_len && !strncmp(sym, w->name, w->name_len);
        if (here) {
            b->used[k] = true;
            return w->at;
        }
    }
    int64_t derived;
    if (sym && derived_size(b, sym, &derived)) return derived;
    return d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value >= 0 ? d->dim_value : 2;
}

static int random_input(session *s, const char *cmd, const Onnx__ValueInfoProto *vi, uint64_t *rng, sweep_binding *b,
                        oe_tensor *out)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
        session_error(s, "%s: input %s is not a tensor; give its value with --inputs", cmd, vi->name);
        return -1;
    }
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    int64_t dims[OE_MAX_RANK];
    int rank = tt->shape ? (int)tt->shape->n_dim : 0;
    if (!tt->shape || rank > OE_MAX_RANK || !ot_dtype_supported(tt->elem_type)) {
        session_error(s, "%s: input %s has %s; give its value with --inputs", cmd, vi->name,
                      !tt->shape ? "no shape" : rank > OE_MAX_RANK ? "too many dimensions" : "an element type the evaluator does not hold");
        return -1;
    }
    for (int i = 0; i < rank; i++) dims[i] = input_dim(b, vi, i, tt->shape->dim[i]);
    if (ot_tensor_init(out, tt->elem_type, dims, rank)) {
        session_error(s, "%s: input %s is too large to make up", cmd, vi->name);
        return -1;
    }
    bool fl = tt->elem_type == 1 || tt->elem_type == 10 || tt->elem_type == 11 || tt->elem_type == 16;
    for (int64_t i = 0; i < out->numel; i++) {
        if (fl) ot_set_f(out, i, uniform01(rng));
        else if (tt->elem_type == 9) {
            ot_set_i(out, i, (int64_t)(next_random(rng) >> 63));
        } else {
            ot_set_i(out, i, (int64_t)(next_random(rng) % 4));
        }
    }
    return 0;
}

int run_random_value(session *s, const char *cmd, const Onnx__ValueInfoProto *vi, uint64_t *rng, oe_tensor *out)
{
    return random_input(s, cmd, vi, rng, NULL, out);
}

static void dims_text(const oe_tensor *t, strbuf *sb)
{
    sb_putc(sb, '[');
    for (int i = 0; i < t->rank; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    sb_putc(sb, ']');
}

/* Checks a given value against the input's declared type (JSON numbers are cast to it). */
static int check_given(session *s, const char *cmd, const Onnx__ValueInfoProto *vi, const oe_value *given, const char *file,
                       oe_tensor *out)
{
    const Onnx__TypeProto *tp = vi->type;
    const Onnx__TypeProto__Tensor *tt = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? tp->tensor_type : NULL;
    ot_tensor_copy(out, &given->value);
    if (!tt || given->value.kind != OE_KIND_TENSOR) return 0;
    if (tt->elem_type && tt->elem_type != out->dtype) {
        if (!given->untyped) {
            session_error(s, "%s: input %s: %s holds %s values, the model takes %s", cmd, vi->name, file,
                          view_numpy_dtype_name(out->dtype), view_numpy_dtype_name(tt->elem_type));
            return -1;
        }
        oe_tensor cast;
        if (ot_tensor_init(&cast, tt->elem_type, out->dims, out->rank)) return -1;
        for (int64_t i = 0; i < out->numel; i++) ot_set_f(&cast, i, ot_get_f(out, i));
        ot_tensor_free(out);
        *out = cast;
    }
    bool bad = tt->shape && (int)tt->shape->n_dim != out->rank;
    for (int i = 0; !bad && tt->shape && i < out->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        bad = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value != out->dims[i];
    }
    if (bad) {
        strbuf sb;
        sb_init(&sb);
        dims_text(out, &sb);
        sb_puts(&sb, ", the model takes [");
        for (size_t i = 0; i < tt->shape->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            if (i) sb_puts(&sb, ", ");
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) sb_printf(&sb, "%lld", (long long)d->dim_value);
            else sb_puts(&sb, d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? d->dim_param : "?");
        }
        sb_putc(&sb, ']');
        session_error(s, "%s: input %s: %s holds shape %s", cmd, vi->name, file, sb.s);
        sb_free(&sb);
        return -1;
    }
    return 0;
}

void run_inputs_free(run_input_set *in)
{
    for (size_t i = 0; i < in->n; i++) ot_tensor_free(&in->values[i]);
    free(in->values);
    free(in->named);
    memset(in, 0, sizeof *in);
}

int run_make_inputs(session *s, const char *cmd, const ox_model *m, const oe_values *file, const char *file_name,
                    uint64_t seed, run_input_set *in)
{
    return run_make_inputs_sized(s, cmd, m, file, file_name, seed, NULL, in);
}

/* The dynamic dimensions of m's inputs, "x:0 (batch), y:1 (s77)", for a sweep that named none. */
static void dynamic_dims_text(const ox_model *m, strbuf *sb)
{
    const Onnx__ValueInfoProto **vis;
    size_t n = oe_model_user_inputs(m, &vis);
    for (size_t i = 0; i < n; i++) {
        const Onnx__TypeProto *tp = vis[i]->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type->shape) continue;
        const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
        for (size_t k = 0; k < sh->n_dim; k++) {
            const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) continue;
            sb_printf(sb, "%s%s:%zu", sb->len ? ", " : "", vis[i]->name, k);
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) sb_printf(sb, " (%s)", d->dim_param);
        }
    }
    free(vis);
}

int run_make_inputs_sized(session *s, const char *cmd, const ox_model *m, const oe_values *file, const char *file_name,
                          uint64_t seed, const run_opts *o, run_input_set *in)
{

    const Onnx__ValueInfoProto **vis;
    in->n = oe_model_user_inputs(m, &vis);
    in->values = xcalloc(in->n + 1, sizeof *in->values);
    in->named = xcalloc(in->n + 1, sizeof *in->named);
    const char **names = xcalloc(in->n + 1, sizeof *names);
    for (size_t i = 0; i < in->n; i++) names[i] = vis[i]->name;
    uint64_t rng = seed;
    in->seed = seed;
    int rc = 0;
    sweep_binding bind;
    sweep_bind(&bind, o, vis, in->n);
    for (size_t i = 0; i < in->n && rc == 0; i++) {
        const oe_value *g = file ? view_values_pick(file, OE_ROLE_INPUT, vis[i]->name, i, names, in->n) : NULL;
        if (g) rc = check_given(s, cmd, vis[i], g, file_name ? file_name : "the file", &in->values[i]);
        else if (file && file_name) {
            session_error(s, "%s: %s has no value for the input %s", cmd, file_name, vis[i]->name);
            rc = -1;
        } else {
            rc = random_input(s, cmd, vis[i], &rng, &bind, &in->values[i]);
        }
        in->named[i] = (oe_named){vis[i]->name, &in->values[i]};
    }
    free(names);
    free(vis);
    /* a sweep of a dimension no input has would compare the same sizes again and again */
    for (int k = 0; rc == 0 && o && !file && k < o->n_sweep; k++) {
        if (bind.used[k]) continue;
        strbuf dyn, name;
        sb_init(&dyn);
        sb_init(&name);
        dynamic_dims_text(m, &dyn);
        sb_printf(&name, "%.*s", (int)o->sweep[k].name_len, o->sweep[k].name);
        if (o->sweep[k].axis >= 0) sb_printf(&name, ":%d", o->sweep[k].axis);
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: --shapes: no input of the model has a dimension %s", cmd,
                                    name.s);
        diag_set_hint(dg, dyn.len ? "its dynamic dimensions: %s" : "%s", dyn.len ? dyn.s : "its inputs are all static");
        sb_free(&dyn);
        sb_free(&name);
        rc = -1;
    }
    if (rc) run_inputs_free(in);
    return rc;
}

void run_inputs_as_values(const run_input_set *from, oe_values *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < from->n; i++) {
        oe_tensor copy;
        ot_tensor_copy(&copy, &from->values[i]);
        view_values_add(out, from->named[i].name, &copy, OE_ROLE_INPUT);
    }
}

/* ---- models ------------------------------------------------------------------------------------ */

int run_model_resolve(session *s, const char *cmd, const char *what, run_model_ref *r)
{
    memset(r, 0, sizeof *r);
    int idx = what ? session_stage_index(what) : s->current;
    if (what && idx < 0) {
        r->m = cmd_load_model_file(s, cmd, what);
        r->owned = r->m != NULL;
        r->label = what;
    } else if (idx < 0) {
        session_error(s, "%s: nothing loaded (use `load FILE` first)", cmd);
        return -1;
    } else {
        r->m = pipeline_stage_model(s, idx, cmd, &r->owned);
        r->label = session_stage_name(idx);
    }
    if (!r->m) return -1;
    if (!r->m->proto->graph) {
        session_error(s, "%s: the %s%s model has no graph", cmd, r->label, idx >= 0 ? " stage's" : "");
        run_model_ref_free(r);
        return -1;
    }
    return 0;
}

int run_pair_open(session *s, const char *cmd, const run_opts *o, run_pair *p)
{
    memset(p, 0, sizeof *p);
    oe_values same = {0};
    int rc = 0;
    if (o->inputs && run_read_values(s, cmd, o->inputs, &p->file)) rc = -1;
    if (!rc && (run_model_resolve(s, cmd, o->stages[0], &p->a) || run_model_resolve(s, cmd, o->stages[1], &p->b))) rc = -1;
    if (!rc && run_make_inputs_sized(s, cmd, p->a.m, o->inputs ? &p->file : NULL, o->inputs, o->seed, o, &p->in_a)) rc = -1;
    char label[512];
    snprintf(label, sizeof label, "the inputs of %s", p->a.label ? p->a.label : "");
    if (!rc) run_inputs_as_values(&p->in_a, &same);
    if (!rc && run_make_inputs(s, cmd, p->b.m, &same, label, o->seed, &p->in_b)) rc = -1;
    view_values_free(&same);
    if (rc) run_pair_free(p);
    return rc;
}

void run_pair_free(run_pair *p)
{
    run_inputs_free(&p->in_a);
    run_inputs_free(&p->in_b);
    view_values_free(&p->file);
    run_model_ref_free(&p->a);
    run_model_ref_free(&p->b);
    memset(p, 0, sizeof *p);
}

void run_model_ref_free(run_model_ref *r)
{
    if (r->owned) ox_model_free(r->m);
    memset(r, 0, sizeof *r);
}

/* ---- evaluation -------------------------------------------------------------------------------- */

int run_evaluate(session *s, const char *cmd, const ox_model *m, const run_input_set *in, oe_tensor *outputs)
{
    diag_sink d;
    diag_init(&d);
    oe_model_opts mo = {.seed = in->seed};   /* RandomNormal & co. draw from --seed's stream */
    int rc = oe_eval_model(m, in->named, in->n, outputs, &mo, &d);
    for (size_t i = 0; i < d.len; i++)
        if (d.items[i].severity == DIAG_ERROR) session_error(s, "%s: %s", cmd, d.items[i].message);
    diag_free(&d);
    return rc == OE_OK ? 0 : -1;
}

/* A stage's model and its outputs on the given inputs (the file's, or random with seed). */
typedef struct stage_run {
    run_model_ref ref;
    ox_model *m;                 /* ref.m */
    size_t nout;
    oe_tensor *outputs;
    run_input_set in;
} stage_run;

static void stage_run_free(stage_run *r)
{
    for (size_t i = 0; i < r->nout; i++) ot_tensor_free(&r->outputs[i]);
    free(r->outputs);
    run_inputs_free(&r->in);
    run_model_ref_free(&r->ref);
    memset(r, 0, sizeof *r);
}

int run_check_ranges(session *s, const char *cmd, const char *stage_name, const run_input_set *in)
{
    int idx = stage_name ? session_stage_index(stage_name) : s->current;
    const fx_program *p = idx >= 0 && s->stages[idx].kind == PL_FX ? s->stages[idx].fx : NULL;
    const fx_graph *g = p ? fx_program_graph(p) : NULL;
    if (!g || !p->n_ranges) return 0;
    for (size_t i = 0; i < in->n; i++) {
        const fx_node *n = fx_graph_lookup(g, in->named[i].name);
        const fx_value *v = n && n->op == FX_OP_PLACEHOLDER ? n->meta.val : NULL;
        const oe_tensor *t = in->named[i].value;
        if (!v || v->kind != FX_VAL_TENSOR || t->kind != OE_KIND_TENSOR || (int)v->rank != t->rank) continue;
        for (size_t k = 0; k < v->rank; k++)
            for (size_t r = 0; r < p->n_ranges; r++) {
                const fx_range *rg = &p->ranges[r];
                if (!rg->symbol || strcmp(rg->symbol, v->sizes[k])) continue;
                long long lo = rg->min ? strtoll(rg->min, NULL, 10) : 0;
                bool bounded = rg->max && strcmp(rg->max, "int_oo");
                long long hi = bounded ? strtoll(rg->max, NULL, 10) : 0;
                long long got = (long long)t->dims[k];
                if (got >= lo && (!bounded || got <= hi)) continue;
                diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: %s: Guard failed: %s.size()[%zu] %s %lld (the "
                                            "input's size is %lld; %s is in VR[%s, %s])", cmd, stage_name ? stage_name : "the stage",
                                            n->name, k, got < lo ? ">=" : "<=", got < lo ? lo : hi, got, rg->symbol,
                                            rg->min ? rg->min : "?", rg->max ? rg->max : "?");
                diag_set_hint(dg, "torch's ep.module() refuses this input too; the ONNX model, whose inputs cannot say a "
                                  "range, does not: `guards` shows what narrowed it");
                return -1;
            }
    }
    return 0;
}

static int run_stage_named(session *s, const char *cmd, const char *name, const oe_values *file, const char *file_name,
                           uint64_t seed, const run_opts *o, stage_run *r)
{
    memset(r, 0, sizeof *r);
    if (run_model_resolve(s, cmd, name, &r->ref)) return -1;
    r->m = r->ref.m;
    r->nout = r->m->proto->graph->n_output;
    r->outputs = xcalloc(r->nout + 1, sizeof *r->outputs);
    if (run_make_inputs_sized(s, cmd, r->m, file, file_name, seed, o, &r->in) || run_check_ranges(s, cmd, name, &r->in) ||
        run_evaluate(s, cmd, r->m, &r->in, r->outputs)) {
        r->nout = 0;
        stage_run_free(r);
        return -1;
    }
    return 0;
}

int run_read_values(session *s, const char *cmd, const char *path, oe_values *v)
{
    diag_sink d;
    diag_init(&d);
    int rc = view_values_read(path, v, &d);
    for (size_t i = 0; i < d.len; i++) {
        const diagnostic *dg = &d.items[i];
        if (dg->file) session_error(s, "%s: %s: %s", cmd, dg->file, dg->message);
        else session_error(s, "%s: %s", cmd, dg->message);
    }
    diag_free(&d);
    return rc;
}

/* ---- run --------------------------------------------------------------------------------------- */

static void print_output(session *s, const char *name, const oe_tensor *t)
{
    strbuf sb;
    sb_init(&sb);
    if (t->kind == OE_KIND_SEQUENCE) sb_printf(&sb, "%s: sequence of %lld\n", name, (long long)t->n_items);
    else if (t->kind == OE_KIND_OPTIONAL) sb_printf(&sb, "%s: optional\n", name);
    else {
        sb_printf(&sb, "%s: %s", name, view_numpy_dtype_name(t->dtype));
        dims_text(t, &sb);
        sb_putc(&sb, '\n');
    }
    view_repr(t, &sb);
    sb_putc(&sb, '\n');
    fwrite(sb.s, 1, sb.len, s->out);
    sb_free(&sb);
}

static int save_outputs(session *s, const stage_run *r, const char *path)
{
    const char **names = xcalloc(r->nout + 1, sizeof *names);
    const oe_tensor **vals = xcalloc(r->nout + 1, sizeof *vals);
    int rc = 0;
    for (size_t i = 0; i < r->nout; i++) {
        names[i] = r->m->proto->graph->output[i]->name;
        vals[i] = &r->outputs[i];
        if (r->outputs[i].kind != OE_KIND_TENSOR) {
            session_error(s, "run: --save: output %s is a %s; an .npz holds tensors only", names[i],
                          r->outputs[i].kind == OE_KIND_SEQUENCE ? "sequence" : "optional");
            rc = -1;
        }
    }
    if (rc == 0) {
        diag_sink d;
        diag_init(&d);
        rc = npz_write(path, names, vals, r->nout, &d);
        for (size_t i = 0; i < d.len; i++) {
            const diagnostic *dg = &d.items[i];
            if (dg->file && !strstr(dg->message, path)) session_error(s, "run: --save: %s: %s", dg->file, dg->message);
            else session_error(s, "run: --save: %s", dg->message);
        }
        diag_free(&d);
    }
    free(names);
    free(vals);
    return rc;
}

void run_json_inputs(json_writer *w, const char *file, uint64_t seed)
{
    jw_kstring(w, "inputs", file);
    jw_key(w, "seed");
    if (file) jw_null(w);
    else jw_uint(w, seed);
}

void run_json_type(json_writer *w, const char *dtype_key, const char *shape_key, const oe_tensor *t)
{
    if (t->kind != OE_KIND_TENSOR) {
        jw_kstring(w, "kind", t->kind == OE_KIND_SEQUENCE ? "sequence" : "optional");
        return;
    }
    jw_kstring(w, dtype_key, view_numpy_dtype_name(t->dtype));
    jw_key(w, shape_key);
    jw_array(w);
    for (int d = 0; d < t->rank; d++) jw_int(w, t->dims[d]);
    jw_array_end(w);
}

/* run --json: {"stage", "inputs", "seed", "outputs": [{"name", "dtype", "shape", "values"}],
 * "saved", "ok"} */
static void run_json(session *s, const stage_run *r, const run_opts *o, bool saved)
{
    strbuf sb;
    sb_init(&sb);
    json_writer w;
    cmd_json_begin(&w, &sb, "run", r->ref.label);
    run_json_inputs(&w, o->inputs, o->seed);
    jw_key(&w, "outputs");
    jw_array(&w);
    for (size_t i = 0; i < r->nout; i++) {
        jw_object(&w);
        jw_kstring(&w, "name", r->m->proto->graph->output[i]->name);
        run_json_type(&w, "dtype", "shape", &r->outputs[i]);
        jw_key(&w, "values");
        view_json_value(&w, &r->outputs[i]);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_kstring(&w, "saved", saved ? o->save : NULL);
    jw_kbool(&w, "ok", !o->save || saved);
    cmd_json_end(&w);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
}

int cmd_run(session *s, int argc, char **argv)
{
    bool json = cmd_json_flag(&argc, argv);
    run_opts o;
    if (!run_parse_opts(s, "run", argc, argv, "--inputs --seed --save --shapes", 1, &o)) return 1;
    oe_values file = {0};
    if (o.inputs && run_read_values(s, "run", o.inputs, &file)) return 1;
    stage_run r;
    int rc = run_stage_named(s, "run", o.stages[0], o.inputs ? &file : NULL, o.inputs, o.seed, &o, &r);
    view_values_free(&file);
    if (rc) return 1;
    if (!json)
        for (size_t i = 0; i < r.nout; i++) print_output(s, r.m->proto->graph->output[i]->name, &r.outputs[i]);
    if (o.save && save_outputs(s, &r, o.save)) rc = 1;
    if (json) run_json(s, &r, &o, o.save && !rc);
    stage_run_free(&r);
    return rc;
}

/* ---- verify ------------------------------------------------------------------------------------ */

/* One PASS/FAIL line (or, with w, its JSON object); returns true on PASS. want NULL: the
 * reference has no such output. */
bool run_report_output(session *s, json_writer *w, const char *name, const oe_tensor *got, const oe_tensor *want,
                          const run_opts *o, const char *indent)
{
    oe_diff df = {0};
    if (want) view_diff_values(got, want, o->atol, o->rtol, &df);
    else df.problem = "no expected value";
    bool pass = view_diff_ok(&df) && want;
    bool shape = df.problem && !strcmp(df.problem, "shape") && got->kind == OE_KIND_TENSOR;
    if (w) {
        /* "name", "pass", "max_abs_diff", "max_rel_diff", "mismatched", "elements", "problem",
         * "dtype", "shape", "expected_dtype", "expected_shape" */
        jw_object(w);
        jw_kstring(w, "name", name);
        jw_kbool(w, "pass", pass);
        bool measured = !df.problem;
        jw_key(w, "max_abs_diff");
        if (measured) jw_double_named(w, df.max_abs);
        else jw_null(w);
        jw_key(w, "max_rel_diff");
        if (measured) jw_double_named(w, df.max_rel);
        else jw_null(w);
        jw_key(w, "mismatched");
        if (measured) jw_int(w, df.bad);
        else jw_null(w);
        jw_key(w, "elements");
        if (measured) jw_int(w, df.total);
        else jw_null(w);
        jw_kstring(w, "problem", df.problem);
        run_json_type(w, "dtype", "shape", got);
        if (want) run_json_type(w, "expected_dtype", "expected_shape", want);
        jw_object_end(w);
        return pass;
    }
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s%s %s: ", indent, pass ? "PASS" : "FAIL", name);
    if (shape) {
        sb_puts(&sb, "shape ");
        dims_text(got, &sb);
        sb_puts(&sb, ", expected ");
        dims_text(want, &sb);
    } else if (df.problem) {
        sb_printf(&sb, "%s", df.problem);
    } else {
        sb_printf(&sb, "max abs diff %.3g, max rel diff %.3g", df.max_abs, df.max_rel);
        if (!pass) sb_printf(&sb, " (%lld of %lld elements beyond tolerance)", (long long)df.bad, (long long)df.total);
    }
    if (want && got->kind == OE_KIND_TENSOR && want->kind == OE_KIND_TENSOR && got->dtype != want->dtype)
        sb_printf(&sb, " [dtype %s, expected %s]", view_numpy_dtype_name(got->dtype), view_numpy_dtype_name(want->dtype));
    sb_putc(&sb, '\n');
    fwrite(sb.s, 1, sb.len, s->out);
    sb_free(&sb);
    return pass;
}

/* The reference value of output i: from the expected file, or from the other stage's run. */
static const oe_tensor *reference_output(const stage_run *a, size_t i, const oe_values *exp, const stage_run *b,
                                         const char **names)
{
    const char *name = a->m->proto->graph->output[i]->name;
    if (exp) {
        const oe_value *v = view_values_pick(exp, OE_ROLE_OUTPUT, name, i, names, a->nout);
        return v ? &v->value : NULL;
    }
    for (size_t k = 0; k < b->nout; k++)
        if (!strcmp(b->m->proto->graph->output[k]->name, name)) return &b->outputs[k];
    return i < b->nout ? &b->outputs[i] : NULL;
}

/* The members every verify document starts with: stage, reference, inputs, seed, atol, rtol. */
static void verify_json_begin(json_writer *w, strbuf *sb, const char *stage, const char *reference, const char *in_name,
                              const run_opts *o)
{
    cmd_json_begin(w, sb, "verify", stage);
    jw_kstring(w, "reference", reference);
    run_json_inputs(w, in_name, o->seed);
    jw_key(w, "atol");
    jw_double(w, o->atol);
    jw_key(w, "rtol");
    jw_double(w, o->rtol);
}

/* verify --json: {"stage", "reference", "inputs", "seed", "atol", "rtol", "outputs": [...],
 * "failed", "ok"} */
static int verify_outputs(session *s, const stage_run *a, const oe_values *exp, const stage_run *b, const run_opts *o,
                          const char *in_name, bool json)
{
    const char **names = xcalloc(a->nout + 1, sizeof *names);
    for (size_t i = 0; i < a->nout; i++) names[i] = a->m->proto->graph->output[i]->name;
    strbuf sb;
    sb_init(&sb);
    json_writer jw, *w = json ? &jw : NULL;
    if (w) {
        verify_json_begin(w, &sb, a->ref.label, exp ? o->expected : b->ref.label, in_name, o);
        jw_key(w, "outputs");
        jw_array(w);
    }
    size_t failed = 0;
    for (size_t i = 0; i < a->nout; i++)
        if (!run_report_output(s, w, names[i], &a->outputs[i], reference_output(a, i, exp, b, names), o, "")) failed++;
    free(names);
    if (w) {
        jw_array_end(w);
        jw_kint(w, "failed", (int64_t)failed);
        jw_kbool(w, "ok", failed == 0);
        cmd_json_end(w);
        session_write(s, sb.s, sb.len);
    }
    sb_free(&sb);
    if (failed) {
        session_error(s, "verify: %zu of %zu output%s differ%s (atol %g, rtol %g)", failed, a->nout, a->nout == 1 ? "" : "s",
                      failed == 1 ? "s" : "", o->atol, o->rtol);
        return 1;
    }
    if (!json)
        fprintf(s->out, "verify: %zu output%s within atol %g, rtol %g\n", a->nout, a->nout == 1 ? "" : "s", o->atol, o->rtol);
    return 0;
}

/* One verify at the sizes o's sweep is at (or without a sweep); outputs as verify_outputs. */
static int verify_once(session *s, const run_opts *o, bool json)
{
    oe_values inputs = {0}, expected = {0};
    int rc = 0;
    if (o->inputs && run_read_values(s, "verify", o->inputs, &inputs)) rc = 1;
    if (!rc && o->expected && run_read_values(s, "verify", o->expected, &expected)) rc = 1;
    /* inputs: --inputs, else those the expected file holds (io.json, io.npz), else random */
    bool exp_has_inputs = false;
    for (size_t i = 0; i < expected.len; i++) exp_has_inputs |= expected.items[i].role == OE_ROLE_INPUT;
    const oe_values *in = o->inputs ? &inputs : exp_has_inputs ? &expected : NULL;
    const char *in_name = o->inputs ? o->inputs : exp_has_inputs ? o->expected : NULL;
    stage_run a = {0}, b = {0};
    if (!rc && run_stage_named(s, "verify", o->stages[0], in, in_name, o->seed, o, &a)) rc = 1;
    if (!rc && o->n_stages > 1) {
        /* the second stage gets exactly the first one's inputs, random ones included */
        oe_values same;
        run_inputs_as_values(&a.in, &same);
        char label[512];
        snprintf(label, sizeof label, "the inputs of %s", a.ref.label);
        if (run_stage_named(s, "verify", o->stages[1], &same, label, o->seed, NULL, &b)) rc = 1;
        view_values_free(&same);
    }
    if (!rc) rc = verify_outputs(s, &a, o->expected ? &expected : NULL, &b, o, in_name, json);
    if (a.m) stage_run_free(&a);
    if (b.m) stage_run_free(&b);
    view_values_free(&inputs);
    view_values_free(&expected);
    return rc;
}

/* One size of a sweep: both stages on the same random inputs, each output judged; true when all
 * pass. An evaluation that fails (a model static where its inputs say dynamic, an exported
 * program's range) fails the size; *ran says whether both ran. */
static bool verify_size(session *s, const run_opts *o, json_writer *w, const char *sizes, bool *ran_out)
{
    stage_run a = {0}, b = {0};
    /* an evaluation that fails belongs to its size's line, not to the end of the command */
    diag_sink outer = s->diag;
    diag_init(&s->diag);
    bool ran = run_stage_named(s, "verify", o->stages[0], NULL, NULL, o->seed, o, &a) == 0;
    const char *failing = ran ? NULL : o->stages[0];
    if (ran) {
        oe_values same;
        run_inputs_as_values(&a.in, &same);
        char label[512];
        snprintf(label, sizeof label, "the inputs of %s", a.ref.label);
        ran = run_stage_named(s, "verify", o->stages[1], &same, label, o->seed, NULL, &b) == 0;
        if (!ran) failing = o->stages[1];
        view_values_free(&same);
    }
    strbuf why;
    sb_init(&why);
    for (size_t i = 0; i < s->diag.len; i++) {
        const char *msg = s->diag.items[i].message;
        if (s->diag.items[i].severity != DIAG_ERROR) continue;
        if (!strncmp(msg, "verify: ", 8)) msg += 8;
        size_t fl = failing ? strlen(failing) : 0;
        bool named = fl && !strncmp(msg, failing, fl) && msg[fl] == ':';   /* says its stage already */
        sb_printf(&why, "%s%s%s%s", why.len ? "; " : "", named || !failing ? "" : failing, named || !failing ? "" : ": ", msg);
    }
    diag_free(&s->diag);
    s->diag = outer;
    size_t failed = 0;
    if (w) {
        jw_object(w);
        jw_key(w, "sizes");
        jw_object(w);
        for (int k = 0; k < o->n_sweep; k++) {
            char key[300];
            const run_sweep_dim *d = &o->sweep[k];
            if (d->axis >= 0) snprintf(key, sizeof key, "%.*s:%d", (int)d->name_len, d->name, d->axis);
            else snprintf(key, sizeof key, "%.*s", (int)d->name_len, d->name);
            jw_kint(w, key, d->at);
        }
        jw_object_end(w);
        jw_kbool(w, "ran", ran);
        jw_kstring(w, "problem", ran ? NULL : why.s);
        jw_key(w, "outputs");
        jw_array(w);
    } else if (ran) {
        fprintf(s->out, "%s:\n", sizes);
    } else {
        fprintf(s->out, "%s: FAIL: %s\n", sizes, why.len ? why.s : "a model does not run at these sizes");
    }
    sb_free(&why);
    if (ran) {
        const char **names = xcalloc(a.nout + 1, sizeof *names);
        for (size_t i = 0; i < a.nout; i++) names[i] = a.m->proto->graph->output[i]->name;
        for (size_t i = 0; i < a.nout; i++)
            if (!run_report_output(s, w, names[i], &a.outputs[i], reference_output(&a, i, NULL, &b, names), o, "  ")) failed++;
        free(names);
    }
    if (w) {
        jw_array_end(w);
        jw_kbool(w, "ok", ran && !failed);
        jw_object_end(w);
    }
    if (a.m) stage_run_free(&a);
    if (b.m) stage_run_free(&b);
    *ran_out = ran;
    return ran && !failed;
}

/* verify A B --shapes ...: every combination of the sizes, the first that fails named. --json:
 * {"stage", "reference", "seed", "atol", "rtol", "sweep": [{"sizes", "ran", "problem", "outputs",
 * "ok"}], "failed", "first_failed", "ok"} */
static int verify_sweep(session *s, run_opts *o, bool json)
{
    size_t runs = 1;
    for (int k = 0; k < o->n_sweep; k++) runs *= (size_t)o->sweep[k].n_sizes;
    if (runs > RUN_MAX_SWEEP_RUNS) {
        session_error(s, "verify: --shapes makes %zu combinations of sizes; at most %d", runs, RUN_MAX_SWEEP_RUNS);
        return 1;
    }
    strbuf sb;
    sb_init(&sb);
    json_writer jw, *w = json ? &jw : NULL;
    run_model_ref ra, rb;
    if (run_model_resolve(s, "verify", o->stages[0], &ra)) return 1;
    if (run_model_resolve(s, "verify", o->stages[1], &rb)) {
        run_model_ref_free(&ra);
        return 1;
    }
    /* every dimension the sweep names must be one of A's inputs': checked once, before any run */
    run_input_set probe;
    if (run_make_inputs_sized(s, "verify", ra.m, NULL, NULL, o->seed, o, &probe)) {
        run_model_ref_free(&ra);
        run_model_ref_free(&rb);
        return 1;
    }
    run_inputs_free(&probe);
    if (w) {
        verify_json_begin(w, &sb, ra.label, rb.label, NULL, o);
        jw_key(w, "sweep");
        jw_array(w);
    }
    int idx[RUN_MAX_SWEEP_DIMS] = {0};
    size_t failed = 0;
    char first[512] = "", sizes[512];
    int64_t first_at[RUN_MAX_SWEEP_DIMS] = {0};
    bool first_ran = false;
    for (size_t r = 0; r < runs && !interrupt_pending(); r++) {
        for (int k = 0; k < o->n_sweep; k++) o->sweep[k].at = o->sweep[k].sizes[idx[k]];
        run_sweep_text(o, sizes, sizeof sizes);
        bool ran;
        if (!verify_size(s, o, w, sizes, &ran) && !failed++) {
            snprintf(first, sizeof first, "%s", sizes);
            for (int k = 0; k < o->n_sweep; k++) first_at[k] = o->sweep[k].at;
            first_ran = ran;
        }
        for (int k = o->n_sweep - 1; k >= 0; k--) {   /* the next combination, the last dimension fastest */
            if (++idx[k] < o->sweep[k].n_sizes) break;
            idx[k] = 0;
        }
    }
    if (w) {
        jw_array_end(w);
        jw_kint(w, "failed", (int64_t)failed);
        jw_kstring(w, "first_failed", failed ? first : NULL);
        jw_kbool(w, "ok", failed == 0);
        cmd_json_end(w);
        session_write(s, sb.s, sb.len);
    }
    sb_free(&sb);
    int rc = 0;
    if (failed) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "verify: %s and %s differ at %zu of %zu sizes, first at %s",
                                    ra.label, rb.label, failed, runs, first);
        /* the same sizes, as --shapes options, for compare to find the node */
        strbuf again;
        sb_init(&again);
        for (int k = 0; k < o->n_sweep; k++) {
            const run_sweep_dim *d = &o->sweep[k];
            sb_printf(&again, " --shapes %.*s", (int)d->name_len, d->name);
            if (d->axis >= 0) sb_printf(&again, ":%d", d->axis);
            sb_printf(&again, "=%lld", (long long)first_at[k]);
        }
        if (first_ran)
            diag_set_hint(dg, "`compare %s %s%s` finds the first node where they part", o->stages[0], o->stages[1], again.s);
        else
            diag_set_hint(dg, "at %s a model does not run (its line above says why): no value was compared", first);
        sb_free(&again);
        rc = 1;
    } else if (!json) {
        fprintf(s->out, "verify: %s and %s agree at all %zu sizes (atol %g, rtol %g)\n", ra.label, rb.label, runs, o->atol,
                o->rtol);
    }
    run_model_ref_free(&ra);
    run_model_ref_free(&rb);
    return rc;
}

int cmd_verify(session *s, int argc, char **argv)
{
    bool json = cmd_json_flag(&argc, argv);
    run_opts o;
    if (!run_parse_opts(s, "verify", argc, argv, "--inputs --seed --expected --atol --rtol --shapes --decode --prefill --save",
                        2, &o))
        return 1;
    if (o.decode || o.prefill || o.save) {
        const char *clash = o.expected ? "--expected" : o.n_sweep ? "--shapes" : NULL;
        if (!o.decode || o.n_stages < 2 || clash) {
            diagnostic *dg = !o.decode ? diag_error(&s->diag, (diag_loc){0}, "verify: --prefill and --save go with --decode N")
                             : clash ? diag_error(&s->diag, (diag_loc){0}, "verify: --decode makes its inputs step by step "
                                                  "(--inputs gives the prefill's); it does not go with %s", clash)
                                     : diag_error(&s->diag, (diag_loc){0}, "verify: --decode compares two models: give two stages "
                                                  "or model files");
            diag_set_hint(dg, "verify STAGE_A STAGE_B --decode N [--prefill L] [--save STEP.npz], e.g. verify optimized exported --decode 8");
            return 1;
        }
        return verify_decode(s, &o, json);
    }
    if (!o.expected && o.n_stages < 2) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "verify: nothing to compare with");
        diag_set_hint(dg, "verify [STAGE] --expected FILE, or verify STAGE_A STAGE_B");
        return 1;
    }
    if (o.expected && o.n_stages > 1) {
        session_error(s, "verify: give --expected FILE or a second stage, not both");
        return 1;
    }
    if (o.n_sweep && (o.inputs || o.expected)) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "verify: --shapes sizes random inputs; it does not go with %s",
                                    o.inputs ? "--inputs" : "--expected");
        diag_set_hint(dg, "verify STAGE_A STAGE_B --shapes NAME=SIZES");
        return 1;
    }
    return o.n_sweep ? verify_sweep(s, &o, json) : verify_once(s, &o, json);
}
