#define _GNU_SOURCE /* pipe2 */
/* A real supply following a charger profile (hil/supply_follow.h), against
 * the instrument emulator (tests/emu/instr_emu.c, $BN_EMUDIR) on a
 * pseudo-terminal: its output current steps when the test (or the
 * emulated load sharing its sink file) says, and what it was sent is in
 * its log. A load step on a drooping profile moves the setpoint to the
 * curve's voltage at the new current at the loop's next step; the
 * profile's shutdown is played; the hard limits refuse a profile before
 * anything is sent; through the runner, a scenario's load step moves the
 * supply, the report states the loop's rate, and a supply that stops
 * answering ends the run as a bench fault (exit 3) in the safe state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/harness.h"
#include "core/conf.h"
#include "hil/backend.h"
#include "hil/scpi.h"
#include "hil/supply_follow.h"
#include "scenario/runner.h"
#include "sim/charger.h"
#include "core/time.h"

#define T_MS 200
#define RETRIES 1
#define MAX_LOG 4096

struct emu {
	pid_t pid;
	char path[64];
	char log[1100];
};

struct fx {
	char dir[64];
	char sink[1100];   /* the sink file the supply reads (and the load writes) */
	struct emu sup, ld;
	struct bn_err err;
	char (*lines)[64];
	int n_lines;
};

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* instr_emu --family FAMILY --log DIR/NAME.log EXTRA...: its pty path. */
static void emu_start(struct fx *f, struct emu *e, const char *family, const char *const *extra)
{
	const char *dir = getenv("BN_EMUDIR");
	char exe[1024], line[128] = "";
	const char *argv[16];
	int pfd[2], n_arg = 0;
	size_t n = 0;

	snprintf(exe, sizeof(exe), "%s/instr_emu", dir && *dir ? dir : "build/emu");
	if (access(exe, X_OK) < 0)
		fail_msg("%s: not built (make units; BN_EMUDIR names the emulator's folder)", exe);
	snprintf(e->log, sizeof(e->log), "%s/%s.log", f->dir, family);
	argv[n_arg++] = exe;
	argv[n_arg++] = "--family";
	argv[n_arg++] = family;
	argv[n_arg++] = "--log";
	argv[n_arg++] = e->log;
	for (int i = 0; extra && extra[i] && n_arg < 15; i++)
		argv[n_arg++] = extra[i];
	argv[n_arg] = NULL;
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	e->pid = fork();
	assert_true(e->pid >= 0);
	if (e->pid == 0) {
		dup2(pfd[1], 1);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	while (n < sizeof(line) - 1) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		if (poll(&p, 1, 5000) <= 0 || read(pfd[0], line + n, 1) <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(pfd[0]);
	if (strncmp(line, "/dev/", 5))
		fail_msg("instr_emu --family %s printed \"%s\", not a pty path", family, line);
	snprintf(e->path, sizeof(e->path), "%s", line);
}

static void emu_reap(struct emu *e)
{
	int st;

	if (e->pid <= 0)
		return;
	for (int t = 0; t < 3000; t += 10) {
		if (waitpid(e->pid, &st, WNOHANG) == e->pid) {
			e->pid = 0;
			return;
		}
		sleep_ms(10);
	}
	kill(e->pid, SIGTERM);
	waitpid(e->pid, &st, 0);
	e->pid = 0;
}

static void read_log(struct fx *f, const struct emu *e)
{
	FILE *fp = fopen(e->log, "r");

	f->n_lines = 0;
	assert_non_null(fp);
	while (f->n_lines < MAX_LOG && fgets(f->lines[f->n_lines], sizeof(f->lines[0]), fp)) {
		f->lines[f->n_lines][strcspn(f->lines[f->n_lines], "\n")] = '\0';
		f->n_lines++;
	}
	fclose(fp);
}

/* The index of the first log line equal to s at or after from; -1. */
static int find_line(const struct fx *f, const char *s, int from)
{
	for (int i = from < 0 ? 0 : from; i < f->n_lines; i++)
		if (!strcmp(f->lines[i], s))
			return i;
	return -1;
}

/* The last line starting with prefix; NULL. */
static const char *last_with(const struct fx *f, const char *prefix)
{
	for (int i = f->n_lines - 1; i >= 0; i--)
		if (!strncmp(f->lines[i], prefix, strlen(prefix)))
			return f->lines[i];
	return NULL;
}

static void set_sink(struct fx *f, double amps)
{
	char tmp[1200];
	FILE *fp;

	snprintf(tmp, sizeof(tmp), "%s.tmp", f->sink);
	fp = fopen(tmp, "w");
	assert_non_null(fp);
	fprintf(fp, "%.6f\n", amps);
	fclose(fp);
	assert_int_equal(rename(tmp, f->sink), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || !(f->lines = calloc(MAX_LOG, sizeof(*f->lines))))
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/bn-follow-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->sink, sizeof(f->sink), "%s/sink", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	DIR *d;
	struct dirent *de;

	emu_reap(&f->sup);
	emu_reap(&f->ld);
	d = opendir(f->dir);
	while (d && (de = readdir(d))) {
		char p[1200];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", f->dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f->lines);
	free(f);
	return 0;
}

static struct bn_backend_open opener(char *file, size_t len, const char *dialect)
{
	bn_test_path("profiles/instruments/", file, len);
	strncat(file, dialect, len - strlen(file) - 6);
	strcat(file, ".json");
	return (struct bn_backend_open){ .file = file, .timeout_ms = T_MS, .retries = RETRIES };
}

static void open_supply(struct fx *f, struct bn_supply *sp)
{
	char file[1024], spec[96];
	struct bn_backend_open o = opener(file, sizeof(file), "rigol-dp800");

	assert_ptr_equal(bn_supply_backend("scpi"), &bn_supply_scpi_ops);
	snprintf(spec, sizeof(spec), "scpi:%s@115200", f->sup.path);
	if (bn_supply_open(sp, spec, &o, &f->err) < 0)
		fail_msg("%s", f->err.msg);
}

static void open_load(struct fx *f, struct bn_load *ld)
{
	char file[1024], spec[96];
	struct bn_backend_open o = opener(file, sizeof(file), "rigol-dl3000");

	assert_ptr_equal(bn_load_backend("scpi"), &bn_load_scpi_ops);
	snprintf(spec, sizeof(spec), "scpi:%s@115200", f->ld.path);
	if (bn_load_open(ld, spec, &o, &f->err) < 0)
		fail_msg("%s", f->err.msg);
}

static void load_charger(const char *name, struct bn_charger *c)
{
	char path[1024], rel[128];
	struct bn_err err = { 0 };

	snprintf(rel, sizeof(rel), "profiles/chargers/%s.json", name);
	bn_test_path(rel, path, sizeof(path));
	if (bn_charger_load(path, c, &err) < 0)
		fail_msg("%s", err.msg);
}

static void start_follow(struct fx *f, struct bn_follow *fl, struct bn_supply *sp,
			 struct bn_follow_charger *fc, const struct bn_charger *c,
			 const struct bn_guard *g)
{
	struct bn_follow_opts fo = { .v_at = bn_follow_charger_v, .user = fc };

	bn_follow_charger_init(fc, c);
	bn_follow_charger_bounds(c, &fo.v_max_v, &fo.ilim_a);
	if (bn_follow_start(fl, sp, g, &fo, &f->err) < 0)
		fail_msg("%s", f->err.msg);
}

/* dcp-weak less its 0.1 ohm cable: 5.02 V at 0.1 A, 4.32 V at 0.8 A. The
 * step that first reads the new current sets the new voltage: within
 * one loop period of the load step, and not before it. */
static void test_follow__load_step_on_drooping_curve(void **state)
{
	struct fx *f = *state;
	struct bn_supply sp = { 0 };
	struct bn_charger c;
	struct bn_follow fl;
	struct bn_follow_charger fc;
	struct bn_follow_stats st;
	const char *extra[] = { "--ohms", "0", "--sink-file", f->sink, NULL };
	double t0, t_step = -1, v_before;
	long steps_at_write;

	load_charger("dcp-weak", &c);
	set_sink(f, 0.1);
	emu_start(f, &f->sup, "rigol-dp800", extra);
	open_supply(f, &sp);
	start_follow(f, &fl, &sp, &fc, &c, NULL);
	assert_near(fl.v_set_v, 5.05, 1e-9); /* open circuit until a current is read */
	t0 = bn_mono_s();
	while (bn_mono_s() - t0 < 0.15)
		assert_int_equal(bn_follow_step(&fl, bn_mono_s() - t0, &f->err), BN_OK);
	assert_near(fl.i_meas_a, 0.1, 1e-6);
	assert_near(fl.v_set_v, 5.02, 1e-9);
	assert_near(fl.v_meas_v, 5.02, 1e-3);
	v_before = fl.v_set_v;
	set_sink(f, 0.8); /* the load step */
	steps_at_write = fl.steps;
	while (bn_mono_s() - t0 < 0.3) {
		assert_int_equal(bn_follow_step(&fl, bn_mono_s() - t0, &f->err), BN_OK);
		if (t_step < 0 && fabs(fl.v_set_v - v_before) > 1e-6) {
			t_step = bn_mono_s() - t0;
			/* the first step after the load step moved it */
			assert_int_equal(fl.steps, steps_at_write + 1);
		}
	}
	assert_true(t_step > 0);
	assert_near(fl.v_set_v, 4.32, 1e-9);
	assert_near(fl.v_meas_v, 4.32, 1e-3); /* the supply answers with it */
	bn_follow_stats(&fl, &st);
	/* a pty answers in well under a millisecond: dozens of steps */
	assert_true(st.steps > 20);
	assert_true(st.loop_hz > 50);
	assert_true(st.ops_hz >= st.loop_hz); /* a reading each step, and the setpoints */
	assert_true(st.max_period_s > 0 && st.max_period_s < 0.1);
	assert_near(st.max_jump_v, 5.02 - 4.32, 1e-9); /* the load step's */
	/* two setpoints after the open-circuit one, with a flat current
	 * nothing else is sent: the deadband holds */
	assert_int_equal(st.sets, 2);
	{
		char d[400];

		bn_follow_describe(&st, d, sizeof(d));
		assert_true(strlen(d) < sizeof(((struct bn_result *)0)->reason));
		assert_non_null(strstr(d, "steps/s"));
		assert_non_null(strstr(d, "not reproduced"));
	}
	bn_supply_close(&sp);
	emu_reap(&f->sup);
	read_log(f, &f->sup);
	assert_true(find_line(f, ":SOUR1:CURR 1.000", 0) >= 0); /* the curve's last delivering point */
	assert_true(find_line(f, ":SOUR1:VOLT 5.020", 0) >= 0);
	assert_true(find_line(f, ":SOUR1:VOLT 4.320", find_line(f, ":SOUR1:VOLT 5.020", 0)) > 0);
	assert_string_equal(last_with(f, ":SOUR1:VOLT"), ":SOUR1:VOLT 4.320");
}

/* The profile's highest voltage beyond max_vbus: refused, nothing sent
 * to switch the supply on. */
static void test_follow__hard_limits_refuse_profile(void **state)
{
	struct fx *f = *state;
	struct bn_supply sp = { 0 };
	struct bn_charger c;
	struct bn_follow fl;
	struct bn_follow_charger fc;
	struct bn_follow_opts fo = { .v_at = bn_follow_charger_v, .user = &fc };
	struct bn_guard g = { .max_vbus_v = 5.0, .origin = "bench.conf" };

	load_charger("dcp-weak", &c);
	emu_start(f, &f->sup, "rigol-dp800", NULL);
	open_supply(f, &sp);
	bn_follow_charger_init(&fc, &c);
	bn_follow_charger_bounds(&c, &fo.v_max_v, &fo.ilim_a);
	assert_int_equal(bn_follow_start(&fl, &sp, &g, &fo, &f->err), BN_ERR_ARG);
	assert_msg_has(&f->err, "max_vbus");
	assert_false(bn_follow_due(&fl));
	bn_supply_close(&sp);
	emu_reap(&f->sup);
	read_log(f, &f->sup);
	assert_null(last_with(f, ":SOUR1:VOLT"));
	assert_int_equal(find_line(f, ":OUTP CH1,ON", 0), -1);
}

static double v_nan(void *user, double t_s, double i_a)
{
	(void)user, (void)t_s, (void)i_a;
	return NAN;
}

static double v_negative(void *user, double t_s, double i_a)
{
	(void)user, (void)t_s, (void)i_a;
	return -0.5;
}

/* A profile whose voltage at turn-on is not a voltage (NaN, negative):
 * refused with a message saying so, the supply never switched on (it
 * used to start at the profile's maximum). */
static void test_follow__bad_start_voltage_refused(void **state)
{
	struct fx *f = *state;
	struct bn_supply sp = { 0 };
	struct bn_follow fl;
	bn_follow_v_fn fns[2] = { v_nan, v_negative };

	emu_start(f, &f->sup, "rigol-dp800", NULL);
	open_supply(f, &sp);
	for (int k = 0; k < 2; k++) {
		struct bn_follow_opts fo = { .v_at = fns[k], .v_max_v = 5.2, .ilim_a = 1.0 };

		bn_err_clear(&f->err);
		assert_int_equal(bn_follow_start(&fl, &sp, NULL, &fo, &f->err), BN_ERR_DATA);
		assert_msg_has(&f->err, "expected a voltage from 0 to 5.2 V");
		assert_false(bn_follow_due(&fl));
	}
	bn_supply_close(&sp);
	emu_reap(&f->sup);
	read_log(f, &f->sup);
	assert_null(last_with(f, ":SOUR1:VOLT"));
	assert_int_equal(find_line(f, ":OUTP CH1,ON", 0), -1);
}

/* dcp-shutdown-1a2: over 1.2 A for 5 ms turns it off for 1 s; the loop
 * plays that at its steps (times given here, as the runner gives its
 * bench time). */
static void test_follow__shutdown_played(void **state)
{
	struct fx *f = *state;
	struct bn_supply sp = { 0 };
	struct bn_charger c;
	struct bn_follow fl;
	struct bn_follow_charger fc;
	const char *extra[] = { "--ohms", "0", "--sink-file", f->sink, NULL };
	double on_v;

	load_charger("dcp-shutdown-1a2", &c);
	set_sink(f, 1.0);
	emu_start(f, &f->sup, "rigol-dp800", extra);
	open_supply(f, &sp);
	start_follow(f, &fl, &sp, &fc, &c, NULL);
	assert_int_equal(bn_follow_step(&fl, 0.0, &f->err), BN_OK);
	on_v = bn_charger_v_out(&c, 1.0) - 1.0 * c.cable_ohm;
	assert_near(fl.v_set_v, on_v, 1e-9);
	set_sink(f, 1.5);
	assert_int_equal(bn_follow_step(&fl, 0.010, &f->err), BN_OK); /* over from here */
	assert_true(fl.v_set_v > 4.5);
	assert_int_equal(bn_follow_step(&fl, 0.020, &f->err), BN_OK); /* 10 ms over: off */
	assert_near(fl.v_set_v, 0.0, 1e-9);
	set_sink(f, 0.5);
	assert_int_equal(bn_follow_step(&fl, 0.5, &f->err), BN_OK); /* still recovering */
	assert_near(fl.v_set_v, 0.0, 1e-9);
	/* back after 1 s (the emulated sink draws its 0.5 A even at 0 V) */
	assert_int_equal(bn_follow_step(&fl, 1.1, &f->err), BN_OK);
	assert_near(fl.v_set_v, bn_charger_v_out(&c, 0.5) - 0.5 * c.cable_ohm, 1e-9);
	bn_supply_close(&sp);
}

/* A profile in time (sim/charger.h, profile v2) written to the scratch
 * directory and loaded. */
static void load_text_charger(struct fx *f, const char *name, const char *text,
			      struct bn_charger *c)
{
	char path[1200];
	FILE *fp;
	struct bn_err err = { 0 };

	snprintf(path, sizeof(path), "%s/%s.json", f->dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	if (bn_charger_load(path, c, &err) < 0)
		fail_msg("%s", err.msg);
	unlink(path);
}

/* A schedule, a captured series and a power-up overshoot: the loop asks
 * for the voltage at its own time; what is above the static curves'
 * highest voltage (the overshoot) is capped there and counted. */
static void test_follow__profile_in_time(void **state)
{
	struct fx *f = *state;
	struct bn_supply sp = { 0 };
	struct bn_charger *c = calloc(1, sizeof(*c));
	struct bn_follow fl;
	struct bn_follow_charger fc;
	struct bn_follow_stats st;
	struct bn_guard g = { .max_vbus_v = 5.5 };
	const char *extra[] = { "--ohms", "0", "--sink-file", f->sink, NULL };
	char d[400];

	assert_non_null(c);
	set_sink(f, 0.5);
	emu_start(f, &f->sup, "rigol-dp800", extra);
	open_supply(f, &sp);
	/* the schedule: 5.05 V at 0.5 A, from 200 ms 4.75 V */
	load_text_charger(f, "sched", "{\"name\": \"sched\", \"curve\": [[0, 5.1], [2, 4.9]], "
			  "\"cable\": \"0ohm\", \"schedule\": [{\"from\": \"200ms\", "
			  "\"curve\": [[0, 4.8], [2, 4.6]]}]}", c);
	start_follow(f, &fl, &sp, &fc, c, &g);
	assert_int_equal(bn_follow_step(&fl, 0.1, &f->err), BN_OK);
	assert_near(fl.v_set_v, 5.05, 1e-9);
	assert_int_equal(bn_follow_step(&fl, 0.3, &f->err), BN_OK);
	assert_near(fl.v_set_v, 4.75, 1e-9);
	/* a captured VBUS(t) behind 0.2 ohm, at no draw when captured */
	load_text_charger(f, "series", "{\"name\": \"series\", \"curve\": [[0, 5.0], [2, 5.0]], "
			  "\"cable\": \"0ohm\", \"vbus_t\": {\"samples\": [[0, 5.0, 0], [0.1, 4.8, 0], "
			  "[0.2, 5.0, 0]], \"r_out\": \"0.2ohm\"}}", c);
	start_follow(f, &fl, &sp, &fc, c, &g);
	assert_int_equal(bn_follow_step(&fl, 0.05, &f->err), BN_OK);
	assert_near(fl.v_set_v, 4.9 - 0.2 * 0.5, 1e-9);
	assert_int_equal(bn_follow_step(&fl, 0.5, &f->err), BN_OK); /* after it: the curve */
	assert_near(fl.v_set_v, 5.0, 1e-9);
	/* 6.3 V at power-up, 2 ms: capped at the curve's 5.1 V, never sent */
	load_text_charger(f, "peak", "{\"name\": \"peak\", \"curve\": [[0, 5.1], [2, 4.9]], "
			  "\"cable\": \"0ohm\", \"power_up\": {\"peak\": \"6.3V\", \"tau\": \"2ms\"}}", c);
	start_follow(f, &fl, &sp, &fc, c, &g);
	assert_near(fl.v_set_v, 5.1, 1e-9);
	assert_int_equal(bn_follow_step(&fl, 0.001, &f->err), BN_OK);
	assert_near(fl.v_set_v, 5.1, 1e-9);
	assert_int_equal(bn_follow_step(&fl, 0.1, &f->err), BN_OK); /* settled */
	assert_near(fl.v_set_v, 5.05, 1e-6);
	bn_follow_stats(&fl, &st);
	/* the start (6.3 V asked at 0 s) and the step at 1 ms */
	assert_int_equal(st.capped, 2);
	bn_follow_describe(&st, d, sizeof(d));
	assert_true(strlen(d) < sizeof(((struct bn_result *)0)->reason));
	assert_non_null(strstr(d, "2 overshoot setpoint(s) capped at 5.10 V"));
	bn_supply_close(&sp);
	emu_reap(&f->sup);
	read_log(f, &f->sup);
	for (int i = 0; i < f->n_lines; i++)
		if (!strncmp(f->lines[i], ":SOUR1:VOLT ", 12) && atof(f->lines[i] + 12) > 5.1 + 1e-9)
			fail_msg("sent %s, above the curve's 5.1 V", f->lines[i]);
	free(c);
}

/* ---- through the runner ---- */

struct run {
	struct bn_supply sp;
	struct bn_load ld;
	struct bn_report rep;
	struct bn_err err;
	int rc;
};

static void run_scn(struct fx *f, struct run *r, bool follow, const char *out_dir,
		    const char *scn)
{
	char path[1024];
	struct bn_guard g = { .max_load_a = 3.0, .max_vbus_v = 5.5, .max_power_w = 15.0 };
	struct bn_run_opts o;

	open_supply(f, &r->sp);
	open_load(f, &r->ld);
	bn_test_path(scn, path, sizeof(path));
	o = (struct bn_run_opts){
		.scenario_path = path,
		.datadir = bn_test_srcdir(),
		.load = &r->ld,
		.supply = &r->sp,
		.guard = &g,
		.real_time = true,
		.real_bench = true,
		.supply_follow = follow,
		.out_dir = out_dir,
	};
	bn_report_init(&r->rep);
	r->rc = bn_run_scenario(&o, &r->rep, &r->err);
	bn_load_close(&r->ld);
	bn_supply_close(&r->sp);
	emu_reap(&f->sup);
	emu_reap(&f->ld);
}

static void run_follow_to(struct fx *f, struct run *r, bool follow, const char *out_dir)
{
	run_scn(f, r, follow, out_dir, "tests/data/scenarios/follow-load-step.scn");
}

static void run_follow(struct fx *f, struct run *r, bool follow)
{
	run_follow_to(f, r, follow, NULL);
}

static const struct bn_result *result(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	return NULL;
}

static void start_pair_opt(struct fx *f, const char *opt, const char *val)
{
	const char *sup_extra[] = { "--ohms", "0", "--sink-file", f->sink, opt, val, NULL };
	const char *ld_extra[] = { "--sink-out", f->sink, NULL };

	set_sink(f, 0.0);
	emu_start(f, &f->sup, "rigol-dp800", sup_extra);
	emu_start(f, &f->ld, "rigol-dl3000", ld_extra);
}

static void start_pair(struct fx *f, const char *stall)
{
	start_pair_opt(f, stall ? "--stall-after" : NULL, stall);
}

/* The scenario's load steps reach the supply through the emulated load
 * (one port): the supply is set to 5.02 V at 0.1 A, 4.32 V at 0.8 A and
 * back to 5.05 V with the load off; the report states the loop's rate. */
static void test_follow__runner_follows_load_steps(void **state)
{
	struct fx *f = *state;
	struct run *r = calloc(1, sizeof(*r));
	const struct bn_result *res;
	int a, b;

	start_pair(f, NULL);
	run_follow(f, r, true);
	if (r->rc < 0)
		fail_msg("%s", r->err.msg);
	if (r->rep.status != BN_RUN_COMPLETED)
		fail_msg("run: %s", r->rep.reason);
	res = result(&r->rep, "bench.supply_follow");
	assert_non_null(res);
	assert_string_equal(res->kind, "bench");
	assert_int_equal(res->verdict, BN_VERDICT_SKIPPED);
	assert_string_equal(res->unit, "Hz");
	assert_true(res->measured > 20); /* the runner steps it every 10 ms at most */
	assert_string_equal(res->figures[0].name, "loop_rate");
	assert_string_equal(res->figures[2].name, "slowest_edge");
	assert_true(res->figures[2].value > 0 && res->figures[2].value < 0.5);
	assert_non_null(strstr(res->reason, "not reproduced"));
	read_log(f, &f->sup);
	a = find_line(f, ":SOUR1:VOLT 5.020", 0);
	b = find_line(f, ":SOUR1:VOLT 4.320", a);
	assert_true(a > 0);
	assert_true(b > a);
	assert_string_equal(last_with(f, ":SOUR1:VOLT"), ":SOUR1:VOLT 5.050");
	assert_string_equal(last_with(f, ":OUTP"), ":OUTP CH1,OFF"); /* safe at the end */
	bn_report_free(&r->rep);
	free(r);
}

static bool has_event(const struct bn_report *rep, const char *kind, const char *detail)
{
	const cJSON *ev;

	cJSON_ArrayForEach(ev, rep->events) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(ev, "kind");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "detail");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, kind) && cJSON_IsString(d) &&
		    !strcmp(d->valuestring, detail))
			return true;
	}
	return false;
}

/* A move to a port with another charger: the loop follows that one from
 * the move, with its current limit (dcp-weak's 1.0 A, dcp-1a's 1.2 A). */
static void test_follow__runner_follows_move(void **state)
{
	struct fx *f = *state;
	struct run *r = calloc(1, sizeof(*r));
	int a, b;

	start_pair(f, NULL);
	run_scn(f, r, true, NULL, "tests/data/scenarios/follow-move.scn");
	if (r->rep.status != BN_RUN_COMPLETED)
		fail_msg("run: %s", r->rep.reason);
	assert_true(has_event(&r->rep, "supply", "dcp-1a"));
	read_log(f, &f->sup);
	a = find_line(f, ":SOUR1:VOLT 4.900", 0);
	b = find_line(f, ":SOUR1:VOLT 4.980", a);
	if (a < 0 || b < a)
		fail_msg("4.900 V at %d, 4.980 V at %d", a, b);
	a = find_line(f, ":SOUR1:CURR 1.000", 0);
	assert_true(a > 0);
	assert_true(find_line(f, ":SOUR1:CURR 1.200", a) > a);
	assert_non_null(strstr(result(&r->rep, "bench.supply_follow")->text, "moves' chargers"));
	bn_report_free(&r->rep);
	free(r);
}

/* Without supply_follow the supply sits at the open-circuit voltage: the
 * same run never sets the curve's voltage at 0.8 A (what fails above
 * without the loop). */
static void test_follow__runner_fixed_without_follow(void **state)
{
	struct fx *f = *state;
	struct run *r = calloc(1, sizeof(*r));

	start_pair(f, NULL);
	run_follow(f, r, false);
	assert_int_equal(r->rep.status, BN_RUN_COMPLETED);
	assert_null(result(&r->rep, "bench.supply_follow"));
	read_log(f, &f->sup);
	assert_int_equal(find_line(f, ":SOUR1:VOLT 4.320", 0), -1);
	assert_string_equal(last_with(f, ":SOUR1:VOLT"), ":SOUR1:VOLT 5.050");
	bn_report_free(&r->rep);
	free(r);
}

/* The supply stops answering mid-run: the run ends as a bench fault
 * (exit 3) naming it, the load is switched off, the report still says
 * how far the loop got. */
static void test_follow__supply_stalls(void **state)
{
	struct fx *f = *state;
	struct run *r = calloc(1, sizeof(*r));
	const struct bn_result *res;

	start_pair(f, "60");
	run_follow(f, r, true);
	assert_int_equal(r->rc, BN_OK);
	assert_int_equal(r->rep.status, BN_RUN_ERROR);
	/* a supply that stops answering: a bench fault, to retry */
	assert_int_equal(r->rep.exit_code, 5);
	assert_int_equal(bn_report_exit_code(&r->rep), 5);
	if (!strstr(r->rep.reason, "no answer") && !strstr(r->rep.reason, "supply"))
		fail_msg("reason \"%s\" names neither the supply nor its silence", r->rep.reason);
	res = result(&r->rep, "bench.supply_follow");
	assert_non_null(res);
	/* the load went off (the safe state) after its last setpoint */
	read_log(f, &f->ld);
	assert_string_equal(last_with(f, ":SOUR:INP:STAT"), ":SOUR:INP:STAT OFF");
	bn_report_free(&r->rep);
	free(r);
}

/* A slow supply (15 ms a reply): the polled grid's rate is still a whole
 * number of Hz, so the capture file can be written, and the loop's rate
 * is what the instrument allows (a step is two queries, under 33/s). */
static void test_follow__slow_supply(void **state)
{
	struct fx *f = *state;
	struct run *r = calloc(1, sizeof(*r));
	char out[1200];
	const struct bn_result *res;

	snprintf(out, sizeof(out), "%s/out", f->dir);
	start_pair_opt(f, "--delay-ms", "15");
	run_follow_to(f, r, true, out);
	if (r->rep.status != BN_RUN_COMPLETED)
		fail_msg("run: %s", r->rep.reason);
	assert_near(r->rep.rate_hz, round(r->rep.rate_hz), 1e-9);
	/* two readings of 15 ms each a poll: the grid cannot be faster than
	 * the instrument allows (how much slower depends on the machine) */
	assert_true(r->rep.rate_hz <= 1.0 / 0.030);
	res = result(&r->rep, "bench.supply_follow");
	assert_non_null(res);
	assert_true(res->measured > 1 && res->measured < 1.0 / 0.030);
	bn_report_free(&r->rep);
	free(r);
	{
		/* the run's files, for the teardown */
		const char *files[] = { "capture.sr", "events.json", NULL };

		for (int i = 0; files[i]; i++) {
			char p[1300];

			snprintf(p, sizeof(p), "%s/%s", out, files[i]);
			unlink(p);
		}
		rmdir(out);
	}
}

/* bench.conf supply_mode: fixed by default, follow when asked, anything
 * else refused at its line. */
static void test_follow__conf_key(void **state)
{
	struct fx *f = *state;
	struct bn_conf c;
	char path[1200];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/bench.conf", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("max_vbus = 5.5V\n", fp);
	fclose(fp);
	bn_conf_defaults(&c);
	assert_int_equal(bn_conf_load(path, &c, &f->err), BN_OK);
	assert_string_equal(c.supply_mode, "fixed");
	fp = fopen(path, "w");
	fputs("supply_mode = follow\n", fp);
	fclose(fp);
	assert_int_equal(bn_conf_load(path, &c, &f->err), BN_OK);
	assert_string_equal(c.supply_mode, "follow");
	fp = fopen(path, "w");
	fputs("# a bench\nsupply_mode = track\n", fp);
	fclose(fp);
	assert_int_equal(bn_conf_load(path, &c, &f->err), BN_ERR_DATA);
	assert_msg_has(&f->err, ":2: error: supply_mode \"track\": expected fixed");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_follow__load_step_on_drooping_curve),
		T(test_follow__hard_limits_refuse_profile),
		T(test_follow__bad_start_voltage_refused),
		T(test_follow__shutdown_played),
		T(test_follow__profile_in_time),
		T(test_follow__runner_follows_load_steps),
		T(test_follow__runner_fixed_without_follow),
		T(test_follow__runner_follows_move),
		T(test_follow__supply_stalls),
		T(test_follow__slow_supply),
		T(test_follow__conf_key),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
