/* onnx_values.c — value files for run / verify: .npz, .npy, ONNX .pb, JSON (see onnx_values.h). */
#include "view/onnx_values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/json.h"
#include "onnx/onnx_tensor.h"
#include "view/onnx_npz.h"

static const struct {
    const char *name;
    int dtype;
} numpy_names[] = {
    {"float32", 1}, {"float64", 11}, {"float16", 10}, {"bfloat16", 16}, {"int64", 7}, {"int32", 6},
    {"int16", 5}, {"int8", 3}, {"uint8", 2}, {"uint16", 4}, {"uint32", 12}, {"uint64", 13}, {"bool", 9},
};

const char *view_numpy_dtype_name(int dtype)
{
    for (size_t i = 0; i < sizeof numpy_names / sizeof *numpy_names; i++)
        if (numpy_names[i].dtype == dtype) return numpy_names[i].name;
    return "unknown";
}

int view_dtype_from_numpy(const char *name)
{
    if (!name) return -1;
    if (!strncmp(name, "torch.", 6)) name += 6;
    for (size_t i = 0; i < sizeof numpy_names / sizeof *numpy_names; i++)
        if (!strcmp(numpy_names[i].name, name)) return numpy_names[i].dtype;
    if (!strcmp(name, "float")) return 1;
    if (!strcmp(name, "double")) return 11;
    if (!strcmp(name, "half")) return 10;
    return -1;
}

void view_values_add(oe_values *v, const char *name, oe_tensor *t, int role)
{
    v->items = xrealloc(v->items, (v->len + 1) * sizeof *v->items);
    oe_value *e = &v->items[v->len++];
    memset(e, 0, sizeof *e);
    e->name = xstrdup(name ? name : "");
    e->value = *t;
    e->role = role;
    memset(t, 0, sizeof *t);
}

void view_values_free(oe_values *v)
{
    for (size_t i = 0; i < v->len; i++) {
        free(v->items[i].name);
        ot_tensor_free(&v->items[i].value);
    }
    free(v->items);
    v->items = NULL;
    v->len = 0;
}

static bool role_ok(const oe_value *e, int role)
{
    return e->role == OE_ROLE_ANY || e->role == role;
}

const oe_value *view_values_pick(const oe_values *v, int role, const char *name, size_t pos, const char *const *names,
                               size_t n)
{
    for (size_t i = 0; i < v->len; i++)
        if (role_ok(&v->items[i], role) && name && !strcmp(v->items[i].name, name)) return &v->items[i];
    char alt[32];
    snprintf(alt, sizeof alt, "%s_%zu", role == OE_ROLE_OUTPUT ? "output" : "input", pos);
    for (size_t i = 0; i < v->len; i++)
        if (role_ok(&v->items[i], role) && !strcmp(v->items[i].name, alt)) return &v->items[i];
    /* positional only when the file names none of the graph's values */
    for (size_t i = 0; i < v->len; i++)
        for (size_t k = 0; k < n; k++)
            if (names[k] && !strcmp(v->items[i].name, names[k])) return NULL;
    size_t seen = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (!role_ok(&v->items[i], role)) continue;
        if (!strncmp(v->items[i].name, role == OE_ROLE_OUTPUT ? "input_" : "output_", role == OE_ROLE_OUTPUT ? 6 : 7))
            continue;
        if (seen++ == pos) return &v->items[i];
    }
    return NULL;
}

/* ---- .pb ---------------------------------------------------------------------------------------- */

static int from_tensor_proto(const Onnx__TensorProto *p, const char *what, oe_tensor *out, diag_sink *d)
{
    int rc = ot_from_proto(p, 0, out);
    if (rc == OE_OK) return 0;
    diag_error(d, (diag_loc){0}, "%s: %s", what,
               rc == OE_ERROR ? "the tensor's data does not match its shape"
                              : "the tensor's element type (or external data) is not supported");
    return -1;
}

static int from_sequence_proto(const Onnx__SequenceProto *s, const char *what, oe_tensor *out, diag_sink *d, int depth);

static int from_optional_proto(const Onnx__OptionalProto *o, const char *what, oe_tensor *out, diag_sink *d, int depth)
{
    oe_tensor v;
    int rc = 0;
    if (depth > 16) rc = -1;
    else if (o->tensor_value) rc = from_tensor_proto(o->tensor_value, what, &v, d);
    else if (o->sequence_value) rc = from_sequence_proto(o->sequence_value, what, &v, d, depth + 1);
    else if (o->optional_value) rc = from_optional_proto(o->optional_value, what, &v, d, depth + 1);
    else {
        ot_optional_init(out, 0, NULL);
        return 0;
    }
    if (rc) return -1;
    ot_optional_init(out, 0, &v);
    return 0;
}

static int from_sequence_proto(const Onnx__SequenceProto *s, const char *what, oe_tensor *out, diag_sink *d, int depth)
{
    ot_seq_init(out, 0);
    if (depth > 16 || s->n_sparse_tensor_values || s->n_map_values) {
        diag_error(d, (diag_loc){0}, "%s: sequences of sparse tensors or maps are not supported", what);
        return -1;
    }
    for (size_t i = 0; i < s->n_tensor_values + s->n_sequence_values + s->n_optional_values; i++) {
        oe_tensor v;
        int rc;
        if (i < s->n_tensor_values) rc = from_tensor_proto(s->tensor_values[i], what, &v, d);
        else if (i < s->n_tensor_values + s->n_sequence_values)
            rc = from_sequence_proto(s->sequence_values[i - s->n_tensor_values], what, &v, d, depth + 1);
        else rc = from_optional_proto(s->optional_values[i - s->n_tensor_values - s->n_sequence_values], what, &v, d, depth + 1);
        if (rc) {
            ot_tensor_free(out);
            return -1;
        }
        ot_seq_push(out, &v);
    }
    return 0;
}

int view_value_from_pb(const void *data, size_t len, int kind, const char *what, oe_tensor *out, char **name, diag_sink *d)
{
    memset(out, 0, sizeof *out);
    if (name) *name = NULL;
    const uint8_t *b = data;
    if (kind == OE_KIND_TENSOR || kind < 0) {
        Onnx__TensorProto *p = onnx__tensor_proto__unpack(NULL, len, b);
        if (p) {
            int rc = from_tensor_proto(p, what, out, d);
            if (name && p->name) *name = xstrdup(p->name);
            onnx__tensor_proto__free_unpacked(p, NULL);
            return rc;
        }
    }
    if (kind == OE_KIND_SEQUENCE || kind < 0) {
        Onnx__SequenceProto *s = onnx__sequence_proto__unpack(NULL, len, b);
        if (s) {
            int rc = from_sequence_proto(s, what, out, d, 0);
            if (name && s->name) *name = xstrdup(s->name);
            onnx__sequence_proto__free_unpacked(s, NULL);
            return rc;
        }
    }
    if (kind == OE_KIND_OPTIONAL || kind < 0) {
        Onnx__OptionalProto *o = onnx__optional_proto__unpack(NULL, len, b);
        if (o) {
            int rc = from_optional_proto(o, what, out, d, 0);
            if (name && o->name) *name = xstrdup(o->name);
            onnx__optional_proto__free_unpacked(o, NULL);
            return rc;
        }
    }
    diag_error(d, (diag_loc){0}, "%s: not an ONNX TensorProto, SequenceProto or OptionalProto", what);
    return -1;
}

/* ---- JSON --------------------------------------------------------------------------------------- */

/* Shape of a nested list (rectangular), and whether every number is integral / a bool. */
static int json_shape(const json_value *v, int depth, int64_t *dims, int *rank, bool *all_int, bool *all_bool)
{
    if (v->kind == JSON_ARRAY) {
        if (depth >= OE_MAX_RANK) return -1;
        if (depth == *rank) {
            dims[depth] = (int64_t)json_len(v);
            (*rank)++;
        } else if (depth > *rank || dims[depth] != (int64_t)json_len(v)) {
            return -1;
        }
        for (size_t i = 0; i < json_len(v); i++)
            if (json_shape(json_at(v, i), depth + 1, dims, rank, all_int, all_bool)) return -1;
        return 0;
    }
    if (depth != *rank) return -1;
    if (v->kind == JSON_BOOL) {
        *all_int = false;
        return 0;
    }
    if (v->kind != JSON_NUMBER) return -1;
    *all_bool = false;
    if (!v->u.num.is_int) *all_int = false;
    return 0;
}

static void json_fill(const json_value *v, oe_tensor *t, int64_t *k)
{
    if (v->kind == JSON_ARRAY) {
        for (size_t i = 0; i < json_len(v); i++) json_fill(json_at(v, i), t, k);
        return;
    }
    if (v->kind == JSON_BOOL) ot_set_i(t, (*k)++, v->u.boolean);
    else if (v->u.num.is_int && !oe_is_float(t->dtype)) ot_set_i(t, (*k)++, v->u.num.i);
    else ot_set_f(t, (*k)++, v->u.num.d);
}

/* A tensor from a JSON array / number, or from {"dtype", "shape", "data"}. */
static int json_tensor(const json_value *v, const char *what, oe_tensor *out, bool *untyped, diag_sink *d)
{
    int64_t dims[OE_MAX_RANK];
    int rank = 0, dtype = 1;
    bool all_int = true, all_bool = true;
    const json_value *data = v, *dt = json_get(v, "dtype"), *shape = json_get(v, "shape");
    *untyped = false;
    if (v->kind == JSON_OBJECT) {
        data = json_get(v, "data");
        dtype = view_dtype_from_numpy(json_str(dt));
        if (!data || dtype < 0) {
            diag_error(d, (diag_loc){0}, "%s: a value object needs \"dtype\" (float32, int64, ...) and \"data\"", what);
            return -1;
        }
    }
    if (json_shape(data, 0, dims, &rank, &all_int, &all_bool)) {
        diag_error(d, (diag_loc){0}, "%s: not a rectangular nested list of numbers", what);
        return -1;
    }
    if (v->kind != JSON_OBJECT) {
        *untyped = true;
        bool empty = ot_numel_of(dims, rank) == 0;
        dtype = empty ? 1 : all_bool ? 9 : all_int ? 7 : 1;
    } else if (shape) {
        /* the corpus's flat data with an explicit shape */
        rank = (int)json_len(shape);
        if (rank > OE_MAX_RANK) {
            diag_error(d, (diag_loc){0}, "%s: rank above %d", what, OE_MAX_RANK);
            return -1;
        }
        for (int i = 0; i < rank; i++)
            if (!json_int(json_at(shape, (size_t)i), &dims[i]) || dims[i] < 0) {
                diag_error(d, (diag_loc){0}, "%s: bad shape", what);
                return -1;
            }
    }
    if (ot_tensor_init(out, dtype, dims, rank)) {
        diag_error(d, (diag_loc){0}, "%s: bad or too large shape", what);
        return -1;
    }
    int64_t k = 0, count = 0;
    bool ai = true, ab = true;
    int64_t fdims[OE_MAX_RANK];
    int frank = 0;
    json_shape(data, 0, fdims, &frank, &ai, &ab);
    count = ot_numel_of(fdims, frank);
    if (count != out->numel) {
        ot_tensor_free(out);
        diag_error(d, (diag_loc){0}, "%s: %lld values for a shape of %lld elements", what, (long long)count,
                   (long long)out->numel);
        return -1;
    }
    json_fill(data, out, &k);
    return 0;
}

static int json_section(const json_value *arr, int role, const char *what, oe_values *out, diag_sink *d)
{
    for (size_t i = 0; i < json_len(arr); i++) {
        const json_value *e = json_at(arr, i);
        const char *nm = json_str(json_get(e, "name"));
        char label[256], fallback[32];
        snprintf(fallback, sizeof fallback, "%s_%zu", role == OE_ROLE_INPUT ? "input" : "output", i);
        snprintf(label, sizeof label, "%s: %s", what, nm ? nm : fallback);
        oe_tensor t;
        bool untyped;
        if (json_tensor(e, label, &t, &untyped, d)) return -1;
        view_values_add(out, nm ? nm : fallback, &t, role);
        out->items[out->len - 1].untyped = untyped;
    }
    return 0;
}

static int read_json(const char *text, size_t len, const char *what, oe_values *out, diag_sink *d)
{
    arena a;
    arena_init(&a);
    json_options jo = {.filename = what, .allow_nan_inf = true};
    json_value *root = json_parse(&a, text, len, &jo, d);
    int rc = root ? 0 : -1;
    if (root && root->kind != JSON_OBJECT) {
        diag_error(d, (diag_loc){0}, "%s: expected a JSON object of named values", what);
        rc = -1;
    } else if (root && json_get(root, "inputs") && json_get(root, "inputs")->kind == JSON_ARRAY) {
        rc = json_section(json_get(root, "inputs"), OE_ROLE_INPUT, what, out, d);
        if (!rc && json_get(root, "outputs")) rc = json_section(json_get(root, "outputs"), OE_ROLE_OUTPUT, what, out, d);
    } else if (root) {
        for (size_t i = 0; i < root->u.obj.len && rc == 0; i++) {
            const json_member *m = &root->u.obj.members[i];
            char label[256];
            snprintf(label, sizeof label, "%s: %s", what, m->key);
            oe_tensor t;
            bool untyped;
            rc = json_tensor(m->value, label, &t, &untyped, d);
            if (!rc) {
                view_values_add(out, m->key, &t, OE_ROLE_ANY);
                out->items[out->len - 1].untyped = untyped;
            }
        }
    }
    arena_free(&a);
    return rc;
}

/* ---- files -------------------------------------------------------------------------------------- */

static int role_of_name(const char *name)
{
    if (!strncmp(name, "input_", 6)) return OE_ROLE_INPUT;
    if (!strncmp(name, "output_", 7)) return OE_ROLE_OUTPUT;
    return OE_ROLE_ANY;
}

static char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    const char *dot = strrchr(s, '.');
    return xstrndup(s, dot && dot != s ? (size_t)(dot - s) : strlen(s));
}

int view_values_read_buffer(const char *buf, size_t len, const char *path, oe_values *out, diag_sink *d)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r')) i++;
    if (npy_is_zip(buf, len)) {
        npz_entry *e;
        size_t n;
        rc = npz_decode(buf, len, path, &e, &n, d);
        for (size_t k = 0; rc == 0 && k < n; k++) view_values_add(out, e[k].name, &e[k].value, role_of_name(e[k].name));
        if (rc == 0) npz_entries_free(e, n);
    } else if (npy_is_npy(buf, len)) {
        oe_tensor t;
        rc = npy_decode(buf, len, path, &t, d);
        char *nm = base_name(path);
        if (!rc) view_values_add(out, nm, &t, role_of_name(nm));
        free(nm);
    } else if (i < len && buf[i] == '{') {
        rc = read_json(buf, len, path, out, d);
    } else {
        oe_tensor t;
        char *nm = NULL;
        rc = view_value_from_pb(buf, len, -1, path, &t, &nm, d);
        if (!rc) {
            char *fallback = base_name(path);
            const char *use = nm && *nm ? nm : fallback;
            view_values_add(out, use, &t, role_of_name(use));
            free(fallback);
        }
        free(nm);
    }
    if (rc) view_values_free(out);
    return rc;
}

int view_values_read(const char *path, oe_values *out, diag_sink *d)
{
    memset(out, 0, sizeof *out);
    size_t len;
    char *buf = file_read(path, &len, d);
    if (!buf) return -1;
    int rc = view_values_read_buffer(buf, len, path, out, d);
    free(buf);
    return rc;
}
