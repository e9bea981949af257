/* gen_pt2.c — writes a synthetic torch.export archive (.pt2) with MB megabytes of float weights,
 * for `make bench`: the input of load + export + save, as torch.export would write it.
 *
 *   bench/gen_pt2 OUT.pt2 MB
 *
 * The program is a chain of nn.Linear(1024, 1024) on x[1,1024] (4 MiB of weight + 4 KiB of bias
 * each, stored uncompressed as torch stores them), with the models/model.json, the weights config
 * and the small members of torch 2.14's format. The weights are pseudo-random like gen_model's;
 * they go to a temporary file first, which libzip copies into the archive, so memory stays small
 * whatever MB is. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "base/strbuf.h"

enum { N = 1024 };

static void tensor_meta(strbuf *s, const char *name, int rank, const int64_t *sizes, bool grad)
{
    if (name) sb_printf(s, "\"%s\": ", name);
    sb_puts(s, "{\"dtype\": 7, \"sizes\": [");
    for (int i = 0; i < rank; i++) sb_printf(s, "%s{\"as_int\": %lld}", i ? ", " : "", (long long)sizes[i]);
    sb_printf(s, "], \"requires_grad\": %s, \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [",
              grad ? "true" : "false");
    for (int i = 0; i < rank; i++) sb_printf(s, "%s{\"as_int\": %d}", i ? ", " : "", i + 1 < rank ? N : 1);
    sb_puts(s, "], \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}");
}

static void model_json(strbuf *s, long layers)
{
    int64_t w[2] = {N, N}, b[1] = {N}, x[2] = {1, N};
    sb_puts(s, "{\"graph_module\": {\"graph\": {\"inputs\": [");
    for (long k = 0; k < layers; k++)
        sb_printf(s, "{\"as_tensor\": {\"name\": \"p_fc%ld_weight\"}}, {\"as_tensor\": {\"name\": \"p_fc%ld_bias\"}}, ", k, k);
    sb_printf(s, "{\"as_tensor\": {\"name\": \"x\"}}], \"outputs\": [{\"as_tensor\": {\"name\": \"linear_%ld\"}}], \"nodes\": [",
              layers - 1);
    for (long k = 0; k < layers; k++) {
        char prev[32];
        if (k) snprintf(prev, sizeof prev, "linear_%ld", k - 1);
        else snprintf(prev, sizeof prev, "x");
        sb_printf(s, "%s{\"target\": \"torch.ops.aten.linear.default\", \"inputs\": ["
                  "{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"%s\"}}, \"kind\": 1}, "
                  "{\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"p_fc%ld_weight\"}}, \"kind\": 1}, "
                  "{\"name\": \"bias\", \"arg\": {\"as_tensor\": {\"name\": \"p_fc%ld_bias\"}}, \"kind\": 1}], "
                  "\"outputs\": [{\"as_tensor\": {\"name\": \"linear_%ld\"}}], \"metadata\": {\"nn_module_stack\": "
                  "\"L__self__,,model.Chain;L__self__fc%ld,fc%ld,torch.nn.modules.linear.Linear\"}, "
                  "\"is_hop_single_tensor_return\": null, \"name\": \"linear_%ld\"}",
                  k ? ", " : "", prev, k, k, k, k, k, k);
    }
    sb_puts(s, "], \"tensor_values\": {");
    char name[64];
    for (long k = 0; k < layers; k++) {
        snprintf(name, sizeof name, "p_fc%ld_weight", k);
        tensor_meta(s, name, 2, w, true);
        sb_puts(s, ", ");
        snprintf(name, sizeof name, "p_fc%ld_bias", k);
        tensor_meta(s, name, 1, b, true);
        sb_puts(s, ", ");
        snprintf(name, sizeof name, "linear_%ld", k);
        tensor_meta(s, name, 2, x, false);
        sb_puts(s, ", ");
    }
    tensor_meta(s, "x", 2, x, false);
    sb_puts(s, "}, \"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": false, "
               "\"custom_obj_values\": {}, \"sym_float_values\": {}}, \"signature\": {\"input_specs\": [");
    for (long k = 0; k < layers; k++)
        sb_printf(s, "{\"parameter\": {\"arg\": {\"name\": \"p_fc%ld_weight\"}, \"parameter_name\": \"fc%ld.weight\"}}, "
                  "{\"parameter\": {\"arg\": {\"name\": \"p_fc%ld_bias\"}, \"parameter_name\": \"fc%ld.bias\"}}, ",
                  k, k, k, k);
    sb_printf(s, "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": "
              "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"linear_%ld\"}}}}]}, ", layers - 1);
    sb_puts(s, "\"module_call_graph\": [{\"fqn\": \"\", \"signature\": {\"inputs\": [], \"outputs\": [], \"in_spec\": "
               "\"[1, {\\\"type\\\": \\\"builtins.tuple\\\", \\\"context\\\": \\\"null\\\", \\\"children_spec\\\": "
               "[{\\\"type\\\": \\\"builtins.tuple\\\", \\\"context\\\": \\\"null\\\", \\\"children_spec\\\": "
               "[{\\\"type\\\": null, \\\"context\\\": null, \\\"children_spec\\\": []}]}, {\\\"type\\\": "
               "\\\"builtins.dict\\\", \\\"context\\\": \\\"[]\\\", \\\"children_spec\\\": []}]}]\", \"out_spec\": "
               "\"[1, {\\\"type\\\": null, \\\"context\\\": null, \\\"children_spec\\\": []}]\", "
               "\"forward_arg_names\": [\"x\"]}}], \"metadata\": {}, \"treespec_namedtuple_fields\": {}}, "
               "\"opset_version\": {\"aten\": 10}, \"range_constraints\": {}, \"schema_version\": "
               "{\"major\": 8, \"minor\": 20}, \"verifiers\": [\"TRAINING\"], \"torch_version\": "
               "\"2.14.1+debian\", \"guards_code\": []}");
}

static void weights_config(strbuf *s, long layers)
{
    int64_t w[2] = {N, N}, b[1] = {N};
    sb_puts(s, "{\"config\": {");
    for (long k = 0; k < layers; k++) {
        sb_printf(s, "%s\"fc%ld.weight\": {\"path_name\": \"weight_%ld\", \"is_param\": true, \"use_pickle\": false, "
                  "\"tensor_meta\": ", k ? ", " : "", k, 2 * k);
        tensor_meta(s, NULL, 2, w, true);
        sb_printf(s, "}, \"fc%ld.bias\": {\"path_name\": \"weight_%ld\", \"is_param\": true, \"use_pickle\": false, "
                  "\"tensor_meta\": ", k, 2 * k + 1);
        tensor_meta(s, NULL, 1, b, true);
        sb_puts(s, "}");
    }
    sb_puts(s, "}}");
}

static int add(zip_t *z, const char *name, zip_source_t *src)
{
    zip_int64_t i = src ? zip_file_add(z, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) : -1;
    if (i < 0) {
        fprintf(stderr, "gen_pt2: cannot add %s: %s\n", name, zip_strerror(z));
        if (src) zip_source_free(src);
        return -1;
    }
    zip_set_file_compression(z, (zip_uint64_t)i, ZIP_CM_STORE, 0);
    return 0;
}

static int add_text(zip_t *z, const char *name, strbuf *s)
{
    size_t len = s->len;
    char *data = sb_detach(s);
    return add(z, name, zip_source_buffer(z, data, len, 1));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_pt2 OUT.pt2 MB\n");
        return 2;
    }
    long mb = atol(argv[2]);
    long layers = mb < 4 ? 1 : mb / 4;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.weights.XXXXXX", argv[1]);
    int fd = mkstemp(tmp);
    FILE *wf = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!wf) {
        perror("gen_pt2: temporary file");
        return 1;
    }
    float *w = malloc((size_t)N * N * sizeof *w);
    uint64_t st = 0x2545f4914f6cdd1dull;
    for (long k = 0; k < layers; k++)
        for (int part = 0; part < 2; part++) {
            size_t n = part ? N : (size_t)N * N;
            for (size_t i = 0; i < n; i++) {
                st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                w[i] = (float)((int64_t)(st % 2000001) - 1000000) * 3e-8f;
            }
            if (fwrite(w, sizeof *w, n, wf) != n) {
                perror("gen_pt2: temporary file");
                return 1;
            }
        }
    free(w);
    fflush(wf);
    int err = 0;
    zip_t *z = zip_open(argv[1], ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) {
        fprintf(stderr, "gen_pt2: cannot create %s (libzip error %d)\n", argv[1], err);
        return 1;
    }
    strbuf s;
    int rc = 0;
    const char *small[][2] = {{"program/archive_format", "pt2"}, {"program/archive_version", "0"},
                              {"program/byteorder", "little"}, {"program/.data/version", "6"},
                              {"program/data/constants/model_constants_config.json", "{\"config\": {}}"}};
    for (size_t i = 0; i < sizeof small / sizeof *small && !rc; i++) {
        sb_init(&s);
        sb_puts(&s, small[i][1]);
        rc = add_text(z, small[i][0], &s);
    }
    sb_init(&s);
    model_json(&s, layers);
    if (!rc) rc = add_text(z, "program/models/model.json", &s);
    else sb_free(&s);
    sb_init(&s);
    weights_config(&s, layers);
    if (!rc) rc = add_text(z, "program/data/weights/model_weights_config.json", &s);
    else sb_free(&s);
    uint64_t off = 0;
    for (long k = 0; k < 2 * layers && !rc; k++) {
        char name[64];
        snprintf(name, sizeof name, "program/data/weights/weight_%ld", k);
        uint64_t len = (k % 2 ? N : (uint64_t)N * N) * sizeof(float);
        rc = add(z, name, zip_source_file(z, tmp, off, (zip_int64_t)len));
        off += len;
    }
    if (rc || zip_close(z) != 0) {
        fprintf(stderr, "gen_pt2: cannot write %s: %s\n", argv[1], zip_strerror(z));
        zip_discard(z);
        rc = 1;
    }
    fclose(wf);
    unlink(tmp);
    return rc;
}
