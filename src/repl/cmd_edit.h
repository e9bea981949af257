/* cmd_edit.h — shared by the commands that edit an FX stage (surgery here, rewrites elsewhere). */
#ifndef FXSH_CMD_EDIT_H
#define FXSH_CMD_EDIT_H

#include "repl/session.h"

struct fx_program;

/* Makes `edited` (a changed copy of the current FX stage; taken over) the current stage, keeps
 * the previous program for undo, records argv as the command for history / save-patch, and
 * drops the stages after it. Returns 0. */
int edit_commit(session *s, int argc, char **argv, struct fx_program *edited);

#endif
