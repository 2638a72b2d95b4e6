#include "cli/common.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json.h"
#include "core/datadir.h"
#include "core/err.h"
#include "core/suggest.h"
#include "core/exit.h"
#include "core/text.h"
#include "core/chanmap.h"
#include "hil/bench_hw.h"

/* The only mutable global: a signal handler has nowhere else to write. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

void bn_cli_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A dropped ssh session: the bench must still reach its safe state
	 * and the report be written, as for SIGTERM. */
	sigaction(SIGHUP, &sa, NULL);
	/* A closed pipe (`bcbench run ... | head`) must not kill a run
	 * half-way: writes to it fail, the run goes on to its report. */
	signal(SIGPIPE, SIG_IGN);
}

const char *bn_cli_signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	case SIGPIPE: return "SIGPIPE";
	default: return NULL;
	}
}

volatile sig_atomic_t *bn_cli_stop_flag(void)
{
	return &stop_requested;
}

int bn_cli_exit_of(int rc)
{
	return bn_exit_of_err(rc, (int)stop_requested);
}

int bn_cli_conf(const char **conf_path, struct bn_conf *conf)
{
	struct bn_err err = { 0 };

	bn_conf_defaults(conf);
	if (!*conf_path && access("bench.conf", R_OK) == 0)
		*conf_path = "bench.conf";
	if (*conf_path && bn_conf_load(*conf_path, conf, &err) < 0) {
		bn_term_printf(stderr, "bcbench: %s\n", err.msg);
		return 2;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *bn_cli_datadir(const char *opt, const struct bn_conf *conf, const char *conf_path,
			   char *buf, size_t len)
{
	char tried[BN_DATADIR_TRIED_LEN], from[700];
	const char *dir = NULL;

	if (opt) {
		dir = opt;
		snprintf(from, sizeof(from), "--datadir");
	} else if (getenv("BCBENCH_DATADIR") && getenv("BCBENCH_DATADIR")[0]) {
		dir = getenv("BCBENCH_DATADIR");
		snprintf(from, sizeof(from), "BCBENCH_DATADIR");
	} else if (conf->datadir[0]) {
		dir = conf->datadir;
		snprintf(from, sizeof(from), "%s:%d: datadir", conf_path ? conf_path : conf->path,
			 conf->datadir_line);
	}
	if (dir) {
		if (is_dir(dir))
			return dir;
		bn_term_printf(stderr, "bcbench: error: the data dir \"%s\" (from %s) is not a directory; "
			       "it holds profiles/, scripts/ and fixtures/ (%s, or leave all three "
			       "unset to use the one beside the bcbench binary)\n",
			       dir, from, BN_DATADIR_HOW);
		return NULL;
	}
	if (bn_datadir_beside_exe(buf, len, tried, sizeof(tried)) == BN_OK)
		return buf;
	bn_term_printf(stderr, "bcbench: error: no data dir (profiles/, scripts/, fixtures/): none "
		       "given, and none beside the bcbench binary (looked for profiles/ in %s); %s\n",
		       tried, BN_DATADIR_HOW);
	return NULL;
}

const char *bn_cli_fwdir(const char *opt, char *buf, size_t len)
{
	char tried[BN_DATADIR_TRIED_LEN];

	if (opt)
		return opt;
	if (getenv("BCBENCH_FWDIR") && getenv("BCBENCH_FWDIR")[0])
		return getenv("BCBENCH_FWDIR");
	if (bn_fwdir_beside_exe(buf, len, tried, sizeof(tried)) == BN_OK)
		return buf;
	return NULL;
}

int bn_cli_lock_err(const struct bn_conf *conf, const char *who, double wait_s, bool quiet,
		    struct bn_lock *lock, struct bn_err *err)
{
	char base[128], name[300];
	int rc;

	lock->fd = -1;
	lock->inherited = 0;
	if (strcmp(conf->lock, "yes") && !(!strcmp(conf->lock, "auto") && bn_conf_has_hardware(conf)))
		return 0;
	bn_bench_lock_name(conf, base, sizeof(base));
	/* the fixture's serial, else the conf's path: one lock per bench */
	bn_lock_bench_name(base, conf->fixture, conf->path, name, sizeof(name));
	if (wait_s > 0 && !quiet)
		bn_term_printf(stderr, "bcbench: waiting up to %.0f s for the bench \"%s\"\n", wait_s, name);
	rc = bn_lock_take(lock, conf->lock_dir, name, wait_s, who, &stop_requested, err);
	return rc < 0 ? bn_cli_exit_of(rc) : 0;
}

int bn_cli_lock(const struct bn_conf *conf, const char *who, double wait_s, bool quiet,
		struct bn_lock *lock)
{
	struct bn_err err = { 0 };
	int rc = bn_cli_lock_err(conf, who, wait_s, quiet, lock, &err);

	if (rc)
		bn_term_printf(stderr, "bcbench: %s\n", err.msg);
	return rc;
}

int bn_cli_capture_opts(const struct bn_conf *conf, struct bn_sigrok_cap_opts *o,
			struct bn_err *err)
{
	char what[600];

	memset(o, 0, sizeof(*o));
	o->driver = conf->capture_driver;
	o->conn = conf->capture_conn[0] ? conf->capture_conn : NULL;
	o->rate_hz = conf->capture_rate_hz;
	bn_chanmap_default(&o->map);
	snprintf(what, sizeof(what), "%s:%d: error: capture_map", conf->path, conf->capture_map_line);
	if (conf->capture_map[0])
		return bn_chanmap_parse(conf->capture_map, &o->map, what, err);
	return BN_OK;
}

int bn_cli_parse_wait(const char *cmd, const char *arg, double *wait_s)
{
	char *end;

	*wait_s = strtod(arg, &end);
	if (end == arg || *end || !isfinite(*wait_s) || *wait_s < 0) {
		bn_term_printf(stderr, "bcbench %s: --wait \"%s\": expected seconds (0 or more)\n", cmd, arg);
		return 2;
	}
	return 0;
}

int bn_cli_parse_seconds(const char *cmd, const char *opt, const char *arg, double *s)
{
	char *end;

	*s = strtod(arg, &end);
	if (end == arg || *end || !isfinite(*s) || *s <= 0) {
		bn_term_printf(stderr, "bcbench %s: %s \"%s\": expected seconds (more than 0)\n", cmd, opt,
			arg);
		return 2;
	}
	return 0;
}

int bn_cli_parse_acceptance(const char *cmd, const char *arg, enum bn_acceptance *a)
{
	if (!strcmp(arg, "guarded")) {
		*a = BN_ACCEPT_GUARDED;
		return 0;
	}
	if (!strcmp(arg, "simple")) {
		*a = BN_ACCEPT_SIMPLE;
		return 0;
	}
	bn_term_printf(stderr, "bcbench %s: --acceptance \"%s\": expected guarded (pass or fail only "
		"beyond the measurement uncertainty) or simple (the plain limit)\n", cmd, arg);
	return 1;
}

int bn_cli_parse_uncertainty(const char *cmd, const char *opt, const char *arg, unsigned *given,
			     struct bn_meas meas[BN_CH_COUNT])
{
	const char *eq = strchr(arg, '=');
	char name[16], why[200];
	int ch;

	if (!eq || (size_t)(eq - arg) >= sizeof(name)) {
		bn_term_printf(stderr, "bcbench %s: %s \"%s\": expected CH=SPEC such as "
			"vbus=noise=10mV,offset=5mV,gain=0.5%%\n", cmd, opt, arg);
		return 1;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	ch = bn_chan_from_name(name);
	if (ch < 0) {
		bn_term_printf(stderr, "bcbench %s: %s \"%s\": unknown channel \"%s\" (expected "
			"vbus, ibus, dp, dm or id)\n", cmd, opt, arg, name);
		return 1;
	}
	if (bn_meas_parse(eq + 1, ch == BN_CH_IBUS ? BN_DIM_A : BN_DIM_V, &meas[ch], why,
			  sizeof(why)) < 0) {
		bn_term_printf(stderr, "bcbench %s: %s \"%s\": %s\n", cmd, opt, arg, why);
		return 1;
	}
	*given |= 1u << ch;
	return 0;
}

int bn_cli_conditions(const char *cmd, const char *spec, const char *datadir,
		      struct bn_conditions *c, char *path, size_t len)
{
	struct bn_err err = { 0 };
	bool bare = !strchr(spec, '/') && !strstr(spec, ".json");

	if (bare)
		snprintf(path, len, "%s/profiles/conditions/%s.json", datadir ? datadir : ".", spec);
	else if (access(spec, R_OK) == 0 || spec[0] == '/' || !datadir)
		snprintf(path, len, "%s", spec);
	else
		snprintf(path, len, "%s/%s", datadir, spec);
	if (access(path, R_OK) != 0) {
		char hint[900] = "";

		if (bare)
			bn_suggest_profile(datadir, "conditions", spec, hint, sizeof(hint));
		bn_term_printf(stderr, "bcbench %s: --conditions %s: cannot open %s%s\n", cmd, spec, path,
			       hint);
		return 1;
	}
	if (bn_conditions_load(path, c, &err) < 0) {
		bn_term_printf(stderr, "bcbench %s: --conditions: %s\n", cmd, err.msg);
		return 1;
	}
	return 0;
}

int bn_cli_print_json(const char *cmd, cJSON *doc, int rc)
{
	char *text = bn_json_print(doc);

	cJSON_Delete(doc);
	if (!text) {
		fprintf(stderr, "bcbench %s: out of memory\n", cmd);
		return BN_EXIT_ENVIRONMENT;
	}
	printf("%s\n", text);
	free(text);
	return rc;
}
