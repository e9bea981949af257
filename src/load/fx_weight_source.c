/* fx_weight_source.c — weights for programs that come without them (FX text, TorchScript):
 * read from a .pt2, an .onnx or a .safetensors file and copied into the program by FQN. */
#include "load/fx_weight_source.h"

#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/shape.h"
#include "base/suggest.h"
#include "fx/fx_build.h"
#include "load/pt2_load.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"

/* Whether a weight's shape is valid and its data (when given) holds exactly dtype × shape bytes;
 * reports to d, naming the file and the weight, when not. Every source goes through here, so
 * nothing later reads past a weight's data. */
static bool check_weight(const char *path, const char *fqn, fx_dtype dt, const int64_t *shape, size_t rank,
                         const void *data, size_t nbytes, diag_sink *d)
{
    diag_loc loc = {path, 0, 0};
    strbuf sh;
    sb_init(&sh);
    sb_printf(&sh, "%s[", fx_dtype_get(dt)->abbr);
    for (size_t k = 0; k < rank; k++) sb_printf(&sh, "%s%lld", k ? ", " : "", (long long)shape[k]);
    sb_putc(&sh, ']');
    char why[160];
    uint64_t need = 0;
    const char *problem = shape_problem(shape, rank, fx_dtype_get(dt)->elem_size, NULL, &need, why, sizeof why);
    bool ok = true;
    if (problem) {
        diag_error(d, loc, "weight '%s': shape %s is invalid: %s", fqn, sh.s, problem);
        ok = false;
    } else if (data && need != nbytes) {
        diagnostic *dg = diag_error(d, loc, "weight '%s': %s needs %llu bytes but the file holds %zu for it", fqn, sh.s,
                                    (unsigned long long)need, nbytes);
        diag_set_hint(dg, "the file is truncated or its header does not describe its data");
        ok = false;
    }
    sb_free(&sh);
    return ok;
}

/* Adds or refreshes weight fqn with a copy of the data (data NULL: its dtype and shape only);
 * role is what the file says (a .pt2 knows buffers from parameters, the other formats do not:
 * PARAMETER). False (reported) when the data does not match the shape. */
static bool put(fx_program *p, const char *path, const char *fqn, fx_tensor_role role, fx_dtype dt,
                const int64_t *shape, size_t rank, const void *data, size_t nbytes, diag_sink *d)
{
    if (!check_weight(path, fqn, dt, shape, rank, data, nbytes, d)) return false;
    void *copy = data ? fx_alloc(p, nbytes ? nbytes : 1) : NULL;
    if (data && nbytes) memcpy(copy, data, nbytes);
    fx_weight *w = fx_program_weight(p, fqn);
    if (!w) {
        fx_program_add_weight(p, fqn, role, dt, shape, rank, copy, nbytes, false);
        return true;
    }
    w->dtype = dt;
    w->rank = rank;
    w->shape = fx_alloc(p, (rank ? rank : 1) * sizeof *w->shape);
    if (rank) memcpy(w->shape, shape, rank * sizeof *shape);
    w->data = copy;
    w->nbytes = nbytes;
    w->owned = false;
    fx_weight_set_map(w, NULL);
    return true;
}

/* A .pt2 archive or its program JSON alone. A program stored without values (a JSON, a .pt2
 * saved without weights) still gives each weight's role, dtype and shape: enough for export,
 * which then makes them graph inputs of the ONNX model. */
static bool from_pt2(fx_program *p, const char *path, const char *buf, size_t len, bool zip, size_t *count,
                     size_t *shape_only, diag_sink *d)
{
    fx_program *src = zip ? pt2_load_buffer((const unsigned char *)buf, len, path, d) : pt2_load_json(buf, len, path, d);
    if (!src) return false;
    for (const fx_weight *w = src->weights; w; w = w->next) {
        if (!w->data && fx_program_weight(p, w->fqn)) continue;   /* keep values attached before */
        if (!put(p, path, w->fqn, w->role, w->dtype, w->shape, w->rank, w->data, w->nbytes, d)) {
            fx_program_free(src);
            return false;
        }
        (*count)++;
        if (!w->data) (*shape_only)++;
    }
    fx_program_free(src);
    return true;
}

/* Typed (non-raw) ONNX tensor data as little-endian bytes of the element type. */
static const void *onnx_bytes(const Onnx__TensorProto *t, size_t *nbytes)
{
    if (t->has_raw_data) {
        *nbytes = t->raw_data.len;
        fmap_need(t->raw_data.data, t->raw_data.len);   /* a derived weight, computed where it is */
        return t->raw_data.data;
    }
    switch (t->data_type) {
    case 1: *nbytes = t->n_float_data * sizeof(float); return t->float_data;
    case 11: *nbytes = t->n_double_data * sizeof(double); return t->double_data;
    case 7: *nbytes = t->n_int64_data * sizeof(int64_t); return t->int64_data;
    case 6: *nbytes = t->n_int32_data * sizeof(int32_t); return t->int32_data;
    default: *nbytes = 0; return NULL;
    }
}

static bool from_onnx(fx_program *p, const char *path, const char *buf, size_t len, size_t *count, diag_sink *d)
{
    ox_model *m = ox_load_bytes(buf, len, path, d);
    if (!m) return false;
    const Onnx__GraphProto *g = m->proto->graph;
    for (size_t i = 0; g && i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        size_t nbytes;
        const void *data = onnx_bytes(t, &nbytes);
        fx_dtype dt = fx_dtype_from_onnx(t->data_type);
        if (!data || dt == FX_DT_UNKNOWN || !t->name) continue;
        if (!put(p, path, t->name, FX_TENSOR_PARAMETER, dt, t->dims, t->n_dims, data, nbytes, d)) {
            ox_model_free(m);
            return false;
        }
        (*count)++;
    }
    ox_model_free(m);
    return true;
}

/* safetensors: 8-byte little-endian header size, a JSON header {name: {dtype, shape,
 * data_offsets: [begin, end]}, "__metadata__": {...}}, then the data. */
static fx_dtype safetensors_dtype(const char *s)
{
    static const struct { const char *name, *abbr; } map[] = {
        {"F32", "f32"}, {"F64", "f64"}, {"F16", "f16"}, {"BF16", "bf16"}, {"I64", "i64"},
        {"I32", "i32"}, {"I16", "i16"}, {"I8", "i8"},   {"U8", "u8"},     {"BOOL", "b8"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(s, map[i].name)) return fx_dtype_from_abbr(map[i].abbr, strlen(map[i].abbr));
    return FX_DT_UNKNOWN;
}

static bool from_safetensors(fx_program *p, const char *path, const unsigned char *buf, size_t len,
                             size_t *count, diag_sink *d)
{
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | buf[i];
    if (len < 8 || hlen > len - 8) {
        diag_error(d, (diag_loc){path, 0, 0}, "not a safetensors file: header size %llu exceeds the file (%zu bytes)",
                   (unsigned long long)hlen, len);
        return false;
    }
    arena a;
    arena_init(&a);
    json_value *h = json_parse(&a, (const char *)buf + 8, (size_t)hlen, NULL, d);
    bool ok = h && h->kind == JSON_OBJECT;
    if (h && !ok) diag_error(d, (diag_loc){path, 0, 0}, "safetensors header is not a JSON object");
    const unsigned char *data = buf + 8 + hlen;
    size_t data_len = len - 8 - (size_t)hlen;
    for (size_t i = 0; ok && i < h->u.obj.len; i++) {
        const json_member *mb = &h->u.obj.members[i];
        if (!strcmp(mb->key, "__metadata__")) continue;
        const json_value *shape = json_get(mb->value, "shape"), *offs = json_get(mb->value, "data_offsets");
        const char *dts = json_str(json_get(mb->value, "dtype"));
        int64_t begin, end;
        fx_dtype dt = dts ? safetensors_dtype(dts) : FX_DT_UNKNOWN;
        if (!shape || !offs || json_len(offs) != 2 || !json_int(json_at(offs, 0), &begin) ||
            !json_int(json_at(offs, 1), &end) || begin < 0 || end < begin || (uint64_t)end > data_len ||
            dt == FX_DT_UNKNOWN) {
            diag_error(d, (diag_loc){path, 0, 0}, "safetensors: bad entry for tensor '%s'", mb->key);
            ok = false;
            break;
        }
        size_t rank = json_len(shape);
        int64_t dims[32];
        if (shape->kind != JSON_ARRAY || rank > 32) {
            diag_error(d, (diag_loc){path, 0, 0}, "safetensors: tensor '%s': 'shape' must be a list of at most 32 sizes",
                       mb->key);
            ok = false;
            break;
        }
        for (size_t k = 0; k < rank && ok; k++)
            if (!json_int(json_at(shape, k), &dims[k])) {
                diag_error(d, (diag_loc){path, 0, 0}, "safetensors: tensor '%s': size %zu of its shape is not an integer",
                           mb->key, k);
                ok = false;
            }
        if (!ok ||
            !put(p, path, mb->key, FX_TENSOR_PARAMETER, dt, dims, rank, data + begin, (size_t)(end - begin), d)) {
            ok = false;
            break;
        }
        (*count)++;
    }
    arena_free(&a);
    return ok;
}

static fx_weight_format format_of(const char *buf, size_t len)
{
    size_t lead = 0;
    while (lead < len && (buf[lead] == ' ' || buf[lead] == '\n' || buf[lead] == '\r' || buf[lead] == '\t')) lead++;
    if (len >= 4 && !memcmp(buf, "PK\003\004", 4)) return FX_WEIGHTS_PT2;
    if (len >= 9 && buf[8] == '{' && !buf[4] && !buf[5] && !buf[6] && !buf[7])   /* u64 header size < 4 GiB */
        return FX_WEIGHTS_SAFETENSORS;
    if (lead < len && buf[lead] == '{') return FX_WEIGHTS_PT2_JSON;
    return FX_WEIGHTS_ONNX;
}

fx_weight_format load_weight_file_format(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return FX_WEIGHTS_UNREADABLE;
    char buf[256];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return format_of(buf, len);
}

bool load_attach_weights(fx_program *p, const char *path, size_t *count, diag_sink *d)
{
    size_t len = 0;
    char *buf = file_read(path, &len, d);
    if (!buf) {
        if (count) *count = 0;
        return false;
    }
    bool ok = load_attach_weights_buffer(p, buf, len, path, count, d);
    free(buf);
    return ok;
}

bool load_attach_weights_buffer(fx_program *p, const char *buf, size_t len, const char *path, size_t *count,
                              diag_sink *d)
{
    size_t n = 0, shape_only = 0;
    bool ok;
    switch (format_of(buf, len)) {
    case FX_WEIGHTS_SAFETENSORS: ok = from_safetensors(p, path, (const unsigned char *)buf, len, &n, d); break;
    case FX_WEIGHTS_PT2: ok = from_pt2(p, path, buf, len, true, &n, &shape_only, d); break;
    case FX_WEIGHTS_PT2_JSON: ok = from_pt2(p, path, buf, len, false, &n, &shape_only, d); break;
    default: ok = from_onnx(p, path, buf, len, &n, d); break;
    }
    if (ok && shape_only) {
        diagnostic *dg = diag_note(d, (diag_loc){path, 0, 0}, "%zu weight%s with dtype and shape only: the program stores no values",
                                   shape_only, shape_only == 1 ? "" : "s");
        diag_set_hint(dg, "export refuses a model without its weights' values; `export export_params=False` makes them graph inputs");
    }
    if (ok && !n) {
        diag_error(d, (diag_loc){path, 0, 0}, "no weights with data in this file");
        ok = false;
    }
    if (count) *count = n;
    return ok;
}

/*==== weights to the placeholders torch.export lifted them to ====*/

/* A placeholder name torch.export gives a lifted tensor: p_, b_ or c_ and a name. */
static bool lifted_placeholder(const fx_node *n)
{
    return n->op == FX_OP_PLACEHOLDER && strlen(n->name) > 2 && n->name[1] == '_' && strchr("pbc", n->name[0]);
}

static fx_tensor_role role_of_prefix(char c)
{
    return c == 'p' ? FX_TENSOR_PARAMETER : c == 'b' ? FX_TENSOR_BUFFER : FX_TENSOR_CONSTANT;
}

static void put_type(strbuf *sb, fx_dtype dt, size_t rank, const char *const *sizes, const int64_t *shape)
{
    sb_printf(sb, "%s[", fx_dtype_get(dt)->abbr);
    for (size_t k = 0; k < rank; k++) {
        if (sizes) sb_printf(sb, "%s%s", k ? ", " : "", sizes[k]);
        else sb_printf(sb, "%s%lld", k ? ", " : "", (long long)shape[k]);
    }
    sb_putc(sb, ']');
}

/* The annotation the text gave a placeholder must be the weight's dtype and shape (a weights file
 * of another model, or of another size of it, is caught here and not at the first op). */
static bool same_type(const fx_value *v, const fx_weight *w)
{
    if (v->dtype != w->dtype || v->rank != w->rank) return false;
    for (size_t k = 0; k < w->rank; k++) {
        char dim[24];
        snprintf(dim, sizeof dim, "%lld", (long long)w->shape[k]);
        if (strcmp(v->sizes[k], dim)) return false;
    }
    return true;
}

/* Lists names (at most 8), each with the nearest of the other side as a did-you-mean, compared
 * by keys (the placeholder names, for weights the ones torch.export would give them). */
static void list_with_suggestions(strbuf *out, const char *const *names, const char *const *keys, size_t n,
                                  const char *const *other_names, const char *const *other_keys, size_t n_other)
{
    for (size_t i = 0; i < n && i < 8; i++) {
        const char *near = suggest_closest(keys[i], other_keys, n_other);
        sb_printf(out, "%s%s", i ? ", " : "", names[i]);
        for (size_t j = 0; near && j < n_other; j++)
            if (other_keys[j] == near) {
                sb_printf(out, " (did you mean %s?)", other_names[j]);
                break;
            }
    }
    if (n > 8) sb_printf(out, ", ... (%zu in all)", n);
}

bool load_bind_lifted(fx_program *p, const char *path, bool extra_ok, diag_sink *d)
{
    fx_graph *g = fx_program_graph(p);
    if (p->sig.present || !g) return true;
    diag_loc loc = {path, 0, 0};
    /* the weights by the name torch.export gives their placeholder, less its prefix: a .pt2
     * knows a buffer from a parameter, an .onnx or .safetensors file does not, so the
     * placeholder's prefix says which it is */
    hashmap by_name;
    hm_init(&by_name);
    arena a;
    arena_init(&a);
    for (fx_weight *w = p->weights; w; w = w->next) {
        char name[520];
        fx_lifted_name(FX_TENSOR_PARAMETER, w->fqn, name, sizeof name);
        if (!hm_has(&by_name, name + 2)) hm_put(&by_name, arena_strdup(&a, name + 2), w);
    }
    size_t n_ph = 0;
    for (const fx_node *n = g->first; n; n = n->next)
        if (n->op == FX_OP_PLACEHOLDER) n_ph++;
    const char **lonely = arena_alloc(&a, (n_ph + 1) * sizeof *lonely);   /* placeholders without a weight */
    fx_weight **bound = arena_alloc(&a, (n_ph + 1) * sizeof *bound);
    size_t n_lonely = 0, n_bound = 0, k = 0;
    hashmap used;
    hm_init(&used);
    bool ok = true;
    for (fx_node *n = g->first; n; n = n->next) {
        if (n->op != FX_OP_PLACEHOLDER) continue;
        fx_weight *w = lifted_placeholder(n) ? hm_get(&by_name, n->name + 2) : NULL;
        bound[k++] = w;
        if (!w) {
            if (lifted_placeholder(n)) lonely[n_lonely++] = n->name;
            continue;
        }
        n_bound++;
        hm_put(&used, w->fqn, NULL);
        const fx_value *v = n->meta.val;
        if (v && v->kind == FX_VAL_TENSOR && v->dtype != FX_DT_UNKNOWN && !same_type(v, w)) {
            strbuf t, f;
            sb_init(&t);
            sb_init(&f);
            put_type(&t, v->dtype, v->rank, v->sizes, NULL);
            put_type(&f, w->dtype, w->rank, NULL, w->shape);
            diagnostic *dg = diag_error(d, (diag_loc){p->file, n->src_line, 0},
                                        "load --weights: placeholder %%%s is %s in the program, but %s holds %s for %s",
                                        n->name, t.s, path, f.s, w->fqn);
            diag_set_hint(dg, "give the weights of this model (the one whose text this is)");
            sb_free(&t);
            sb_free(&f);
            ok = false;
        }
    }
    /* weights no placeholder takes; an .onnx file also holds the exporter's constants, so there
     * only a file none of whose initializers binds is a mistake */
    size_t n_extra = 0;
    const char **extra = NULL;
    for (const fx_weight *w = p->weights; w; w = w->next) n_extra++;
    extra = arena_alloc(&a, (n_extra + 1) * sizeof *extra);
    n_extra = 0;
    for (const fx_weight *w = p->weights; w; w = w->next)
        if (!hm_has(&used, w->fqn) && w->role != FX_TENSOR_CONSTANT) extra[n_extra++] = w->fqn;
    bool extra_bad = n_extra && (!extra_ok || !n_bound);
    if (ok && (n_lonely || extra_bad)) {
        /* both sides, each name with the nearest of the other as a did-you-mean, compared as
         * the placeholder names torch.export would give the weights */
        const char **lifted = arena_alloc(&a, (n_extra + 1) * sizeof *lifted);
        for (size_t i = 0; i < n_extra; i++) {
            char name[520];
            fx_lifted_name(FX_TENSOR_PARAMETER, extra[i], name, sizeof name);
            lifted[i] = arena_strdup(&a, name);
        }
        strbuf msg;
        sb_init(&msg);
        if (n_lonely) {
            sb_printf(&msg, "%zu placeholder%s without a weight in %s: ", n_lonely, n_lonely == 1 ? "" : "s", path);
            list_with_suggestions(&msg, lonely, lonely, n_lonely, extra, lifted, n_extra);
        }
        if (extra_bad) {
            sb_printf(&msg, "%s%zu weight%s of %s without a placeholder: ", n_lonely ? "; " : "", n_extra,
                      n_extra == 1 ? "" : "s", path);
            list_with_suggestions(&msg, extra, lifted, n_extra, lonely, lonely, n_lonely);
        }
        diagnostic *dg = diag_error(d, loc, "load --weights: %s", msg.s);
        diag_set_hint(dg, "torch.export names the placeholder of weight fc1.weight p_fc1_weight (b_ for a buffer, c_ "
                          "for a constant): give the weights of this model");
        sb_free(&msg);
        ok = false;
    }
    if (ok) {
        /* the signature torch.export would have written: each lifted placeholder's kind and
         * target, the other placeholders user inputs, every output a user output */
        p->sig.inputs = fx_alloc(p, (n_ph + 1) * sizeof *p->sig.inputs);
        k = 0;
        for (fx_node *n = g->first; n; n = n->next) {
            if (n->op != FX_OP_PLACEHOLDER) continue;
            fx_input_spec *in = &p->sig.inputs[p->sig.n_inputs++];
            fx_weight *w = bound[k++];
            in->name = n->name;
            if (!w) {
                in->kind = FX_IN_USER_INPUT;
                continue;
            }
            w->role = role_of_prefix(n->name[0]);
            w->persistent = w->role == FX_TENSOR_BUFFER;
            in->kind = w->role == FX_TENSOR_PARAMETER ? FX_IN_PARAMETER :
                       w->role == FX_TENSOR_BUFFER ? FX_IN_BUFFER : FX_IN_CONSTANT_TENSOR;
            in->target = w->fqn;
            in->persistent = w->persistent;
            if (!n->meta.val || n->meta.val->kind != FX_VAL_TENSOR || n->meta.val->dtype == FX_DT_UNKNOWN) {
                fx_value *v = fx_weight_value(p, w);
                v->device = "cpu";
                n->meta.val = v;
            }
        }
        const fx_node *o = g->last;
        while (o && o->op != FX_OP_OUTPUT) o = o->prev;
        const fx_arg *t = o && o->args->u.seq.len ? o->args->u.seq.items[0] : NULL;
        size_t n_out = t && (t->kind == FX_ARG_TUPLE || t->kind == FX_ARG_LIST) ? t->u.seq.len : t ? 1 : 0;
        p->sig.outputs = fx_alloc(p, (n_out + 1) * sizeof *p->sig.outputs);
        for (size_t i = 0; i < n_out; i++) {
            const fx_arg *it = t->kind == FX_ARG_TUPLE || t->kind == FX_ARG_LIST ? t->u.seq.items[i] : t;
            fx_output_spec *os = &p->sig.outputs[p->sig.n_outputs++];
            os->kind = FX_OUT_USER_OUTPUT;
            os->name = it->kind == FX_ARG_NODE ? it->u.node->name : "None";
        }
        p->sig.present = true;
    }
    hm_free(&used);
    hm_free(&by_name);
    arena_free(&a);
    return ok;
}
