/* fx_weight_source.c — weights for programs that come without them (FX text, TorchScript):
 * read from a .pt2, an .onnx or a .safetensors file and copied into the program by FQN. */
#include "load/fx_weight_source.h"

#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/shape.h"
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
        diag_set_hint(dg, "export makes them graph inputs of the ONNX model (as export_params=False does)");
    }
    if (ok && !n) {
        diag_error(d, (diag_loc){path, 0, 0}, "no weights with data in this file");
        ok = false;
    }
    if (count) *count = n;
    return ok;
}
