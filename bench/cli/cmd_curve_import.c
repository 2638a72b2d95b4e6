/* bcbench curve import: scaffolding, replaced by the real command. */
#include <stdio.h>

#include "cli/cli.h"

const char bn_cli_curve_import_usage[] = "Usage: bcbench curve import (not built yet)\n";

int bn_cli_curve_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("bcbench curve import: not built yet\n", stderr);
	return 2;
}
