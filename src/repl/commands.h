/* commands.h — the one command table: dispatch, arity checks, help, completion, man page.
 *
 * Handlers return 0 on success and non-zero on failure, after reporting the reason to
 * s->diag (session_error) — the REPL renders it and counts the failure. */
#ifndef FXSH_COMMANDS_H
#define FXSH_COMMANDS_H

#include <stdio.h>

#include "repl/session.h"

/* What the arguments of a command complete to (tab completion). */
typedef enum arg_completion {
    COMPLETE_NOTHING,
    COMPLETE_FILE,
    COMPLETE_NODE,
    COMPLETE_STAGE_OR_FORM,
    COMPLETE_COMMAND,
} arg_completion;

typedef int (*command_fn)(session *s, int argc, char **argv);

typedef struct command {
    const char *name;
    int min_args, max_args;      /* counted without the command name; max -1 = unbounded */
    command_fn run;
    arg_completion completes;
    const char *usage;           /* e.g. "load FILE|-" */
    const char *summary;         /* one line, for `help` */
    const char *help;            /* paragraph(s) for `help CMD` and the man page */
} command;

/* The table, terminated by an entry whose name is NULL. */
extern const command command_table[];

/* Finds a command by exact name or unambiguous prefix; NULL otherwise. *ambiguous is set
 * when a prefix matched more than one command. */
const command *command_find(const char *name, int *ambiguous);
/* command_find, reporting to s->diag when nothing matches: the candidates of an ambiguous
 * prefix, or "did you mean" for a typo; `what` prefixes the message ("help: " or ""). */
const command *command_lookup(session *s, const char *name, const char *what);
/* Runs one already-tokenized command line; returns 0 ok, 1 failed. */
int command_dispatch(session *s, int argc, char **argv);
/* help output, paragraphs filled to `width` columns */
void command_print_help(FILE *out, const char *name, int width);
/* roff text of the COMMANDS section of the man page */
void command_print_man(FILE *out);
/* Tab completion: candidates for `word` starting at byte `start` of `line`. */
char **command_complete(session *s, const char *line, int start, const char *word);

#endif
