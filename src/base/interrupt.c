/* interrupt.c — the cancel flag set by SIGINT/SIGTERM/SIGHUP (see interrupt.h). */
#include "base/interrupt.h"

#include <string.h>
#include <unistd.h>

volatile sig_atomic_t interrupt_count;
static volatile sig_atomic_t exit_signal;

/* A repeated Ctrl-C while a command ignores the flag (a loop that does not poll it) forces the
 * exit, as sqlite3 does on the third: the temporary file being written goes first. */
enum { FORCE_EXIT_AFTER = 3 };
enum { MAX_TEMPS = 4 };
static char temp_path[MAX_TEMPS][4096];
static volatile sig_atomic_t temp_set[MAX_TEMPS];

static void on_signal(int sig)
{
    if (sig != SIGINT) exit_signal = sig;
    if (interrupt_count < FORCE_EXIT_AFTER) interrupt_count++;
    if (sig == SIGINT && interrupt_count >= FORCE_EXIT_AFTER) {
        static const char msg[] = "\nfxsh: interrupted 3 times, exiting\n";
        for (int i = 0; i < MAX_TEMPS; i++)
            if (temp_set[i]) unlink(temp_path[i]);
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(130);
    }
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;   /* no SA_RESTART: a blocked read returns EINTR */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        /* a signal ignored on entry stays ignored (nohup, a background job of a script), as
         * shells and Python leave it */
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

void interrupt_clear(void)
{
    interrupt_count = 0;
}

int interrupt_exit_signal(void)
{
    return exit_signal;
}

void interrupt_request(void)
{
    if (interrupt_count < FORCE_EXIT_AFTER - 1) interrupt_count++;
}

void interrupt_add_temp(const char *path)
{
    size_t n = strlen(path);
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temp_set[i] && n < sizeof temp_path[i]) {
            memcpy(temp_path[i], path, n + 1);
            temp_set[i] = 1;
            return;
        }
}

void interrupt_remove_temp(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_set[i] && !strcmp(temp_path[i], path)) {
            temp_set[i] = 0;
            return;
        }
}
