/* cmd_reduce.h — what `reduce`'s files share: the reduced failure, made by cmd_reduce_export.c (an
 * export that fails), cmd_reduce_values.c (a model whose values disagree with a reference's) or
 * cmd_reduce_check.c (a model `check` rejects), printed and saved as a reproducer by cmd_reduce.c.
 *
 * Ownership: a reduce_result owns everything in it (reduce_result_free). */
#ifndef FXSH_CMD_REDUCE_H
#define FXSH_CMD_REDUCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ddmin.h"
#include "view/onnx_values.h"
#include "repl/cmd_run.h"
#include "repl/session.h"

struct fx_program;

typedef struct reduce_result {
    const char *mode;            /* "export", "values" or "check" */
    char *failure;               /* what fails, one line: the error, or the divergence */
    char *stage;                 /* export: the stage that fails; values: the model reduced */
    char *reference;             /* values: the reference's label */
    char *target;                /* the node the failure names, or whose value differs first */
    const char *what;            /* what was reduced: "decomposed program", "exported program", "model" */
    size_t nodes_before, nodes_after;
    ddmin_stats stats;
    ddmin_status status;
    struct fx_program *program;  /* the reduced program, in torch's form (NULL: none, see program_note) */
    char *program_note;
    struct ox_model *model;      /* the reduced model, in ONNX's form (NULL: none, see model_note) */
    char *model_note;
    struct ox_model *reference_model;   /* values: the reference's nodes for the same value */
    oe_values inputs;            /* the reduced inputs' values, by name */
    oe_values expected;          /* values: the reference's value of the target */
    char *inputs_note;           /* how the inputs were made */
    bool has_ref_program;        /* values: program is the reference's FX nodes */
    int program_stage;           /* values: the stage whose program it is */
    pl_stage held[PL_N_STAGES];  /* programs whose weights the reduced program borrows */
} reduce_result;

void reduce_result_free(reduce_result *r);

/* `reduce` after a failed export: the loaded program's export replayed and reduced. -1 after
 * reporting. */
int cmd_reduce_export(session *s, const run_opts *o, reduce_result *r);
/* `reduce MODEL REFERENCE`: the first value of MODEL that differs from REFERENCE's reduced. -1 after
 * reporting. */
int cmd_reduce_values(session *s, const run_opts *o, reduce_result *r);

/* `reduce MODEL` of a model `check` rejects: its nodes around the one the first problem names. -1
 * after reporting. */
int cmd_reduce_check(session *s, const run_opts *o, reduce_result *r);

/* Call nodes of a program's root graph (placeholders, get_attr and the output not counted). */
size_t reduce_fx_nodes(const struct fx_program *p);
/* The first error among d's diagnostics from index `from` (NULL if none). */
const diagnostic *reduce_first_error(const diag_sink *d, size_t from);

#endif
