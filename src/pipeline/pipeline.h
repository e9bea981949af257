/* pipeline.h — the library entry point: load any file fxsh reads, run the export stages.
 *
 * Everything that drives fxsh's pipeline — the shell, the tests, the benchmark, the fuzz
 * harnesses — goes through this header: pl_load_file / pl_load_buffer recognise a file by its
 * content and load it with its options (weights, example inputs, module attributes), and
 * pl_export / pl_run_stage run torch.onnx's stages (capture → decompose → translate → optimize)
 * with export settings, each stage a pass that reads the one before it and never changes it.
 * The library never prints: errors, warnings and notes go to the diagnostics sink; the lines
 * torch.onnx itself prints (its progress lines, its warnings, torch.export's failure text) go to
 * an optional print callback, as text.
 *
 * Ownership: a pl_stage owns its program or model (pl_stage_clear frees it); pl_loaded owns what
 * a load made until it is handed to a stage (pl_loaded_free otherwise). Models returned by
 * pl_stage_model with *owned set, and by pl_program_model / pl_load_model_file, are the caller's. */
#ifndef FXSH_PIPELINE_H
#define FXSH_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "load/ts_load.h"
#include "pipeline/settings.h"

struct fx_program;
struct ox_model;
struct ops_registry;

/*==== stages ====*/

/* The stages in pipeline order: what was loaded (torch-level) and each pass's output. */
enum { PL_STAGE_FX, PL_STAGE_EXPORTED, PL_STAGE_DECOMPOSED, PL_STAGE_ONNX, PL_STAGE_OPTIMIZED, PL_N_STAGES };

typedef enum pl_stage_kind { PL_EMPTY, PL_FX, PL_ONNX } pl_stage_kind;

typedef struct pl_stage {
    const char *name;            /* "fx", "exported", "decomposed", "onnx", "optimized" */
    pl_stage_kind kind;
    struct fx_program *fx;
    struct ox_model *onnx;
    char *source;                /* file it was loaded from, or the pass that made it */
    struct fx_program *keepalive[2];  /* intermediate programs whose data fx borrows (or NULL) */
} pl_stage;

/* Stage names in pipeline order; -1 / NULL for an unknown name or index. */
int pl_stage_index(const char *name);
const char *pl_stage_name(int index);
/* Empty stages named in order. */
void pl_stages_init(pl_stage stages[PL_N_STAGES]);
/* Frees what the stage holds and leaves it empty (its name kept). */
void pl_stage_clear(pl_stage *st);
/* Replaces the stage's content (freeing what was there). Takes ownership of p / m. */
void pl_stage_set_fx(pl_stage *st, struct fx_program *p, const char *source);
void pl_stage_set_onnx(pl_stage *st, struct ox_model *m, const char *source);

/*==== the environment of a run ====*/

/* What torch.onnx prints besides diagnostics, as text: its progress lines ("[torch.onnx] Run
 * decompositions... ✅", stdout, left out by -q) and its own messages (settings warnings, the
 * failure text torch.export prints; stderr). */
typedef enum pl_print_kind { PL_PRINT_PROGRESS, PL_PRINT_TORCH } pl_print_kind;
typedef void (*pl_print_fn)(void *ctx, pl_print_kind kind, const char *text);

typedef struct pl_env {
    diag_sink *diag;                 /* where errors, warnings and notes go (required) */
    struct ops_registry **ops;       /* the op tables: loaded into *ops on first use (required) */
    pl_print_fn print;               /* NULL: torch's own lines are dropped */
    void *print_ctx;
    const char *load_command;        /* the `load` that made the program, for hints (or NULL) */
    struct py_guard_log *guards;     /* receives the guards of a capture (or NULL) */
} pl_env;

/* Loads the default op tables into *env->ops if they are not yet; false after reporting. */
bool pl_ensure_ops(pl_env *env);
/* Frees the op tables pl_ensure_ops loaded (NULL is fine). */
void pl_free_ops(struct ops_registry *ops);

/*==== load ====*/

/* What `load` is told besides the file. */
typedef struct pl_load_options {
    const char *weights;             /* .pt2, .onnx or .safetensors whose tensors the program's weights take */
    const ts_input_decl *inputs;     /* example inputs (TorchScript and torch-level text have no shapes) */
    size_t n_inputs;
    const ts_attr_decl *attrs;       /* module attributes TorchScript reads (self.heads) */
    size_t n_attrs;
} pl_load_options;

/* What a load made: a program (or a model) and the stage it belongs to. */
typedef struct pl_loaded {
    int stage;                       /* PL_STAGE_FX for torch-level programs, EXPORTED, or ONNX */
    struct fx_program *fx;
    struct ox_model *onnx;
    bool weights_attached;           /* --weights were attached after loading (not by the loader) */
    size_t n_weights;                /* how many tensors they gave */
} pl_loaded;

/* Loads a file, recognised by its content (FX text in its three forms, .pt2 or its JSON,
 * TorchScript IR, ONNX text or protobuf); a binary file is mapped, not read. false after
 * reporting, with *out empty. */
bool pl_load_file(const char *path, const pl_load_options *o, pl_loaded *out, diag_sink *d);
/* The same for text in memory (`load -`): name labels messages; archives and binary ONNX need a
 * file. */
bool pl_load_buffer(const char *buf, size_t len, const char *name, const pl_load_options *o, pl_loaded *out,
                    diag_sink *d);
void pl_loaded_free(pl_loaded *l);
/* An ONNX model file (binary or text, by content) outside the stages, for commands that compare
 * one with a stage; cmd starts the messages. NULL after reporting. */
struct ox_model *pl_load_model_file(const char *path, const char *cmd, diag_sink *d);
/* Whether pasted text is a complete graph (ONNX text when it starts like it, else FX text). */
bool pl_text_complete(const char *text, size_t len);

/*==== export ====*/

/* What a run does beyond the settings. */
typedef struct pl_run_options {
    bool legacy_script;              /* the TorchScript exporter's route: Python ifs become torch.cond first */
    bool legacy;                     /* the TorchScript-based exporter (--legacy script or trace): none of
                                        the dynamo exporter's [torch.onnx] lines or verdicts, and the
                                        rewrites fxsh makes on its route note nothing */
    struct fx_program *traced;       /* `export --legacy trace`'s program: replaces the loaded one at
                                        capture; owned by the run (the exported stage keeps it) */
    char **failure_text;             /* where torch.export's failure text goes (malloc'd), or NULL */
} pl_run_options;

/* Whether every user input of the program loaded at `stages[first]` has a dtype and a shape (or
 * a declaration in cfg->inputs); otherwise an error whose hint is the load with the --input each
 * needs. */
bool pl_inputs_declared(const pl_stage *st, const export_settings *cfg, pl_env *env);
/* Runs the pass that makes stages[to] from stages[to - 1] (PL_STAGE_EXPORTED .. OPTIMIZED),
 * printing torch's progress lines and, on failure, its verdict. false after reporting. */
bool pl_run_stage(pl_stage stages[PL_N_STAGES], int to, const export_settings *cfg, pl_run_options *ro, pl_env *env);

/* What pl_export did, stage by stage (indexed by stage). */
typedef struct pl_export_result {
    double ms[PL_N_STAGES];
    bool ran[PL_N_STAGES];
    int failed_stage;                /* -1 when none failed */
} pl_export_result;

/* The settings as torch.onnx adjusts them before it starts (an opset below 18 raised to 18),
 * with the warnings torch prints about them. Call once before a run with user settings. */
void pl_adjust_settings(export_settings *cfg, pl_env *env);
/* torch.onnx.export(..., dynamo=True): every stage after the first loaded one (a torch-level
 * program at fx, a torch.export program at exported) through optimized (onnx when cfg->optimize
 * is off), each replacing what the stage held; then the warning about weights without values.
 * false after reporting; res (may be NULL) says what ran. */
bool pl_export(pl_stage stages[PL_N_STAGES], const export_settings *cfg, pl_run_options *ro, pl_env *env,
              pl_export_result *res);
/* The first stage holding an FX program (where export starts), or -1. */
int pl_first_fx_stage(const pl_stage stages[PL_N_STAGES]);

/* The ONNX model of stage `index`: an ONNX stage's own (*owned false), or an FX stage decomposed
 * (the exported one) and translated with cfg (*owned true). NULL after reporting (messages start
 * with cmd). */
struct ox_model *pl_stage_model(pl_stage stages[PL_N_STAGES], int index, const export_settings *cfg, const char *cmd,
                                pl_env *env, bool *owned);
/* A torch-level program through capture, decompose and translate with cfg, outside any stages;
 * only the errors of a failed run are reported. NULL after reporting. */
struct ox_model *pl_program_model(const struct fx_program *p, const export_settings *cfg, pl_env *env);

#endif
