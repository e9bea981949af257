/* repl.c — placeholder; replaced by the real REPL. */
#include "repl/repl.h"
#include <stdio.h>
int repl_main(int argc, char **argv) { (void)argc; (void)argv; puts("fxsh"); return 0; }
