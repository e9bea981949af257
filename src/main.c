/* main.c — fxsh entry point: options, modes, exit codes. */
#include "config.h"

#include "repl/repl.h"

int main(int argc, char **argv)
{
    return repl_main(argc, argv);
}
