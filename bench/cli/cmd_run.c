/* bcbench run: one scenario on the configured bench. */
#define BN_LOG_MODULE "bcbench"
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/datadir.h"
#include "core/dirlock.h"
#include "core/err.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/log.h"
#include "capture/events.h"
#include "scenario/replay.h"
#include "capture/srzip_write.h"
#include "cli/cli.h"
#include "cli/run_output.h"
#include "cli/common.h"
#include "cli/isolate.h"
#include "core/json.h"
#include "core/time.h"
#include "core/text.h"
#include "hil/bench_hw.h"
#include "hil/console.h"
#include "hil/usb_dev.h"
#include "hil/lock.h"
#include "cli/provenance.h"
#include "cli/hw_exec.h"
#include "report/report.h"
#include "report/report_html.h"
#include "firmware/fw_load.h"
#include "scenario/runner.h"

/* A run that makes no progress this long is killed (--watchdog): far
 * above any instrument's own time-out, far below a CI job's. */
#define BN_RUN_WATCHDOG_S 30.0


const char bn_cli_run_usage[] =
	"Usage: bcbench run SCENARIO [--conf FILE] [--out DIR] [--datadir DIR]\n"
	"                   [--limits FILE] [--firmware NAME|FILE.so] [--port PORT]\n"
	"                   [--charger CHARGER] [--host HOST] [--dut DECL]\n"
	"                   [--wait SECONDS] [--watchdog SECONDS] [--no-isolate] [--force]\n"
	"                   [--conditions NAME|FILE] [--acceptance guarded|simple]\n"
	"                   [--operator NAME] [--no-html] [--no-capture]\n"
	"                   [--require-verdicts] [-v] [-q]\n"
	"Run SCENARIO (.scn) on the configured bench (the simulated bench by default),\n"
	"print each result as it is judged, and write DIR/report.json atomically\n"
	"(schema bcbench-report/3) with DIR/report.html, the page to review and sign. On SIGINT, SIGTERM or SIGHUP the bench goes to its\n"
	"safe state (VBUS off, load off, data lines open) and a partial report says\n"
	"why. A closed output pipe does not stop the run. One run writes into DIR at a\n"
	"time (a second is refused, exit 5, naming the first); what a killed run left\n"
	"there is finished and moved to DIR/interrupted-YYYYmmdd-HHMMSS/ first (see\n"
	"bcbench salvage).\n"
	"\n"
	"  -c, --conf FILE     bench configuration (default ./bench.conf if present)\n"
	"  -o, --out DIR       report directory (default <out>/<scenario file stem>, <out>\n"
	"                      from bench.conf, else reports)\n"
	"  -d, --datadir DIR   where profiles/ live (default: $BCBENCH_DATADIR, else the\n"
	"                      conf's datadir key, else the one beside the binary:\n"
	"                      ../share/bcbench installed, the source tree in a build)\n"
	"  -l, --limits FILE   judge against this limits file (e.g. a lab's stricter copy);\n"
	"                      wins over the scenario's and bench.conf's\n"
	"  -f, --firmware FW   run this firmware (\"reference\", a .so, or a NAME in the\n"
	"                      firmware dir: $BCBENCH_FWDIR, else the one beside the\n"
	"                      binary) instead of the scenario's or the device's\n"
	"      --port, --charger, --host, --dut NAME|FILE\n"
	"                      run with this port profile, charger, host or device\n"
	"                      declaration instead of the scenario's (a suite's matrix)\n"
	"  -w, --wait SECONDS  when the bench is in use (its lock is held), queue for it\n"
	"                      this long instead of exiting 5 at once\n"
	"      --watchdog SECONDS\n"
	"                      the run goes on in a child process; if it makes no\n"
	"                      progress this long (a firmware hanging in a call) it is\n"
	"                      killed, the bench put in its safe state, and the report\n"
	"                      says so (exit 3; 5 when it hung outside the firmware,\n"
	"                      in an instrument); a crash is reported the same way\n"
	"                      (default 30)\n"
	"      --no-isolate    run in this process (for a debugger): no watchdog, and a\n"
	"                      crashing firmware takes bcbench down with it\n"
	"      --force         run even when the capture is estimated not to fit in the\n"
	"                      output directory's free space (duration x rate x channels\n"
	"                      x 4 bytes: the zip stored at worst); without it such a run\n"
	"                      is refused (exit 2) with the figures\n"
	"      --conditions NAME|FILE\n"
	"                      measure and handle as this conditions profile says\n"
	"                      (profiles/conditions/: ideal, realistic, slow-plug, ...):\n"
	"                      noise, offset, gain, resolution per channel, slow\n"
	"                      insertion, bounce; wins over bench.conf's meas_* keys\n"
	"      --acceptance RULE\n"
	"                      guarded (default): a result passes or fails only beyond\n"
	"                      its measurement uncertainty U, else it is inconclusive;\n"
	"                      simple: the plain limit (U still reported)\n"
	"      --operator NAME who ran it, for the record (default $BCBENCH_OPERATOR,\n"
	"                      else the login name)\n"
	"      --no-html       do not write report.html (bcbench report html can, later)\n"
	"      --no-capture    judge as always (the rules see every sample) but write no\n"
	"                      capture.sr: for runs that only want verdicts; the report\n"
	"                      says so, events.json names no capture, and the run\n"
	"                      cannot be replayed (as a scenario's `capture off`)\n"
	"      --require-verdicts\n"
	"                      exit 4 when nothing failed but compliance was not\n"
	"                      demonstrated (a rule inconclusive or in error, or none\n"
	"                      judged): for CI that must not take such a run as a pass\n"
	"  -v, --verbose       more log output (repeat for debug: every bench event)\n"
	"  -q, --quiet         print only the summary\n"
	"  -h, --help          this help\n"
	"\n"
	"Exit codes (report.json status.exit_code and status.cause say the same):\n"
	"  0    ok: passed\n"
	"  1    rule-failed: a rule or expectation failed\n"
	"  2    bad-input: also a capture rate above its source's maximum, a capture\n"
	"       too big for the disk; nothing runs, no report\n"
	"  3    device-broke-run: the firmware crashed, hung in a call, livelocked,\n"
	"       refused to start or exited\n"
	"  4    not-demonstrated: with --require-verdicts\n"
	"  5    bench-fault: an instrument, fixture or console lost, stalled or\n"
	"       unreachable; the bench or DIR in use (past --wait). Retry.\n"
	"  6    environment: disk full, file size limit, read-only or unwritable\n"
	"       output, a firmware library that cannot be loaded; a rule in error\n"
	"  128+N interrupted by signal N: 129 SIGHUP, 130 SIGINT, 143 SIGTERM\n";

/* Everything one run needs, shared by the in-process and isolated ways. */
struct run_job {
	const char *scenario;
	const char *out_dir;
	const char *datadir;
	struct bn_conf conf;
	struct bn_run_opts ro;
	struct bn_sigrok_cap_opts dev;
	struct bn_usb_spec dut_usb;   /* bench.conf dut_usb, parsed */
	struct bn_conditions cond;
	char cond_path[1200];
	int quiet;
	/* the spools and temporary files in out_dir before the run: not its
	 * own, not its to remove */
	char *temps_before;
	struct bn_dirlock dirlock;  /* one writer per output directory */
	struct bn_cli_record_opts rec;
	const char *operator_name;
};

/* The report as it stands when the bench starts, marked unfinished: if
 * the process dies, this is what it leaves (the parent fills in why). */
static void write_provisional(void *user, const struct bn_report *rep)
{
	struct run_job *j = user;
	struct bn_err err = { 0 };
	char path[1400];
	cJSON *root = bn_report_to_json(rep), *st;
	char *text;

	if (!root)
		return;
	st = cJSON_GetObjectItemCaseSensitive(root, "status");
	cJSON_ReplaceItemInObjectCaseSensitive(st, "reason",
				  cJSON_CreateString(BN_PROVISIONAL_REASON));
	/* as a salvage of a process killed from outside would say */
	bn_json_set(st, "cause", cJSON_CreateString(BN_CAUSE_INTERRUPTED));
	cJSON_ReplaceItemInObjectCaseSensitive(st, "exit_code",
					      cJSON_CreateNumber(BN_EXIT_INTERRUPTED(SIGKILL)));
	text = bn_json_print(root);
	cJSON_Delete(root);
	snprintf(path, sizeof(path), "%s/report.json", j->out_dir);
	if (text && bn_mkdir_p(j->out_dir, &err) == 0)
		/* not synced: the final report replaces it (core/file.h) */
		bn_file_write_atomic_nosync(path, text, strlen(text), &err);
	free(text);
}

/* Open the instruments, run, close them, write the report: the exit code. */
static int run_job_body(void *user)
{
	struct run_job *j = user;
	struct bn_err err = { 0 };
	struct bn_report rep;
	struct bn_bench_hw hw;
	struct bn_console *console = NULL;
	int rc;

	rc = bn_bench_hw_open(&hw, &j->conf, j->datadir, &err);
	if (rc < 0) {
		fprintf(stderr, "bcbench: %s\n", err.msg);
		return bn_cli_exit_of(rc);
	}
	if (j->conf.console[0] && bn_console_open(j->conf.console, &console, &err) < 0) {
		fprintf(stderr, "bcbench: %s: console: %s\n", j->conf.path, err.msg);
		bn_bench_hw_close(&hw);
		return bn_cli_exit_of(err.code);
	}
	j->ro.console = console;
	j->ro.real_time = bn_conf_has_hardware(&j->conf);
	/* a real bench: no simulated sample or event in its verdicts */
	j->ro.real_bench = j->ro.real_time;
	j->ro.fixture = hw.fixture.ops ? &hw.fixture : NULL;
	j->ro.load = hw.load.ops ? &hw.load : NULL;
	j->ro.supply = hw.supply.ops ? &hw.supply : NULL;
	j->ro.guard = &hw.guard;
	j->ro.supply_follow = !strcmp(j->conf.supply_mode, "follow");
	bn_report_init(&rep);
	bn_cli_provenance_begin(&rep, j->operator_name, &j->conf, &hw);
	if (!j->quiet)
		bn_term_printf(stdout, "bcbench %s: %s on the %s bench%s%s%s%s%s%s%s%s%s\n", BN_VERSION, j->scenario,
		       j->ro.fixture ? hw.fixture.ops->name : j->ro.real_bench ? "real" : j->conf.backend,
		       j->ro.real_bench && !j->ro.fixture ? " (its fixture simulated: nothing it does "
							    "reaches a verdict)" : "",
		       j->ro.load ? ", load " : "", j->ro.load ? j->conf.load : "",
		       j->ro.supply ? ", supply " : "", j->ro.supply ? j->conf.supply : "",
		       j->conf.capture_driver[0] ? ", captured by sigrok:" : "",
		       j->conf.capture_driver, console ? ", dut.* from the console " : "",
		       console ? j->conf.console : "");
	rc = bn_run_scenario(&j->ro, &rep, &err);
	bn_bench_hw_close(&hw);
	bn_console_close(console);
	if (rc < 0) {
		/* Bad input: nothing ran, no report claims anything. */
		fprintf(stderr, "%s\n", err.msg);
		bn_report_free(&rep);
		return bn_cli_exit_of(rc);
	}
	/* Stopped because the process it belonged to is gone: say that, not
	 * the stop signal the watcher used to stop it. */
	if (j->ro.beacon && bn_isolate_lost_reason(j->ro.beacon->lost)) {
		*bn_cli_stop_flag() = 0;
		if (rep.status != BN_RUN_COMPLETED) /* else it ended before the stop */
			snprintf(rep.reason, sizeof(rep.reason),
				 "%s; stopped at t=%.3f s; bench in safe state",
				 bn_isolate_lost_reason(j->ro.beacon->lost), rep.sim_s);
	}
	j->rec.beacon = j->ro.beacon;
	return bn_cli_write_record(&rep, j->out_dir, "; bench in safe state", &j->rec);
}

/* The run in the isolated child: the parent learns it ended on purpose. */
static int run_job_child(void *user)
{
	struct run_job *j = user;
	int rc = run_job_body(j);

	__atomic_store_n(&j->ro.beacon->finished, 1, __ATOMIC_RELAXED);
	/* No parent is left to drop the directory's lock file. */
	if (j->ro.beacon->lost == BN_LOST_PARENT)
		bn_dirlock_release(&j->dirlock);
	return rc;
}

/* The run's process died or was killed: the bench goes to its safe state
 * (a real one is opened again for that), and the record it left (the
 * capture's spool, the events, the provisional report) is finished
 * (cmd_salvage.c) saying why. Only the spools and temporary files this
 * run created are removed. */
int bn_cli_run_salvage(const struct bn_cli_run_salvage *rs, const struct bn_isolate_end *end)
{
	struct bn_salvage s = { .dir = rs->out_dir, .scenario = rs->scenario,
				.sim_t_us = end->last.sim_t_us, .keep = rs->keep };
	char path[1400], cause[BN_ERR_MSG_LEN], reason[BN_ERR_MSG_LEN];
	struct bn_err err = { 0 };

	snprintf(cause, sizeof(cause), "%s", end->cause);
	if (bn_conf_has_hardware(rs->conf)) {
		if (bn_bench_hw_safe(rs->conf, rs->datadir, &err) == 0) {
			snprintf(cause + strlen(cause), sizeof(cause) - strlen(cause),
				 "; the bench was put in its safe state after");
		} else {
			snprintf(cause + strlen(cause), sizeof(cause) - strlen(cause),
				 "; SAFE STATE NOT CONFIRMED: %.300s", err.msg);
			bn_err_log("SAFE STATE NOT CONFIRMED after the run ended: %s", err.msg);
		}
		bn_err_clear(&err);
	}
	s.cause = cause;
	s.exit_code = end->exit_code;
	snprintf(path, sizeof(path), "%s/report.json", rs->out_dir);
	if (bn_salvage_record(&s, reason, sizeof(reason), &err) < 0) {
		fprintf(rs->err, "bcbench: cannot write the report: %s\n", err.msg);
		return bn_cli_exit_of(err.code);
	}
	/* (one call per line: the terminal printer escapes a newline inside) */
	bn_term_printf(rs->out, "%s: error — %s\n", rs->scenario, reason);
	bn_term_printf(rs->out, "  report: %s\n", path);
	bn_term_printf(rs->err, "bcbench: %s: %s\n", rs->scenario, reason);
	if (!rs->no_html)
		bn_cli_write_html(path, rs->out_dir, end->exit_code);
	bn_term_printf(rs->out, "  exit %d (%s)\n", end->exit_code, bn_exit_cause(end->exit_code));
	return end->exit_code;
}

static int run_job_salvage(struct run_job *j, const struct bn_isolate_end *end)
{
	struct bn_cli_run_salvage rs = { .out_dir = j->out_dir, .scenario = j->scenario,
					 .datadir = j->datadir, .conf = &j->conf,
					 .keep = j->temps_before, .no_html = j->rec.no_html,
					 .out = stdout, .err = stderr };

	return bn_cli_run_salvage(&rs, end);
}

/* In the run's child, when the process it belonged to is gone and the
 * run did not stop (a firmware that does not return): what the parent
 * would have done, from the child's watcher thread; it _exits next. */
static void run_job_orphaned(void *user, const char *cause)
{
	struct run_job *j = user;
	struct bn_isolate_end end = { .abnormal = true,
				      .exit_code = BN_EXIT_INTERRUPTED(SIGHUP) };

	snprintf(end.cause, sizeof(end.cause), "%s", cause);
	end.last = *j->ro.beacon;
	fflush(stdout);
	run_job_salvage(j, &end);
	fflush(stdout);
	fflush(stderr);
	/* no parent is left to drop the directory's lock file */
	bn_dirlock_release(&j->dirlock);
}

/* --firmware NAME (no '/', not a file here, not built in): NAME.so in the
 * firmware dir, as a suite finds it; else as given, for the run's own
 * "cannot open" message. */
static const char *firmware_in_fwdir(const char *fw, char *buf, size_t len)
{
	char dir[BN_DATADIR_LEN];
	const char *d;
	size_t n;

	if (!fw || strchr(fw, '/') || bn_fw_is_builtin(fw) || access(fw, R_OK) == 0)
		return fw;
	d = bn_cli_fwdir(NULL, dir, sizeof(dir));
	if (!d)
		return fw;
	n = strlen(fw);
	snprintf(buf, len, "%s/%s%s", d, fw, n > 3 && !strcmp(fw + n - 3, ".so") ? "" : ".so");
	return access(buf, R_OK) == 0 ? buf : fw;
}

int bn_cli_run(int argc, char **argv)
{
	return bn_cli_run_entry(argc, argv, NULL);
}

int bn_cli_run_entry(int argc, char **argv, const struct bn_cli_run_inherit *in)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "limits", required_argument, NULL, 'l' },
		{ "firmware", required_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'P' },
		{ "charger", required_argument, NULL, 'C' },
		{ "host", required_argument, NULL, 'H' },
		{ "dut", required_argument, NULL, 'D' },
		{ "wait", required_argument, NULL, 'w' },
		{ "watchdog", required_argument, NULL, 'W' },
		{ "no-isolate", no_argument, NULL, 'N' },
		{ "force", no_argument, NULL, 'F' },
		{ "acceptance", required_argument, NULL, 'A' },
		{ "conditions", required_argument, NULL, 'K' },
		{ "operator", required_argument, NULL, 'O' },
		{ "no-html", no_argument, NULL, 'X' },
		{ "no-capture", no_argument, NULL, 'S' },
		{ "require-verdicts", no_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL, *out_dir = NULL, *datadir = NULL, *limits = NULL,
		   *firmware = NULL, *port = NULL, *charger = NULL, *host = NULL, *dut = NULL,
		   *conditions = NULL, *operator_opt = NULL;
	struct bn_cli_record_opts rec = { 0 };
	char operator_buf[64];
	char datadir_buf[1200], out_buf[1200], stem[256], fw_buf[BN_DATADIR_LEN + 300];
	struct bn_err err = { 0 };
	struct bn_lock lock = { .fd = -1 };
	struct run_job *j;
	double wait_s = 0, watchdog_s = BN_RUN_WATCHDOG_S;
	enum bn_acceptance acceptance = BN_ACCEPT_GUARDED;
	int verbose = 0, quiet = 0, isolate = 1, force = 0, no_capture = 0, c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:o:d:l:f:w:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (bn_cli_parse_wait("run", optarg, &wait_s))
				return 2;
			break;
		case 'W':
			if (bn_cli_parse_seconds("run", "--watchdog", optarg, &watchdog_s))
				return 2;
			break;
		case 'c': conf_path = optarg; break;
		case 'o': out_dir = optarg; break;
		case 'd': datadir = optarg; break;
		case 'l': limits = optarg; break;
		case 'f': firmware = optarg; break;
		case 'P': port = optarg; break;
		case 'C': charger = optarg; break;
		case 'H': host = optarg; break;
		case 'D': dut = optarg; break;
		case 'N': isolate = 0; break;
		case 'F': force = 1; break;
		case 'A':
			if (bn_cli_parse_acceptance("run", optarg, &acceptance))
				return 2;
			break;
		case 'K': conditions = optarg; break;
		case 'O': operator_opt = optarg; break;
		case 'X': rec.no_html = true; break;
		case 'S': no_capture = 1; break;
		case 'R': rec.require_verdicts = true; break;
		case 'v': verbose++; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(bn_cli_run_usage, stdout); return 0;
		default: fputs(bn_cli_run_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench run: expected one SCENARIO file\n%s", bn_cli_run_usage);
		return 2;
	}
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN + verbose);

	j = calloc(1, sizeof(*j));
	if (!j)
		return BN_EXIT_ENVIRONMENT;
	j->scenario = argv[optind];
	j->quiet = quiet;
	j->rec = rec;
	j->rec.defer_sync = in && in->defer_sync;
	j->operator_name = bn_cli_operator(operator_opt, operator_buf, sizeof(operator_buf));
	if (bn_cli_conf(&conf_path, &j->conf)) {
		free(j);
		return 2;
	}
	rc = bn_cli_hw_exec("bcbench run", &j->conf, false);
	if (rc) {
		free(j);
		return rc;
	}
	datadir = bn_cli_datadir(datadir, &j->conf, conf_path, datadir_buf, sizeof(datadir_buf));
	if (!datadir) {
		free(j);
		return 2;
	}
	j->datadir = datadir;
	firmware = firmware_in_fwdir(firmware, fw_buf, sizeof(fw_buf));
	bn_cli_file_stem(argv[optind], stem, sizeof(stem));
	if (!out_dir) {
		snprintf(out_buf, sizeof(out_buf), "%s/%s", j->conf.out, stem);
		out_dir = out_buf;
	}
	j->out_dir = out_dir;

	bn_cli_catch_signals();
	/* A suite's entry: the suite watches this process (its watchdog, its
	 * salvage), so the run is not forked again. */
	if (in && in->beacon)
		isolate = 0;

	j->ro = (struct bn_run_opts){
		.scenario_path = argv[optind],
		.datadir = datadir,
		.limits_path = j->conf.limits[0] ? j->conf.limits : NULL,
		.limits_override = limits,
		.firmware_override = firmware,
		.port_override = port,
		.charger_override = charger,
		.host_override = host,
		.dut_override = dut,
		.conf_path = conf_path,
		.out_dir = out_dir,
		.progress = quiet ? NULL : stdout,
		.stop_flag = bn_cli_stop_flag(),
		.on_started = write_provisional,
		.on_started_user = j,
		.acceptance = acceptance,
		.meas_set = j->conf.meas_set,
		.force = force,
		.no_capture = no_capture,
		/* a suite's entry: its limits parsed once, its share of the cores */
		.limits_parsed = in ? in->limits : NULL,
		.defer_sync = in && in->defer_sync,
		.capture_threads = in ? in->capture_threads
				      : bn_isolate_capture_threads(bn_isolate_cores_allowed(), 0),
	};
	_Static_assert(BN_CONF_MEAS_N == BN_CH_COUNT, "bench.conf meas_* keys follow enum bn_chan");
	memcpy(j->ro.meas, j->conf.meas, sizeof(j->ro.meas));
	if (conditions) {
		if (bn_cli_conditions("run", conditions, datadir, &j->cond, j->cond_path,
				      sizeof(j->cond_path))) {
			free(j);
			return 2;
		}
		j->ro.conditions = &j->cond;
		j->ro.conditions_path = j->cond_path;
	}
	/* The bench PC as the device's USB host. BCBENCH_SYSFS_ROOT puts a
	 * tree in place of /sys: the bench twin's fake kernel, in tests. */
	if (j->conf.dut_usb[0]) {
		if (bn_usb_spec_parse(j->conf.dut_usb, &j->dut_usb, &err) < 0) {
			fprintf(stderr, "bcbench: %s: dut_usb: %s\n", j->conf.path, err.msg);
			free(j);
			return 2;
		}
		j->ro.dut_usb = &j->dut_usb;
		j->ro.sysfs_root = getenv("BCBENCH_SYSFS_ROOT");
	}
	if (j->conf.capture_driver[0]) {
		if (bn_cli_capture_opts(&j->conf, &j->dev, &err) < 0) {
			fprintf(stderr, "bcbench: %s\n", err.msg);
			free(j);
			return 2;
		}
		j->ro.capture_dev = &j->dev;
	}
	/* One writer per output directory, and what a killed run left there
	 * is finished and moved aside before this run writes anything. Then
	 * one run drives one bench: the lock comes before any instrument is
	 * touched and goes after the safe state and the report. */
	{
		char who[400];

		snprintf(who, sizeof(who), "bcbench run %.300s", argv[optind]);
		if (bn_dirlock_take(&j->dirlock, out_dir, who, &err) < 0 ||
		    bn_salvage_move_aside(out_dir, false, &err) < 0) {
			fprintf(stderr, "bcbench run: %s\n", err.msg);
			bn_dirlock_release(&j->dirlock);
			free(j);
			return bn_cli_exit_of(err.code);
		}
		j->temps_before = bn_run_temps(out_dir);
		rc = bn_cli_lock(&j->conf, who, wait_s, quiet, &lock);
		if (rc) {
			bn_dirlock_release(&j->dirlock);
			free(j->temps_before);
			free(j);
			return rc;
		}
	}
	if (!isolate) {
		struct bn_isolate *iso;

		j->ro.beacon = in ? in->beacon : NULL;
		/* A suite's entry stops when the suite is gone. On a real
		 * bench a thread watches, which can still put the bench in its
		 * safe state if the firmware does not return; else the kernel
		 * tells (cli/isolate.h). */
		if (j->ro.beacon && bn_conf_has_hardware(&j->conf)) {
			/* the watcher reads it until the process ends: kept */
			iso = malloc(sizeof(*iso));
			if (iso) {
				*iso = (struct bn_isolate){ .grace_s = BN_CLI_RUN_GRACE_S,
							    .stop_flag = bn_cli_stop_flag(),
							    .beacon = j->ro.beacon,
							    .orphaned = run_job_orphaned };
				bn_isolate_watch_parent(iso, j, in->suite_pid, BN_LOST_SUITE);
			}
		} else if (j->ro.beacon &&
			   bn_isolate_orphan_watch(j->ro.beacon, in->suite_pid, BN_CLI_RUN_GRACE_S,
						   bn_cli_stop_flag()) < 0) {
			fprintf(stderr, "bcbench: warning: PR_SET_PDEATHSIG refused: the run would "
					"outlive its suite\n");
		}
		rc = run_job_body(j);
		/* ended here: a watcher leaves it (and j, freed below) alone */
		if (j->ro.beacon)
			__atomic_store_n(&j->ro.beacon->finished, 1, __ATOMIC_RELAXED);
	} else {
		struct bn_isolate iso = {
			.watchdog_s = watchdog_s,
			.grace_s = BN_CLI_RUN_GRACE_S,
			.stop_flag = bn_cli_stop_flag(),
			.beacon = bn_isolate_beacon_new(),
			.orphaned = run_job_orphaned,
		};
		struct bn_isolate_end end;

		j->ro.beacon = iso.beacon;
		if (!iso.beacon || bn_isolate_run(&iso, run_job_child, j, &end) < 0) {
			fprintf(stderr, "bcbench: cannot start the run's process: %s\n", strerror(errno));
			rc = BN_EXIT_ENVIRONMENT;
		} else if (end.abnormal) {
			rc = run_job_salvage(j, &end);
		} else {
			rc = end.exit_code;
		}
		bn_isolate_beacon_free(iso.beacon);
	}
	bn_lock_release(&lock);
	bn_dirlock_release(&j->dirlock);
	free(j->temps_before);
	free(j);
	return rc;
}
