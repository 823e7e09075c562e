/* handover_signal.c - tests/handover.py's driver for what a static
 * process holds when a signal ends it (checker/handover.c), linked as
 * bpf-invcheck is (meson option static):
 *
 *   handover_signal SIGNAL   holds a line on stderr, then sends itself
 *                            SIGNAL (a number): the line must be shown
 *                            before the process dies of it
 *   handover_signal 0        holds a line and exits 0: shown at exit
 *
 * The checker itself reaches this point at an unpredictable time (a test
 * racing its own signal against the checker's exit was flaky), so the
 * mechanism is driven here, in order. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "handover.h"

int main(int argc, char **argv)
{
	int sig;

	if (argc != 2)
		return 2;
	sig = atoi(argv[1]);
	handover_init(argv, 0);
	fprintf(stderr, "held: %s\n", argv[1]);
	if (sig)
		kill(getpid(), sig);
	return 0;
}
