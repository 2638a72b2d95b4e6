/* bcbench curve SUBCOMMAND: measure a charger's output (sweep) or derive
 * it from a capture (import), each writing a charger profile. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char bn_cli_curve_usage[] =
	"Usage: bcbench curve sweep [OPTIONS]\n"
	"       bcbench curve import [OPTIONS] CAPTURE.sr\n"
	"Characterize a charger and write its charger profile.\n"
	"  sweep    step the electronic load through the charger and read VBUS\n"
	"  import   derive the charger's curve from a capture with VBUS and IBUS\n"
	"'bcbench help curve-sweep' and 'bcbench help curve-import' give their options.\n";

int bn_cli_curve(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub || !strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(bn_cli_curve_usage, sub ? stdout : stderr);
		return sub ? 0 : 2;
	}
	if (!strcmp(sub, "sweep"))
		return bn_cli_curve_sweep(argc - 1, argv + 1);
	if (!strcmp(sub, "import"))
		return bn_cli_curve_import(argc - 1, argv + 1);
	fprintf(stderr, "bcbench curve: unknown subcommand \"%s\" (expected sweep or import)\n%s", sub,
		bn_cli_curve_usage);
	return 2;
}
