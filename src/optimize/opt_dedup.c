/* opt_dedup.c — pass 4: equal initializers shared, common subexpressions merged. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "optimize/optimize_internal.h"

/* ---- 4a. initializer deduplication --------------------------------------------------------- */

/* Initializers are equal when their serialized form without name and doc string is: the
 * metadata (type, dims, typed fields...) is packed, and keys the table with a hash of 16 samples
 * of the raw_data bytes spread over them (touching 16 pages at most, so weights that differ are
 * told apart without reading them). raw_data, the weights themselves, is never copied: the same
 * bytes (two views of one mapping) are equal at once; other bytes under the same key are hashed
 * in full — each tensor at most once — and compared byte by byte only when the hashes match. */
typedef struct dd_entry {
    Onnx__TensorProto *t;
    Onnx__TensorProto *canon; /* t with its typed-field data as raw_data (what is compared), or t */
    uint8_t *meta;
    size_t len;
    bool hashed;
    uint64_t hash;
    struct dd_entry *next;
} dd_entry;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static uint64_t raw_hash(dd_entry *e)
{
    if (!e->hashed) {
        fmap_need(e->canon->raw_data.data, e->canon->raw_data.len);   /* a derived weight, computed */
        e->hash = hash_bytes(e->canon->raw_data.data, e->canon->raw_data.len);
    }
    e->hashed = true;
    return e->hash;
}

enum { SAMPLES = 16, SAMPLE_LEN = 32 };

/* Bytes of a view are sampled with pread from its file: touching the mapping would fault in the
 * pages around each sample, which would then count in the process's memory. */
static uint64_t sample_hash(const ox_model *m, const ProtobufCBinaryData *raw)
{
    uint8_t buf[SAMPLES * SAMPLE_LEN];
    if (raw->len <= SAMPLES * SAMPLE_LEN) {
        fmap_copy_out(raw->data, buf, raw->len);
        return hash_bytes(buf, raw->len);
    }
    size_t step = (raw->len - SAMPLE_LEN) / (SAMPLES - 1);
    fmap *f = ox_model_map_of(m, raw->data, raw->len);
    for (size_t i = 0; i < SAMPLES; i++) {
        const uint8_t *p = raw->data + i * step;
        /* a derived weight's samples are computed: it is not materialised for its key */
        if (!f || f->fd < 0 || pread(f->fd, buf + i * SAMPLE_LEN, SAMPLE_LEN, (off_t)(p - f->data)) != SAMPLE_LEN)
            fmap_copy_out(p, buf + i * SAMPLE_LEN, SAMPLE_LEN);
    }
    return hash_bytes(buf, sizeof buf);
}

static bool same_tensor(dd_entry *a, dd_entry *b)
{
    if (a->len != b->len || memcmp(a->meta, b->meta, a->len)) return false;
    const ProtobufCBinaryData *x = &a->canon->raw_data, *y = &b->canon->raw_data;
    if (x->len != y->len) return false;
    if (x->data == y->data || x->len == 0) return true;
    return raw_hash(a) == raw_hash(b) && !memcmp(x->data, y->data, x->len);   /* both made readable */
}

/* A small tensor that holds its values in a typed field (float_data, int64_data...) as raw_data,
 * so that equal values compare equal whichever field holds them (onnx-ir compares values); the
 * tensor itself unchanged. */
static Onnx__TensorProto *canonical(ox_model *m, Onnx__TensorProto *t)
{
    if (t->raw_data.len || (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
        t->n_string_data || ox_tensor_numel(t) > 4096)
        return t;
    oe_tensor v;
    if (ot_from_proto(t, 0, &v) != OE_OK) return t;
    Onnx__TensorProto *c = ot_to_proto(m, &v, t->name);
    ot_tensor_free(&v);
    return c ? c : t;
}

/* The entry for t: its metadata packed into a (name, doc string and raw_data left out). */
static dd_entry *dd_entry_new(arena *a, ox_model *m, Onnx__TensorProto *t0)
{
    Onnx__TensorProto *t = canonical(m, t0);
    char *name = t->name, *doc = t->doc_string;
    ProtobufCBinaryData raw = t->raw_data;
    t->name = NULL;
    t->doc_string = NULL;
    t->raw_data.data = NULL;
    t->raw_data.len = 0;
    dd_entry *e = arena_alloc(a, sizeof *e);
    e->t = t0;
    e->canon = t;
    e->len = onnx__tensor_proto__get_packed_size(t);
    e->meta = arena_alloc(a, e->len ? e->len : 1);
    onnx__tensor_proto__pack(t, e->meta);
    t->name = name;
    t->doc_string = doc;
    t->raw_data = raw;
    return e;
}

bool opt_dedup_initializers(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    Onnx__GraphProto *g = m->proto->graph;
    if (!g) return true;
    hashmap inputs, outs, seen, ren;
    hm_init(&inputs);
    hm_init(&outs);
    hm_init(&seen);
    hm_init(&ren);
    opt_graph_outputs(g, &outs);
    opt_graph_inputs(g, &inputs);
    arena a;
    arena_init(&a);
    size_t k = 0;
    for (size_t i = 0; i < g->n_initializer; i++) {
        Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || hm_has(&inputs, t->name) || hm_has(&outs, t->name)) {
            g->initializer[k++] = t;
            continue;
        }
        dd_entry *e = dd_entry_new(&a, m, t);
        char *key = arena_printf(&a, "%016llx%016llx", (unsigned long long)fnv(e->meta, e->len),
                                 (unsigned long long)sample_hash(m, &e->canon->raw_data));
        dd_entry *head = hm_get(&seen, key), *same;
        for (same = head; same && !same_tensor(same, e); same = same->next) {}
        if (same) {
            hm_put(&ren, t->name, same->t->name);
            st->deduped++;
            continue;
        }
        e->next = head;
        hm_put(&seen, key, e);
        g->initializer[k++] = t;
    }
    g->n_initializer = k;
    opt_rename_uses(g, &ren, false, 0, o->max_depth);
    hm_free(&inputs);
    hm_free(&outs);
    hm_free(&seen);
    hm_free(&ren);
    arena_free(&a);
    return true;
}

/* ---- 4b. common subexpressions ------------------------------------------------------------- */

typedef struct cse_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    arena tmp;
    int err;
} cse_ctx;

static bool nondeterministic(const Onnx__NodeProto *n)
{
    const char *op = opt_str(n->op_type);
    return !opt_is_default_domain(n->domain) || !strncmp(op, "Random", 6) || !strcmp(op, "Multinomial") ||
           !strcmp(op, "Bernoulli") || !strcmp(op, "Dropout");
}

static const char *cse_key(cse_ctx *c, const Onnx__NodeProto *n)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s\x1f%s\x1f%s\x1f%zu", opt_str(n->domain), opt_str(n->op_type), opt_str(n->overload), n->n_output);
    for (size_t i = 0; i < n->n_input; i++) sb_printf(&sb, "\x1e%s", opt_str(n->input[i]));
    for (size_t j = 0; j < n->n_attribute; j++) {
        const Onnx__AttributeProto *a = n->attribute[j];
        size_t len = onnx__attribute_proto__get_packed_size(a);
        if (len > 65536) {
            sb_free(&sb);
            return NULL;
        }
        uint8_t *buf = ox_pack_message(&a->base, &len);
        static const char hex[] = "0123456789abcdef";
        sb_putc(&sb, '\x1d');
        for (size_t q = 0; q < len; q++) {
            sb_putc(&sb, hex[buf[q] >> 4]);
            sb_putc(&sb, hex[buf[q] & 15]);
        }
        free(buf);
    }
    const char *key = arena_strdup(&c->tmp, sb.s);
    sb_free(&sb);
    return key;
}

static void cse_graph(cse_ctx *c, Onnx__GraphProto *g, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) opt_too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    hashmap seen, ren, outs;
    hm_init(&seen);
    hm_init(&ren);
    hm_init(&outs);
    opt_graph_outputs(g, &outs);
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) n->input[k] = (char *)opt_resolve(&ren, n->input[k]);
        if (ox_node_has_subgraph(n)) {
            /* onnx_ir's pass merges the main graph's nodes only: a node holding a graph is left
             * as it is, and so are the nodes of its graphs (which see the merged names) */
            FOR_SUBGRAPHS(n, sg, opt_rename_uses(sg, &ren, true, depth + 1, c->o->max_depth));
            continue;
        }
        if (!n->n_output || nondeterministic(n)) continue;
        const char *key = cse_key(c, n);
        if (!key) continue;
        Onnx__NodeProto *prev = hm_get(&seen, key);
        if (!prev) {
            hm_put(&seen, key, n);
            continue;
        }
        bool ok = true;
        for (size_t k = 0; k < n->n_output; k++)
            if (hm_has(&outs, opt_str(n->output[k])) || (!*opt_str(prev->output[k]) && *opt_str(n->output[k]))) ok = false;
        if (!ok) continue;
        for (size_t k = 0; k < n->n_output; k++)
            if (*opt_str(n->output[k])) hm_put(&ren, n->output[k], prev->output[k]);
        dead[i] = true;
        c->st->cse++;
    }
    opt_compact_nodes(g, dead);
    free(dead);
    hm_free(&seen);
    hm_free(&ren);
    hm_free(&outs);
}

bool opt_cse(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return true;
    cse_ctx c = {.m = m, .o = o, .st = st, .d = d};
    arena_init(&c.tmp);
    cse_graph(&c, m->proto->graph, 0);
    arena_free(&c.tmp);
    return !c.err;
}
