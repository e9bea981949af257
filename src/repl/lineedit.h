/* lineedit.h — line editing behind a few calls: GNU readline, libedit, or plain stdio.
 *
 * Ownership: le_read returns a malloc'd line without its newline (caller frees), or NULL at
 * EOF and when a signal interrupted the read (interrupt_pending() tells which). */
#ifndef FXSH_LINEEDIT_H
#define FXSH_LINEEDIT_H

#include <stdbool.h>
#include <stdio.h>

/* Produces completion candidates for the word being typed: called with the whole line so far,
 * the start offset of the word and the word; returns a NULL-terminated malloc'd array of
 * malloc'd strings (or NULL). */
typedef char **(*le_completer)(const char *line, int start, const char *word);

void le_init(bool interactive, le_completer completer);
char *le_read(const char *prompt, FILE *in);
/* After a read that Ctrl-C cancelled: true when the line being edited was empty. */
bool le_cancelled_empty_line(void);
void le_add_history(const char *line);
void le_load_history(const char *path);
void le_save_history(const char *path);
const char *le_backend(void);   /* "readline", "libedit" or "none" */

#endif
