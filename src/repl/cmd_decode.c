/* cmd_decode.c — `verify A B --decode N`: a decoder with a key/value cache checked over a prefill
 * and N decoding steps, each model feeding its own present keys/values back as its past, both
 * given the same tokens (greedy from the reference's logits), every step's outputs compared.
 *
 * Why each model keeps its own cache: a cache update that is wrong (a Concat on the wrong axis,
 * a present that drops the past) matches at the prefill, whose past is empty, and shows only
 * once the cache is read back; comparing the steps of two runs that each live on their own
 * caches is what finds it. The tokens are shared so that both runs see the same sequence.
 *
 * What the inputs are, found from the model's inputs and outputs (as ONNX Runtime GenAI and
 * optimum name them, or as torch.export does):
 *   caches      inputs named past* / *cache* (not cache_position), each paired with the output
 *               named present* in the same order, else with the last outputs of the same type
 *               and rank, in order; empty at the prefill (every dynamic axis but a leading
 *               batch axis 0), then the previous step's present;
 *   tokens      the integer input named *ids* (not position_ids, token_type_ids), else the
 *               first integer input of rank 1 or 2: random in [0, vocab) at the prefill, then the
 *               reference's argmax at the last position;
 *   logits      the first floating output that is not a present;
 *   attention_mask, position_ids, cache_position: ones over past + new, past + arange(new);
 *   others      random, as `run` makes them, the same at every step. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/interrupt.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "eval/onnx_eval.h"
#include "onnx/onnx_ir.h"
#include "view/onnx_npz.h"
#include "view/onnx_repr.h"
#include "view/onnx_values.h"
#include "repl/cmd_handlers.h"
#include "repl/cmd_run.h"

enum { DEFAULT_PREFILL = 4, BATCH = 2, MAX_CACHES = 256 };

typedef enum { ROLE_OTHER, ROLE_TOKENS, ROLE_CACHE, ROLE_MASK, ROLE_POSITIONS, ROLE_CACHE_POSITION } input_role;

/* How one model is driven: the role of each input, which output feeds each cache input. */
typedef struct decode_plan {
    run_model_ref ref;
    const Onnx__ValueInfoProto **in;   /* user inputs */
    size_t n_in, n_out;
    input_role *role;
    int *present;                      /* per input: the output that feeds it (caches), else -1 */
    int tokens, logits;                /* input / output index, -1 when there is none */
    size_t n_caches;
} decode_plan;

static const Onnx__TypeProto__Tensor *tensor_type(const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto *tp = vi ? vi->type : NULL;
    return tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? tp->tensor_type : NULL;
}

static int rank_of(const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto__Tensor *t = tensor_type(vi);
    return t && t->shape ? (int)t->shape->n_dim : -1;
}

static int elem_of(const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto__Tensor *t = tensor_type(vi);
    return t ? t->elem_type : 0;
}

/* Case-insensitive substring. */
static bool has(const char *name, const char *part)
{
    size_t n = strlen(part);
    for (const char *p = name; *p; p++)
        if (!strncasecmp(p, part, n)) return true;
    return false;
}

static input_role role_of(const Onnx__ValueInfoProto *vi)
{
    const char *n = vi->name;
    int e = elem_of(vi);
    if (has(n, "cache_position")) return ROLE_CACHE_POSITION;
    if (has(n, "past") || has(n, "cache")) return ROLE_CACHE;
    if (has(n, "attention_mask")) return ROLE_MASK;
    if (has(n, "position_ids")) return ROLE_POSITIONS;
    if (has(n, "ids") && !has(n, "token_type") && oe_is_int(e)) return ROLE_TOKENS;
    return ROLE_OTHER;
}

static void plan_free(decode_plan *p)
{
    free(p->in);
    free(p->role);
    free(p->present);
    run_model_ref_free(&p->ref);
    memset(p, 0, sizeof *p);
}

/* Finds the roles of a model's inputs and the output of each cache; -1 after reporting. */
static int plan_make(session *s, const char *what, decode_plan *p)
{
    memset(p, 0, sizeof *p);
    if (run_model_resolve(s, "verify", what, &p->ref)) return -1;
    const Onnx__GraphProto *g = p->ref.m->proto->graph;
    p->n_in = oe_model_user_inputs(p->ref.m, &p->in);
    p->n_out = g->n_output;
    p->role = xcalloc(p->n_in + 1, sizeof *p->role);
    p->present = xcalloc(p->n_in + 1, sizeof *p->present);
    p->tokens = p->logits = -1;
    for (size_t i = 0; i < p->n_in; i++) {
        p->role[i] = role_of(p->in[i]);
        p->present[i] = -1;
        if (p->role[i] == ROLE_TOKENS && p->tokens < 0) p->tokens = (int)i;
        else if (p->role[i] == ROLE_TOKENS) p->role[i] = ROLE_OTHER;
        if (p->role[i] == ROLE_CACHE) p->n_caches++;
    }
    for (size_t i = 0; i < p->n_in && p->tokens < 0; i++) {
        int r = rank_of(p->in[i]);
        if (p->role[i] == ROLE_OTHER && oe_is_int(elem_of(p->in[i])) && (r == 1 || r == 2)) {
            p->tokens = (int)i;
            p->role[i] = ROLE_TOKENS;
        }
    }
    const char *label = p->ref.label;
    if (!p->n_caches) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "verify: --decode: %s has no past key/value inputs", label);
        diag_set_hint(dg, "a decoder step takes its cache as inputs named past* (past_key_values.0.key, past_key_0) and "
                          "returns it as outputs; export the step that way (transformers: a DynamicCache built from them)");
        return -1;
    }
    if (p->n_caches > MAX_CACHES || p->n_caches >= p->n_out) {
        session_error(s, "verify: --decode: %s has %zu cache inputs and %zu outputs: too %s to pair them with its presents",
                      label, p->n_caches, p->n_out, p->n_caches > MAX_CACHES ? "many" : "few outputs");
        return -1;
    }
    /* each cache input's present: the outputs named present*, in order, when there is one per
     * cache; else the last n_caches outputs (torch.export names them after their nodes) */
    size_t n_present = 0, o = 0;
    for (size_t k = 0; k < p->n_out; k++) n_present += has(g->output[k]->name, "present");
    for (size_t i = 0; i < p->n_in; i++) {
        if (p->role[i] != ROLE_CACHE) continue;
        if (n_present == p->n_caches)
            while (!has(g->output[o]->name, "present")) o++;
        else if (o < p->n_out - p->n_caches)
            o = p->n_out - p->n_caches;
        p->present[i] = (int)o++;
    }
    for (size_t i = 0; i < p->n_in; i++) {
        if (p->role[i] != ROLE_CACHE) continue;
        const Onnx__ValueInfoProto *out = g->output[p->present[i]];
        if (elem_of(out) != elem_of(p->in[i]) || rank_of(out) != rank_of(p->in[i])) {
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "verify: --decode: %s: the cache input %s and the output %s "
                                        "that would feed it differ in type or rank", label, p->in[i]->name, out->name);
            diag_set_hint(dg, "the presents are the outputs named present*, else the last outputs, one per past input "
                              "and in the same order");
            return -1;
        }
    }
    if (p->tokens < 0) {
        session_error(s, "verify: --decode: %s has no token input (an integer input named *ids*, or of rank 1 or 2)", label);
        return -1;
    }
    for (size_t o = 0; o < p->n_out && p->logits < 0; o++) {
        bool present = false;
        for (size_t i = 0; i < p->n_in; i++) present |= p->present[i] == (int)o;
        if (!present && oe_is_float(elem_of(g->output[o]))) p->logits = (int)o;
    }
    return 0;
}

/* The state of one decoding run: its caches (the last presents, by input index). */
typedef struct decode_run {
    decode_plan *plan;
    oe_tensor *cache;                  /* per input; only caches are set */
    oe_tensor *outputs;                /* the last step's */
} decode_run;

static void run_outputs_free(decode_run *r)
{
    for (size_t o = 0; r->outputs && o < r->plan->n_out; o++) ot_tensor_free(&r->outputs[o]);
}

static void decode_run_free(decode_run *r)
{
    for (size_t i = 0; r->cache && i < r->plan->n_in; i++) ot_tensor_free(&r->cache[i]);
    run_outputs_free(r);
    free(r->cache);
    free(r->outputs);
}

/* An empty cache of vi's type: a dynamic leading axis is the batch, every other dynamic axis 0. */
static int empty_cache(session *s, const Onnx__ValueInfoProto *vi, oe_tensor *out)
{
    const Onnx__TensorShapeProto *sh = tensor_type(vi) ? tensor_type(vi)->shape : NULL;
    int64_t dims[OE_MAX_RANK];
    int rank = sh ? (int)sh->n_dim : -1;
    if (rank < 0 || rank > OE_MAX_RANK) {
        session_error(s, "verify: --decode: the cache input %s has no shape the evaluator can make", vi->name);
        return -1;
    }
    for (int a = 0; a < rank; a++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[a];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) dims[a] = d->dim_value;
        else dims[a] = a == 0 ? BATCH : 0;
    }
    if (ot_tensor_init(out, vi->type->tensor_type->elem_type, dims, rank)) {
        session_error(s, "verify: --decode: cannot make an empty cache for %s", vi->name);
        return -1;
    }
    return 0;
}

/* The batch size of the run: the tokens' leading axis when it is static, else BATCH. */
static int64_t batch_of(const decode_plan *p)
{
    const Onnx__TensorShapeProto *sh = tensor_type(p->in[p->tokens])->shape;
    if (sh && sh->n_dim == 2 && sh->dim[0]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        return sh->dim[0]->dim_value;
    return BATCH;
}

/* Fills a tensor of vi's element type with past + arange(t) along its last axis (dims given). */
static int positions(const Onnx__ValueInfoProto *vi, const int64_t *dims, int rank, int64_t past, oe_tensor *out)
{
    if (ot_tensor_init(out, elem_of(vi), dims, rank)) return -1;
    int64_t t = rank ? dims[rank - 1] : 1;
    for (int64_t i = 0; i < out->numel; i++) ot_set_i(out, i, past + (t ? i % t : 0));
    return 0;
}

/* The inputs of one step for run r: tokens (shared), caches (r's own), the rest made from past
 * and the number of new tokens; `others` holds the random inputs made once. -1 after reporting. */
static int step_inputs(session *s, decode_run *r, const oe_tensor *tokens, int64_t past, const oe_tensor *others,
                       run_input_set *in)
{
    decode_plan *p = r->plan;
    in->n = p->n_in;
    in->values = xcalloc(p->n_in + 1, sizeof *in->values);
    in->named = xcalloc(p->n_in + 1, sizeof *in->named);
    int64_t batch = tokens->rank == 2 ? tokens->dims[0] : 1, t = tokens->dims[tokens->rank - 1];
    for (size_t i = 0; i < p->n_in; i++) {
        const Onnx__ValueInfoProto *vi = p->in[i];
        oe_tensor *v = &in->values[i];
        in->named[i] = (oe_named){vi->name, v};
        int rank = rank_of(vi), rc = 0;
        switch (p->role[i]) {
        case ROLE_TOKENS:
            ot_tensor_copy(v, tokens);
            break;
        case ROLE_CACHE:
            ot_tensor_copy(v, &r->cache[i]);
            break;
        case ROLE_MASK: {
            int64_t dims[2] = { batch, past + t };
            rc = rank != 2 || ot_tensor_init(v, elem_of(vi), dims, 2);
            for (int64_t k = 0; !rc && k < v->numel; k++) ot_set_i(v, k, 1);
            break;
        }
        case ROLE_POSITIONS: {
            int64_t dims[2] = { batch, t };
            rc = (rank != 1 && rank != 2) || positions(vi, rank == 2 ? dims : dims + 1, rank, past, v);
            break;
        }
        case ROLE_CACHE_POSITION: {
            int64_t dims[1] = { t };
            rc = rank != 1 || positions(vi, dims, 1, past, v);
            break;
        }
        case ROLE_OTHER:
            ot_tensor_copy(v, &others[i]);
            break;
        }
        if (rc) {
            session_error(s, "verify: --decode: cannot make the input %s (rank %d) for a step of %lld new tokens after %lld",
                          vi->name, rank, (long long)t, (long long)past);
            run_inputs_free(in);
            return -1;
        }
    }
    return 0;
}

/* The next tokens: the argmax over the last axis of the logits at their last position, one per
 * batch row, shaped like the tokens input ([batch, 1] or [1]). */
static int next_tokens(const oe_tensor *logits, const oe_tensor *prev, oe_tensor *out)
{
    int64_t batch = prev->rank == 2 ? prev->dims[0] : 1, dims[2] = { batch, 1 };
    if (ot_tensor_init(out, prev->dtype, prev->rank == 2 ? dims : dims + 1, prev->rank)) return -1;
    if (!logits || logits->kind != OE_KIND_TENSOR || logits->rank < 1) return 0;   /* token 0 */
    int64_t vocab = logits->dims[logits->rank - 1];
    if (vocab <= 0 || logits->numel % (vocab * batch)) return 0;
    int64_t rows = logits->numel / vocab, per = rows / batch;   /* per: positions of one row */
    for (int64_t b = 0; b < batch; b++) {
        int64_t base = ((b + 1) * per - 1) * vocab, best = 0;
        for (int64_t v = 1; v < vocab; v++)
            if (ot_get_f(logits, base + v) > ot_get_f(logits, base + best)) best = v;
        ot_set_i(out, b, best);
    }
    return 0;
}

/* The vocabulary the first tokens are drawn from: the logits' declared last size, else 2. */
static int64_t vocab_of(const decode_plan *p)
{
    if (p->logits < 0) return 2;
    const Onnx__ValueInfoProto *vi = p->ref.m->proto->graph->output[p->logits];
    const Onnx__TensorShapeProto *sh = tensor_type(vi) ? tensor_type(vi)->shape : NULL;
    const Onnx__TensorShapeProto__Dimension *d = sh && sh->n_dim ? sh->dim[sh->n_dim - 1] : NULL;
    return d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value > 0 ? d->dim_value : 2;
}

/* Runs one step of r on `in`, keeping the presents as the next caches; false with the reason in
 * `why` (the evaluator's, or an exported program's range). */
static bool step_run(session *s, decode_run *r, const char *stage, const run_input_set *in, strbuf *why)
{
    const char *stage_label = r->plan->ref.label;
    diag_sink outer = s->diag;
    diag_init(&s->diag);
    run_outputs_free(r);
    memset(r->outputs, 0, (r->plan->n_out + 1) * sizeof *r->outputs);
    bool ok = run_check_ranges(s, "verify", stage, in) == 0 && run_evaluate(s, "verify", r->plan->ref.m, in, r->outputs) == 0;
    for (size_t i = 0; i < s->diag.len; i++) {
        if (s->diag.items[i].severity != DIAG_ERROR) continue;
        const char *msg = s->diag.items[i].message;
        if (!strncmp(msg, "verify: ", 8)) msg += 8;
        size_t sl = strlen(stage_label);   /* every message says its model: "exported: Guard failed ..." */
        bool named = !strncmp(msg, stage_label, sl) && msg[sl] == ':';
        sb_printf(why, "%s%s%s%s", why->len ? "; " : "", named ? "" : stage_label, named ? "" : ": ", msg);
    }
    diag_free(&s->diag);
    s->diag = outer;
    if (!ok) {
        memset(r->outputs, 0, (r->plan->n_out + 1) * sizeof *r->outputs);
        return false;
    }
    for (size_t i = 0; i < r->plan->n_in; i++) {
        if (r->plan->role[i] != ROLE_CACHE) continue;
        ot_tensor_free(&r->cache[i]);
        ot_tensor_copy(&r->cache[i], &r->outputs[r->plan->present[i]]);
    }
    return true;
}

static void json_plan(json_writer *w, const decode_plan *p, const run_opts *o, int prefill, int64_t batch, int64_t past)
{
    const Onnx__GraphProto *g = p->ref.m->proto->graph;
    jw_key(w, "decode");
    jw_object(w);
    jw_kint(w, "steps", o->decode);
    jw_kint(w, "prefill", prefill);
    jw_kint(w, "batch", batch);
    jw_kint(w, "past", past);
    jw_kstring(w, "tokens", p->in[p->tokens]->name);
    jw_kstring(w, "logits", p->logits >= 0 ? g->output[p->logits]->name : NULL);
    jw_key(w, "caches");
    jw_array(w);
    for (size_t i = 0; i < p->n_in; i++) {
        if (p->role[i] != ROLE_CACHE) continue;
        jw_object(w);
        jw_kstring(w, "input", p->in[i]->name);
        jw_kstring(w, "output", g->output[p->present[i]]->name);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

static void text_plan(session *s, const decode_plan *p, const run_opts *o, int prefill, int64_t batch, int64_t past)
{
    const Onnx__GraphProto *g = p->ref.m->proto->graph;
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "decode: a prefill of %d token%s", prefill, prefill == 1 ? "" : "s");
    if (past) sb_printf(&sb, " after a past of %lld", (long long)past);
    sb_printf(&sb, ", then %d step%s of 1 (batch %lld); tokens %s", o->decode, o->decode == 1 ? "" : "s", (long long)batch,
              p->in[p->tokens]->name);
    if (p->logits >= 0) sb_printf(&sb, ", greedy from %s", g->output[p->logits]->name);
    sb_puts(&sb, "; caches");
    for (size_t i = 0, k = 0; i < p->n_in; i++)
        if (p->role[i] == ROLE_CACHE) sb_printf(&sb, "%s %s <- %s", k++ ? "," : "", p->in[i]->name, g->output[p->present[i]]->name);
    sb_putc(&sb, '\n');
    fwrite(sb.s, 1, sb.len, s->out);
    sb_free(&sb);
}

/* Writes the inputs of the first step that failed, for `compare --inputs`. */
static void save_step_inputs(session *s, const run_input_set *in, const char *path)
{
    const char **names = xcalloc(in->n + 1, sizeof *names);
    const oe_tensor **vals = xcalloc(in->n + 1, sizeof *vals);
    for (size_t i = 0; i < in->n; i++) {
        names[i] = in->named[i].name;
        vals[i] = &in->values[i];
    }
    diag_sink d;
    diag_init(&d);
    if (npz_write(path, names, vals, in->n, &d))
        for (size_t i = 0; i < d.len; i++) session_error(s, "verify: --save: %s", d.items[i].message);
    diag_free(&d);
    free(names);
    free(vals);
}

/* --inputs FILE: the prefill's tokens, the initial caches (both runs start from them; *past is
 * then their length along their first dynamic axis after the batch) and other inputs, from the
 * file by name or position; masks and positions are still made from the lengths. -1 after
 * reporting. */
static int given_inputs(session *s, const decode_plan *p, const oe_values *file, const char *file_name, decode_run *ra,
                        decode_run *rb, oe_tensor *others, oe_tensor *tokens, int64_t *past)
{
    const char **names = xcalloc(p->n_in + 1, sizeof *names);
    for (size_t i = 0; i < p->n_in; i++) names[i] = p->in[i]->name;
    bool past_known = false;
    int rc = 0;
    for (size_t i = 0; i < p->n_in && !rc; i++) {
        const oe_value *g = view_values_pick(file, OE_ROLE_INPUT, p->in[i]->name, i, names, p->n_in);
        if (!g || p->role[i] == ROLE_MASK || p->role[i] == ROLE_POSITIONS || p->role[i] == ROLE_CACHE_POSITION) continue;
        const oe_tensor *v = &g->value;
        if (v->kind != OE_KIND_TENSOR || v->dtype != elem_of(p->in[i]) || v->rank != rank_of(p->in[i]) ||
            (p->role[i] == ROLE_TOKENS && v->dims[v->rank - 1] < 1)) {
            session_error(s, "verify: --decode: %s: the value for %s is not a %s of rank %d%s", file_name, p->in[i]->name,
                          view_numpy_dtype_name(elem_of(p->in[i])), rank_of(p->in[i]),
                          p->role[i] == ROLE_TOKENS ? " with at least one token" : "");
            rc = -1;
            break;
        }
        oe_tensor *dst = p->role[i] == ROLE_TOKENS ? tokens : p->role[i] == ROLE_CACHE ? &ra->cache[i] : &others[i];
        ot_tensor_free(dst);
        ot_tensor_copy(dst, v);
        if (p->role[i] != ROLE_CACHE) continue;
        ot_tensor_free(&rb->cache[i]);
        ot_tensor_copy(&rb->cache[i], v);
        const Onnx__TensorShapeProto *sh = tensor_type(p->in[i])->shape;
        for (int a = 1; !past_known && a < v->rank; a++)
            if (sh->dim[a]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                *past = v->dims[a];
                past_known = true;
            }
    }
    free(names);
    return rc;
}

int verify_decode(session *s, const run_opts *o, bool json)
{
    decode_plan pa, pb;
    if (plan_make(s, o->stages[0], &pa)) {
        plan_free(&pa);
        return 1;
    }
    if (plan_make(s, o->stages[1], &pb)) {
        plan_free(&pa);
        plan_free(&pb);
        return 1;
    }
    int rc = 0;
    if (pa.n_caches != pb.n_caches || pa.n_in != pb.n_in) {
        session_error(s, "verify: --decode: %s and %s take different inputs (%zu and %zu, %zu and %zu caches)", pa.ref.label,
                      pb.ref.label, pa.n_in, pb.n_in, pa.n_caches, pb.n_caches);
        plan_free(&pa);
        plan_free(&pb);
        return 1;
    }
    int prefill = o->prefill ? o->prefill : DEFAULT_PREFILL;
    int64_t batch = batch_of(&pa), vocab = vocab_of(&pb);
    decode_run ra = { &pa, xcalloc(pa.n_in + 1, sizeof(oe_tensor)), xcalloc(pa.n_out + 1, sizeof(oe_tensor)) };
    decode_run rb = { &pb, xcalloc(pb.n_in + 1, sizeof(oe_tensor)), xcalloc(pb.n_out + 1, sizeof(oe_tensor)) };
    oe_tensor *others = xcalloc(pa.n_in + 1, sizeof *others), tokens = {0};
    uint64_t rng = o->seed;
    for (size_t i = 0; i < pa.n_in && !rc; i++) {
        if (pa.role[i] == ROLE_CACHE)
            rc = empty_cache(s, pa.in[i], &ra.cache[i]) || empty_cache(s, pb.in[i], &rb.cache[i]);
        else if (pa.role[i] == ROLE_OTHER) rc = run_random_value(s, "verify", pa.in[i], &rng, &others[i]);
        if (!rc && pa.role[i] != pb.role[i]) {
            session_error(s, "verify: --decode: input %zu is %s in %s and %s in %s", i, pa.in[i]->name, pa.ref.label,
                          pb.in[i]->name, pb.ref.label);
            rc = 1;
        }
    }
    int trank = rank_of(pa.in[pa.tokens]);
    int64_t tdims[2] = { batch, prefill };
    if (!rc && ot_tensor_init(&tokens, elem_of(pa.in[pa.tokens]), trank == 2 ? tdims : tdims + 1, trank == 2 ? 2 : 1)) {
        session_error(s, "verify: --decode: cannot make the tokens input %s", pa.in[pa.tokens]->name);
        rc = 1;
    }
    for (int64_t i = 0; !rc && i < tokens.numel; i++) {   /* the prefill's tokens: uniform in [0, vocab) */
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        ot_set_i(&tokens, i, (int64_t)((rng >> 33) % (uint64_t)vocab));
    }
    int64_t past = 0;
    oe_values file = {0};
    if (!rc && o->inputs && (run_read_values(s, "verify", o->inputs, &file) ||
                             given_inputs(s, &pa, &file, o->inputs, &ra, &rb, others, &tokens, &past)))
        rc = 1;
    view_values_free(&file);
    if (!rc) {   /* the prefill's size and the batch, as the tokens (made up or given) have them */
        prefill = (int)tokens.dims[tokens.rank - 1];
        batch = tokens.rank == 2 ? tokens.dims[0] : 1;
    }
    strbuf sb;
    sb_init(&sb);
    json_writer jw, *w = json ? &jw : NULL;
    if (!rc && w) {
        cmd_json_begin(w, &sb, "verify", pa.ref.label);
        jw_kstring(w, "reference", pb.ref.label);
        run_json_inputs(w, o->inputs, o->seed);
        jw_key(w, "atol");
        jw_double(w, o->atol);
        jw_key(w, "rtol");
        jw_double(w, o->rtol);
        json_plan(w, &pa, o, prefill, batch, past);
        jw_key(w, "steps");
        jw_array(w);
    } else if (!rc) {
        text_plan(s, &pa, o, prefill, batch, past);
    }
    int first_failed = -1;
    char first_problem[300] = "";
    for (int step = 0; !rc && step <= o->decode && first_failed < 0 && !interrupt_pending(); step++) {
        run_input_set ia = {0}, ib = {0};
        int64_t t = tokens.dims[tokens.rank - 1];
        strbuf why;
        sb_init(&why);
        bool ran = step_inputs(s, &ra, &tokens, past, others, &ia) == 0;
        ran = ran && step_inputs(s, &rb, &tokens, past, others, &ib) == 0;
        if (!ran) rc = 1;
        const char *failing = NULL;
        if (ran && !step_run(s, &ra, o->stages[0], &ia, &why)) failing = pa.ref.label;
        else if (ran && !step_run(s, &rb, o->stages[1], &ib, &why)) failing = pb.ref.label;
        if (rc) {
            sb_free(&why);
            break;
        }
        if (w) {
            jw_object(w);
            jw_kint(w, "step", step);
            jw_kint(w, "past", past);
            jw_kint(w, "tokens", t);
            jw_kbool(w, "ran", !failing);
            jw_key(w, "problem");
            if (failing) {
                jw_string(w, why.s);
            } else {
                jw_null(w);
            }
            jw_key(w, "outputs");
            jw_array(w);
        } else if (failing) {
            fprintf(s->out, "step %d (past %lld, %lld token%s): FAIL: %s\n", step, (long long)past, (long long)t,
                    t == 1 ? "" : "s", why.s);
        } else {
            fprintf(s->out, "step %d (%spast %lld, %lld token%s):\n", step, step ? "" : "prefill, ", (long long)past,
                    (long long)t, t == 1 ? "" : "s");
        }
        size_t failed = 0;
        const char *first_output = NULL;
        for (size_t k = 0; !failing && k < pa.n_out; k++) {
            const char *name = pa.ref.m->proto->graph->output[k]->name;
            const oe_tensor *want = k < pb.n_out ? &rb.outputs[k] : NULL;
            for (size_t j = 0; j < pb.n_out; j++)
                if (!strcmp(pb.ref.m->proto->graph->output[j]->name, name)) want = &rb.outputs[j];
            if (!run_report_output(s, w, name, &ra.outputs[k], want, o, "  ") && !failed++) first_output = name;
        }
        oe_tensor next = {0};
        bool more = !failing && !failed && step < o->decode;
        if (more && next_tokens(pb.logits >= 0 ? &rb.outputs[pb.logits] : NULL, &tokens, &next)) {
            session_error(s, "verify: --decode: cannot make the next tokens");
            rc = 1;
        }
        if (w) {
            jw_array_end(w);
            jw_key(w, "next_tokens");   /* the tokens the next step is given: greedy from the reference */
            if (more && !rc) {
                jw_array(w);
                for (int64_t k = 0; k < next.numel; k++) jw_int(w, ot_get_i(&next, k));
                jw_array_end(w);
            } else {
                jw_null(w);
            }
            jw_kbool(w, "ok", !failing && !failed);
            jw_object_end(w);
        }
        if (failing || failed) {
            first_failed = step;
            if (failing) snprintf(first_problem, sizeof first_problem, "%s does not run", failing);
            else snprintf(first_problem, sizeof first_problem, "%s differs%s", first_output,
                          failed > 1 ? " (and others)" : "");
            if (o->save) save_step_inputs(s, &ia, o->save);
        }
        sb_free(&why);
        run_inputs_free(&ia);
        run_inputs_free(&ib);
        if (!more || rc) {
            ot_tensor_free(&next);
            break;
        }
        past += t;
        ot_tensor_free(&tokens);
        tokens = next;
    }
    if (!rc && interrupt_pending() && first_failed < 0) rc = 1;
    if (w && !rc) {
        jw_array_end(w);
        jw_key(w, "first_failed");
        if (first_failed >= 0) jw_int(w, first_failed);
        else jw_null(w);
        jw_kstring(w, "saved", first_failed >= 0 ? o->save : NULL);
        jw_kbool(w, "ok", first_failed < 0);
        cmd_json_end(w);
        session_write(s, sb.s, sb.len);
    }
    sb_free(&sb);
    if (!rc && first_failed >= 0) {
        char where[64];
        if (first_failed) snprintf(where, sizeof where, "decoding step %d", first_failed);
        else snprintf(where, sizeof where, "the prefill (step 0)");
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "verify: %s and %s part at %s: %s", pa.ref.label, pb.ref.label,
                                    where, first_problem);
        if (!strstr(first_problem, "does not run") && o->save)
            diag_set_hint(dg, "the step's inputs are in %s: `compare %s %s --inputs %s` finds the first node where they part",
                          o->save, o->stages[0], o->stages[1], o->save);
        else if (!strstr(first_problem, "does not run"))
            diag_set_hint(dg, "%s; `--save FILE.npz` keeps the step's inputs for `compare --inputs`",
                          first_failed ? "the prefill agreed: a cache that is written or read back wrong shows first here"
                                       : "the caches were empty: the step itself differs");
        else
            diag_set_hint(dg, "its line above says why (a size outside an exported program's range: `guards`)");
        rc = 1;
    } else if (!rc && !json) {
        fprintf(s->out, "verify: %s and %s agree over the prefill and %d decoding step%s (atol %g, rtol %g)\n", pa.ref.label,
                pb.ref.label, o->decode, o->decode == 1 ? "" : "s", o->atol, o->rtol);
    }
    for (size_t i = 0; i < pa.n_in; i++) ot_tensor_free(&others[i]);
    free(others);
    ot_tensor_free(&tokens);
    decode_run_free(&ra);
    decode_run_free(&rb);
    plan_free(&pa);
    plan_free(&pb);
    return rc;
}
