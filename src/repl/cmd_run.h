/* cmd_run.h — what the commands that evaluate models share (cmd_run.c: run, verify; cmd_compare.c:
 * compare): their options, the model a STAGE-or-FILE argument names, inputs from a file or random.
 *
 * Ownership: run_model_ref owns the model when `owned` is set (run_model_ref_free releases it);
 * a run_input_set owns its tensors (run_inputs_free). Errors are reported to the session,
 * prefixed with the command's name. */
#ifndef FXSH_CMD_RUN_H
#define FXSH_CMD_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/onnx_eval.h"
#include "onnx/onnx_ir.h"
#include "view/onnx_values.h"
#include "repl/session.h"

enum { RUN_MAX_SWEEP_DIMS = 4, RUN_MAX_SWEEP_SIZES = 32, RUN_MAX_SWEEP_RUNS = 256, RUN_MAX_DECODE_STEPS = 4096 };

/* The sizes a dynamic dimension takes in random inputs: `--shapes NAME=1,2,7`, NAME a symbol the
 * model's inputs declare (batch, s77) or INPUT:AXIS (x:0); repeated for several dimensions. */
typedef struct run_sweep_dim {
    const char *name;            /* "batch", or the input's name when axis >= 0 */
    int axis;                    /* -1: NAME is a symbol */
    size_t name_len;
    int64_t sizes[RUN_MAX_SWEEP_SIZES];
    int n_sizes;
    int64_t at;                  /* the size of the run being made */
} run_sweep_dim;

/* `[STAGE|FILE...] [--inputs F] [--seed N] [--save F] [--expected F] [--atol A] [--rtol R]
 * [--shapes NAME=SIZES]` */
typedef struct run_opts {
    const char *stages[2];       /* named stages or model files, in order (NULL: the current stage) */
    int n_stages;
    const char *inputs, *expected, *save;
    uint64_t seed;
    double atol, rtol;
    run_sweep_dim sweep[RUN_MAX_SWEEP_DIMS];
    int n_sweep;                 /* 0: a dynamic dimension takes 2 */
    int decode;                  /* verify --decode N: decoding steps after the prefill (0: none) */
    int prefill;                 /* --prefill L: tokens of the prefill (0: the default, 4) */
} run_opts;

/* "batch=7, x:1=3": the sizes of the current run (sweep[i].at), for messages. */
void run_sweep_text(const run_opts *o, char *buf, size_t cap);

/* `allowed` lists the options the command takes; at most max_stages positional arguments, each a
 * stage name or an existing file. false after reporting. */
bool run_parse_opts(session *s, const char *cmd, int argc, char **argv, const char *allowed, int max_stages, run_opts *o);

/* The ONNX model a STAGE or FILE argument names (NULL: the current stage): an ONNX stage's model,
 * an FX stage translated (pipeline_stage_model), or a model file loaded outside the session. */
typedef struct run_model_ref {
    ox_model *m;
    bool owned;
    const char *label;           /* the stage's name or the file's path */
} run_model_ref;

int run_model_resolve(session *s, const char *cmd, const char *what, run_model_ref *r);
void run_model_ref_free(run_model_ref *r);

/* The graph inputs of a model with their values. */
typedef struct run_input_set {
    size_t n;
    oe_tensor *values;
    oe_named *named;
    uint64_t seed;       /* --seed: the random inputs' and the model's random operators' stream */
} run_input_set;

/* Values for m's inputs: from `file` (by name, input_N or position; file_name names it in
 * messages), else random of the declared types, seeded. -1 after reporting. */
int run_make_inputs(session *s, const char *cmd, const ox_model *m, const oe_values *file, const char *file_name,
                    uint64_t seed, run_input_set *in);
/* The same, with the dynamic dimensions of random inputs at the sizes o's sweep is at (o NULL or
 * without a sweep: 2); a sweep dimension no input declares is an error. */
int run_make_inputs_sized(session *s, const char *cmd, const ox_model *m, const oe_values *file, const char *file_name,
                          uint64_t seed, const run_opts *o, run_input_set *in);
/* The values of `from` as a value file, so that a second model gets exactly the same inputs. */
void run_inputs_as_values(const run_input_set *from, oe_values *out);
void run_inputs_free(run_input_set *in);

/* Two models on the same inputs (`compare A B`, `reduce MODEL REFERENCE`): a's inputs from the
 * --inputs file or random, b's the same values under its own input names. */
typedef struct run_pair {
    run_model_ref a, b;
    oe_values file;              /* the --inputs file's values (empty without one) */
    run_input_set in_a, in_b;
} run_pair;

/* Resolves o->stages[0] and [1] and makes their inputs; -1 after reporting (p is then freed). */
int run_pair_open(session *s, const char *cmd, const run_opts *o, run_pair *p);
void run_pair_free(run_pair *p);

struct json_writer;
/* Members of the --json documents of run, verify and compare: how the inputs were made ("inputs":
 * the file, or null, and "seed": the seed of random ones, or null), and a value's type
 * (dtype_key: "float32", shape_key: [2, 3]; a sequence or optional: "kind" instead). */
void run_json_inputs(struct json_writer *w, const char *file, uint64_t seed);
void run_json_type(struct json_writer *w, const char *dtype_key, const char *shape_key, const oe_tensor *t);

/* Random values of vi's declared tensor type, as run makes them (a dynamic dimension takes 2). */
int run_random_value(session *s, const char *cmd, const Onnx__ValueInfoProto *vi, uint64_t *rng, oe_tensor *out);

/* Runs model m on `in`; outputs[] (m's n_output of them) belong to the caller. Errors become
 * `cmd: ...`; -1 after reporting. */
int run_evaluate(session *s, const char *cmd, const ox_model *m, const run_input_set *in, oe_tensor *outputs);
/* An exported program runs only on inputs its range constraints allow, as torch's ep.module()
 * refuses the others ("Guard failed: x.size()[0] >= 3"): the ONNX model it is translated into
 * keeps no ranges, so they are checked here (stage_name NULL: the current stage; a model file
 * has none). -1 after reporting. */
int run_check_ranges(session *s, const char *cmd, const char *stage_name, const run_input_set *in);
/* One output judged against its reference (NULL: missing) with o's tolerances: a PASS / FAIL line
 * after `indent`, or, with w, one object of an "outputs" array. True when it passes. */
bool run_report_output(session *s, struct json_writer *w, const char *name, const oe_tensor *got, const oe_tensor *want,
                       const run_opts *o, const char *indent);

/* verify A B --decode N (cmd_decode.c): a prefill and N decoding steps of two decoders, each
 * feeding its own present keys/values back as past; 0 when every step agrees. */
int verify_decode(session *s, const run_opts *o, bool json);

/* Reads a value file (--inputs, --expected); -1 after reporting. */
int run_read_values(session *s, const char *cmd, const char *path, oe_values *v);

#endif
