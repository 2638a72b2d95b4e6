/* bcbench: the command line's entry point. It only dispatches: each
 * command lives in bench/cli/. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/exit.h"
#include "core/text.h"
#include "report/report.h"

static const char usage_main[] =
	"Usage: bcbench COMMAND [OPTIONS]\n"
	"Test a device's USB charging against USB Battery Charging 1.2.\n"
	"\n"
	"Commands:\n"
	"  run SCENARIO     run one scenario, write OUT/<scenario>/report.json,\n"
	"                   capture.sr and events.json\n"
	"  replay FILE.sr   re-judge a capture (this tool's or any sigrok device's)\n"
	"  devices          list the FTDI devices, serial ports, sigrok drivers and USB\n"
	"                   devices this machine can reach\n"
	"  selftest         switch the configured fixture through every port type and\n"
	"                   check it against its fixture file\n"
	"  suite FILE       run a suite's matrix of scenarios, ports, chargers and\n"
	"                   firmware builds, in parallel, each entry isolated; write\n"
	"                   suite.json and JUnit XML\n"
	"  diff BASE NEW    compare two reports or suite reports: new failures, fixes,\n"
	"                   new inconclusives, shrunk margins\n"
	"  merge SHARD...   join the suite.json files of --shard runs into one\n"
	"  salvage DIR      finish the record of a run (or a suite's runs) whose\n"
	"                   processes were killed: capture.sr, events.json, report\n"
	"  report FORMAT FILE...\n"
	"                   render a record again: html, junit, text or markdown\n"
	"  curve sweep|import\n"
	"                   measure a charger's V-I curve with the load, or derive it\n"
	"                   from a capture; write a charger profile\n"
	"  help [COMMAND]   show help\n"
	"  version          show the version\n"
	"\n"
	"Every command takes -h/--help (its help) and --version (as bcbench version).\n"
	"\n"
	"Exit codes (every command; report.json status.cause, suite.json exit_cause\n"
	"and JUnit error/failure types name the cause):\n"
	"  0    ok                everything as expected: passed, or failed only where a\n"
	"                         suite expected it (xfail, xerror)\n"
	"  1    rule-failed       a rule failed; a suite entry failed unexpectedly or\n"
	"                         xpassed; diff found a regression\n"
	"  2    bad-input         usage, scenario, suite, profile, limits, config,\n"
	"                         fixture, capture or report file\n"
	"  3    device-broke-run  the device under test broke the run: its firmware\n"
	"                         crashed, hung in a call, livelocked or exited early\n"
	"  4    not-demonstrated  with --require-verdicts: nothing failed, compliance\n"
	"                         not demonstrated\n"
	"  5    bench-fault       an instrument, fixture or console lost, stalled or\n"
	"                         unreachable; the bench in use past --wait. The only\n"
	"                         code a CI should retry.\n"
	"  6    environment       a retry would repeat it: disk full, file size limit,\n"
	"                         read-only or unwritable output, permission denied, a\n"
	"                         library that cannot be loaded\n"
	"  7    nothing-to-run    an empty suite, a --filter or --shard that selects\n"
	"                         nothing\n"
	"  128+N interrupted      signal N: 129 SIGHUP, 130 SIGINT, 143 SIGTERM\n"
	"A suite or merge exits with the most urgent outcome not expected:\n"
	"interrupted > 2 > 6 > 3 > 1 > 5 > 4 > 7 > 0.\n"
	"\n"
	"Run 'bcbench help COMMAND' or 'man bcbench' for more.\n";

static const char usage_version[] =
	"Usage: bcbench version (or --version)\n"
	"Print the version and the source's git commit it was built from.\n";


/* What a command printed must have reached its stdout: a full disk
 * under `bcbench diff A B > FILE` is an environment fault (6), not a
 * verdict. A reader that went away (EPIPE) is not: a closed output pipe
 * does not stop a run. */
static int stdout_flushed(int rc)
{
	char why[160];
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	e = errno;
	if (e == EPIPE)
		return rc;
	fprintf(stderr, "bcbench: cannot write the output: %s\n",
		e ? bn_errno_text(e, why, sizeof(why)) : "write error");
	return bn_exit_most_urgent(rc, BN_EXIT_ENVIRONMENT);
}

/* Every command's usage, for help COMMAND and COMMAND --help. */
static const struct help {
	const char *name, *usage;
} helps[] = {
	{ "run", bn_cli_run_usage },
	{ "replay", bn_cli_replay_usage },
	{ "devices", bn_cli_devices_usage },
	{ "selftest", bn_cli_selftest_usage },
	{ "suite", bn_cli_suite_usage },
	{ "diff", bn_cli_diff_usage },
	{ "merge", bn_cli_merge_usage },
	{ "salvage", bn_cli_salvage_usage },
	{ "report", bn_cli_report_usage },
	{ "curve", bn_cli_curve_usage },
	{ "curve-sweep", bn_cli_curve_sweep_usage },
	{ "curve-import", bn_cli_curve_import_usage },
	{ "help", usage_main },
	{ "version", usage_version },
};

static const struct help *help_of(const char *name)
{
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		if (!strcmp(name, helps[i].name))
			return &helps[i];
	return NULL;
}

static int print_version(void)
{
	printf("bcbench %s (%s)\n", BN_VERSION, bn_tool_commit());
	return 0;
}

/* --version and -h/--help mean the same after every command (up to a
 * "--"): a newcomer tries them first, and a CI log records the version
 * from any command line. Returns the exit code, or -1 to run the
 * command. */
static int help_or_version(int argc, char **argv)
{
	const char *cmd = argv[1];
	const struct help *h = help_of(cmd);

	if (!h || !strcmp(cmd, "help"))
		return -1;
	if (!strcmp(cmd, "version"))
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
				fputs(usage_version, stdout);
				return 0;
			}
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--version"))
			return print_version();
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			/* curve's subcommands have their own page */
			if (!strcmp(cmd, "curve") && i > 2 && !strcmp(argv[2], "sweep"))
				h = help_of("curve-sweep");
			else if (!strcmp(cmd, "curve") && i > 2 && !strcmp(argv[2], "import"))
				h = help_of("curve-import");
			fputs(h->usage, stdout);
			return 0;
		}
	}
	return -1;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
	int rc;

	/* Past the file size limit (ulimit -f), write() fails with EFBIG and
	 * the run says so (exit 6), instead of the kernel killing bcbench
	 * with SIGXFSZ mid-write. Inherited by every process it forks. */
	signal(SIGXFSZ, SIG_IGN);
	rc = dispatch(argc, argv);
	return stdout_flushed(rc);
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	int rc;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {

		if (cmd && !strcmp(cmd, "help") && argc > 2) {
			const struct help *h = help_of(argv[2]);

			if (h) {
				fputs(h->usage, stdout);
				return 0;
			}
			fprintf(stderr, "bcbench help: unknown command \"%s\"\n%s", argv[2], usage_main);
			return 2;
		}
		fputs(usage_main, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "--version"))
		return print_version();
	rc = help_or_version(argc, argv);
	if (rc >= 0)
		return rc;
	if (!strcmp(cmd, "version")) {
		if (argc > 2) {
			fprintf(stderr, "bcbench version: unexpected argument \"%s\"\n%s", argv[2], usage_version);
			return 2;
		}
		return print_version();
	}
	if (!strcmp(cmd, "run"))
		return bn_cli_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return bn_cli_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "devices"))
		return bn_cli_devices(argc - 1, argv + 1);
	if (!strcmp(cmd, "selftest"))
		return bn_cli_selftest(argc - 1, argv + 1);
	if (!strcmp(cmd, "suite"))
		return bn_cli_suite(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return bn_cli_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return bn_cli_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "salvage"))
		return bn_cli_salvage(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return bn_cli_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "curve"))
		return bn_cli_curve(argc - 1, argv + 1);
	fprintf(stderr, "bcbench: unknown command \"%s\"\n%s", cmd, usage_main);
	return 2;
}

