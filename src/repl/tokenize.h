/* tokenize.h — splits a command line into words (shell-like quotes and backslashes).
 *
 * Ownership: tokenize returns a malloc'd NULL-terminated argv whose strings are malloc'd;
 * free it with tokens_free. */
#ifndef FXSH_TOKENIZE_H
#define FXSH_TOKENIZE_H

/* Returns the words of line, or NULL with *error set (static text) on an unterminated quote.
 * A '#' at the start of a word begins a comment that runs to the end of the line. */
char **tokenize(const char *line, int *argc, const char **error);
void tokens_free(char **argv);
/* The words joined back into one line that tokenize splits into the same words (words with
 * spaces, quotes or '#' are double-quoted). Returns a malloc'd string. */
char *tokens_join(int argc, char *const *argv);

#endif
