/* repl.h — the read-eval-print loop: input sources, modes, dispatch. */
#ifndef FXSH_REPL_H
#define FXSH_REPL_H

int repl_main(int argc, char **argv);

#endif
