/* cmd_json.c — the --json form of the inspection commands (schema: fxsh(1), JSON OUTPUT). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_format.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "view/onnx_repr.h"
#include "view/onnx_summary.h"
#include "view/onnx_values.h"
#include "repl/cmd_handlers.h"

/* Moves the words `drop` accepts behind the others (the order of each kept; argv keeps all its
 * pointers, so whoever owns them frees them all) and returns how many were moved. */
int args_partition(int argc, char **argv, bool (*drop)(const char *word, void *ctx), void *ctx)
{
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (drop(argv[i], ctx)) continue;
        char *w = argv[i];   /* rotate w to position kept, the dropped words between move up */
        memmove(&argv[kept + 1], &argv[kept], (size_t)(i - kept) * sizeof *argv);
        argv[kept++] = w;
    }
    return argc - kept;
}

static bool is_json(const char *word, void *ctx)
{
    (void)ctx;
    return !strcmp(word, "--json");
}

bool cmd_json_flag(int *argc, char **argv)
{
    int moved = args_partition(*argc, argv, is_json, NULL);
    *argc -= moved;
    return moved > 0;
}

bool cmd_json_option(session *s, int *argc, char **argv, int nargs, bool *json)
{
    *json = cmd_json_flag(argc, argv);
    if (*argc - 1 > nargs) {
        session_error(s, "%s: unexpected '%s' (only --json may follow)", argv[0], argv[nargs + 1]);
        return false;
    }
    return true;
}

void cmd_json_begin(json_writer *w, strbuf *out, const char *command, const char *stage_name)
{
    jw_init(w, out);
    jw_object(w);
    jw_kint(w, "fxsh", JSON_SCHEMA_VERSION);
    jw_kstring(w, "command", command);
    if (stage_name) jw_kstring(w, "stage", stage_name);
}

void cmd_json_end(json_writer *w)
{
    jw_object_end(w);
    sb_putc(w->out, '\n');
}

static void begin(json_writer *w, strbuf *out, const char *command, const stage *st)
{
    cmd_json_begin(w, out, command, st ? st->name : NULL);
}

static void end(json_writer *w)
{
    cmd_json_end(w);
}

/*==== FX ====*/

typedef VEC(fx_node *) node_vec;
typedef VEC(char *) name_vec;

typedef struct fx_nodes {
    const fx_program *p;
    node_vec nodes;
    name_vec names;   /* qualified: true_graph_0.mul */
} fx_nodes;

static void collect_fx_name(const char *name, void *ctx)
{
    fx_nodes *c = ctx;
    fx_node *n = fx_program_find_node(c->p, name);
    if (!n) return;
    vec_push(&c->nodes, n);
    vec_push(&c->names, xstrdup(name));
}

static void fx_nodes_collect(const fx_program *p, fx_nodes *c)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    fx_each_node_name(p, collect_fx_name, c);
}

static void fx_nodes_free(fx_nodes *c)
{
    for (size_t i = 0; i < c->names.len; i++) free(c->names.items[i]);
    vec_free(&c->names);
    vec_free(&c->nodes);
}

static void fx_value_members(json_writer *w, const fx_value *v)
{
    bool tensor = v && v->kind == FX_VAL_TENSOR;
    jw_kstring(w, "dtype", tensor && v->dtype != FX_DT_UNKNOWN ? fx_dtype_get(v->dtype)->torch_name : NULL);
    jw_key(w, "shape");
    if (!tensor) {
        jw_null(w);
        return;
    }
    jw_array(w);
    for (size_t k = 0; k < v->rank; k++) {
        char *end;
        long long x = strtoll(v->sizes[k], &end, 10);
        if (!*end && v->sizes[k][0]) jw_int(w, x);
        else jw_string(w, v->sizes[k]);   /* a symbolic size: "s77" */
    }
    jw_array_end(w);
}

static void fx_node_json(json_writer *w, const char *qname, const fx_node *n, bool detail)
{
    jw_object(w);
    jw_kstring(w, "name", qname);
    jw_kstring(w, "op", fx_opcode_name(n->op));
    jw_kstring(w, "target", n->target);
    jw_key(w, "users");
    jw_array(w);
    for (size_t u = 0; u < n->n_users; u++) jw_string(w, n->users[u]->name);
    jw_array_end(w);
    if (detail) {
        strbuf t;
        sb_init(&t);
        if (n->args) fx_arg_print(&t, n->args, FXA_FX);
        jw_kstring(w, "args", t.s);
        sb_reset(&t);
        if (n->kwargs) fx_arg_print(&t, n->kwargs, FXA_FX);
        jw_kstring(w, "kwargs", t.s);
        sb_free(&t);
        fx_value_members(w, n->meta.val);
        jw_kstring(w, "source", n->meta.source);
        jw_kstring(w, "stack_trace", n->meta.stack_trace);
    }
    jw_object_end(w);
}

/*==== ONNX ====*/

typedef struct onnx_node_at {
    const Onnx__NodeProto *node;
    const Onnx__GraphProto *graph;
    char *name;   /* path + label: node_cond__0/then_branch/node_mul */
} onnx_node_at;

typedef VEC(onnx_node_at) onnx_nodes;

static const char *label(const Onnx__NodeProto *n)
{
    if (n->name && n->name[0]) return n->name;
    return n->n_output && n->output[0][0] ? n->output[0] : "";
}

static void collect_onnx(const Onnx__GraphProto *g, const char *prefix, int depth, onnx_nodes *out)
{
    if (!g || depth > 64) return;
    strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        sb_reset(&sb);
        sb_printf(&sb, "%s%s", prefix, label(n));
        onnx_node_at at = {n, g, xstrdup(sb.s)};
        vec_push(out, at);
        for (size_t a = 0; a < n->n_attribute; a++) {
            const Onnx__AttributeProto *attr = n->attribute[a];
            sb_reset(&sb);
            sb_printf(&sb, "%s%s/%s/", prefix, label(n), attr->name);
            if (attr->g) collect_onnx(attr->g, sb.s, depth + 1, out);
            for (size_t k = 0; k < attr->n_graphs; k++) {
                sb_reset(&sb);
                sb_printf(&sb, "%s%s/%s[%zu]/", prefix, label(n), attr->name, k);
                collect_onnx(attr->graphs[k], sb.s, depth + 1, out);
            }
        }
    }
    sb_free(&sb);
}

static void onnx_nodes_free(onnx_nodes *l)
{
    for (size_t i = 0; i < l->len; i++) free(l->items[i].name);
    vec_free(l);
}

static void string_array(json_writer *w, const char *key, char **items, size_t n)
{
    jw_key(w, key);
    jw_array(w);
    for (size_t i = 0; i < n; i++) jw_string(w, items[i]);
    jw_array_end(w);
}

static void onnx_node_json(json_writer *w, const onnx_node_at *at, bool detail)
{
    const Onnx__NodeProto *n = at->node;
    jw_object(w);
    jw_kstring(w, "name", at->name);
    jw_kstring(w, "op_type", n->op_type);
    jw_kstring(w, "domain", n->domain && n->domain[0] ? n->domain : "ai.onnx");
    string_array(w, "inputs", n->input, n->n_input);
    string_array(w, "outputs", n->output, n->n_output);
    if (detail) {
        jw_key(w, "attributes");
        jw_array(w);
        for (size_t a = 0; a < n->n_attribute; a++) jw_string(w, n->attribute[a]->name);
        jw_array_end(w);
        jw_key(w, "metadata");
        jw_object(w);
        for (size_t k = 0; k < n->n_metadata_props; k++)
            jw_kstring(w, n->metadata_props[k]->key, n->metadata_props[k]->value);
        jw_object_end(w);
    }
    jw_object_end(w);
}

static void value_infos(json_writer *w, const char *key, Onnx__ValueInfoProto *const *v, size_t n)
{
    strbuf t;
    sb_init(&t);
    jw_key(w, key);
    jw_array(w);
    for (size_t i = 0; i < n; i++) {
        sb_reset(&t);
        view_summary_type(&t, v[i]->type);
        jw_object(w);
        jw_kstring(w, "name", v[i]->name);
        jw_kstring(w, "type", t.s);
        jw_object_end(w);
    }
    jw_array_end(w);
    sb_free(&t);
}

/*==== the commands ====*/

void cmd_json_stages(session *s, strbuf *out)
{
    json_writer w;
    begin(&w, out, "stages", NULL);
    jw_key(&w, "stages");
    jw_array(&w);
    for (int i = 0; i < SESSION_MAX_STAGES; i++) {
        const stage *st = &s->stages[i];
        jw_object(&w);
        jw_kstring(&w, "name", st->name);
        jw_kstring(&w, "kind", st->kind == PL_FX ? "fx" : st->kind == PL_ONNX ? "onnx" : "empty");
        jw_kbool(&w, "current", i == s->current);
        jw_kstring(&w, "source", st->source);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    end(&w);
}

void cmd_json_nodes(const stage *st, strbuf *out)
{
    json_writer w;
    begin(&w, out, "nodes", st);
    jw_key(&w, "nodes");
    jw_array(&w);
    if (st->kind == PL_FX) {
        fx_nodes c;
        fx_nodes_collect(st->fx, &c);
        for (size_t i = 0; i < c.nodes.len; i++) fx_node_json(&w, c.names.items[i], c.nodes.items[i], false);
        fx_nodes_free(&c);
    } else {
        onnx_nodes l = {0};
        collect_onnx(st->onnx->proto->graph, "", 0, &l);
        for (size_t i = 0; i < l.len; i++) onnx_node_json(&w, &l.items[i], false);
        onnx_nodes_free(&l);
    }
    jw_array_end(&w);
    end(&w);
}

size_t cmd_json_find(const stage *st, const char *text, bool fold_case, strbuf *out)
{
    json_writer w;
    begin(&w, out, "find", st);
    jw_kstring(&w, "text", text);
    jw_kbool(&w, "case_sensitive", !fold_case);
    jw_key(&w, "nodes");
    jw_array(&w);
    size_t hits = 0;
    /* what fx_find / view_find match: the name or target; the name, op type or an output */
    if (st->kind == PL_FX) {
        fx_nodes c;
        fx_nodes_collect(st->fx, &c);
        for (size_t i = 0; i < c.nodes.len; i++) {
            const fx_node *n = c.nodes.items[i];
            if (!str_contains(n->name, text, fold_case) && !str_contains(n->target, text, fold_case)) continue;
            fx_node_json(&w, c.names.items[i], n, false);
            hits++;
        }
        fx_nodes_free(&c);
    } else {
        onnx_nodes l = {0};
        collect_onnx(st->onnx->proto->graph, "", 0, &l);
        for (size_t i = 0; i < l.len; i++) {
            const Onnx__NodeProto *n = l.items[i].node;
            bool hit = str_contains(label(n), text, fold_case) || str_contains(n->op_type, text, fold_case);
            for (size_t k = 0; !hit && k < n->n_output; k++) hit = str_contains(n->output[k], text, fold_case);
            if (!hit) continue;
            onnx_node_json(&w, &l.items[i], false);
            hits++;
        }
        onnx_nodes_free(&l);
    }
    jw_array_end(&w);
    jw_kbool(&w, "ok", hits > 0);
    end(&w);
    return hits;
}

int cmd_json_node(const stage *st, const char *name, strbuf *out)
{
    if (name[0] == '%') name++;
    json_writer w;
    int rc = -1;
    if (st->kind == PL_FX) {
        const fx_node *n = fx_program_find_node(st->fx, name);
        if (n) {
            begin(&w, out, "node", st);
            jw_key(&w, "node");
            fx_node_json(&w, name, n, true);
            end(&w);
            rc = 0;
        }
    } else {
        onnx_nodes l = {0};
        collect_onnx(st->onnx->proto->graph, "", 0, &l);
        for (size_t i = 0; i < l.len && rc; i++) {
            const char *lb = label(l.items[i].node);
            const char *short_name = strncmp(lb, "node_", 5) ? NULL : lb + 5;
            if (strcmp(l.items[i].name, name) && strcmp(lb, name) && !(short_name && !strcmp(short_name, name)))
                continue;
            begin(&w, out, "node", st);
            jw_key(&w, "node");
            onnx_node_json(&w, &l.items[i], true);
            end(&w);
            rc = 0;
        }
        onnx_nodes_free(&l);
    }
    return rc;
}

/* A histogram in first-seen order: key → count. */
typedef struct histo {
    hashmap counts;   /* key → (count as pointer) */
    VEC(const char *) keys;
} histo;

static void histo_add(histo *h, const char *key)
{
    uintptr_t n = (uintptr_t)hm_get(&h->counts, key);
    if (!n) vec_push(&h->keys, key);
    hm_put(&h->counts, key, (void *)(n + 1));
}

static void histo_json(json_writer *w, const char *key, histo *h)
{
    jw_key(w, key);
    jw_object(w);
    for (size_t i = 0; i < h->keys.len; i++) {
        jw_key(w, h->keys.items[i]);
        jw_uint(w, (uintptr_t)hm_get(&h->counts, h->keys.items[i]));
    }
    jw_object_end(w);
    hm_free(&h->counts);
    vec_free(&h->keys);
}

void cmd_json_stats(const stage *st, strbuf *out)
{
    json_writer w;
    begin(&w, out, "stats", st);
    histo a = {0}, b = {0}, graphs = {0};
    hm_init(&a.counts);
    hm_init(&b.counts);
    hm_init(&graphs.counts);
    size_t total = 0, root = 0;
    name_vec owned = {0};   /* keys made here: "domain.Op", graph paths */
    if (st->kind == PL_FX) {
        fx_nodes c;
        fx_nodes_collect(st->fx, &c);
        for (size_t i = 0; i < c.nodes.len; i++) {
            const fx_node *n = c.nodes.items[i];
            total++;
            const char *dot = strrchr(c.names.items[i], '.');
            if (!dot) root++;
            else {
                char *g = xstrndup(c.names.items[i], (size_t)(dot - c.names.items[i]));
                vec_push(&owned, g);
                histo_add(&graphs, g);
            }
            histo_add(&a, fx_opcode_name(n->op));
            if (n->op != FX_OP_PLACEHOLDER && n->op != FX_OP_OUTPUT && n->target) histo_add(&b, n->target);
        }
        jw_kint(&w, "nodes", (int64_t)total);
        jw_kint(&w, "root_nodes", (int64_t)root);
        histo_json(&w, "by_opcode", &a);
        histo_json(&w, "by_target", &b);
        histo_json(&w, "subgraphs", &graphs);
        fx_nodes_free(&c);
    } else {
        onnx_nodes l = {0};
        collect_onnx(st->onnx->proto->graph, "", 0, &l);
        for (size_t i = 0; i < l.len; i++) {
            const Onnx__NodeProto *n = l.items[i].node;
            total++;
            root += l.items[i].graph == st->onnx->proto->graph;
            const char *op = n->op_type ? n->op_type : "";
            if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")) {
                size_t len = strlen(n->domain) + strlen(op) + 2;
                char *k = xmalloc(len);
                snprintf(k, len, "%s.%s", n->domain, op);
                vec_push(&owned, k);
                op = k;
            }
            histo_add(&a, op);
            const char *slash = strrchr(l.items[i].name, '/');
            if (slash) {
                char *g = xstrndup(l.items[i].name, (size_t)(slash - l.items[i].name));
                vec_push(&owned, g);
                histo_add(&graphs, g);
            }
        }
        jw_kint(&w, "nodes", (int64_t)total);
        jw_kint(&w, "root_nodes", (int64_t)root);
        histo_json(&w, "by_op_type", &a);
        hm_free(&b.counts);
        histo_json(&w, "subgraphs", &graphs);
        onnx_nodes_free(&l);
    }
    for (size_t i = 0; i < owned.len; i++) free(owned.items[i]);
    vec_free(&owned);
    end(&w);
}

void cmd_json_summary(const stage *st, strbuf *out)
{
    const Onnx__ModelProto *m = st->onnx->proto;
    const Onnx__GraphProto *g = m->graph;
    json_writer w;
    begin(&w, out, "summary", st);
    jw_key(&w, "ir_version");
    if (m->has_ir_version) jw_int(&w, m->ir_version);
    else jw_null(&w);
    jw_kstring(&w, "producer_name", m->producer_name);
    jw_kstring(&w, "producer_version", m->producer_version);
    jw_key(&w, "opsets");
    jw_object(&w);
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *d = m->opset_import[i]->domain;
        jw_kint(&w, d && d[0] ? d : "ai.onnx", m->opset_import[i]->version);
    }
    jw_object_end(&w);
    jw_kstring(&w, "graph", g ? g->name : NULL);
    value_infos(&w, "inputs", g ? g->input : NULL, g ? g->n_input : 0);
    value_infos(&w, "outputs", g ? g->output : NULL, g ? g->n_output : 0);
    jw_kint(&w, "nodes", g ? (int64_t)g->n_node : 0);
    uint64_t bytes = 0;
    for (size_t i = 0; g && i < g->n_initializer; i++) bytes += view_tensor_bytes(g->initializer[i]);
    jw_kint(&w, "initializers", g ? (int64_t)g->n_initializer : 0);
    jw_key(&w, "initializer_bytes");
    jw_uint(&w, bytes);
    jw_kint(&w, "functions", (int64_t)m->n_functions);
    end(&w);
}

void cmd_json_check(const stage *st, const diag_sink *problems, strbuf *out)
{
    json_writer w;
    begin(&w, out, "check", st);
    size_t errors = 0;
    for (size_t i = 0; i < problems->len; i++) errors += problems->items[i].severity == DIAG_ERROR;
    jw_kbool(&w, "ok", errors == 0);
    jw_key(&w, "problems");
    jw_array(&w);
    for (size_t i = 0; i < problems->len; i++) {
        const diagnostic *d = &problems->items[i];
        jw_object(&w);
        jw_kstring(&w, "severity", d->severity == DIAG_ERROR ? "error" : d->severity == DIAG_WARNING ? "warning" : "note");
        jw_kstring(&w, "message", d->message);
        jw_kstring(&w, "hint", d->hint);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    end(&w);
}

void cmd_json_lint(const stage *st, const diag_sink *found, strbuf *out)
{
    json_writer w;
    begin(&w, out, "lint", st);
    jw_key(&w, "pitfalls");
    jw_array(&w);
    size_t n = 0;
    for (size_t i = 0; i < found->len; i++) {
        const diagnostic *d = &found->items[i];
        if (d->severity != DIAG_WARNING) continue;   /* lint's findings are its warnings */
        n++;
        jw_object(&w);
        jw_kstring(&w, "message", d->message);
        jw_kstring(&w, "hint", d->hint);
        jw_kstring(&w, "file", d->file);
        jw_key(&w, "line");
        if (d->line > 0) jw_int(&w, d->line);
        else jw_null(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_kint(&w, "count", (int64_t)n);
    end(&w);
}

void cmd_json_signature(const stage *st, strbuf *out)
{
    const fx_signature *sig = &st->fx->sig;
    json_writer w;
    begin(&w, out, "signature", st);
    jw_key(&w, "inputs");
    jw_array(&w);
    for (size_t i = 0; i < sig->n_inputs; i++) {
        jw_object(&w);
        jw_kstring(&w, "kind", fx_input_kind_name(sig->inputs[i].kind));
        jw_kstring(&w, "name", sig->inputs[i].name);
        jw_kstring(&w, "target", sig->inputs[i].target);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_key(&w, "outputs");
    jw_array(&w);
    for (size_t i = 0; i < sig->n_outputs; i++) {
        jw_object(&w);
        jw_kstring(&w, "kind", fx_output_kind_name(sig->outputs[i].kind));
        jw_kstring(&w, "name", sig->outputs[i].name);
        jw_kstring(&w, "target", sig->outputs[i].target);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    end(&w);
}

void cmd_json_params(const stage *st, strbuf *out)
{
    json_writer w;
    begin(&w, out, "params", st);
    jw_key(&w, "tensors");
    jw_array(&w);
    uint64_t total_bytes = 0, total_elems = 0;
    if (st->kind == PL_ONNX) {   /* the initializers: kind "initializer" */
        const Onnx__GraphProto *g = st->onnx->proto->graph;
        for (size_t i = 0; g && i < g->n_initializer; i++) {
            const Onnx__TensorProto *t = g->initializer[i];
            int64_t n = ox_tensor_numel(t);
            uint64_t b = view_tensor_bytes(t);
            total_bytes += b;
            total_elems += n > 0 ? (uint64_t)n : 0;
            jw_object(&w);
            jw_kstring(&w, "name", t->name);
            jw_kstring(&w, "kind", "initializer");
            jw_kstring(&w, "dtype", ox_dtype_name(t->data_type));
            jw_key(&w, "shape");
            jw_array(&w);
            for (size_t k = 0; k < t->n_dims; k++) jw_int(&w, t->dims[k]);
            jw_array_end(&w);
            jw_key(&w, "bytes");
            jw_uint(&w, b);
            jw_kbool(&w, "has_data", true);
            jw_kbool(&w, "external", t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
            jw_object_end(&w);
        }
    }
    for (const fx_weight *x = st->kind == PL_FX ? st->fx->weights : NULL; x; x = x->next) {
        uint64_t n = 1;
        for (size_t k = 0; k < x->rank; k++) n *= x->shape[k] > 0 ? (uint64_t)x->shape[k] : 0;
        uint64_t b = n * fx_dtype_get(x->dtype)->elem_size;
        total_bytes += b;
        total_elems += n;
        jw_object(&w);
        jw_kstring(&w, "name", x->fqn);
        jw_kstring(&w, "kind", x->role == FX_TENSOR_PARAMETER ? "parameter" : x->role == FX_TENSOR_BUFFER ? "buffer" : "constant");
        jw_kstring(&w, "dtype", fx_dtype_get(x->dtype)->torch_name);
        jw_key(&w, "shape");
        jw_array(&w);
        for (size_t k = 0; k < x->rank; k++) jw_int(&w, x->shape[k]);
        jw_array_end(&w);
        jw_key(&w, "bytes");
        jw_uint(&w, b);
        jw_kbool(&w, "has_data", x->data != NULL);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_key(&w, "total_elements");
    jw_uint(&w, total_elems);
    jw_key(&w, "total_bytes");
    jw_uint(&w, total_bytes);
    end(&w);
}

void cmd_json_weights(const stage *st, const char *name, const char *kind, const oe_tensor *t, strbuf *out)
{
    json_writer w;
    begin(&w, out, "weights", st);
    jw_kstring(&w, "name", name);
    jw_kstring(&w, "kind", kind);
    jw_kstring(&w, "dtype", t ? view_numpy_dtype_name(t->dtype) : NULL);
    jw_key(&w, "shape");
    if (!t) jw_null(&w);
    else {
        jw_array(&w);
        for (int d = 0; d < t->rank; d++) jw_int(&w, t->dims[d]);
        jw_array_end(&w);
    }
    /* what the text form summarises: min, max and mean of the values that are numbers, the first 10 */
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t counted = 0, nan = 0;
    for (int64_t i = 0; t && i < t->numel; i++) {
        double v = ot_get_f(t, i);
        if (isnan(v)) {
            nan++;
            continue;
        }
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
        counted++;
    }
    jw_key(&w, "elements");
    if (t) jw_int(&w, t->numel);
    else jw_null(&w);
    jw_key(&w, "min");
    if (counted) view_json_number(&w, lo, t->dtype);
    else jw_null(&w);
    jw_key(&w, "max");
    if (counted) view_json_number(&w, hi, t->dtype);
    else jw_null(&w);
    jw_key(&w, "mean");
    if (counted) jw_double_named(&w, sum / (double)counted);
    else jw_null(&w);
    jw_key(&w, "nan");
    if (t) jw_int(&w, nan);
    else jw_null(&w);
    jw_key(&w, "first");
    if (!t) jw_null(&w);
    else {   /* as run --json writes values: each in its own type's shortest form */
        oe_tensor head = *t;
        head.rank = 1;
        head.dims[0] = head.numel = t->numel < 10 ? t->numel : 10;
        view_json_value(&w, &head);
    }
    end(&w);
}

void cmd_json_error(session *s, const char *command, size_t mark, strbuf *out)
{
    json_writer w;
    begin(&w, out, command, NULL);
    jw_kbool(&w, "ok", false);
    jw_key(&w, "errors");
    jw_array(&w);
    size_t n = 0;
    for (size_t i = mark; i < s->diag.len; i++) {
        const diagnostic *d = &s->diag.items[i];
        if (d->severity != DIAG_ERROR) continue;
        jw_object(&w);
        jw_kstring(&w, "message", d->message);
        jw_kstring(&w, "hint", d->hint);
        jw_object_end(&w);
        n++;
    }
    if (!n) {   /* reported and flushed already (or interrupted): the command's name says which */
        jw_object(&w);
        jw_kstring(&w, "message", interrupt_pending() ? "interrupted" : "failed");
        jw_kstring(&w, "hint", NULL);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    end(&w);
}
