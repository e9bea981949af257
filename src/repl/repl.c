/* repl.c — options, input sources (terminal, pipe, -f, -c), the loop, and exit status. */
#include "config.h"

#include "repl/repl.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "repl/cmd_handlers.h"
#include "repl/commands.h"
#include "repl/lineedit.h"
#include "repl/session.h"
#include "repl/tokenize.h"

#define PROMPT "fxsh> "
#define PROMPT_MORE "...> "

typedef struct options {
    VEC(const char *) commands;  /* -c */
    VEC(const char *) files;     /* FILE... to load first */
    const char *script;          /* -f */
    bool echo, bail, force_batch, force_interactive;
    int color;                   /* -1 auto, 0 never, 1 always */
} options;

/* The session currently running commands (for the completion callback). */
static session *active_session;
static options opts;
static int failures;

static char **completer(const char *line, int start, const char *word)
{
    return active_session ? command_complete(active_session, line, start, word) : NULL;
}

static void usage(FILE *out)
{
    fputs("usage: fxsh [options] [FILE...]\n"
          "\n"
          "Loads each FILE (FX graph text, readable code, GraphModule text, .pt2 / torch.export JSON,\n"
          ".onnx or ONNX text), then reads commands from the terminal, a pipe or a script.\n"
          "\n"
          "options:\n"
          "  -c CMD          run CMD (repeatable) and exit; no prompt\n"
          "  -f FILE         read commands from FILE\n"
          "  -echo           print each command before running it\n"
          "  -bail           stop at the first failing command\n"
          "  -batch          force non-interactive mode (no banner, prompt or history)\n"
          "  -interactive   force interactive mode\n"
          "  --color=WHEN    auto (default), always or never; NO_COLOR also turns colour off\n"
          "  --version       print the version and exit\n"
          "  --help          print this help and exit\n"
          "\n"
          "Type `help` inside fxsh for its commands; see fxsh(1).\n",
          out);
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
    } else {
        rc = command_dispatch(s, argc, argv);
    }
    tokens_free(argv);
    fflush(s->out);
    session_flush_diag(s);
    if (rc) failures++;
    return rc;
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
    return line;
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
    int errors = 0;
    char *line;
    while (!s->quit && (line = le_read(s->interactive && in == stdin ? PROMPT : NULL, in))) {
        s->input_line++;
        if (s->interactive && in == stdin) le_add_history(line);
        errors += run_line(s, line);
        free(line);
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
            if (a[1] == 'c') vec_push(&opts.commands, argv[++i]);
            else opts.script = argv[++i];
        } else if (strcmp(a, "-echo") == 0 || strcmp(a, "--echo") == 0) {
            opts.echo = true;
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

int repl_main(int argc, char **argv)
{
    int rc = parse_options(argc, argv);
    if (rc) {
        vec_free(&opts.commands);
        vec_free(&opts.files);
        return rc < 0 ? FXSH_EXIT_OK : rc;
    }
    session s;
    session_init(&s);
    active_session = &s;
    bool tty_in = isatty(STDIN_FILENO);
    s.interactive = opts.force_interactive ||
                    (!opts.force_batch && tty_in && !opts.commands.len && !opts.script);
    const char *no_color = getenv("NO_COLOR");
    s.color = opts.color == 1 || (opts.color == -1 && isatty(STDERR_FILENO) && !(no_color && no_color[0]));

    for (size_t i = 0; i < opts.files.len; i++) {
        char *args[] = {"load", (char *)opts.files.items[i], NULL};
        s.input_name = "<command line>";
        s.input_line = 0;
        s.read_more = NULL;
        if (command_dispatch(&s, 2, args)) failures++;
        fflush(s.out);
        session_flush_diag(&s);
    }

    if (!(failures && opts.bail)) {
        if (opts.commands.len) {
            stream_ctx sc = {&s, stdin};
            s.read_more = read_more_stream;
            s.read_ctx = &sc;
            for (size_t i = 0; i < opts.commands.len && !s.quit; i++) {
                s.input_name = "-c";
                s.input_line = (int)i + 1;
                if (run_line(&s, opts.commands.items[i]) && opts.bail) break;
            }
        } else if (opts.script) {
            FILE *f = fopen(opts.script, "r");
            if (!f) {
                fprintf(stderr, "fxsh: cannot open %s: %s\n", opts.script, strerror(errno));
                failures++;
            } else {
                repl_run_stream(&s, f, opts.script);
                fclose(f);
            }
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
            if (s.interactive) {
                if (!s.quit) putchar('\n');
                le_save_history(hist);
            }
            free(hist);
        }
    }
    fflush(stdout);
    bool interactive = s.interactive;
    session_free(&s);
    vec_free(&opts.commands);
    vec_free(&opts.files);
    return failures && !interactive ? FXSH_EXIT_FAILED : FXSH_EXIT_OK;
}
