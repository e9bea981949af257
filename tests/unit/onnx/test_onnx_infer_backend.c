/* test_onnx_infer_backend.c — type and shape inference against ONNX's backend node tests
 * (Debian's libonnx-testdata: data/node/<test>/model.onnx, whose graph outputs declare the type
 * and shape onnx's own inference and the test's data give).
 *
 * Infers every node of each test's main graph from the declared inputs and compares each graph
 * output fxsh infers with the declared one: an element type, rank or dimension that differs,
 * or a node inference refuses, is a contradiction, and any fails the test. Prints
 *   inference on backend node tests: N outputs inferred in full of M declared (K contradictions)
 * and fails when N is below the floor or an operator of the required list is not inferred in
 * full on each of its cases. Skips (77) without the data.
 * Environment: FXSH_ONNX_TESTDATA (the data/node folder), FXSH_BACKEND_VERBOSE=1 (each output
 * not inferred in full). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_paths.h"
#include "base/diag.h"
#include "onnx/onnx_infer.h"
#include "onnx/onnx_pb.h"


static const char *default_dirs[] = {"/usr/share/libonnx-testdata/data/node", "/usr/share/onnx/backend/test/data/node", NULL};

/* Operators whose every backend case must be inferred in full: those added with their backend
 * cases as proof (an operator's inference is one record line and one function, onnx_ops.c). */
static const char *const required[] = {"ReverseSequence", NULL};
enum { N_REQUIRED = sizeof required / sizeof *required };

typedef struct run {
    const char *test;
    bool verbose;
    int declared, full, contradictions;
    int req_cases[N_REQUIRED], req_full[N_REQUIRED];
} run;

static int required_index(const char *op)
{
    for (int i = 0; required[i]; i++)
        if (op && !strcmp(op, required[i])) return i;
    return -1;
}

static void visit(void *ctx, const Onnx__GraphProto *g, size_t node_index, const Onnx__NodeProto *n, size_t output, const oi_type *inferred,
                  const oi_type *declared, const char *why)
{
    run *r = ctx;
    (void)g;
    int req = required_index(n->op_type);
    if (why) {
        printf("  CONTRADICTION %s: node %zu (%s): %s\n", r->test, node_index, n->op_type, why);
        r->contradictions++;
        return;
    }
    if (!declared || !declared->elem) return;
    r->declared++;
    if (req >= 0) r->req_cases[req]++;
    bool full = inferred->elem == declared->elem && inferred->rank == declared->rank;
    if (inferred->elem && inferred->elem != declared->elem) {
        printf("  CONTRADICTION %s: %s output %zu: element type %d, declared %d\n", r->test, n->op_type, output,
               inferred->elem, declared->elem);
        r->contradictions++;
        return;
    }
    if (inferred->rank >= 0 && declared->rank >= 0) {
        if (inferred->rank != declared->rank) {
            printf("  CONTRADICTION %s: %s output %zu: rank %d, declared %d\n", r->test, n->op_type, output,
                   inferred->rank, declared->rank);
            r->contradictions++;
            return;
        }
        for (int i = 0; i < declared->rank; i++) {
            if (inferred->d[i].v >= 0 && declared->d[i].v >= 0 && inferred->d[i].v != declared->d[i].v) {
                printf("  CONTRADICTION %s: %s output %zu: dimension %d is %lld, declared %lld\n", r->test,
                       n->op_type, output, i, (long long)inferred->d[i].v, (long long)declared->d[i].v);
                r->contradictions++;
                return;
            }
            if (declared->d[i].v >= 0 && inferred->d[i].v < 0) full = false;
        }
    }
    if (full) {
        r->full++;
        if (req >= 0) r->req_full[req]++;
    } else if (r->verbose) {
        printf("  partial %s: %s output %zu\n", r->test, n->op_type, output);
    }
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(void)
{
    const char *dir = getenv("FXSH_ONNX_TESTDATA");
    struct stat st;
    for (int i = 0; (!dir || stat(dir, &st) != 0) && default_dirs[i]; i++) dir = default_dirs[i];
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("ONNX backend test data not found (apt-get install libonnx-testdata, or set FXSH_ONNX_TESTDATA); skipping\n");
        return 77;
    }
    run r = {.verbose = getenv("FXSH_BACKEND_VERBOSE") && *getenv("FXSH_BACKEND_VERBOSE") == '1'};
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        if (!strncmp(nm, "test_", 5)) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s/model.onnx", dir, nm);
            diag_sink d;
            diag_init(&d);
            ox_model *m = ox_load_file(path, &d);
            diag_free(&d);
            if (m && m->proto->graph) {
                r.test = nm;
                oi_walk_graph(m->proto->graph, ox_model_opset(m, ""), visit, &r);
            }
            if (m) ox_model_free(m);
        }
        free(names[i]);
    }
    if (n > 0) free(names);
    printf("inference on backend node tests: %d outputs inferred in full of %d declared (%d contradictions)\n", r.full,
           r.declared, r.contradictions);
    int bad = r.contradictions > 0 || r.full < test_floor("INFER_BACKEND_FLOOR");
    for (int i = 0; required[i]; i++) {
        printf("  %s: %d of %d outputs inferred in full\n", required[i], r.req_full[i], r.req_cases[i]);
        if (!r.req_cases[i] || r.req_full[i] < r.req_cases[i]) bad = 1;
    }
    if (r.full < test_floor("INFER_BACKEND_FLOOR")) printf("below the floor of %d outputs inferred in full\n", test_floor("INFER_BACKEND_FLOOR"));
    return bad;
}
