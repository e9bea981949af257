/* lineedit.c — readline / libedit / stdio line input, history and completion hook. */
#include "config.h"

#include "repl/lineedit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/interrupt.h"

#if defined(HAVE_LIBEDIT)
#include <editline/readline.h>
#define LE_HAVE_EDITING 1
#elif defined(HAVE_READLINE)
#include <readline/history.h>
#include <readline/readline.h>
#define LE_HAVE_EDITING 1
#endif

static bool le_interactive;
static le_completer le_complete_fn;
static bool cancelled_empty;

#ifdef LE_HAVE_EDITING
/* readline asks for one candidate at a time; we compute the whole list once per word. */
static char **pending;
static size_t pending_next;

static char *generator(const char *word, int state)
{
    (void)word;
    if (!pending) return NULL;
    if (!pending[pending_next]) return NULL;
    return pending[pending_next++];   /* readline frees it */
}

static char **attempt(const char *word, int start, int end)
{
    (void)end;
    if (pending) {
        for (size_t i = pending_next; pending[i]; i++) free(pending[i]);
        free(pending);
    }
    pending = le_complete_fn ? le_complete_fn(rl_line_buffer, start, word) : NULL;
    pending_next = 0;
    rl_attempted_completion_over = 1;   /* no default filename completion: we decide */
    /* a single directory (dir/) or NAME= is not a finished word: no space after it */
    size_t n = 0;
    while (pending && pending[n]) n++;
    char last = n == 1 && pending[0][0] ? pending[0][strlen(pending[0]) - 1] : ' ';
    rl_completion_append_character = last == '/' || last == '=' ? '\0' : ' ';
    char **matches = rl_completion_matches(word, generator);
    free(pending);                      /* the strings were handed to readline */
    pending = NULL;
    return matches;
}
#endif

#if defined(HAVE_READLINE) && !defined(HAVE_LIBEDIT)
/* Ctrl-C at the prompt: readline's own handler echoes ^C, restores the terminal and passes the
 * signal on to ours (which sets the flag); readline then polls this hook while it waits for
 * input, which drops the line being edited and makes readline return it at once, empty. */
static int cancel_hook(void)
{
    if (interrupt_pending() && !rl_done) {
        cancelled_empty = rl_end == 0;
        rl_replace_line("", 1);
        rl_done = 1;
    }
    return 0;
}
#endif

void le_init(bool interactive, le_completer completer)
{
    le_interactive = interactive;
    le_complete_fn = completer;
#ifdef LE_HAVE_EDITING
    if (interactive) {
        rl_readline_name = "fxsh";
        rl_attempted_completion_function = attempt;
        rl_basic_word_break_characters = " \t\n\"'=(),";
#if defined(HAVE_READLINE) && !defined(HAVE_LIBEDIT)
        rl_catch_signals = 1;
        rl_event_hook = cancel_hook;
#endif
    }
#endif
}

bool le_cancelled_empty_line(void)
{
    return cancelled_empty;
}

static char *read_plain(FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    errno = 0;
    ssize_t n = getline(&line, &cap, in);
    if (n < 0) {
        /* a signal during the read (EINTR): what was typed is dropped, as at a shell prompt */
        if (errno == EINTR || interrupt_pending()) {
            cancelled_empty = true;
            clearerr(in);
        }
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    return line;
}

char *le_read(const char *prompt, FILE *in)
{
    cancelled_empty = false;
#ifdef LE_HAVE_EDITING
    if (le_interactive && in == stdin) {
        char *line = readline(prompt);
        if (line && interrupt_pending()) {   /* cancelled by cancel_hook: the empty line is not input */
            free(line);
            return NULL;
        }
        return line;
    }
#endif
    if (le_interactive && prompt) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    return read_plain(in);
}

void le_add_history(const char *line)
{
#ifdef LE_HAVE_EDITING
    if (le_interactive && line[0]) add_history(line);
#else
    (void)line;
#endif
}

void le_load_history(const char *path)
{
#ifdef LE_HAVE_EDITING
    if (le_interactive && path) {
        stifle_history(2000);
        read_history(path);
    }
#else
    (void)path;
#endif
}

void le_save_history(const char *path)
{
#ifdef LE_HAVE_EDITING
    if (le_interactive && path) write_history(path);
#else
    (void)path;
#endif
}

const char *le_backend(void)
{
#if defined(HAVE_LIBEDIT)
    return "libedit";
#elif defined(HAVE_READLINE)
    return "readline";
#else
    return "none";
#endif
}
