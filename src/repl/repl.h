/* repl.h — the read-eval-print loop: options, input sources, modes, exit status. */
#ifndef FXSH_REPL_H
#define FXSH_REPL_H

/* Exit statuses (also documented in the man page). */
enum {
    FXSH_EXIT_OK = 0,
    FXSH_EXIT_FAILED = 1,   /* a command failed (non-interactive input) */
    FXSH_EXIT_USAGE = 2,    /* bad command-line option */
    FXSH_EXIT_INTERRUPTED = 130,  /* Ctrl-C stopped a script, a pipe or -c / -f (128 + SIGINT) */
};

int repl_main(int argc, char **argv);

#endif
