/* bcbench curve sweep: scaffolding, replaced by the real command. */
#include <stdio.h>

#include "cli/cli.h"

const char bn_cli_curve_sweep_usage[] = "Usage: bcbench curve sweep (not built yet)\n";

int bn_cli_curve_sweep(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("bcbench curve sweep: not built yet\n", stderr);
	return 2;
}
