/*  interrupt.c: Ctrl-C and SIGTERM while the CLI waits (iofleet run
    --wait, watch, demo): a flag the waits poll, one home for it. */
#include "cli.h"

#include <signal.h>

volatile sig_atomic_t g_interrupted;

static void
on_signal (int sig)
{
    g_interrupted = sig;
}

void
cli_catch_interrupts (void)
{
    signal (SIGINT, on_signal);
    signal (SIGTERM, on_signal);
}
