/* test_onnx_backend.c — the evaluator against ONNX's backend node tests (Debian's
 * libonnx-testdata: data/node/<test>/model.onnx with test_data_set_N/input_N.pb, output_N.pb).
 *
 * Runs every test case whose ops the evaluator implements (and whose values it can hold),
 * compares each output with the expected one as onnx's backend runner does (same dtype and
 * shape; numpy.testing.assert_allclose with rtol=1e-3, atol=1e-7, NaN equal to NaN), prints
 *   backend node tests: N passed of M supported (K cases in all)
 * and fails when N is below the floor; then the same for the model groups beside data/node
 * (pytorch-converted, pytorch-operator, simple). Skips (77) without the data.
 * Environment: FXSH_ONNX_TESTDATA (the data/node folder), FXSH_BACKEND_VERBOSE=1 (every
 * failure's reason), FXSH_BACKEND_FILTER=substring (only matching tests).
 * Usage: test_onnx_backend [substring-filter] */
#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_paths.h"
#include "base/diag.h"
#include "base/file.h"
#include "eval/onnx_eval.h"
#include "onnx/onnx_pb.h"
#include "view/onnx_values.h"


static const char *default_dirs[] = {"/usr/share/libonnx-testdata/data/node", "/usr/share/onnx/backend/test/data/node", NULL};

typedef struct stats {
    int all, supported, passed;
} stats;

/* ---- is a model within the evaluator's reach? ----------------------------------------------------- */

static bool type_ok(const Onnx__TypeProto *t, int depth)
{
    if (!t || depth > 8) return false;
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: return t->tensor_type && ot_dtype_supported(t->tensor_type->elem_type);
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: return t->sequence_type && type_ok(t->sequence_type->elem_type, depth + 1);
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: return t->optional_type && type_ok(t->optional_type->elem_type, depth + 1);
    default: return false;
    }
}

static bool has_function(const ox_model *m, const Onnx__NodeProto *n)
{
    for (size_t i = 0; i < m->proto->n_functions; i++) {
        const Onnx__FunctionProto *f = m->proto->functions[i];
        if (f->name && !strcmp(f->name, n->op_type) && !strcmp(f->domain ? f->domain : "", n->domain ? n->domain : ""))
            return true;
    }
    return false;
}

static bool nodes_ok(const ox_model *m, Onnx__NodeProto **nodes, size_t n, const char **why, int depth);

static bool graph_ok(const ox_model *m, const Onnx__GraphProto *g, const char **why, int depth)
{
    return depth < 16 && nodes_ok(m, g->node, g->n_node, why, depth);
}

static bool nodes_ok(const ox_model *m, Onnx__NodeProto **nodes, size_t n, const char **why, int depth)
{
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *nd = nodes[i];
        if (!oe_op_evaluable(nd->domain, nd->op_type) && !has_function(m, nd)) {
            *why = nd->op_type;
            return false;
        }
        for (size_t j = 0; j < nd->n_attribute; j++) {
            const Onnx__AttributeProto *a = nd->attribute[j];
            if (a->g && !graph_ok(m, a->g, why, depth + 1)) return false;
            for (size_t k = 0; k < a->n_graphs; k++)
                if (!graph_ok(m, a->graphs[k], why, depth + 1)) return false;
        }
    }
    return true;
}

static bool model_ok(const ox_model *m, const char **why)
{
    const Onnx__GraphProto *g = m->proto->graph;
    if (!g) return false;
    for (size_t i = 0; i < g->n_input; i++)
        if (!type_ok(g->input[i]->type, 0)) {
            *why = "input type";
            return false;
        }
    for (size_t i = 0; i < g->n_output; i++)
        if (!type_ok(g->output[i]->type, 0)) {
            *why = "output type";
            return false;
        }
    for (size_t i = 0; i < m->proto->n_functions; i++) {
        const Onnx__FunctionProto *f = m->proto->functions[i];
        if (!nodes_ok(m, f->node, f->n_node, why, 1)) return false;
    }
    return graph_ok(m, g, why, 0);
}

/* ---- comparison ------------------------------------------------------------------------------------ */

static int kind_of(const Onnx__TypeProto *t)
{
    if (!t) return -1;
    if (t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) return OE_KIND_SEQUENCE;
    if (t->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE) return OE_KIND_OPTIONAL;
    return OE_KIND_TENSOR;
}

static bool close_enough(const oe_tensor *got, const oe_tensor *want, char *why, size_t cap)
{
    if (got->kind != want->kind || got->n_items != want->n_items) {
        snprintf(why, cap, "value kind or length differs");
        return false;
    }
    for (int64_t i = 0; i < want->n_items; i++)
        if (!close_enough(&got->items[i], &want->items[i], why, cap)) return false;
    if (want->kind != OE_KIND_TENSOR) return true;
    if (got->dtype != want->dtype) {
        snprintf(why, cap, "dtype %d, expected %d", got->dtype, want->dtype);
        return false;
    }
    if (got->rank != want->rank || memcmp(got->dims, want->dims, sizeof(int64_t) * (size_t)want->rank)) {
        snprintf(why, cap, "shape differs (rank %d vs %d, %lld vs %lld elements)", got->rank, want->rank,
                 (long long)got->numel, (long long)want->numel);
        return false;
    }
    bool fl = want->dtype == 1 || want->dtype == 10 || want->dtype == 11 || want->dtype == 16;
    for (int64_t i = 0; i < want->numel; i++) {
        if (fl) {
            double a = ot_get_f(got, i), b = ot_get_f(want, i);
            if (isnan(a) && isnan(b)) continue;
            if (a == b) continue;
            if (!(fabs(a - b) <= 1e-7 + 1e-3 * fabs(b))) {
                snprintf(why, cap, "element %lld: %.9g, expected %.9g", (long long)i, a, b);
                return false;
            }
        } else if (ot_get_i(got, i) != ot_get_i(want, i)) {
            snprintf(why, cap, "element %lld: %lld, expected %lld", (long long)i, (long long)ot_get_i(got, i),
                     (long long)ot_get_i(want, i));
            return false;
        }
    }
    return true;
}

/* onnx 1.12 stores bfloat16 test values as uint16 bit patterns (numpy has no bfloat16). */
static void bfloat16_bits(const Onnx__TypeProto *t, oe_tensor *v)
{
    if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type && t->tensor_type->elem_type == 16 &&
        v->kind == OE_KIND_TENSOR && v->dtype == 4)
        v->dtype = 16;
}

static int read_pb(const char *path, int kind, oe_tensor *out)
{
    size_t len;
    char *buf = file_slurp(path, &len);
    if (!buf) return -1;
    diag_sink d;
    diag_init(&d);
    int rc = view_value_from_pb(buf, len, kind, path, out, NULL, &d);
    diag_free(&d);
    free(buf);
    return rc;
}

/* Runs one data set; 1 passed, 0 failed (reason in why). */
static int run_set(const ox_model *m, const char *set, char *why, size_t cap)
{
    const Onnx__GraphProto *g = m->proto->graph;
    oe_tensor *in = calloc(g->n_input + 1, sizeof *in), *out = calloc(g->n_output + 1, sizeof *out);
    oe_named *named = calloc(g->n_input + 1, sizeof *named);
    size_t nin = 0;
    int ok = 1;
    char path[4096];
    for (size_t i = 0; i < g->n_input && ok; i++) {
        snprintf(path, sizeof path, "%s/input_%zu.pb", set, i);
        struct stat st;
        if (stat(path, &st) != 0) continue;   /* an omitted optional input */
        if (read_pb(path, kind_of(g->input[i]->type), &in[i])) {
            snprintf(why, cap, "cannot read %.300s", path);
            ok = 0;
        }
        bfloat16_bits(g->input[i]->type, &in[i]);
        named[nin++] = (oe_named){g->input[i]->name, &in[i]};
    }
    diag_sink d;
    diag_init(&d);
    if (ok && oe_eval_model(m, named, nin, out, NULL, &d) != OE_OK) {
        snprintf(why, cap, "%s", d.len ? d.items[0].message : "evaluation failed");
        ok = 0;
    }
    for (size_t i = 0; i < g->n_output && ok; i++) {
        oe_tensor want;
        snprintf(path, sizeof path, "%s/output_%zu.pb", set, i);
        if (read_pb(path, kind_of(g->output[i]->type), &want)) {
            snprintf(why, cap, "cannot read %.300s", path);
            ok = 0;
            break;
        }
        bfloat16_bits(g->output[i]->type, &want);
        char w[256];
        if (!close_enough(&out[i], &want, w, sizeof w)) {
            snprintf(why, cap, "output %zu (%s): %s", i, g->output[i]->name, w);
            ok = 0;
        }
        ot_tensor_free(&want);
    }
    for (size_t i = 0; i < g->n_output; i++) ot_tensor_free(&out[i]);
    for (size_t i = 0; i < g->n_input; i++) ot_tensor_free(&in[i]);
    diag_free(&d);
    free(in);
    free(out);
    free(named);
    return ok;
}

static void run_case(const char *dir, const char *name, stats *st, bool verbose)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
    st->all++;
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_load_file(path, &d);
    diag_free(&d);
    const char *why = "load failed";
    if (!m || !model_ok(m, &why)) {
        if (verbose) printf("  unsupported %s: %s\n", name, why);
        if (m) ox_model_free(m);
        return;
    }
    st->supported++;
    snprintf(path, sizeof path, "%s/%s/test_data_set_*", dir, name);
    glob_t gl;
    int ok = 1;
    char reason[512] = "no data set";
    if (glob(path, 0, NULL, &gl) != 0) ok = 0;
    for (size_t i = 0; ok && i < gl.gl_pathc; i++) ok = run_set(m, gl.gl_pathv[i], reason, sizeof reason);
    if (ok) st->passed++;
    else printf("  FAIL %s: %s\n", name, reason);
    globfree(&gl);
    ox_model_free(m);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs every case of one group folder; returns its counts. */
static stats run_group(const char *dir, const char *filter, bool verbose)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    stats s = {0};
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        if (!strncmp(nm, "test_", 5) && (!filter || strstr(nm, filter))) run_case(dir, nm, &s, verbose);
        free(names[i]);
    }
    if (n > 0) free(names);
    return s;
}

int main(int argc, char **argv)
{
    const char *dir = getenv("FXSH_ONNX_TESTDATA");
    struct stat st;
    for (int i = 0; (!dir || stat(dir, &st) != 0) && default_dirs[i]; i++) dir = default_dirs[i];
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("ONNX backend test data not found (apt-get install libonnx-testdata, or set FXSH_ONNX_TESTDATA); skipping\n");
        return 77;
    }
    const char *filter = argc > 1 ? argv[1] : getenv("FXSH_BACKEND_FILTER");
    bool verbose = getenv("FXSH_BACKEND_VERBOSE") && *getenv("FXSH_BACKEND_VERBOSE") == '1';
    stats s = run_group(dir, filter, verbose);
    printf("backend node tests: %d passed of %d supported (%d cases in all)\n", s.passed, s.supported, s.all);
    /* the model groups beside data/node: whole small networks from PyTorch and ONNX */
    stats m = {0};
    static const char *const groups[] = {"pytorch-converted", "pytorch-operator", "simple"};
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        char other[4096];
        snprintf(other, sizeof other, "%s/../%s", dir, groups[g]);
        if (stat(other, &st) != 0) continue;
        stats t = run_group(other, filter, verbose);
        m.all += t.all;
        m.supported += t.supported;
        m.passed += t.passed;
    }
    if (m.all) printf("backend model tests (pytorch-converted, pytorch-operator, simple): %d passed of %d supported (%d cases in all)\n",
                      m.passed, m.supported, m.all);
    if (!filter && (s.passed < test_floor("BACKEND_FLOOR") || (m.all && m.passed < test_floor("BACKEND_MODEL_FLOOR")))) {
        printf("below the floor of %d node / %d model cases passing\n", test_floor("BACKEND_FLOOR"), test_floor("BACKEND_MODEL_FLOOR"));
        return 1;
    }
    return 0;
}
