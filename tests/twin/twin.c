/* bcbench-twin: the simulated world behind emulated instruments (the bench
 * twin), so a `bcbench run` with a real bench.conf exercises every real
 * backend at once. twin_opts.c has the command line; the parts:
 *
 *   twin_world    the world, in real time: bn_world_run_until follows the
 *                 monotonic clock, a poll() of every link at most 2 ms apart
 *   twin_fixture  the FTDI chip behind bcbench-twin-host's libftdi1
 *   twin_instr    the SCPI load (pty), supply (TCP) and the scpi-pps capture
 *                 device (TCP) libsigrok drives (--capture pps)
 *   twin_scope    the sample source of the fake Hantek 6022BE (tests/fakeusb)
 *                 that libsigrok's hantek-6xxx driver drives (--capture scope)
 *   twin_console  the device's telemetry console (pty)
 *   twin_usbhost  the bench PC's kernel as the device's USB host (a fake
 *                 USB core on a sysfs tree under the run dir)
 *
 * Once everything listens it prints the bench.conf lines a run needs (and
 * writes them to --conf-out), then serves until SIGTERM, SIGINT, SIGHUP or
 * "quit" on its control socket (RUNDIR/control.sock, lines: quit, status,
 * ping). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "twin_console.h"
#include "twin_fixture.h"
#include "twin_instr.h"
#include "twin_opts.h"
#include "twin_scope.h"
#include "twin_usbhost.h"
#include "twin_world.h"

#define TWIN_POLL_MS 2
#define TWIN_MAX_FDS 64

struct twin {
	struct twin_opts o;
	char datadir[PATH_MAX], fixture_file[PATH_MAX], run_dir[200], fakeusb[PATH_MAX];
	bool own_run_dir;
	int64_t t0_us;
	FILE *f_fx, *f_load, *f_supply, *f_cap, *f_samples, *f_console, *f_world, *f_twin, *f_usb;
	FILE *f_scope, *f_scope_samples;
	struct twin_fixture fx;
	struct twin_world tw;
	bool have_world;
	struct twin_instr load, supply, pps;
	struct twin_scope scope;
	bool have_scope;
	struct twin_console con;
	bool have_con;
	struct twin_usbhost usb;
	bool have_usb;
	struct twin_link ctl;
	bool quit;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static bn_time_us twin_now(const struct twin *t)
{
	return mono_us() - t->t0_us;
}

static FILE *open_log(const struct twin *t, const char *name)
{
	char path[PATH_MAX + 64];
	FILE *f;

	if (!t->o.log_dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", t->o.log_dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "bcbench-twin: %s: %s (not logged)\n", path, strerror(errno));
	return f;
}

static void on_telemetry(void *user, bn_time_us at, const char *key, const char *val)
{
	struct twin *t = user;

	if (t->have_con)
		twin_console_telemetry(&t->con, at, key, val);
}

static void on_sample(void *user, bn_time_us at, const struct bn_sample *s)
{
	struct twin *t = user;

	twin_scope_sample(&t->scope, at, s);
}

/* --fakeusb, else ../fakeusb beside this program (BUILD/tests/twin ->
 * BUILD/tests/fakeusb), absolute: the run's LD_LIBRARY_PATH. */
static int resolve_fakeusb(struct twin *t, struct bn_err *err)
{
	char dir[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n;

	if (t->o.fakeusb_dir) {
		snprintf(dir, sizeof(dir), "%s", t->o.fakeusb_dir);
	} else {
		n = readlink("/proc/self/exe", dir, sizeof(dir) - 16);
		if (n <= 0)
			return bn_err_set(err, BN_ERR_IO, "--capture scope: /proc/self/exe: %s (give --fakeusb DIR)",
					  strerror(errno));
		dir[n] = '\0';
		*strrchr(dir, '/') = '\0';
		strcat(dir, "/../fakeusb");
	}
	if (!realpath(dir, t->fakeusb))
		return bn_err_set(err, BN_ERR_ARG, "--capture scope: the fake libusb's directory %s: %s "
				  "(make fakeusb builds it; or give --fakeusb DIR)", dir, strerror(errno));
	snprintf(lib, sizeof(lib), "%s/libusb-1.0.so.0", t->fakeusb);
	if (access(lib, R_OK) != 0)
		return bn_err_set(err, BN_ERR_ARG, "--capture scope: %s: %s (make fakeusb builds it)", lib,
				  strerror(errno));
	return BN_OK;
}

static int resolve_paths(struct twin *t, struct bn_err *err)
{
	char fx[PATH_MAX + 64];

	if (!realpath(t->o.datadir, t->datadir))
		return bn_err_set(err, BN_ERR_ARG, "--datadir %s: %s", t->o.datadir, strerror(errno));
	if (t->o.fixture_file)
		snprintf(fx, sizeof(fx), "%s", t->o.fixture_file);
	else
		snprintf(fx, sizeof(fx), "%s/fixtures/bcbench-fixture-a.json", t->datadir);
	if (!realpath(fx, t->fixture_file))
		return bn_err_set(err, BN_ERR_ARG, "fixture file %s: %s", fx, strerror(errno));
	if (t->o.run_dir) {
		if (mkdir(t->o.run_dir, 0700) < 0 && errno != EEXIST)
			return bn_err_set(err, BN_ERR_IO, "--run-dir %s: %s", t->o.run_dir, strerror(errno));
		if (strlen(t->o.run_dir) >= sizeof(t->run_dir) - 20)
			return bn_err_set(err, BN_ERR_ARG, "--run-dir %s: too long for a socket path",
					  t->o.run_dir);
		snprintf(t->run_dir, sizeof(t->run_dir), "%s", t->o.run_dir);
	} else {
		const char *tmp = getenv("TMPDIR");

		snprintf(t->run_dir, sizeof(t->run_dir), "%s/bcbench-twin.XXXXXX",
			 tmp && *tmp && strlen(tmp) < 100 ? tmp : "/tmp");
		if (!mkdtemp(t->run_dir))
			return bn_err_set(err, BN_ERR_IO, "%s: %s", t->run_dir, strerror(errno));
		t->own_run_dir = true;
	}
	if (t->o.log_dir && mkdir(t->o.log_dir, 0755) < 0 && errno != EEXIST)
		return bn_err_set(err, BN_ERR_IO, "--log %s: %s", t->o.log_dir, strerror(errno));
	if (t->o.capture == TWIN_CAP_SCOPE)
		return resolve_fakeusb(t, err);
	return BN_OK;
}

static int open_instr(struct twin *t, struct twin_instr *in, enum twin_instr_kind kind, FILE *log,
		      long stall, long vanish, int tcp_port, struct bn_err *err)
{
	static const char *const names[] = { "load", "supply", "capture" };

	memset(in, 0, sizeof(*in));
	in->kind = kind;
	in->tw = &t->tw;
	in->log = log;
	in->stall_after = stall;
	in->vanish_after = vanish;
	in->first_served_t = -1;
	in->link.lfd = in->link.master = in->link.slave = -1;
	if (kind == TWIN_LOAD)
		return twin_link_pty(&in->link, names[kind], err);
	return twin_link_tcp(&in->link, names[kind], tcp_port, err);
}

static int start(struct twin *t, struct bn_err *err)
{
	struct twin_world_opts wo;
	char path[300];
	int rc;

	if ((rc = resolve_paths(t, err)) < 0)
		return rc;
	t->f_fx = open_log(t, "fixture.log");
	t->f_load = open_log(t, "load.log");
	t->f_supply = open_log(t, "supply.log");
	t->f_cap = open_log(t, "capture.log");
	t->f_samples = open_log(t, "capture-samples.tsv");
	t->f_console = open_log(t, "console.log");
	t->f_world = open_log(t, "world.log");
	t->f_twin = open_log(t, "twin.log");
	if (!t->o.no_usb_host)
		t->f_usb = open_log(t, "usbhost.log");
	if (t->o.capture == TWIN_CAP_SCOPE) {
		t->f_scope = open_log(t, "scope.log");
		t->f_scope_samples = open_log(t, "scope-samples.tsv");
	}
	if (t->f_samples)
		fprintf(t->f_samples, "t_s\tchannel\tvalue\n");
	if ((rc = twin_fixture_load(&t->fx, t->fixture_file, err)) < 0)
		return rc;
	wo = (struct twin_world_opts){
		.datadir = t->datadir, .ports = t->o.port_types, .charger = t->o.charger,
		.host = t->o.host, .dut = t->o.dut, .firmware = t->o.firmware, .limits = t->o.limits,
		.battery_v = t->o.battery_v, .fx = &t->fx.def, .supply_gates = !t->o.no_supply, .host_external = !t->o.no_usb_host,
		.stop = &stop_signal,
		.log = t->f_world, .on_telemetry = on_telemetry, .user = t,
	};
	if (t->o.capture == TWIN_CAP_SCOPE) {
		wo.on_sample = on_sample;
		wo.sample_rate_hz = t->o.scope_rate_hz;
	}
	t->t0_us = mono_us();
	if ((rc = twin_world_open(&t->tw, &wo, err)) < 0)
		return rc;
	t->have_world = true;
	snprintf(path, sizeof(path), "%s/ftdi.sock", t->run_dir);
	if ((rc = twin_fixture_listen(&t->fx, &t->tw, path, t->f_fx, err)) < 0)
		return rc;
	t->load.link.gone = t->supply.link.gone = t->pps.link.gone = t->con.link.gone = true;
	if (!t->o.no_load &&
	    (rc = open_instr(t, &t->load, TWIN_LOAD, t->f_load, t->o.load_stall_after,
			     t->o.load_vanish_after, 0, err)) < 0)
		return rc;
	if (!t->o.no_supply &&
	    (rc = open_instr(t, &t->supply, TWIN_SUPPLY, t->f_supply, t->o.supply_stall_after,
			     t->o.supply_vanish_after, t->o.supply_port, err)) < 0)
		return rc;
	if (t->o.capture == TWIN_CAP_PPS &&
	    (rc = open_instr(t, &t->pps, TWIN_PPS, t->f_cap, -1, -1, t->o.capture_port, err)) < 0)
		return rc;
	t->pps.samples = t->f_samples;
	if (t->o.capture == TWIN_CAP_SCOPE) {
		snprintf(path, sizeof(path), "%s/scope.sock", t->run_dir);
		rc = twin_scope_open(&t->scope, path, t->o.scope_rate_hz, t->o.scope_shunt_ohm, t->f_scope,
				     t->f_scope_samples, err);
		t->have_scope = true; /* closed at the end, opened or half opened */
		if (rc < 0)
			return rc;
	}
	if (!t->o.no_console) {
		if ((rc = twin_console_open(&t->con, &t->tw, t->f_console, err)) < 0)
			return rc;
		t->have_con = true;
	}
	if (!t->o.no_usb_host) {
		struct twin_usbhost_opts uo = { .port_ma = t->o.usb_port_ma,
						.driver_autosuspend = t->o.usb_driver_autosuspend };

		if (t->o.usb_driver)
			snprintf(uo.driver, sizeof(uo.driver), "%s", t->o.usb_driver);
		rc = twin_usbhost_open(&t->usb, &t->tw, t->run_dir, &uo, t->f_usb, err);
		t->have_usb = t->usb.have_k; /* its tree is removed at the end, made or half made */
		if (rc < 0)
			return rc;
	}
	snprintf(path, sizeof(path), "%s/control.sock", t->run_dir);
	return twin_link_unix(&t->ctl, "control", path, err);
}

/* The bench.conf lines a run on the twin needs. */
static void conf_text(const struct twin *t, char *buf, size_t len)
{
	size_t o = 0;

#define ADD(...) (o += (size_t)snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__))
	ADD("# the bench twin (bcbench-twin, pid %ld): the simulated world behind emulated\n"
	    "# instruments; run with bcbench-twin-host (its libftdi1 reaches the twin)\n",
	    (long)getpid());
	ADD("datadir = %s\nlock_dir = %s\n", t->datadir, t->run_dir);
	ADD("fixture = ftdi:desc=twin:%s\nfixture_file = %s\n", t->fx.path, t->fixture_file);
	if (!t->o.no_load)
		ADD("load = scpi:%s\nload_dialect = rigol-dl3000\n", t->load.link.pts);
	if (!t->o.no_supply)
		ADD("supply = scpi:tcp-raw/127.0.0.1/%d\nsupply_dialect = rigol-dp800\n",
		    t->supply.link.port);
	if (!t->o.no_console)
		ADD("console = %s@115200\n", t->con.link.pts);
	if (t->o.capture == TWIN_CAP_PPS)
		ADD("capture = sigrok:scpi-pps:conn=tcp-raw/127.0.0.1/%d\ncapture_map = VBUS=V1,IBUS=I1\n",
		    t->pps.link.port);
	if (t->o.capture == TWIN_CAP_SCOPE)
		ADD("# the capture: a Hantek 6022BE for libsigrok's hantek-6xxx driver, a fake\n"
		    "# libusb-1.0 in bcbench's process whose samples are the twin's world: run\n"
		    "# bcbench with LD_LIBRARY_PATH=%s\n"
		    "# and BCBENCH_FAKEUSB_SCOPE=%s (both in the .env file beside\n"
		    "# this conf). CH1 = VBUS / %g: VBUS at the device through a 10:1 probe;\n"
		    "# CH2 = IBUS x %g ohm: the device's current through a %g ohm shunt, its volts\n"
		    "capture = sigrok:hantek-6xxx\ncapture_map = VBUS=CH1:scale=10,IBUS=CH2:shunt=%g\n"
		    "capture_rate = %lukHz\n"
		    "# its accuracy as a lab states it: 8-bit codes over the driver's default\n"
		    "# +-2.5 V span (0.196 V of VBUS, %.3g mA of IBUS a step; 0 V reads half a step up)\n"
		    "meas_vbus = bits=8,range=-25V..25V,offset=98mV\nmeas_ibus = bits=8,range=%gA..%gA,offset=%.4gmA\n",
		    t->fakeusb, t->scope.path, TWIN_SCOPE_PROBE, t->scope.shunt_ohm, t->scope.shunt_ohm,
		    t->scope.shunt_ohm, (unsigned long)t->o.scope_rate_hz / 1000,
		    5.0 / 256 / t->scope.shunt_ohm * 1e3, -2.5 / t->scope.shunt_ohm,
		    2.5 / t->scope.shunt_ohm, 5.0 / 512 / t->scope.shunt_ohm * 1e3);
	if (t->have_usb)
		ADD("# the bench PC's kernel as the device's USB host: run bcbench with\n"
		    "# BCBENCH_SYSFS_ROOT=%s\ndut_usb = %04x:%04x:%s\n",
		    t->usb.sys, t->usb.vid, t->usb.pid, TWIN_USB_SERIAL);
#undef ADD
}

static int write_atomic(const char *path, const char *text, struct bn_err *err)
{
	char tmp[PATH_MAX + 16];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) < 0)
		return bn_err_set(err, BN_ERR_IO, "--conf-out %s: %s", path, strerror(errno));
	return BN_OK;
}

/* The environment bcbench needs, VAR=VALUE lines: the fake kernel's
 * sysfs root, the scope's socket and the directory of the fake libusb
 * the process must load. */
static void env_text(const struct twin *t, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	if (t->have_usb)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "BCBENCH_SYSFS_ROOT=%s\n", t->usb.sys);
	if (t->have_scope)
		snprintf(buf + o, o < len ? len - o : 0, "%s=%s\nLD_LIBRARY_PATH=%s\n", SCOPE_PROTO_ENV,
			 t->scope.path, t->fakeusb);
}

/* --conf-out, and beside it CONF.env with the environment bcbench needs
 * (written first: the conf says the twin is ready). */
static int write_conf(const struct twin *t, const char *text, const char *envs,
		      struct bn_err *err)
{
	char env[PATH_MAX + 16];
	int rc;

	if (!t->o.conf_out)
		return BN_OK;
	snprintf(env, sizeof(env), "%s.env", t->o.conf_out);
	if (envs[0]) {
		if ((rc = write_atomic(env, envs, err)) < 0)
			return rc;
	} else {
		unlink(env); /* an earlier twin's */
	}
	return write_atomic(t->o.conf_out, text, err);
}

static void status_line(const struct twin *t, char *buf, size_t len)
{
	const struct twin_world *tw = &t->tw;
	size_t n;

	snprintf(buf, len,
		 "t=%.3f port=%s plugged=%d vbus_switch=%d vbus_v=%.3f ibus_a=%.4f load_a=%.3f "
		 "supply=%s fixture_states=%ld violations=%ld load_lines=%ld supply_lines=%ld "
		 "capture_values=%ld console_lines=%ld\n",
		 bn_time_to_s(twin_now(t)),
		 bn_world_plugged(tw->w) && tw->net ? tw->net->fx_name : "none",
		 bn_world_plugged(tw->w), bn_world_vbus_switch(tw->w), twin_world_vbus_v(tw),
		 twin_world_ibus_a(tw), twin_world_load_a(tw), tw->sup_on ? "on" : "off",
		 t->fx.states, t->fx.violations, t->load.lines, t->supply.lines, t->pps.served,
		 t->con.sent);
	n = strlen(buf);
	if (t->have_usb && n > 0 && buf[n - 1] == '\n')
		snprintf(buf + n - 1, len - (n - 1), " usb=%s usb_config=%d usb_suspended=%d\n",
			 t->usb.plugged ? "enumerated" : "none", t->usb.plugged ? t->usb.config : 0,
			 t->usb.suspended);
	n = strlen(buf);
	if (t->have_scope && n > 0 && buf[n - 1] == '\n')
		snprintf(buf + n - 1, len - (n - 1),
			 " scope_acquisitions=%ld scope_frames_sent=%llu scope_frames_dropped=%llu\n",
			 t->scope.acquisitions,
			 (unsigned long long)(t->scope.frames_sent +
					      t->scope.sent_bytes / sizeof(struct scope_frame)),
			 (unsigned long long)(t->scope.frames_dropped + t->scope.dropped));
}

static void on_ctl(void *user, struct twin_link *l, int conn, char *line)
{
	struct twin *t = user;
	char reply[600];

	if (!strcmp(line, "quit")) {
		snprintf(reply, sizeof(reply), "bye\n");
		t->quit = true;
	} else if (!strcmp(line, "status")) {
		status_line(t, reply, sizeof(reply));
	} else if (!strcmp(line, "ping")) {
		snprintf(reply, sizeof(reply), "pong\n");
	} else {
		snprintf(reply, sizeof(reply), "error: unknown command \"%.60s\" (quit, status, ping)\n",
			 line);
	}
	twin_link_send(l, conn, reply);
}

static void faults(struct twin *t, bn_time_us now)
{
	if (t->o.console_hangup_after_s >= 0 && t->fx.first_open_t >= 0 && !t->con.link.gone &&
	    now >= t->fx.first_open_t + bn_time_from_s(t->o.console_hangup_after_s))
		twin_console_hangup(&t->con, now);
	if (t->o.capture_stop_after_s >= 0 && t->pps.first_served_t >= 0 && !t->pps.link.gone &&
	    now >= t->pps.first_served_t + bn_time_from_s(t->o.capture_stop_after_s)) {
		twin_instr_note(&t->pps, now, "stopped (--capture-stop-after-s): the device went away");
		twin_link_drop(&t->pps.link);
	}
	if (t->o.capture_stop_after_s >= 0 && t->have_scope && t->scope.first_sent_t >= 0 &&
	    !t->scope.gone && now >= t->scope.first_sent_t + bn_time_from_s(t->o.capture_stop_after_s))
		twin_scope_unplug(&t->scope, now, "--capture-stop-after-s: the scope went away");
}

static int serve(struct twin *t, struct bn_err *err)
{
	while (!stop_signal && !t->quit) {
		struct pollfd p[TWIN_MAX_FDS];
		int n = 0, rc;
		bn_time_us now;

		n += twin_fixture_fds(&t->fx, p + n, TWIN_MAX_FDS - n);
		n += twin_link_fds(&t->load.link, p + n, TWIN_MAX_FDS - n);
		n += twin_link_fds(&t->supply.link, p + n, TWIN_MAX_FDS - n);
		n += twin_link_fds(&t->pps.link, p + n, TWIN_MAX_FDS - n);
		n += twin_link_fds(&t->con.link, p + n, TWIN_MAX_FDS - n);
		n += twin_link_fds(&t->ctl, p + n, TWIN_MAX_FDS - n);
		if (t->have_scope)
			n += twin_scope_fds(&t->scope, p + n, TWIN_MAX_FDS - n);
		if (poll(p, (nfds_t)n, TWIN_POLL_MS) < 0 && errno != EINTR)
			return bn_err_set(err, BN_ERR_IO, "poll: %s", strerror(errno));
		now = twin_now(t);
		rc = twin_world_advance(&t->tw, now, err);
		if (rc == BN_ERR_INTR)
			break;
		if (rc < 0)
			return rc;
		if (t->have_usb)
			twin_usbhost_service(&t->usb, now);
		twin_fixture_service(&t->fx, p, n, now);
		twin_instr_service(&t->load, p, n, now);
		twin_instr_service(&t->supply, p, n, now);
		twin_instr_service(&t->pps, p, n, now);
		if (t->have_scope)
			twin_scope_service(&t->scope, p, n, now);
		if (t->have_con)
			twin_console_service(&t->con, p, n, now);
		twin_link_service(&t->ctl, p, n, on_ctl, NULL, t);
		faults(t, now);
	}
	return BN_OK;
}

/* The run dir as made, less the lock files bcbench left in it (it is the
 * conf's lock_dir). */
static void remove_run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[400];

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (!strncmp(e->d_name, "bcbench-", 8) && n > 5 && !strcmp(e->d_name + n - 5, ".lock")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void finish(struct twin *t, int rc, const struct bn_err *err)
{
	char status[600] = "";

	if (t->have_world)
		status_line(t, status, sizeof(status));
	if (rc < 0)
		fprintf(stderr, "bcbench-twin: %s\n", err->msg);
	if (t->f_twin) {
		if (rc < 0)
			fprintf(t->f_twin, "error: %s\n", err->msg);
		fprintf(t->f_twin, "stopped%s%s: %s", stop_signal ? " by signal " : "",
			stop_signal ? strsignal(stop_signal) : "", status[0] ? status : "\n");
	}
	if (status[0])
		fprintf(stderr, "bcbench-twin: stopped: %s", status);
	twin_link_close(&t->ctl);
	if (t->have_con)
		twin_console_close(&t->con);
	twin_link_close(&t->pps.link);
	if (t->have_scope)
		twin_scope_close(&t->scope, twin_now(t));
	twin_link_close(&t->supply.link);
	twin_link_close(&t->load.link);
	twin_fixture_close(&t->fx);
	if (t->have_usb)
		twin_usbhost_close(&t->usb, twin_now(t));
	if (t->have_world)
		twin_world_close(&t->tw);
	if (t->own_run_dir)
		remove_run_dir(t->run_dir);
	FILE *logs[] = { t->f_fx, t->f_load, t->f_supply, t->f_cap, t->f_samples, t->f_console,
			 t->f_world, t->f_twin, t->f_usb, t->f_scope, t->f_scope_samples };
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++)
		if (logs[i])
			fclose(logs[i]);
}

int main(int argc, char **argv)
{
	static struct twin t; /* large; one per process */
	struct sigaction sa = { .sa_handler = on_signal };
	struct bn_err err = { 0 };
	char conf[4096], env[SK_PATH_LEN + 2 * PATH_MAX + 128];
	int rc;

	memset(&t, 0, sizeof(t));
	t.ctl.gone = true; /* until it listens */
	rc = twin_opts_parse(argc, argv, &t.o);
	if (rc)
		return rc == 1 ? 0 : 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = start(&t, &err);
	if (rc == BN_OK) {
		conf_text(&t, conf, sizeof(conf));
		env_text(&t, env, sizeof(env));
		rc = write_conf(&t, conf, env, &err);
	}
	if (rc == BN_OK) {
		fputs(conf, stdout);
		fputs(env, stdout);
		fflush(stdout);
		if (t.f_twin) {
			fputs(conf, t.f_twin);
			fflush(t.f_twin);
		}
		rc = serve(&t, &err);
	}
	finish(&t, rc, &err);
	if (rc == BN_ERR_ARG || rc == BN_ERR_DATA)
		return 2;
	return rc < 0 ? 3 : 0;
}
