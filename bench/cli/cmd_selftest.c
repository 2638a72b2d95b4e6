/* bcbench selftest: the bench.conf fixture through every port type
 * (hil/selftest.c), measured by the capture device when there is one. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/exit.h"
#include "cli/common.h"
#include "cli/hw_exec.h"
#include "core/json.h"
#include "core/log.h"
#include "core/text.h"
#include "core/time.h"
#include "hil/bench_hw.h"
#include "hil/selftest.h"
#include "hil/sigrok_cap.h"

#define WINDOW_MS 100
#define FRAMES 4096

const char bn_cli_selftest_usage[] =
	"Usage: bcbench selftest [--conf FILE] [--datadir DIR] [--wait SECONDS] [--json]\n"
	"                        [-v] [-q]\n"
	"Switch the bench.conf fixture through every port type its fixture file\n"
	"defines, with nothing plugged into the device side, and check each against\n"
	"the file: the fixture takes the network (illegal combinations are refused\n"
	"before anything is written), VBUS goes on where the network allows it, the\n"
	"inputs read what they should (e.g. VBUS_SENSE follows VBUS_EN), and, when\n"
	"bench.conf names a capture device, the network's voltages lie in the port's\n"
	"\"expect\" ranges (mean over 100 ms). One line per check: PASS, FAIL or SKIP.\n"
	"A programmable supply in bench.conf is set to 5 V, 0.5 A limit, while it runs.\n"
	"The bench lock is taken and the fixture left in its safe state.\n"
	"\n"
	"  -c, --conf FILE      bench configuration (default ./bench.conf)\n"
	"  -d, --datadir DIR    where profiles/ and fixtures/ live (as for run)\n"
	"  -w, --wait SECONDS   queue for the bench lock this long\n"
	"  -v, --verbose        more log output\n"
	"  -q, --quiet          print only the summary\n"
	"      --json           one JSON document on stdout instead of the lines (schema\n"
	"                       bcbench-selftest/1; its keys in bcbench(1)); same exit\n"
	"                       codes, and the document also when it cannot run\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 every check passed (skips\n"
	"allowed), 1 a check failed, 2 bad input (no real fixture configured, a broken\n"
	"fixture file), 5 bench fault (an instrument lost or unreachable, the bench in\n"
	"use past --wait), 128+N interrupted by signal N.\n";

/* The capture device as the selftest's meter: drop what came before,
 * then average one window. */
struct cap_meter {
	struct bn_sigrok_cap *cap;
	struct bn_cap_frame frames[FRAMES];
};

static int cap_measure(void *user, double v[BN_CH_COUNT], struct bn_err *err)
{
	struct cap_meter *m = user;
	double sum[BN_CH_COUNT] = { 0 };
	unsigned have = bn_sigrok_cap_channels(m->cap);
	const struct timespec tick = { 0, 1000000L };
	int64_t window, give_up;
	long n, total = 0;

	while ((n = bn_sigrok_cap_read(m->cap, m->frames, FRAMES, err)) > 0)
		;
	if (n < 0)
		return (int)n;
	window = bn_deadline_ms(WINDOW_MS);
	give_up = bn_deadline_ms(WINDOW_MS + 2000);
	while (bn_ms_left(window) > 0 || !total) {
		n = bn_sigrok_cap_read(m->cap, m->frames, FRAMES, err);
		if (n < 0)
			return (int)n;
		for (long k = 0; k < n; k++)
			for (int ch = 0; ch < BN_CH_COUNT; ch++)
				sum[ch] += m->frames[k].s.v[ch];
		total += n;
		if (n)
			continue;
		if (!bn_ms_left(give_up))
			return bn_err_set(err, BN_ERR_TIMEOUT, "capture device %s: no samples in %d ms",
					  bn_sigrok_cap_describe(m->cap), WINDOW_MS + 2000);
		nanosleep(&tick, NULL);
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		v[ch] = have & (1u << ch) ? sum[ch] / (double)total : NAN;
	return BN_OK;
}

static int open_meter(const struct bn_conf *conf, struct cap_meter *m, struct bn_err *err)
{
	struct bn_sigrok_cap_opts o;
	int rc = bn_cli_capture_opts(conf, &o, err);

	if (rc < 0)
		return rc;
	/* no scenario to take it from: a wish a device that sets its own
	 * rate (a polled supply, a scope) may not follow */
	if (!(o.rate_hz > 0)) {
		o.rate_hz = 10000;
		o.rate_advisory = true;
	}
	rc = bn_sigrok_cap_open(&o, &m->cap, err);
	if (rc == BN_OK)
		rc = bn_sigrok_cap_start(m->cap, err);
	return rc;
}

/* A programmable supply is the port's VBUS: on at USB's nominal 5 V
 * with a modest current limit (nothing is plugged in), within the hard
 * limits. bn_bench_hw_close turns it off. */
static int supply_on(struct bn_bench_hw *hw, bool quiet, struct bn_err *err)
{
	const double volts = 5.0, ilim_a = 0.5;
	int rc = bn_supply_start(&hw->supply, &hw->guard, volts, ilim_a, err);

	if (rc == BN_OK && !quiet)
		printf("supply on: %.3f V, %.3f A limit\n", volts, ilim_a);
	return rc;
}

/* --json: the check lines bn_selftest_run wrote ("VERD  TEXT") and the
 * outcome as one document: {"schema", "conf", "fixture", "exit",
 * "error", "passed", "failed", "skipped", "first_failure", "checks":
 * [{"verdict": "PASS|FAIL|SKIP|NOTE", "text"}]}. Returns rc. */
static int print_json(const char *conf_path, const char *fixture, int rc, const char *error,
		      const struct bn_selftest_result *res, const char *lines)
{
	cJSON *doc = cJSON_CreateObject(), *checks;
	char *clean;

	if (!doc) {
		fprintf(stderr, "bcbench selftest: out of memory\n");
		return BN_EXIT_ENVIRONMENT;
	}
	cJSON_AddStringToObject(doc, "schema", "bcbench-selftest/1");
	if (conf_path)
		cJSON_AddStringToObject(doc, "conf", conf_path);
	else
		cJSON_AddNullToObject(doc, "conf");
	if (fixture)
		cJSON_AddStringToObject(doc, "fixture", fixture);
	else
		cJSON_AddNullToObject(doc, "fixture");
	cJSON_AddNumberToObject(doc, "exit", rc);
	if (error) {
		clean = bn_utf8_sanitize(error, strlen(error));
		cJSON_AddStringToObject(doc, "error", clean ? clean : "");
		free(clean);
	} else {
		cJSON_AddNullToObject(doc, "error");
	}
	cJSON_AddNumberToObject(doc, "passed", res ? res->pass : 0);
	cJSON_AddNumberToObject(doc, "failed", res ? res->fail : 0);
	cJSON_AddNumberToObject(doc, "skipped", res ? res->skip : 0);
	if (res && res->fail)
		cJSON_AddStringToObject(doc, "first_failure", res->first_fail);
	else
		cJSON_AddNullToObject(doc, "first_failure");
	checks = cJSON_AddArrayToObject(doc, "checks");
	for (const char *l = lines ? lines : ""; *l;) {
		size_t n = strcspn(l, "\n");
		static const char *const verds[] = { "PASS", "FAIL", "SKIP", "NOTE" };

		for (size_t k = 0; k < 4; k++)
			if (n > 6 && !strncmp(l, verds[k], 4) && l[4] == ' ' && l[5] == ' ') {
				cJSON *c = cJSON_CreateObject();
				char *t = bn_utf8_sanitize(l + 6, n - 6);

				cJSON_AddStringToObject(c, "verdict", verds[k]);
				cJSON_AddStringToObject(c, "text", t ? t : "");
				free(t);
				cJSON_AddItemToArray(checks, c);
			}
		l += n + (l[n] == '\n');
	}
	return bn_cli_print_json("selftest", doc, rc);
}

int bn_cli_selftest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL, *datadir = NULL;
	char *lines = NULL, why[600];
	size_t lines_len = 0;
	FILE *out = stdout;
	char datadir_buf[1200];
	static struct cap_meter meter; /* frames: too big for the stack */
	struct bn_selftest_meter sm = { .measure = cap_measure, .user = &meter };
	struct bn_fixture_def def;
	struct bn_selftest_result res;
	struct bn_bench_hw hw;
	struct bn_lock lock = { .fd = -1 };
	struct bn_conf conf;
	struct bn_err err = { 0 };
	double wait_s = 0;
	int verbose = 0, quiet = 0, json = 0, c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:d:w:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': conf_path = optarg; break;
		case 'd': datadir = optarg; break;
		case 'w':
			if (bn_cli_parse_wait("selftest", optarg, &wait_s))
				return 2;
			break;
		case 'v': verbose++; break;
		case 'q': quiet = 1; break;
		case 'J': json = 1; break;
		case 'h': fputs(bn_cli_selftest_usage, stdout); return 0;
		default: fputs(bn_cli_selftest_usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "bcbench selftest: takes no arguments\n%s", bn_cli_selftest_usage);
		return 2;
	}
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN + verbose);
	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	datadir = bn_cli_datadir(datadir, &conf, conf_path, datadir_buf, sizeof(datadir_buf));
	if (!datadir)
		return 2;
	if (!strcmp(conf.fixture, "sim")) {
		snprintf(why, sizeof(why),
			 "%s has no real fixture (fixture = sim): the selftest checks "
			 "a fixture's wiring; set fixture = ftdi and fixture_file = "
			 "fixtures/bcbench-fixture-a.json (see fixtures/README.md)",
			 conf_path ? conf_path : "the configuration");
		fprintf(stderr, "bcbench selftest: %s\n", why);
		return json ? print_json(conf_path, conf.fixture, 2, why, NULL, NULL) : 2;
	}
	rc = bn_cli_hw_exec("bcbench selftest", &conf, false);
	if (rc)
		return rc;
	if (json) {
		/* the check lines are collected for the document */
		quiet = 1;
		out = open_memstream(&lines, &lines_len);
		if (!out) {
			fprintf(stderr, "bcbench selftest: out of memory\n");
			return BN_EXIT_ENVIRONMENT;
		}
	}
	bn_cli_catch_signals();
	rc = json ? bn_cli_lock_err(&conf, "bcbench selftest", wait_s, quiet, &lock, &err)
		  : bn_cli_lock(&conf, "bcbench selftest", wait_s, quiet, &lock);
	if (rc) {
		if (json) {
			fprintf(stderr, "bcbench: %s\n", err.msg);
			fclose(out);
			rc = print_json(conf_path, conf.fixture, rc, err.msg, NULL, NULL);
			free(lines);
		}
		return rc;
	}
	rc = bn_bench_hw_open(&hw, &conf, datadir, &err);
	if (rc == BN_OK)
		rc = bn_fixture_def_load(&def, hw.fixture_file, &err);
	if (rc == BN_OK && conf.capture_driver[0])
		rc = open_meter(&conf, &meter, &err);
	if (rc == BN_OK && hw.supply.ops)
		rc = supply_on(&hw, quiet, &err);
	if (rc == BN_OK) {
		if (!quiet)
			printf("selftest of %s (%s), %d port types\n", def.name, def.path, def.nports);
		rc = bn_selftest_run(&hw.fixture, &def, meter.cap ? &sm : NULL, bn_cli_stop_flag(),
				     json ? out : quiet ? NULL : stdout, &res, &err);
	}
	if (meter.cap) {
		struct bn_err e2 = { 0 };

		bn_sigrok_cap_stop(meter.cap, &e2);
		bn_sigrok_cap_close(meter.cap);
	}
	bn_bench_hw_close(&hw);
	bn_lock_release(&lock);
	if (json) {
		int code = rc < 0 ? bn_cli_exit_of(rc) : res.fail ? 1 : 0;

		fclose(out);
		if (rc < 0)
			fprintf(stderr, "bcbench selftest: %s\n", err.msg);
		code = print_json(conf_path, rc == BN_OK ? def.name : conf.fixture, code,
				  rc < 0 ? err.msg : NULL, rc < 0 ? NULL : &res, lines);
		free(lines);
		return code;
	}
	if (rc < 0) {
		fprintf(stderr, "bcbench selftest: %s\n", err.msg);
		return bn_cli_exit_of(rc);
	}
	printf("selftest: %d passed, %d failed, %d skipped\n", res.pass, res.fail, res.skip);
	if (res.fail)
		printf("  first failure: %s\n", res.first_fail);
	return res.fail ? 1 : 0;
}
