/* interrupt.h — Ctrl-C as a request to cancel the running command: a signal handler sets a flag,
 * long loops poll it with interrupt_pending() and fail, and the REPL reports "interrupted".
 *
 * interrupt_install sets handlers for SIGINT (cancel), SIGTERM and SIGHUP (cancel, then leave
 * the shell through its normal exit path so that the history is saved); a signal ignored when
 * fxsh starts (nohup, a script's background job) stays ignored. The handlers do not
 * restart interrupted system calls: a blocking read returns EINTR, which readers treat as the
 * end of their input when interrupt_pending() is true. Library code never installs handlers;
 * without them the flag is never set and every check is a load of one variable. */
#ifndef FXSH_INTERRUPT_H
#define FXSH_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

/* Number of SIGINT/SIGTERM/SIGHUP received since the last interrupt_clear(). */
extern volatile sig_atomic_t interrupt_count;

/* True once a cancel was requested (and until interrupt_clear). Cheap: call it per node. */
static inline bool interrupt_pending(void) { return interrupt_count != 0; }

void interrupt_install(void);
/* The command was cancelled and reported: the next one starts clean. */
void interrupt_clear(void);
/* SIGTERM or SIGHUP when one asked the shell to exit (kept across interrupt_clear), else 0. */
int interrupt_exit_signal(void);
/* Requests a cancel as if Ctrl-C had been pressed (tests, and the REPL itself). */
void interrupt_request(void);

/* Temporary files being written, removed by the handler if a repeated Ctrl-C forces an
 * immediate exit (the path is copied; a few at a time). */
void interrupt_add_temp(const char *path);
void interrupt_remove_temp(const char *path);

#endif
