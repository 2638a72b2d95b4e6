/* bcbench: the command line. Only this file and the report writers print
 * to stdout. */
#define BN_LOG_MODULE "bcbench"
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/log.h"
#include "capture/events.h"
#include "capture/replay.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "hil/bench_hw.h"
#include "hil/console.h"
#include "hil/lock.h"
#include "report/report.h"
#include "scenario/runner.h"

#ifndef BN_DATADIR
#define BN_DATADIR "/usr/local/share/bcbench"
#endif

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
	"  help [COMMAND]   show help\n"
	"  version          show the version\n"
	"\n"
	"Exit codes (every command):\n"
	"  0  everything passed (inconclusive results alone do not fail a run)\n"
	"  1  a rule or expectation failed\n"
	"  2  bad input or usage: scenario, profile, limits, config, capture files\n"
	"  3  bench fault or abort: firmware livelock, interrupted; the report says which\n"
	"\n"
	"Run 'bcbench help COMMAND' or 'man bcbench' for more.\n";

static const char usage_run[] =
	"Usage: bcbench run SCENARIO [--conf FILE] [--out DIR] [--datadir DIR]\n"
	"                   [--limits FILE] [--firmware NAME|FILE.so] [--wait SECONDS]\n"
	"                   [-v] [-q]\n"
	"Run SCENARIO (.scn) on the configured bench (the simulated bench by default),\n"
	"print each result as it is judged, and write DIR/report.json atomically\n"
	"(schema bcbench-report/1). On SIGINT or SIGTERM the bench goes to its safe\n"
	"state (VBUS off, load off, data lines open) and a partial report says why.\n"
	"\n"
	"  -c, --conf FILE     bench configuration (default ./bench.conf if present)\n"
	"  -o, --out DIR       report directory (default <out>/<scenario file stem>, <out>\n"
	"                      from bench.conf, else reports)\n"
	"  -d, --datadir DIR   where profiles/ live (default: $BCBENCH_DATADIR, else the\n"
	"                      conf's datadir key, else the conf's directory, else ./ if\n"
	"                      ./profiles exists, else " BN_DATADIR ")\n"
	"  -l, --limits FILE   judge against this limits file (e.g. a lab's stricter copy);\n"
	"                      wins over the scenario's and bench.conf's\n"
	"  -f, --firmware FW   run this firmware (\"reference\" or a .so) instead of the\n"
	"                      scenario's or the device declaration's\n"
	"  -w, --wait SECONDS  when the bench is in use (its lock is held), queue for it\n"
	"                      this long instead of exiting 3 at once\n"
	"  -v, --verbose       more log output (repeat for debug: every bench event)\n"
	"  -q, --quiet         print only the summary\n"
	"  -h, --help          this help\n"
	"\n"
	"Exit codes: 0 passed, 1 failed, 2 bad input, 3 bench fault or abort.\n";

static const char usage_replay[] =
	"Usage: bcbench replay FILE.sr [--events FILE] [--events-from ORIGINS]\n"
	"                      [--port PORT] [--dut DECL] [--map MAP] [--limits FILE]\n"
	"                      [--out DIR] [--conf FILE] [--datadir DIR] [-v] [-q]\n"
	"Re-judge a capture with the checks a live run uses, and write DIR/report.json\n"
	"whose source is the file (with its SHA-256). Channels are found by name (VBUS,\n"
	"IBUS, DP, DM, ID) unless --map says otherwise. Replay needs VBUS, and IBUS or\n"
	"DP; any other missing channel makes the rules that need it inconclusive.\n"
	"\n"
	"  -e, --events FILE       the capture's sidecar (events.json from bcbench run):\n"
	"                          events with times, the port, the device's declaration.\n"
	"                          Without it, attach and removal are inferred from VBUS\n"
	"                          crossing VOTG_SESS_VLD min, connect and disconnect from\n"
	"                          D+ crossing VLGC; what cannot be inferred is inconclusive\n"
	"      --events-from LIST  use only events of these origins: fixture (VBUS, data\n"
	"                          contact, e-load, marks), host (connect, configuration,\n"
	"                          suspend), dut (the device's console); e.g. fixture,host\n"
	"                          for what a real bench knows without the device's help\n"
	"  -p, --port PORT         the port the capture was taken on (profile name or file);\n"
	"                          wins over the sidecar's\n"
	"  -u, --dut DECL          the device's declaration (name or file); wins over the\n"
	"                          sidecar's\n"
	"  -m, --map MAP           channel map, e.g. VBUS=A0,IBUS=A1:scale=10:unit=A,DP=A2\n"
	"                          (IBUS from a shunt voltage: scale = 1/R_shunt)\n"
	"  -l, --limits FILE       judge against this limits file\n"
	"  -o, --out DIR           report directory (default <out>/replay-<name>)\n"
	"  -c, --conf FILE, -d, --datadir DIR, -v, -q, -h: as for run\n"
	"\n"
	"Exit codes: 0 passed, 1 failed, 2 bad input (a capture that is broken or lacks\n"
	"the minimum channels), 3 interrupted.\n";

static void print_summary(const struct bn_report *rep, const char *report_path)
{
	int totals[BN_VERDICT_COUNT];
	static const char *const status_names[] = { "completed", "aborted", "error" };

	bn_report_totals(rep, totals);
	printf("%s: %s — %d passed, %d failed, %d inconclusive, %d skipped, %d errors "
	       "(%.1f s %s in %.3f s)\n",
	       rep->scenario_name[0] ? rep->scenario_name : "scenario", status_names[rep->status],
	       totals[BN_VERDICT_PASS], totals[BN_VERDICT_FAIL], totals[BN_VERDICT_INCONCLUSIVE],
	       totals[BN_VERDICT_SKIPPED], totals[BN_VERDICT_ERROR], rep->sim_s,
	       strcmp(rep->backend, "replay") ? "simulated" : "of capture replayed", rep->wall_s);
	if (rep->reason[0])
		printf("  reason: %s\n", rep->reason);
	if (report_path)
		printf("  report: %s\n", report_path);
}

static void scenario_stem(const char *path, char *out, size_t len)
{
	char buf[1024];
	char *base, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	base = basename(buf);
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	snprintf(out, len, "%s", base);
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "limits", required_argument, NULL, 'l' },
		{ "firmware", required_argument, NULL, 'f' },
		{ "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL, *out_dir = NULL, *datadir = NULL, *limits = NULL,
		   *firmware = NULL;
	char datadir_buf[1200], out_buf[1200], report_path[1400], stem[256];
	struct bn_conf conf;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_run_opts ro;
	struct bn_sigrok_cap_opts dev = { 0 };
	struct bn_bench_hw hw;
	struct bn_console *console = NULL;
	struct bn_lock lock = { .fd = -1 };
	double wait_s = 0;
	int verbose = 0, quiet = 0, c, rc, exit_code;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:o:d:l:f:w:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (bn_cli_parse_wait("run", optarg, &wait_s))
				return 2;
			break;
		case 'c': conf_path = optarg; break;
		case 'o': out_dir = optarg; break;
		case 'd': datadir = optarg; break;
		case 'l': limits = optarg; break;
		case 'f': firmware = optarg; break;
		case 'v': verbose++; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_run, stdout); return 0;
		default: fputs(usage_run, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench run: expected one SCENARIO file\n%s", usage_run);
		return 2;
	}
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN + verbose);

	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	datadir = bn_cli_datadir(datadir, &conf, conf_path, datadir_buf, sizeof(datadir_buf));
	scenario_stem(argv[optind], stem, sizeof(stem));
	if (!out_dir) {
		snprintf(out_buf, sizeof(out_buf), "%s/%s", conf.out, stem);
		out_dir = out_buf;
	}

	bn_cli_catch_signals();

	ro = (struct bn_run_opts){
		.scenario_path = argv[optind],
		.datadir = datadir,
		.limits_path = conf.limits[0] ? conf.limits : NULL,
		.limits_override = limits,
		.firmware_override = firmware,
		.conf_path = conf_path,
		.out_dir = out_dir,
		.progress = quiet ? NULL : stdout,
		.stop_flag = bn_cli_stop_flag(),
	};
	if (conf.capture_driver[0]) {
		if (bn_cli_capture_opts(&conf, &dev, &err) < 0) {
			fprintf(stderr, "bcbench: %s\n", err.msg);
			return 2;
		}
		ro.capture_dev = &dev;
	}
	/* One run drives one bench: the lock comes before any instrument is
	 * touched and goes after the safe state and the report. */
	{
		char who[400];

		snprintf(who, sizeof(who), "bcbench run %.300s", argv[optind]);
		rc = bn_cli_lock(&conf, who, wait_s, quiet, &lock);
		if (rc)
			return rc;
	}
	rc = bn_bench_hw_open(&hw, &conf, datadir, &err);
	if (rc < 0) {
		fprintf(stderr, "bcbench: %s\n", err.msg);
		bn_lock_release(&lock);
		return bn_err_exit_code(rc);
	}
	if (conf.console[0] && bn_console_open(conf.console, &console, &err) < 0) {
		fprintf(stderr, "bcbench: %s: console: %s\n", conf.path, err.msg);
		bn_bench_hw_close(&hw);
		bn_lock_release(&lock);
		return bn_err_exit_code(err.code);
	}
	ro.console = console;
	ro.real_time = bn_conf_has_hardware(&conf);
	ro.fixture = hw.fixture.ops ? &hw.fixture : NULL;
	ro.load = hw.load.ops ? &hw.load : NULL;
	ro.supply = hw.supply.ops ? &hw.supply : NULL;
	ro.guard = &hw.guard;
	bn_report_init(&rep);
	if (!quiet)
		printf("bcbench %s: %s on the %s bench%s%s%s%s\n", BN_VERSION, argv[optind],
		       ro.fixture ? hw.fixture.ops->name : conf.backend,
		       conf.capture_driver[0] ? ", captured by sigrok:" : "", conf.capture_driver,
		       console ? ", dut.* from the console " : "", console ? conf.console : "");
	rc = bn_run_scenario(&ro, &rep, &err);
	bn_bench_hw_close(&hw);
	bn_console_close(console);
	if (rc < 0) {
		/* Bad input: nothing ran, no report claims anything. */
		fprintf(stderr, "%s\n", err.msg);
		bn_report_free(&rep);
		bn_lock_release(&lock);
		return bn_err_exit_code(rc);
	}
	if (*bn_cli_stop_flag())
		snprintf(rep.reason, sizeof(rep.reason), "interrupted by %s at t=%.3f s; bench in safe state",
			 *bn_cli_stop_flag() == SIGTERM ? "SIGTERM" : "SIGINT", rep.sim_s);
	snprintf(report_path, sizeof(report_path), "%s/report.json", out_dir);
	if (bn_mkdir_p(out_dir, &err) < 0 || bn_report_write_json(&rep, report_path, &err) < 0) {
		fprintf(stderr, "bcbench: cannot write the report: %s\n", err.msg);
		print_summary(&rep, NULL);
		bn_report_free(&rep);
		bn_lock_release(&lock);
		return 3;
	}
	print_summary(&rep, report_path);
	exit_code = bn_report_exit_code(&rep);
	bn_report_free(&rep);
	bn_lock_release(&lock);
	return exit_code;
}

/* reports/dcp/capture.sr -> "dcp"; x/long.sr -> "long". */
static void capture_stem(const char *path, char *out, size_t len)
{
	char buf[1024], *base, *dir;

	scenario_stem(path, out, len);
	if (strcmp(out, "capture"))
		return;
	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	base = basename(dir);
	if (strcmp(base, ".") && strcmp(base, "/"))
		snprintf(out, len, "%s", base);
}

static int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "events-from", required_argument, NULL, 'E' },
		{ "port", required_argument, NULL, 'p' },
		{ "dut", required_argument, NULL, 'u' },
		{ "map", required_argument, NULL, 'm' },
		{ "limits", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "conf", required_argument, NULL, 'c' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bn_replay_opts ro = { 0 };
	const char *conf_path = NULL, *out_dir = NULL, *datadir = NULL;
	char datadir_buf[1200], out_buf[1200], report_path[1400], stem[256],
		beside[1100];
	struct bn_conf conf;
	struct bn_err err = { 0 };
	struct bn_report rep;
	int verbose = 0, quiet = 0, c, rc, exit_code;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:p:u:m:l:o:c:d:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'e': ro.events_path = optarg; break;
		case 'E':
			if (bn_origins_parse(optarg, &ro.origins, "--events-from", &err) < 0) {
				fprintf(stderr, "bcbench replay: %s\n", err.msg);
				return 2;
			}
			break;
		case 'p': ro.port = optarg; break;
		case 'u': ro.dut = optarg; break;
		case 'm': ro.map = optarg; break;
		case 'l': ro.limits_path = optarg; break;
		case 'o': out_dir = optarg; break;
		case 'c': conf_path = optarg; break;
		case 'd': datadir = optarg; break;
		case 'v': verbose++; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_replay, stdout); return 0;
		default: fputs(usage_replay, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench replay: expected one capture FILE.sr\n%s", usage_replay);
		return 2;
	}
	ro.capture_path = argv[optind];
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN + verbose);
	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	datadir = bn_cli_datadir(datadir, &conf, conf_path, datadir_buf, sizeof(datadir_buf));
	ro.datadir = datadir;
	if (!ro.limits_path && conf.limits[0])
		ro.limits_path = conf.limits;
	capture_stem(ro.capture_path, stem, sizeof(stem));
	if (!out_dir) {
		snprintf(out_buf, sizeof(out_buf), "%s/replay-%s", conf.out, stem);
		out_dir = out_buf;
	}
	if (!ro.events_path) {
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s", ro.capture_path);
		snprintf(beside, sizeof(beside), "%s/events.json", dirname(buf));
		if (access(beside, R_OK) == 0 && !quiet)
			fprintf(stderr, "bcbench replay: note: %s is beside the capture; give --events %s "
					"to judge with its events (inferring from the samples)\n",
				beside, beside);
	}
	bn_cli_catch_signals();
	ro.progress = quiet ? NULL : stdout;
	ro.stop_flag = bn_cli_stop_flag();

	bn_report_init(&rep);
	if (!quiet)
		printf("bcbench %s: replay of %s\n", BN_VERSION, ro.capture_path);
	rc = bn_replay(&ro, &rep, &err);
	if (rc < 0) {
		fprintf(stderr, "%s\n", err.msg);
		bn_report_free(&rep);
		return bn_err_exit_code(rc);
	}
	if (*bn_cli_stop_flag())
		snprintf(rep.reason, sizeof(rep.reason), "interrupted by %s at t=%.3f s of the capture",
			 *bn_cli_stop_flag() == SIGTERM ? "SIGTERM" : "SIGINT", rep.sim_s);
	snprintf(report_path, sizeof(report_path), "%s/report.json", out_dir);
	if (bn_mkdir_p(out_dir, &err) < 0 || bn_report_write_json(&rep, report_path, &err) < 0) {
		fprintf(stderr, "bcbench: cannot write the report: %s\n", err.msg);
		print_summary(&rep, NULL);
		bn_report_free(&rep);
		return 3;
	}
	print_summary(&rep, report_path);
	exit_code = bn_report_exit_code(&rep);
	bn_report_free(&rep);
	return exit_code;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		static const struct {
			const char *name, *usage;
		} helps[] = {
			{ "run", usage_run },
			{ "replay", usage_replay },
			{ "devices", bn_cli_devices_usage },
			{ "selftest", bn_cli_selftest_usage },
		};

		if (cmd && !strcmp(cmd, "help") && argc > 2) {
			for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
				if (!strcmp(argv[2], helps[i].name)) {
					fputs(helps[i].usage, stdout);
					return 0;
				}
			fprintf(stderr, "bcbench help: unknown command \"%s\"\n%s", argv[2], usage_main);
			return 2;
		}
		fputs(usage_main, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("bcbench %s\n", BN_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "devices"))
		return bn_cli_devices(argc - 1, argv + 1);
	if (!strcmp(cmd, "selftest"))
		return bn_cli_selftest(argc - 1, argv + 1);
	fprintf(stderr, "bcbench: unknown command \"%s\"\n%s", cmd, usage_main);
	return 2;
}
