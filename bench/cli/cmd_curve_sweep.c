/* bcbench curve sweep: step the electronic load through a charger and
 * write its charger profile (bench/curve/sweep.h). On the simulated bench
 * the charger is a profile (--charger) behind a port of the world; on a
 * real bench it is whatever is on the fixture's port, read by the SCPI
 * load. A sweep cut short writes PROFILE.partial.json, never PROFILE. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/common.h"
#include "cli/hw_exec.h"
#include "core/exit.h"
#include "core/conf.h"
#include "core/file.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/text.h"
#include "core/units.h"
#include "curve/sweep.h"
#include "curve/sweep_out.h"
#include "curve/sweep_sim.h"
#include "hil/bench_hw.h"
#include "hil/lock.h"

const char bn_cli_curve_sweep_usage[] =
	"Usage: bcbench curve sweep --out PROFILE.json [--charger NAME|FILE] [--port PORT]\n"
	"                           [--from A] [--step A] [--to A] [--dwell S] [--settle S]\n"
	"                           [--poll S] [--floor V] [--cool S] [--cool-between S]\n"
	"                           [--recover-wait S] [--cable OHM] [--sense2] [--rated A]\n"
	"                           [--name NAME] [--conf FILE] [--datadir DIR]\n"
	"                           [--limits FILE] [--wait S] [-v] [-q]\n"
	"Step the electronic load (constant current) through a charger, read VBUS and the\n"
	"load's current at each step, and write the charger profile those readings make:\n"
	"its curve, the knee (the largest current with VBUS at or above VCHG min), the\n"
	"shutdown and recovery it saw, and a \"measured\" block saying where and how.\n"
	"On the simulated bench the charger is --charger behind --port; on a real bench\n"
	"(bench.conf names a load) it is what the fixture's --port network is wired to.\n"
	"\n"
	"  -o, --out FILE        the profile to write (atomically)\n"
	"      --charger C       simulated bench: the charger to sweep (a name in\n"
	"                        profiles/chargers/ or a file)\n"
	"      --port PORT       the port network: dcp (default), cdp or sdp\n"
	"      --from A          first step (default 0A)\n"
	"      --step A          step (default 50mA)\n"
	"      --to A            last step (default 3A); capped at bench.conf max_load\n"
	"      --dwell S         time at each step (default 100ms)\n"
	"      --settle S        readings in the first S of a step are not averaged\n"
	"                        (default 20ms)\n"
	"      --poll S          time between readings (default 1ms simulated, 20ms real)\n"
	"      --floor V         stop once a step's VBUS is below V (default: none)\n"
	"      --cool S          at 0 A this long at the end (default 0)\n"
	"      --cool-between S  at 0 A this long between steps (default 0)\n"
	"      --recover-wait S  after a collapse, watch VBUS come back this long\n"
	"                        (default 5s)\n"
	"      --cable OHM       the cable's round-trip resistance, when known\n"
	"      --sense2          read the supply's voltage too, the charger's side of the\n"
	"                        cable: the cable's resistance from the two\n"
	"      --rated A         the charger's rating, for the profile\n"
	"      --name NAME       the profile's name (default: the file's stem)\n"
	"  -c, --conf FILE, -d, --datadir DIR, -l, --limits FILE, -w, --wait S, -v, -q:\n"
	"                        as for run\n"
	"  -h, --help            this help\n"
	"\n"
	"A sweep stops at --to, when VBUS collapses below VBUS valid (VOTG_SESS_VLD max),\n"
	"or below --floor; after a collapse the load is released and the time VBUS takes\n"
	"to come back is the recovery (a shutdown when it stays off past --settle). Cut\n"
	"short (an instrument lost, a hard limit, SIGINT/SIGTERM) the bench goes to its\n"
	"safe state and PROFILE.partial.json says why (\"complete\": false).\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 swept, 2 bad input (options,\n"
	"profiles, bench.conf; a hard limit refused a step; fewer than 2 points),\n"
	"5 bench fault (an instrument lost or not answering, the bench in use past\n"
	"--wait), 6 the profile cannot be written, 128+N interrupted by signal N.\n";

struct sweep_opts {
	const char *out, *charger, *port, *name, *conf_path, *datadir, *limits;
	double rated_a, cable_ohm, to_a, wait_s;
	bool poll_given;
	int verbose, quiet;
	struct bn_sweep_cfg cfg;
};

static int qty_opt(const char *opt, const char *arg, enum bn_dim dim, bool positive, double *out)
{
	char why[160] = "";
	double v;

	if (bn_quantity_parse(arg, dim, &v, why, sizeof(why)) < 0) {
		char *end;

		v = strtod(arg, &end); /* a bare number is in SI units */
		if (end == arg || *end) {
			bn_term_printf(stderr, "bcbench curve sweep: %s \"%s\": %s\n", opt, arg, why);
			return 2;
		}
	}
	if (!isfinite(v) || v < 0 || (positive && v == 0)) {
		bn_term_printf(stderr, "bcbench curve sweep: %s \"%s\": expected %s %s\n", opt, arg,
			       positive ? "more than 0" : "0 or more", bn_dim_unit(dim));
		return 2;
	}
	*out = v;
	return 0;
}

static int time_opt(const char *opt, const char *arg, bool positive, bn_time_us *out)
{
	double s;
	int rc = qty_opt(opt, arg, BN_DIM_S, positive, &s);

	if (rc == 0)
		*out = bn_time_from_s(s);
	return rc;
}

static int parse(int argc, char **argv, struct sweep_opts *o)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "charger", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "from", required_argument, NULL, 'F' },
		{ "step", required_argument, NULL, 'S' },
		{ "to", required_argument, NULL, 'T' },
		{ "dwell", required_argument, NULL, 'D' },
		{ "settle", required_argument, NULL, 'E' },
		{ "poll", required_argument, NULL, 'L' },
		{ "floor", required_argument, NULL, 'f' },
		{ "cool", required_argument, NULL, 'K' },
		{ "cool-between", required_argument, NULL, 'B' },
		{ "recover-wait", required_argument, NULL, 'R' },
		{ "cable", required_argument, NULL, 'Z' },
		{ "sense2", no_argument, NULL, '2' },
		{ "rated", required_argument, NULL, 'A' },
		{ "name", required_argument, NULL, 'N' },
		{ "conf", required_argument, NULL, 'c' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "limits", required_argument, NULL, 'l' },
		{ "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bn_sweep_cfg *c = &o->cfg;
	int ch, rc = 0;

	o->port = "dcp";
	o->cable_ohm = NAN;
	o->to_a = 3.0;
	c->from_a = 0.0;
	c->step_a = 0.05;
	c->dwell_us = 100 * BN_US_PER_MS;
	c->settle_us = 20 * BN_US_PER_MS;
	c->poll_us = BN_US_PER_MS;
	c->recover_wait_us = 5 * BN_US_PER_S;
	optind = 1;
	while (rc == 0 && (ch = getopt_long(argc, argv, "o:c:d:l:w:vqh", opts, NULL)) != -1) {
		switch (ch) {
		case 'o': o->out = optarg; break;
		case 'C': o->charger = optarg; break;
		case 'P': o->port = optarg; break;
		case 'F': rc = qty_opt("--from", optarg, BN_DIM_A, false, &c->from_a); break;
		case 'S': rc = qty_opt("--step", optarg, BN_DIM_A, true, &c->step_a); break;
		case 'T': rc = qty_opt("--to", optarg, BN_DIM_A, false, &o->to_a); break;
		case 'D': rc = time_opt("--dwell", optarg, true, &c->dwell_us); break;
		case 'E': rc = time_opt("--settle", optarg, false, &c->settle_us); break;
		case 'L':
			rc = time_opt("--poll", optarg, true, &c->poll_us);
			o->poll_given = true;
			break;
		case 'f': rc = qty_opt("--floor", optarg, BN_DIM_V, true, &c->floor_v); break;
		case 'K': rc = time_opt("--cool", optarg, false, &c->cool_us); break;
		case 'B': rc = time_opt("--cool-between", optarg, false, &c->cool_between_us); break;
		case 'R': rc = time_opt("--recover-wait", optarg, false, &c->recover_wait_us); break;
		case 'Z': rc = qty_opt("--cable", optarg, BN_DIM_OHM, false, &o->cable_ohm); break;
		case '2': c->sense2 = true; break;
		case 'A': rc = qty_opt("--rated", optarg, BN_DIM_A, true, &o->rated_a); break;
		case 'N': o->name = optarg; break;
		case 'c': o->conf_path = optarg; break;
		case 'd': o->datadir = optarg; break;
		case 'l': o->limits = optarg; break;
		case 'w': rc = bn_cli_parse_wait("curve sweep", optarg, &o->wait_s); break;
		case 'v': o->verbose++; break;
		case 'q': o->quiet = 1; break;
		case 'h': fputs(bn_cli_curve_sweep_usage, stdout); return -1;
		default: fputs(bn_cli_curve_sweep_usage, stderr); return 2;
		}
	}
	if (rc)
		return rc;
	if (optind != argc) {
		bn_term_printf(stderr, "bcbench curve sweep: unexpected argument \"%s\"\n%s", argv[optind],
			       bn_cli_curve_sweep_usage);
		return 2;
	}
	if (!o->out) {
		bn_term_printf(stderr, "bcbench curve sweep: --out PROFILE.json is required\n%s",
			       bn_cli_curve_sweep_usage);
		return 2;
	}
	return 0;
}

/* Bare names are profiles/KIND/NAME.json under the data dir; paths are
 * tried as written, then under the data dir. */
static void resolve(const char *dd, const char *kind, const char *spec, char *out, size_t len)
{
	if (!strchr(spec, '/') && !strstr(spec, ".json"))
		snprintf(out, len, "%s/profiles/%s/%s.json", dd, kind, spec);
	else if (spec[0] == '/' || access(spec, R_OK) == 0)
		snprintf(out, len, "%s", spec);
	else
		snprintf(out, len, "%s/%s", dd, spec);
}

static int real_wait(void *user, bn_time_us dur, struct bn_err *err)
{
	volatile sig_atomic_t *stop = user;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int64_t left;

		if (*stop)
			return bn_err_set(err, BN_ERR_INTR, "interrupted by %s",
					  bn_cli_signal_name(*stop) ? bn_cli_signal_name(*stop) : "a signal");
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = dur - ((t.tv_sec - t0.tv_sec) * BN_US_PER_S + (t.tv_nsec - t0.tv_nsec) / 1000);
		if (left <= 0)
			return BN_OK;
		bn_sleep_us(left < 20 * BN_US_PER_MS ? left : 20 * BN_US_PER_MS);
	}
}

static bn_time_us real_now(void *user)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * BN_US_PER_S + t.tv_nsec / 1000;
}

static void print_result(const struct bn_sweep_result *r, const struct bn_sweep_meta *m,
			 const struct bn_sweep_cfg *c, const char *path)
{
	bool at_least;
	double knee = bn_sweep_knee(r, c, m, &at_least);

	bn_term_printf(stdout, "%-10s %-10s %-10s %-10s %s\n", "set_A", "I_A", "VBUS_V", "u_mV", "n");
	for (int k = 0; k < r->n; k++)
		bn_term_printf(stdout, "%-10.4f %-10.4f %-10.4f %-10.3f %d\n", r->pts[k].set_a,
			       r->pts[k].i_a, r->pts[k].v_v, r->pts[k].u_v_v * 1e3, r->pts[k].n);
	bn_term_printf(stdout, "%s: %s\n", r->complete ? "swept" : "CUT SHORT", r->end);
	if (!isnan(knee))
		bn_term_printf(stdout, "knee: %s%.4f A (VBUS >= VCHG min %.3f V%s)\n",
			       at_least ? ">= " : "", knee, m->vchg_min_v,
			       at_least ? " up to the last step" : "");
	if (r->shutdown)
		bn_term_printf(stdout, "shutdown: above %.4f A (off at %.4f A after %.4f s), %s %.4f s\n",
			       r->shutdown_above_a, r->collapse_a, r->collapse_after_s,
			       r->recovered ? "back after" : "not back within",
			       r->recovered ? r->recover_s : bn_time_to_s(c->recover_wait_us));
	bn_term_printf(stdout, "profile: %s\n", path);
}

/* The profile (or the partial one): the exit code of writing it. */
static int write_out(const struct sweep_opts *o, const struct bn_sweep_result *r,
		     const struct bn_sweep_meta *m, int sweep_rc, struct bn_err *serr)
{
	char partial[1200], name[64];
	struct bn_charger ch;
	struct bn_err err = { 0 };
	bool complete = sweep_rc == BN_OK, has_curve;
	cJSON *meas;
	const char *path = o->out;
	int rc, code = sweep_rc < 0 ? bn_cli_exit_of(sweep_rc) : 0;

	bn_json_stem(o->out, name, sizeof(name));
	has_curve = bn_sweep_charger(r, &o->cfg, m, &ch, &err) == BN_OK;
	if (!has_curve) {
		snprintf(ch.name, sizeof(ch.name), "%s", m->name);
		if (complete) {
			/* ran as set, yet no curve: the settings' fault */
			complete = false;
			code = 2;
			bn_err_set(serr, BN_ERR_DATA, "%s", err.msg);
		}
	}
	meas = bn_sweep_measured(r, &o->cfg, m);
	if (!meas)
		return BN_EXIT_ENVIRONMENT; /* out of memory */
	if (!complete) {
		bn_json_set(meas, "complete", cJSON_CreateFalse());
		if (!cJSON_GetObjectItemCaseSensitive(meas, "why"))
			cJSON_AddStringToObject(meas, "why", serr->msg);
		bn_sweep_partial_path(o->out, partial, sizeof(partial));
		path = partial;
	}
	{
		char dir[1200];
		char *slash;

		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			rc = bn_mkdir_p(dir, &err);
		} else {
			rc = BN_OK;
		}
	}
	if (rc == BN_OK)
		rc = bn_sweep_write(path, &ch, has_curve, meas, &err);
	cJSON_Delete(meas);
	if (rc < 0) {
		bn_term_printf(stderr, "bcbench curve sweep: cannot write %s: %s\n", path, err.msg);
		/* an output: never the input's fault */
		return err.code == BN_ERR_IO ? BN_EXIT_ENVIRONMENT : bn_cli_exit_of(err.code);
	}
	if (!o->quiet)
		print_result(r, m, &o->cfg, path);
	if (!complete) {
		bn_term_printf(stderr, "bcbench curve sweep: cut short: %s\n", serr->msg);
		bn_term_printf(stderr, "  %s\n", r->safe_confirmed ? "bench in safe state" :
			       "safe state sent to every instrument, NOT CONFIRMED by all (see above)");
		bn_term_printf(stderr, "  partial profile: %s\n", path);
	}
	return code;
}

int bn_cli_curve_sweep(int argc, char **argv)
{
	struct sweep_opts o = { 0 };
	struct bn_conf conf;
	struct bn_limits lim = { 0 };
	struct bn_err err = { 0 };
	struct bn_sweep_meta m = { 0 };
	struct bn_sweep_result res;
	struct bn_sweep_bench b;
	struct bn_sweep_sim sim;
	struct bn_bench_hw hw;
	struct bn_lock lock = { .fd = -1 };
	struct bn_charger chg;
	struct bn_guard sim_guard;
	struct bn_meas sim_exact;
	char dd_buf[1200], lim_path[1400], path[1400], name[64], bench_name[128];
	const char *dd;
	bool real;
	int rc, code;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	bn_log_set_level(o.quiet ? BN_LOG_ERR : BN_LOG_WARN + o.verbose);
	if (bn_cli_conf(&o.conf_path, &conf))
		return 2;
	rc = bn_cli_hw_exec("bcbench curve sweep", &conf, false);
	if (rc)
		return rc;
	dd = bn_cli_datadir(o.datadir, &conf, o.conf_path, dd_buf, sizeof(dd_buf));
	if (!dd)
		return 2;
	if (o.limits)
		snprintf(lim_path, sizeof(lim_path), "%s", o.limits);
	else if (conf.limits[0] && (access(conf.limits, R_OK) == 0 || conf.limits[0] == '/'))
		snprintf(lim_path, sizeof(lim_path), "%s", conf.limits);
	else if (conf.limits[0])
		snprintf(lim_path, sizeof(lim_path), "%s/%s", dd, conf.limits);
	else
		snprintf(lim_path, sizeof(lim_path), "%s/profiles/limits/bc12.json", dd);
	if (bn_limits_load(lim_path, &lim, &err) < 0) {
		bn_term_printf(stderr, "bcbench curve sweep: %s\n", err.msg);
		return 2;
	}
	real = bn_conf_has_hardware(&conf);
	bn_json_stem(o.out, name, sizeof(name));
	m.name = o.name ? o.name : name;
	m.conf_path = o.conf_path;
	m.simulated = !real;
	m.to_asked_a = o.to_a;
	m.vchg_min_v = bn_limits_min(&lim, "VCHG");
	m.vchg_max_v = bn_limits_max(&lim, "VCHG");
	m.limits_path = lim_path;
	m.cable_given_ohm = o.cable_ohm;
	m.rated_a = o.rated_a;
	o.cfg.valid_v = bn_limits_max(&lim, "VOTG_SESS_VLD");
	o.cfg.port_type = o.port;
	o.cfg.to_a = o.to_a;
	o.cfg.stop = bn_cli_stop_flag();
	if (conf.max_load_a > 0 && o.cfg.to_a > conf.max_load_a) {
		o.cfg.to_a = conf.max_load_a;
		m.to_capped_by = "max_load in bench.conf";
	}
	if (conf.max_power_w > 0 && conf.max_vbus_v > 0 &&
	    o.cfg.to_a > conf.max_power_w / conf.max_vbus_v) {
		/* at the highest VBUS the bench allows, the last step stays within its power */
		o.cfg.to_a = conf.max_power_w / conf.max_vbus_v;
		m.to_capped_by = "max_power / max_vbus in bench.conf";
	}
	if (o.cfg.from_a > o.cfg.to_a && m.to_capped_by) {
		bn_term_printf(stderr, "bcbench curve sweep: --from %.4g A is above the bench's hard "
			       "limit (%s: %.4g A)\n", o.cfg.from_a, m.to_capped_by, o.cfg.to_a);
		bn_limits_free(&lim);
		return 2;
	}
	if (!real && !o.poll_given)
		o.cfg.poll_us = BN_US_PER_MS;
	else if (real && !o.poll_given)
		o.cfg.poll_us = 20 * BN_US_PER_MS;
	{
		int n;

		if (bn_sweep_cfg_check(&o.cfg, &n, &err) < 0) {
			bn_term_printf(stderr, "bcbench curve sweep: %s\n", err.msg);
			bn_limits_free(&lim);
			return 2;
		}
	}
	bn_meas_ideal(&sim_exact);
	sim_guard = (struct bn_guard){ conf.max_load_a, conf.max_vbus_v, conf.max_power_w, "bench.conf" };
	bn_cli_catch_signals();
	if (!real) {
		if (!o.charger) {
			bn_term_printf(stderr, "bcbench curve sweep: the simulated bench needs --charger "
				       "NAME|FILE (the charger to sweep)\n");
			bn_limits_free(&lim);
			return 2;
		}
		if (o.cfg.sense2) {
			bn_term_printf(stderr, "bcbench curve sweep: --sense2: the simulated bench has no "
				       "second sense point (its supply reads the receptacle's VBUS)\n");
			bn_limits_free(&lim);
			return 2;
		}
		resolve(dd, "chargers", o.charger, path, sizeof(path));
		if (bn_charger_load(path, &chg, &err) < 0) {
			bn_term_printf(stderr, "bcbench curve sweep: %s\n", err.msg);
			bn_limits_free(&lim);
			return 2;
		}
		m.charger_swept = path;
		m.bench_name = "simulated";
		{
			char port_path[1400];

			resolve(dd, "ports", o.port, port_path, sizeof(port_path));
			rc = bn_sweep_sim_open(&sim, &lim, port_path, &chg, o.cfg.stop, &err);
		}
		if (rc < 0) {
			bn_term_printf(stderr, "bcbench curve sweep: %s\n", err.msg);
			bn_limits_free(&lim);
			return bn_cli_exit_of(rc);
		}
		bn_sweep_sim_bench(&sim, &b);
		/* the simulated bench keeps bench.conf's hard limits too: a sweep
		 * tried there first is refused where the real one would be */
		o.cfg.guard = &sim_guard;
		/* the simulated load reads the world exactly: its accuracy is
		 * stated (ideal). A real load's is stated nowhere bench.conf or
		 * its dialect can say (meas_vbus is the capture's channel, not
		 * the load's meter): u stays type A and the block says so. */
		o.cfg.meas_v = &sim_exact;
		o.cfg.meas_i = &sim_exact;
		rc = bn_sweep_run(&o.cfg, &b, &res, &err);
		bn_sweep_sim_close(&sim);
	} else {
		if (o.charger) {
			bn_term_printf(stderr, "bcbench curve sweep: --charger: on a real bench the charger "
				       "is what the port is wired to (%s names instruments)\n", conf.path);
			bn_limits_free(&lim);
			return 2;
		}
		bn_bench_lock_name(&conf, bench_name, sizeof(bench_name));
		m.bench_name = bench_name;
		rc = bn_cli_lock(&conf, "bcbench curve sweep", o.wait_s, o.quiet, &lock);
		if (rc) {
			bn_limits_free(&lim);
			return rc;
		}
		rc = bn_bench_hw_open(&hw, &conf, dd, &err);
		if (rc < 0) {
			bn_term_printf(stderr, "bcbench curve sweep: %s\n", err.msg);
			bn_lock_release(&lock);
			bn_limits_free(&lim);
			return bn_cli_exit_of(rc);
		}
		if (!hw.load.ops) {
			bn_term_printf(stderr, "bcbench curve sweep: %s names no load (load = scpi:PORT): "
				       "nothing to sweep with\n", conf.path);
			bn_bench_hw_close(&hw);
			bn_lock_release(&lock);
			bn_limits_free(&lim);
			return 2;
		}
		b = (struct bn_sweep_bench){ .fx = hw.fixture.ops ? &hw.fixture : NULL,
					     .ld = &hw.load,
					     .sp = hw.supply.ops ? &hw.supply : NULL,
					     .clock = { (void *)o.cfg.stop, real_wait, real_now } };
		o.cfg.guard = &hw.guard;
		rc = bn_sweep_run(&o.cfg, &b, &res, &err);
		bn_bench_hw_close(&hw);
		bn_lock_release(&lock);
	}
	if (rc == BN_ERR_INTR && *o.cfg.stop && bn_cli_signal_name(*o.cfg.stop)) {
		bn_err_clear(&err);
		bn_err_set(&err, BN_ERR_INTR, "interrupted by %s", bn_cli_signal_name(*o.cfg.stop));
		snprintf(res.end, sizeof(res.end), "%s", err.msg);
	}
	code = write_out(&o, &res, &m, rc, &err);
	bn_sweep_result_free(&res);
	bn_limits_free(&lim);
	return code;
}
