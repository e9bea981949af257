/* gen_model.c — writes a synthetic ONNX model with MB megabytes of float weights, for `make bench`.
 *
 *   bench/gen_model OUT.onnx MB
 *
 * The model is a chain of MatMuls, x[1,1024] @ W_k[1024,1024] (4 MiB each, raw_data), with
 * deterministic pseudo-random weights whose %g forms have all lengths, so printing it exercises
 * the float formatter as a real model's weights do. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_model OUT.onnx MB\n");
        return 2;
    }
    long mb = atol(argv[2]);
    if (mb < 4) mb = 4;
    const int64_t n = 1024;
    long layers = mb / 4;
    ox_model *m = ox_model_new(8);
    ox_model_set_opset(m, "", 18);
    Onnx__GraphProto *g = m->proto->graph;
    g->name = ox_strdup(m, "main_graph");
    const char *dims[2] = {"1", "1024"};
    ox_graph_add_input(m, g, "x", ox_type_tensor(m, 1, dims, 2, true));
    float *w = malloc((size_t)(n * n) * sizeof *w);
    uint64_t s = 0x2545f4914f6cdd1dull;
    char prev[32] = "x", name[32], out[32];
    for (long k = 0; k < layers; k++) {
        for (int64_t i = 0; i < n * n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            w[i] = (float)((int64_t)(s % 2000001) - 1000000) * 1e-7f;   /* like trained weights */
        }
        snprintf(name, sizeof name, "w%ld", k);
        int64_t wd[2] = {n, n};
        Onnx__TensorProto *t = ox_tensor_new(m, name, 1, wd, 2);
        ox_tensor_set_raw(m, t, w, (size_t)(n * n) * sizeof *w);
        ox_graph_add_initializer(m, g, t);
        snprintf(out, sizeof out, k + 1 == layers ? "y" : "h%ld", k);
        Onnx__NodeProto *nd = ox_graph_add_node(m, g, "MatMul", NULL);
        ox_node_add_input(m, nd, prev);
        ox_node_add_input(m, nd, name);
        ox_node_add_output(m, nd, out);
        snprintf(prev, sizeof prev, "%s", out);
    }
    free(w);
    ox_graph_add_output(m, g, "y", ox_type_tensor(m, 1, dims, 2, true));
    diag_sink d;
    diag_init(&d);
    int rc = ox_save_file(m, argv[1], NULL, &d);
    if (rc != 0)
        diag_render_all(&d, stderr, NULL, false);
    diag_free(&d);
    ox_model_free(m);
    return rc != 0;
}
