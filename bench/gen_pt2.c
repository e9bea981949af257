/* gen_pt2.c — writes a synthetic torch.export archive (.pt2) with MB megabytes of float weights,
 * for `make bench`: the input of load + export + save, as torch.export would write it.
 *
 *   bench/gen_pt2 OUT.pt2 MB [linear|conv]
 *
 * linear (the default): a chain of nn.Linear(1024, 1024) on x[1,1024] (4 MiB of weight + 4 KiB of
 * bias each). conv: a chain of nn.Conv2d(1024, 1024, 3, padding=1, bias=False) + BatchNorm2d(1024)
 * in eval mode on x[1,1024,4,4] (36 MiB of weight each), which the optimizer fuses, so that every
 * weight of the saved model is a derived one. Stored uncompressed as torch stores weights, with
 * the models/model.json, the weights config and the small members of torch 2.14's format. The
 * weights are pseudo-random like gen_model's (running variances positive); they go to a temporary
 * file first, which libzip copies into the archive, so memory stays small whatever MB is. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "base/strbuf.h"

enum { N = 1024, MAXT = 5 };

/* One weight of a layer: its module path (fc0.weight), the placeholder (p_fc0_weight), shape. */
typedef struct wdesc {
    char fqn[48], arg[48];
    int rank;
    int64_t sizes[4];
    bool param;
    bool positive;   /* a running variance */
} wdesc;

static bool conv_mode;

/* The weights of layer k, in torch's order (parameters; buffers come after all parameters). */
static int layer_weights(long k, wdesc *w)
{
    memset(w, 0, MAXT * sizeof *w);
    if (!conv_mode) {
        snprintf(w[0].fqn, 48, "fc%ld.weight", k), snprintf(w[0].arg, 48, "p_fc%ld_weight", k);
        w[0].rank = 2, w[0].sizes[0] = w[0].sizes[1] = N, w[0].param = true;
        snprintf(w[1].fqn, 48, "fc%ld.bias", k), snprintf(w[1].arg, 48, "p_fc%ld_bias", k);
        w[1].rank = 1, w[1].sizes[0] = N, w[1].param = true;
        return 2;
    }
    snprintf(w[0].fqn, 48, "conv%ld.weight", k), snprintf(w[0].arg, 48, "p_conv%ld_weight", k);
    w[0].rank = 4, w[0].sizes[0] = w[0].sizes[1] = N, w[0].sizes[2] = w[0].sizes[3] = 3, w[0].param = true;
    const char *bn[4] = {"weight", "bias", "running_mean", "running_var"};
    for (int i = 0; i < 4; i++) {
        snprintf(w[1 + i].fqn, 48, "bn%ld.%s", k, bn[i]);
        snprintf(w[1 + i].arg, 48, "%s_bn%ld_%s", i < 2 ? "p" : "b", k, bn[i]);
        w[1 + i].rank = 1, w[1 + i].sizes[0] = N, w[1 + i].param = i < 2, w[1 + i].positive = i == 3;
    }
    return 5;
}

static int64_t numel(const wdesc *w)
{
    int64_t n = 1;
    for (int i = 0; i < w->rank; i++) n *= w->sizes[i];
    return n;
}

static void tensor_meta(strbuf *s, const char *name, int rank, const int64_t *sizes, bool grad)
{
    if (name) sb_printf(s, "\"%s\": ", name);
    sb_puts(s, "{\"dtype\": 7, \"sizes\": [");
    for (int i = 0; i < rank; i++) sb_printf(s, "%s{\"as_int\": %lld}", i ? ", " : "", (long long)sizes[i]);
    sb_printf(s, "], \"requires_grad\": %s, \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [",
              grad ? "true" : "false");
    int64_t st = 1, strides[4];
    for (int i = rank - 1; i >= 0; i--) strides[i] = st, st *= sizes[i];
    for (int i = 0; i < rank; i++) sb_printf(s, "%s{\"as_int\": %lld}", i ? ", " : "", (long long)strides[i]);
    sb_puts(s, "], \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}");
}

/* Every weight of the model in placeholder order: parameters of every layer, then buffers. */
#define FOR_WEIGHTS(layers, w, nw, ...)                                                              \
    for (int pass = 0; pass < 2; pass++)                                                          \
        for (long k = 0; k < (layers); k++) {                                                     \
            wdesc w[MAXT];                                                                         \
            int nw = layer_weights(k, w);                                                          \
            for (int i = 0; i < nw; i++)                                                           \
                if (w[i].param == (pass == 0)) { __VA_ARGS__; }                                   \
        }

static const char *out_name(long k, char *buf)
{
    snprintf(buf, 32, conv_mode ? "batch_norm_%ld" : "linear_%ld", k);
    if (conv_mode && k == 0) snprintf(buf, 32, "batch_norm");
    return buf;
}

static void arg(strbuf *s, const char *name, const char *tensor)
{
    sb_printf(s, "{\"name\": \"%s\", \"arg\": {\"as_tensor\": {\"name\": \"%s\"}}, \"kind\": 1}, ", name, tensor);
}

static void model_json(strbuf *s, long layers)
{
    int64_t x[4] = {1, N, 4, 4};
    int xr = conv_mode ? 4 : 2;
    if (!conv_mode) x[1] = N, x[0] = 1;
    char prev[32], out[32];
    sb_puts(s, "{\"graph_module\": {\"graph\": {\"inputs\": [");
    FOR_WEIGHTS(layers, w, nw, sb_printf(s, "{\"as_tensor\": {\"name\": \"%s\"}}, ", w[i].arg));
    sb_printf(s, "{\"as_tensor\": {\"name\": \"x\"}}], \"outputs\": [{\"as_tensor\": {\"name\": \"%s\"}}], \"nodes\": [",
              out_name(layers - 1, out));
    for (long k = 0; k < layers; k++) {
        if (k) out_name(k - 1, prev);
        else snprintf(prev, sizeof prev, "x");
        wdesc w[MAXT];
        layer_weights(k, w);
        if (!conv_mode) {
            sb_printf(s, "%s{\"target\": \"torch.ops.aten.linear.default\", \"inputs\": [", k ? ", " : "");
            arg(s, "input", prev), arg(s, "weight", w[0].arg);
            sb_printf(s, "{\"name\": \"bias\", \"arg\": {\"as_tensor\": {\"name\": \"%s\"}}, \"kind\": 1}], "
                      "\"outputs\": [{\"as_tensor\": {\"name\": \"%s\"}}], \"metadata\": {\"nn_module_stack\": "
                      "\"L__self__,,model.Chain;L__self__fc%ld,fc%ld,torch.nn.modules.linear.Linear\"}, "
                      "\"is_hop_single_tensor_return\": null, \"name\": \"%s\"}", w[1].arg, out_name(k, out), k, k, out);
            continue;
        }
        char conv[32];
        snprintf(conv, sizeof conv, k ? "conv2d_%ld" : "conv2d", k);
        sb_printf(s, "%s{\"target\": \"torch.ops.aten.conv2d.default\", \"inputs\": [", k ? ", " : "");
        arg(s, "input", prev), arg(s, "weight", w[0].arg);
        sb_printf(s, "{\"name\": \"bias\", \"arg\": {\"as_none\": true}, \"kind\": 1}, "
                  "{\"name\": \"stride\", \"arg\": {\"as_ints\": [1, 1]}, \"kind\": 1}, "
                  "{\"name\": \"padding\", \"arg\": {\"as_ints\": [1, 1]}, \"kind\": 1}], "
                  "\"outputs\": [{\"as_tensor\": {\"name\": \"%s\"}}], \"metadata\": {\"nn_module_stack\": "
                  "\"L__self__,,model.Chain;L__self__conv%ld,conv%ld,torch.nn.modules.conv.Conv2d\"}, "
                  "\"is_hop_single_tensor_return\": null, \"name\": \"%s\"}, ", conv, k, k, conv);
        sb_puts(s, "{\"target\": \"torch.ops.aten.batch_norm.default\", \"inputs\": [");
        arg(s, "input", conv), arg(s, "weight", w[1].arg), arg(s, "bias", w[2].arg);
        arg(s, "running_mean", w[3].arg), arg(s, "running_var", w[4].arg);
        sb_printf(s, "{\"name\": \"training\", \"arg\": {\"as_bool\": false}, \"kind\": 1}, "
                  "{\"name\": \"momentum\", \"arg\": {\"as_float\": 0.1}, \"kind\": 1}, "
                  "{\"name\": \"eps\", \"arg\": {\"as_float\": 1e-05}, \"kind\": 1}, "
                  "{\"name\": \"cudnn_enabled\", \"arg\": {\"as_bool\": false}, \"kind\": 1}], "
                  "\"outputs\": [{\"as_tensor\": {\"name\": \"%s\"}}], \"metadata\": {\"nn_module_stack\": "
                  "\"L__self__,,model.Chain;L__self__bn%ld,bn%ld,torch.nn.modules.batchnorm.BatchNorm2d\"}, "
                  "\"is_hop_single_tensor_return\": null, \"name\": \"%s\"}", out_name(k, out), k, k, out);
    }
    sb_puts(s, "], \"tensor_values\": {");
    FOR_WEIGHTS(layers, w, nw, {
        tensor_meta(s, w[i].arg, w[i].rank, w[i].sizes, w[i].param);
        sb_puts(s, ", ");
    });
    for (long k = 0; k < layers; k++) {
        if (conv_mode) {
            char conv[32];
            snprintf(conv, sizeof conv, k ? "conv2d_%ld" : "conv2d", k);
            tensor_meta(s, conv, xr, x, false);
            sb_puts(s, ", ");
        }
        tensor_meta(s, out_name(k, out), xr, x, false);
        sb_puts(s, ", ");
    }
    tensor_meta(s, "x", xr, x, false);
    sb_puts(s, "}, \"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": false, "
               "\"custom_obj_values\": {}, \"sym_float_values\": {}}, \"signature\": {\"input_specs\": [");
    FOR_WEIGHTS(layers, w, nw, {
        if (w[i].param)
            sb_printf(s, "{\"parameter\": {\"arg\": {\"name\": \"%s\"}, \"parameter_name\": \"%s\"}}, ", w[i].arg, w[i].fqn);
        else
            sb_printf(s, "{\"buffer\": {\"arg\": {\"name\": \"%s\"}, \"buffer_name\": \"%s\", \"persistent\": true}}, ",
                      w[i].arg, w[i].fqn);
    });
    sb_printf(s, "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": "
              "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"%s\"}}}}]}, ", out_name(layers - 1, out));
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
    long idx = 0;
    sb_puts(s, "{\"config\": {");
    FOR_WEIGHTS(layers, w, nw, {
        sb_printf(s, "%s\"%s\": {\"path_name\": \"weight_%ld\", \"is_param\": %s, \"use_pickle\": false, "
                  "\"tensor_meta\": ", idx ? ", " : "", w[i].fqn, idx, w[i].param ? "true" : "false");
        idx++;
        tensor_meta(s, NULL, w[i].rank, w[i].sizes, w[i].param);
        sb_puts(s, "}");
    });
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
    if (argc != 3 && !(argc == 4 && (!strcmp(argv[3], "linear") || !strcmp(argv[3], "conv")))) {
        fprintf(stderr, "usage: gen_pt2 OUT.pt2 MB [linear|conv]\n");
        return 2;
    }
    conv_mode = argc == 4 && !strcmp(argv[3], "conv");
    long mb = atol(argv[2]), per = conv_mode ? 36 : 4;
    long layers = mb < per ? 1 : mb / per;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.weights.XXXXXX", argv[1]);
    int fd = mkstemp(tmp);
    FILE *wf = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!wf) {
        perror("gen_pt2: temporary file");
        return 1;
    }
    float *buf = malloc((size_t)N * N * 9 * sizeof *buf);
    uint64_t st = 0x2545f4914f6cdd1dull;
    int failed = 0;
    FOR_WEIGHTS(layers, w, nw, {
        size_t n = (size_t)numel(&w[i]);
        for (size_t j = 0; j < n; j++) {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            float v = (float)((int64_t)(st % 2000001) - 1000000) * 3e-8f;
            buf[j] = w[i].positive ? 0.5f + (v < 0 ? -v : v) * 30 : v;
        }
        if (!failed && fwrite(buf, sizeof *buf, n, wf) != n) failed = 1;
    });
    free(buf);
    if (failed || fflush(wf) != 0) {
        perror("gen_pt2: temporary file");
        return 1;
    }
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
    long idx = 0;
    FOR_WEIGHTS(layers, w, nw, {
        char name[64];
        snprintf(name, sizeof name, "program/data/weights/weight_%ld", idx++);
        uint64_t len = (uint64_t)numel(&w[i]) * sizeof(float);
        if (!rc) rc = add(z, name, zip_source_file(z, tmp, off, (zip_int64_t)len));
        off += len;
    });
    if (rc || zip_close(z) != 0) {
        fprintf(stderr, "gen_pt2: cannot write %s: %s\n", argv[1], zip_strerror(z));
        zip_discard(z);
        rc = 1;
    }
    fclose(wf);
    unlink(tmp);
    return rc;
}
