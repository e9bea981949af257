/* cmd_handlers.h — the handler of every command in command_table (one file per group). */
#ifndef FXSH_CMD_HANDLERS_H
#define FXSH_CMD_HANDLERS_H

#include <stdint.h>

#include "repl/session.h"

/* cmd_core.c: the shell itself */
int cmd_help(session *s, int argc, char **argv);
int cmd_quit(session *s, int argc, char **argv);
int cmd_stages(session *s, int argc, char **argv);
int cmd_source(session *s, int argc, char **argv);

/* cmd_load.c: loading by content */
int cmd_load(session *s, int argc, char **argv);
/* An ONNX model file (binary or text) loaded outside the stages, for commands that compare a
 * stage with it; NULL after reporting (messages start with `cmd`). */
struct ox_model *cmd_load_model_file(session *s, const char *cmd, const char *path);

/* cmd_inspect.c: looking at the current stage */
int cmd_show(session *s, int argc, char **argv);
int cmd_nodes(session *s, int argc, char **argv);
int cmd_node(session *s, int argc, char **argv);
int cmd_find(session *s, int argc, char **argv);
int cmd_stats(session *s, int argc, char **argv);
int cmd_lint(session *s, int argc, char **argv);

/* cmd_onnx.c: ONNX models */
int cmd_summary(session *s, int argc, char **argv);
int cmd_check(session *s, int argc, char **argv);
int cmd_dot(session *s, int argc, char **argv);
int cmd_save(session *s, int argc, char **argv);

/* cmd_program.c: torch.export programs */
int cmd_signature(session *s, int argc, char **argv);
int cmd_params(session *s, int argc, char **argv);
int cmd_weights(session *s, int argc, char **argv);

/* cmd_reduce.c: the smallest failing part of a program or model */
int cmd_reduce(session *s, int argc, char **argv);

/* cmd_pipeline.c: the export pipeline */
int cmd_export(session *s, int argc, char **argv);
int cmd_step(session *s, int argc, char **argv);
int cmd_diff(session *s, int argc, char **argv);
int cmd_set(session *s, int argc, char **argv);
int cmd_ops(session *s, int argc, char **argv);
/* The ONNX model of a stage: its own (ONNX stages; *owned false) or, for the exported and
 * decomposed stages, a translation with the session's settings (*owned true). NULL after
 * reporting (messages start with `cmd`). */
struct ox_model *pipeline_stage_model(session *s, int index, const char *cmd, bool *owned);

struct fx_program;
struct export_settings;
/* A program through export, decompose and translate with cfg, outside the stages (the messages
 * of a successful run dropped); NULL after reporting. */
struct ox_model *pipeline_program_model(session *s, const struct fx_program *p, const struct export_settings *cfg);
/* cmd_trace.c: `export --legacy trace` — tracing's decisions replayed on the example inputs:
 * a copy of p with each Python `if` on a tensor replaced by the branch the inputs take
 * (TracerWarning printed at each), NULL after reporting. */
struct fx_program *trace_program(session *s, const struct fx_program *p, const struct export_settings *cfg,
                                 const char *inputs, uint64_t seed);

/* cmd_run.c: evaluating stages */
int cmd_run(session *s, int argc, char **argv);
int cmd_verify(session *s, int argc, char **argv);
/* cmd_compare.c: two models node by node */
int cmd_compare(session *s, int argc, char **argv);

/* cmd_edit.c: patching FX stages */
int cmd_replace(session *s, int argc, char **argv);
int cmd_rewire(session *s, int argc, char **argv);
int cmd_insert(session *s, int argc, char **argv);
int cmd_delete(session *s, int argc, char **argv);
int cmd_rename(session *s, int argc, char **argv);
int cmd_set_node(session *s, int argc, char **argv);
int cmd_rewrite(session *s, int argc, char **argv);
int cmd_undo(session *s, int argc, char **argv);
int cmd_redo(session *s, int argc, char **argv);
int cmd_history(session *s, int argc, char **argv);
/* cmd_guards.c */
int cmd_guards(session *s, int argc, char **argv);
int cmd_explain(session *s, int argc, char **argv);
int cmd_save_patch(session *s, int argc, char **argv);

/* cmd_report.c: `export --report FILE.md` and `dot --svg`. What one export run did: */
typedef struct export_report {
    const char *command;              /* the command line, for the report's header */
    export_settings cfg;              /* the settings the run used (borrowed) */
    double ms[SESSION_MAX_STAGES];    /* time of each stage the run made */
    bool ran[SESSION_MAX_STAGES];
    int failed_stage;                 /* when the run failed */
    size_t diag_mark;                 /* s->diag.len when it started: its notes, warnings, errors */
} export_report;
/* Writes the report of the run (rc its status) to path, Markdown or (FILE.html) one HTML page;
 * false after reporting. */
bool report_write(session *s, const char *path, const export_report *r, int rc);
/* `export --json`: the run as one JSON document (schema: fxsh(1), JSON OUTPUT). */
void report_json(session *s, const export_report *r, int rc, struct strbuf *out);
/* Renders DOT text to an SVG file with Graphviz's dot (FXSH_DOT names another binary); false
 * after reporting (with a hint when Graphviz is not installed). */
bool render_svg(session *s, const char *dot_text, size_t len, const char *path);

/* cmd_json.c: the --json form of the inspection commands. Each appends one JSON object and a
 * newline to out: {"fxsh": JSON_SCHEMA_VERSION, "command": NAME, "stage": STAGE, ...} (the
 * members of each are documented in fxsh(1), JSON OUTPUT). */
enum { JSON_SCHEMA_VERSION = 1 };
struct strbuf;
struct json_writer;
/* Every document: {"fxsh": JSON_SCHEMA_VERSION, "command": ..., "stage": ... (when stage_name is
 * not NULL: a stage, or the model file a command ran)}; the caller adds its members and closes it
 * with cmd_json_end (which adds the newline). */
void cmd_json_begin(struct json_writer *w, struct strbuf *out, const char *command, const char *stage_name);
void cmd_json_end(struct json_writer *w);
/* Moves every "--json" behind the other words and lowers *argc past them (argv keeps all its
 * pointers, still NULL-terminated after the last); true if there was one. */
bool cmd_json_flag(int *argc, char **argv);
/* The same for any words: drop says which move behind; returns how many did. */
int args_partition(int argc, char **argv, bool (*drop)(const char *word, void *ctx), void *ctx);
/* cmd_json_flag, then refuses more than nargs other arguments (reporting); false if it did. */
bool cmd_json_option(session *s, int *argc, char **argv, int nargs, bool *json);
void cmd_json_stages(session *s, struct strbuf *out);
void cmd_json_nodes(const stage *st, struct strbuf *out);
int cmd_json_node(const stage *st, const char *name, struct strbuf *out);   /* -1: no such node */
/* The nodes `find` lists (text in the name or target; ONNX: name, op type or an output); how many. */
size_t cmd_json_find(const stage *st, const char *text, bool fold_case, struct strbuf *out);
void cmd_json_stats(const stage *st, struct strbuf *out);
void cmd_json_summary(const stage *st, struct strbuf *out);
void cmd_json_check(const stage *st, const diag_sink *problems, struct strbuf *out);
void cmd_json_signature(const stage *st, struct strbuf *out);
void cmd_json_lint(const stage *st, const diag_sink *found, struct strbuf *out);
struct oe_tensor;
/* `weights NAME --json`: kind ("parameter", "buffer", "constant", "initializer"), dtype and shape
 * and the text form's summary of the values t holds (NULL: values not held, the members null). */
void cmd_json_weights(const stage *st, const char *name, const char *kind, const struct oe_tensor *t, struct strbuf *out);
void cmd_json_params(const stage *st, struct strbuf *out);
/* The document of a --json command that failed before writing its own: {"ok": false, "errors":
 * [{"message", "hint"}]}, the errors reported to s->diag since index mark. */
void cmd_json_error(session *s, const char *command, size_t mark, struct strbuf *out);

/* Calls cb for every node name of the current stage (tab completion). */
void session_each_node_name(session *s, void (*cb)(const char *name, void *ctx), void *ctx);

/* Runs the commands of an open stream as a script named `name` (used by source and main). */
int repl_run_stream(session *s, FILE *in, const char *name);

#endif
