/* repl.c — options, input sources (terminal, pipe, -f, -c), the loop, and exit status. */
#include "config.h"

#include "repl/repl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "repl/cmd_handlers.h"
#include "repl/commands.h"
#include "repl/lineedit.h"
#include "repl/session.h"
#include "repl/tokenize.h"

#define PROMPT "fxsh> "
#define PROMPT_MORE "...> "

/* One -c CMD or -f FILE, run in the order given (as sqlite3 and psql run theirs). */
typedef struct action {
    bool script;                 /* -f FILE; else -c CMD */
    const char *text;
} action;

typedef struct options {
    VEC(action) actions;         /* -c and -f, in order */
    VEC(const char *) files;     /* FILE... to load first */
    bool echo, bail, force_batch, force_interactive, quiet;
    int color;                   /* -1 auto, 0 never, 1 always */
} options;

/* The session currently running commands (for the completion callback). */
static session *active_session;
static options opts;
static int failures;
static bool output_failed;       /* stdout or stderr could not be written at some point */
static bool interrupt_reported;  /* "interrupted" said once for the command being unwound */
static bool read_cancelled;      /* Ctrl-C came while a command read more input (load -) */

static char **completer(const char *line, int start, const char *word)
{
    return active_session ? command_complete(active_session, line, start, word) : NULL;
}

static void usage(FILE *out)
{
    fputs("usage: fxsh [options] [FILE...]\n"
          "\n"
          "Loads each FILE (FX graph text, readable code, GraphModule text, a printed ExportedProgram,\n"
          ".pt2 / torch.export JSON, TorchScript IR, .onnx or ONNX text), then reads commands from the\n"
          "terminal, a pipe or a script.\n"
          "\n"
          "options:\n"
          "  -c CMD          run CMD and exit; no prompt (repeatable; -c and -f run in order)\n"
          "  -f FILE         run the commands in FILE and exit (repeatable)\n"
          "  -echo           print each command before running it\n"
          "  -bail           stop at the first failing command\n"
          "  -q, --quiet     only results, warnings and errors: no progress lines, notes or confirmations\n"
          "  -batch          force non-interactive mode (no banner, prompt or history)\n"
          "  -interactive    force interactive mode\n"
          "  --color=WHEN    auto (default), always or never; NO_COLOR also turns colour off\n"
          "  --version       print the version and exit\n"
          "  --help          print this help and exit\n"
          "\n"
          "Type `help` inside fxsh for its commands; see fxsh(1).\n",
          out);
}

/* After a command: an interrupt replaces what the command reported with "interrupted" (its
 * partial results were discarded) — unless the command had already committed its file, which
 * is then its one outcome ("saved", not "saved" and "interrupted"); output that could not be
 * written is an error. Returns rc, or 1 when either happened. */
static int finish_command(session *s, int rc)
{
    if (interrupt_pending() && !s->committed) {
        if (!interrupt_reported) {
            diag_clear(&s->diag);
            clearerr(s->out);   /* a write cut short by the signal */
            /* the terminal echoed ^C where the output was (readline ends its own line) */
            if (s->interactive && !read_cancelled) fputc('\n', s->out);
            session_error(s, "interrupted");
            interrupt_reported = true;
        }
        rc = 1;
    }
    /* a write that failed at one of stdio's own flushes during the command left its errno (no
     * library call sets errno back to 0); a later unrelated failure may have replaced it, so only
     * an errno that a write gives is taken as the reason */
    int earlier = errno;
    bool write_errno = earlier == ENOSPC || earlier == EPIPE || earlier == EIO || earlier == EFBIG || earlier == EDQUOT;
    errno = 0;
    int bad = fflush(s->out);
    int err = bad && errno ? errno : write_errno ? earlier : 0;
    if (bad || ferror(s->out)) {
        session_error(s, "cannot write the output: %s", err ? strerror(err) : "write error");
        clearerr(s->out);
        output_failed = true;
        rc = 1;
    }
    session_flush_diag(s);
    if (ferror(s->err)) {
        clearerr(s->err);
        output_failed = true;
        rc = 1;
    }
    /* At the prompt the shell goes on; a script or pipe stops (and exits 130). A sourced
     * script run from the prompt stops too: the flag stays set until the prompt clears it. */
    if (interrupt_pending() && s->interactive && !interrupt_exit_signal()) {
        interrupt_clear();
        interrupt_reported = false;
    }
    read_cancelled = false;
    if (rc) failures++;
    return rc;
}

/* Commands whose output can run long: at an interactive terminal it goes through $PAGER when it
 * does not fit the screen (as git and psql do); piped or redirected output never does. */
static bool pages(const session *s, const char *name)
{
    static const char *const paged[] = {"show", "nodes", "node", "find", "stats", "summary", "diff", "help",
                                        "ops", "signature", "params", "history", NULL};
    const char *pager = getenv("PAGER");
    if (!s->interactive || !s->terminal || (pager && (!pager[0] || !strcmp(pager, "cat")))) return false;
    int ambiguous;
    const command *c = command_find(name, &ambiguous);
    for (int i = 0; c && paged[i]; i++)
        if (!strcmp(c->name, paged[i])) return true;
    return false;
}

/* Runs a command into a temporary file, then shows it: on the screen when it fits, else through
 * $PAGER (default `less -FRX`), with Ctrl-C left to the pager. */
static int run_paged(session *s, int argc, char **argv)
{
    FILE *buf = tmpfile();
    if (!buf) return command_dispatch(s, argc, argv);
    FILE *out = s->out;
    s->out = buf;
    int rc = command_dispatch(s, argc, argv);
    s->out = out;
    fflush(buf);
    long size = ftell(buf);
    rewind(buf);
    struct winsize ws;
    int rows = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row ? ws.ws_row : 24;
    int lines = 0, ch;
    while (lines < rows && (ch = getc(buf)) != EOF) lines += ch == '\n';
    rewind(buf);
    FILE *dest = out;
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int;
    if (lines >= rows && size > 0) {
        const char *pager = getenv("PAGER");
        fflush(out);
        sigaction(SIGINT, &ign, &old_int);   /* Ctrl-C belongs to the pager */
        dest = popen(pager && pager[0] ? pager : "less -FRX", "w");
        if (!dest) {
            sigaction(SIGINT, &old_int, NULL);
            dest = out;
        }
    }
    char chunk[65536];
    size_t n;
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);   /* the pager quit early: not an error */
    while ((n = fread(chunk, 1, sizeof chunk, buf)) > 0)
        if (fwrite(chunk, 1, n, dest) != n) break;
    signal(SIGPIPE, old_pipe);
    if (dest != out) {
        pclose(dest);
        sigaction(SIGINT, &old_int, NULL);
    }
    fclose(buf);
    return rc;
}

/* Runs one line: echo, tokenize, dispatch, render diagnostics, count failure. Returns 1 if the
 * command failed. */
static int run_line(session *s, const char *line)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') return 0;
    if (opts.echo) {
        fprintf(s->out, "%s\n", line);
        fflush(s->out);
    }
    int argc;
    const char *err;
    char **argv = tokenize(line, &argc, &err);
    int rc;
    if (!argv) {
        session_error(s, "%s", err);
        rc = 1;
    } else if (argc == 0) {
        rc = 0;
    } else if (pages(s, argv[0])) {
        rc = run_paged(s, argc, argv);
    } else {
        rc = command_dispatch(s, argc, argv);
    }
    tokens_free(argv);
    return finish_command(s, rc);
}

typedef struct stream_ctx {
    session *s;
    FILE *in;
} stream_ctx;

static char *read_more_stream(void *ctx, const char *prompt)
{
    stream_ctx *sc = ctx;
    char *line = le_read(sc->s->interactive && sc->in == stdin ? prompt : NULL, sc->in);
    if (line) sc->s->input_line++;
    else if (interrupt_pending()) read_cancelled = true;
    return line;
}

/* Ctrl-C at the prompt: the line (or the `load -` block) is gone; twice within a second on an
 * empty line leaves the shell, as node and sqlite3 allow. */
static void prompt_interrupt(session *s)
{
    static struct timespec last;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    bool empty = le_cancelled_empty_line();
    double since = (double)(now.tv_sec - last.tv_sec) + (now.tv_nsec - last.tv_nsec) / 1e9;
    /* two presses may arrive before the first is handled: both count */
    if (empty && ((last.tv_sec && since < 1.0) || interrupt_count > 1)) {
        s->quit = true;
    } else if (empty) {
        fputs("(Ctrl-C again to quit)\n", s->out);
    }
    last = empty ? now : (struct timespec){0};
    if (!s->quit && le_backend()[0] == 'n') fputc('\n', s->out);   /* no readline: the terminal echoed ^C */
    fflush(s->out);
    interrupt_clear();
    interrupt_reported = false;
}

int repl_run_stream(session *s, FILE *in, const char *name)
{
    const char *saved_name = s->input_name;
    int saved_line = s->input_line;
    session_read_fn saved_read = s->read_more;
    void *saved_ctx = s->read_ctx;
    stream_ctx sc = {s, in};
    s->input_name = name;
    s->input_line = 0;
    s->read_more = read_more_stream;
    s->read_ctx = &sc;
    bool prompt = s->interactive && in == stdin;
    int errors = 0;
    while (!s->quit) {
        char *line = le_read(prompt ? PROMPT : NULL, in);
        if (!line) {
            if (prompt && interrupt_pending() && !interrupt_exit_signal()) {
                prompt_interrupt(s);
                continue;
            }
            break;   /* end of input; or a script or pipe interrupted while reading */
        }
        s->input_line++;
        if (prompt) le_add_history(line);
        errors += run_line(s, line);
        free(line);
        if (interrupt_pending()) break;   /* a script stops at Ctrl-C */
        if (errors && opts.bail && !s->interactive) break;
    }
    s->input_name = saved_name;
    s->input_line = saved_line;
    s->read_more = saved_read;
    s->read_ctx = saved_ctx;
    return errors ? 1 : 0;
}

static char *history_path(void)
{
    const char *env = getenv("FXSH_HISTFILE");
    if (env) return env[0] && strcmp(env, "/dev/null") != 0 ? xstrdup(env) : NULL;
    const char *home = getenv("HOME");
    if (!home || !home[0]) return NULL;
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s/.fxsh_history", home);
    return sb_detach(&sb);
}

static int parse_options(int argc, char **argv)
{
    opts.color = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-c") == 0 || strcmp(a, "-f") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "fxsh: option %s needs an argument\n", a);
                return FXSH_EXIT_USAGE;
            }
            action act = {a[1] == 'f', argv[++i]};
            vec_push(&opts.actions, act);
        } else if (strcmp(a, "-echo") == 0 || strcmp(a, "--echo") == 0) {
            opts.echo = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            opts.quiet = true;
        } else if (strcmp(a, "-bail") == 0 || strcmp(a, "--bail") == 0) {
            opts.bail = true;
        } else if (strcmp(a, "-batch") == 0 || strcmp(a, "--batch") == 0) {
            opts.force_batch = true;
        } else if (strcmp(a, "-interactive") == 0 || strcmp(a, "--interactive") == 0) {
            opts.force_interactive = true;
        } else if (strncmp(a, "--color=", 8) == 0) {
            const char *w = a + 8;
            if (strcmp(w, "always") == 0) opts.color = 1;
            else if (strcmp(w, "never") == 0) opts.color = 0;
            else if (strcmp(w, "auto") == 0) opts.color = -1;
            else {
                fprintf(stderr, "fxsh: --color takes auto, always or never, not '%s'\n", w);
                return FXSH_EXIT_USAGE;
            }
        } else if (strcmp(a, "--version") == 0 || strcmp(a, "-version") == 0) {
            printf("fxsh %s (line editing: %s)\n", PACKAGE_VERSION, le_backend());
            return -1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(a, "--man-commands") == 0) {
            /* Used by the build to generate the COMMANDS section of fxsh.1 from the table. */
            command_print_man(stdout);
            return -1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "fxsh: unknown option '%s'\n", a);
            usage(stderr);
            return FXSH_EXIT_USAGE;
        } else {
            vec_push(&opts.files, a);
        }
    }
    return 0;
}

/* -c and -f in the order given; stops at quit, at an interrupt, and with -bail at a failure. */
static void run_actions(session *s)
{
    stream_ctx sc = {s, stdin};
    int n_commands = 0;
    for (size_t i = 0; i < opts.actions.len && !s->quit && !interrupt_pending(); i++) {
        const action *a = &opts.actions.items[i];
        int before = failures;
        if (a->script) {
            FILE *f = fopen(a->text, "r");
            if (!f) {
                fprintf(stderr, "fxsh: cannot open %s: %s\n", a->text, strerror(errno));
                failures++;
            } else {
                repl_run_stream(s, f, a->text);
                fclose(f);
            }
        } else {
            s->read_more = read_more_stream;   /* `load -` reads standard input */
            s->read_ctx = &sc;
            s->input_name = "-c";
            s->input_line = ++n_commands;
            run_line(s, a->text);
        }
        if (failures > before && opts.bail) break;
    }
}

int repl_main(int argc, char **argv)
{
    int rc = parse_options(argc, argv);
    if (rc) {
        vec_free(&opts.actions);
        vec_free(&opts.files);
        if (rc < 0 && (fflush(stdout) != 0 || ferror(stdout))) {   /* --help > /dev/full */
            fprintf(stderr, "fxsh: cannot write the output: %s\n", strerror(errno));
            return FXSH_EXIT_FAILED;
        }
        return rc < 0 ? FXSH_EXIT_OK : rc;
    }
    interrupt_install();
    session s;
    session_init(&s);
    active_session = &s;
    s.quiet = opts.quiet;
    s.terminal = isatty(STDOUT_FILENO);
    bool tty_in = isatty(STDIN_FILENO);
    s.interactive = opts.force_interactive || (!opts.force_batch && tty_in && !opts.actions.len);
    const char *no_color = getenv("NO_COLOR");
    s.color = opts.color == 1 || (opts.color == -1 && isatty(STDERR_FILENO) && !(no_color && no_color[0]));

    for (size_t i = 0; i < opts.files.len && !interrupt_pending(); i++) {
        char *args[] = {"load", (char *)opts.files.items[i], NULL};
        s.input_name = NULL;   /* no "<command line>:0:": the diagnostics name the file */
        s.input_line = 0;
        s.read_more = NULL;
        finish_command(&s, command_dispatch(&s, 2, args));
    }

    if (!(failures && opts.bail) && !(interrupt_pending() && !s.interactive)) {
        if (opts.actions.len) {
            run_actions(&s);
        } else {
            char *hist = NULL;
            le_init(s.interactive, completer);
            if (s.interactive) {
                printf("fxsh %s — PyTorch FX / torch.export / ONNX shell. Type `help` for commands.\n",
                       PACKAGE_VERSION);
                hist = history_path();
                le_load_history(hist);
            }
            repl_run_stream(&s, stdin, "<stdin>");
            if (s.interactive) {   /* every way out of the prompt: quit, EOF, Ctrl-C twice, SIGTERM, SIGHUP */
                if (!s.quit) putchar('\n');
                le_save_history(hist);
            }
            free(hist);
        }
    }
    bool interactive = s.interactive;
    bool interrupted = interrupt_pending();
    session_free(&s);
    vec_free(&opts.actions);
    vec_free(&opts.files);
    /* Output that could not be written fails the run, whatever the mode (as close_stdout does). */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout) || output_failed) {
        if (!output_failed) fprintf(stderr, "fxsh: cannot write the output: %s\n", errno ? strerror(errno) : "write error");
        output_failed = true;
    }
    int sig = interrupt_exit_signal();
    if (sig) {   /* SIGTERM / SIGHUP: the history is saved; now die of the signal, as expected */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (interrupted && !interactive) return FXSH_EXIT_INTERRUPTED;
    return output_failed || (failures && !interactive) ? FXSH_EXIT_FAILED : FXSH_EXIT_OK;
}
