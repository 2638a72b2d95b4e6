/* The runner drives the bench only through the ops tables, and leaves it
 * in its safe state on every path: a recording fixture and load (which
 * pass through to the simulated ones, so the world still behaves) show
 * the order of the calls, and fail or raise a signal on demand. Also the
 * hard limits, the bench lock and the bench.conf instrument keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/harness.h"
#include "core/conf.h"
#include "hil/backend.h"
#include "hil/guard.h"
#include "hil/lock.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "sim/world.h"

#define MAX_CALLS 256

/* ---- a recording fixture and load over the sim ones ---- */

struct rec {
	char calls[MAX_CALLS][48];
	int n;
	int fail_at;                  /* the call (1-based) that fails; 0: none */
	int fail_code;
	int stop_at;                  /* the call at which a "signal" arrives */
	int stop_sig;
	volatile sig_atomic_t stop;
	bool safe_fails;
	struct bn_world *w;
	struct bn_fixture sim_fx;
	struct bn_load sim_ld;
};

/* The priv of both recording backends points at the test's struct rec. */
struct rec_priv {
	struct rec *r;
};

static int rec_call(struct rec *r, const char *fmt, const char *arg, struct bn_err *err)
{
	if (r->n < MAX_CALLS)
		snprintf(r->calls[r->n], sizeof(r->calls[0]), fmt, arg);
	r->n++;
	if (r->stop_at && r->n == r->stop_at)
		r->stop = r->stop_sig;
	if (r->fail_at && r->n == r->fail_at)
		return bn_err_set(err, r->fail_code, "fixture \"rec\": %s: device vanished",
				  r->calls[r->n - 1]);
	return BN_OK;
}

static struct rec *the_rec(void *priv)
{
	return ((struct rec_priv *)priv)->r;
}

static int recfx_connect(void *priv, const char *type, struct bn_err *err)
{
	struct rec *r = the_rec(priv);
	int rc = rec_call(r, "connect %s", type, err);

	return rc < 0 ? rc : r->sim_fx.ops->connect(r->sim_fx.priv, type, err);
}

static int recfx_disconnect(void *priv, struct bn_err *err)
{
	struct rec *r = the_rec(priv);
	int rc = rec_call(r, "disconnect%s", "", err);

	return rc < 0 ? rc : r->sim_fx.ops->disconnect(r->sim_fx.priv, err);
}

static int recfx_vbus(void *priv, bool on, struct bn_err *err)
{
	struct rec *r = the_rec(priv);
	int rc = rec_call(r, "vbus %s", on ? "on" : "off", err);

	return rc < 0 ? rc : r->sim_fx.ops->vbus(r->sim_fx.priv, on, err);
}

static int recfx_load_path(void *priv, bool on, struct bn_err *err)
{
	return rec_call(the_rec(priv), "load_path %s", on ? "on" : "off", err);
}

static int recfx_safe(void *priv, struct bn_err *err)
{
	struct rec *r = the_rec(priv);

	if (r->n < MAX_CALLS)
		snprintf(r->calls[r->n], sizeof(r->calls[0]), "safe");
	r->n++;
	r->sim_fx.ops->safe(r->sim_fx.priv, err);
	if (r->safe_fails)
		return bn_err_set(err, BN_ERR_IO, "fixture \"rec\": safe: relay driver not answering");
	return BN_OK;
}

static const struct bn_fixture_ops rec_fixture_ops = {
	.name = "rec",
	.connect = recfx_connect,
	.disconnect = recfx_disconnect,
	.vbus = recfx_vbus,
	.load_path = recfx_load_path,
	.safe = recfx_safe,
};

static int recld_set(void *priv, double a, struct bn_err *err)
{
	struct rec *r = the_rec(priv);
	char v[32];
	int rc;

	snprintf(v, sizeof(v), "%.3f", a);
	rc = rec_call(r, "load_set %s", v, err);
	return rc < 0 ? rc : r->sim_ld.ops->set_current(r->sim_ld.priv, a, err);
}

static int recld_enable(void *priv, bool on, struct bn_err *err)
{
	struct rec *r = the_rec(priv);
	int rc = rec_call(r, "load_enable %s", on ? "on" : "off", err);

	return rc < 0 ? rc : r->sim_ld.ops->enable(r->sim_ld.priv, on, err);
}

static int recld_safe(void *priv, struct bn_err *err)
{
	struct rec *r = the_rec(priv);

	if (r->n < MAX_CALLS)
		snprintf(r->calls[r->n], sizeof(r->calls[0]), "load_safe");
	r->n++;
	return r->sim_ld.ops->safe(r->sim_ld.priv, err);
}

static const struct bn_load_ops rec_load_ops = {
	.name = "rec",
	.set_current = recld_set,
	.enable = recld_enable,
	.safe = recld_safe,
};

/* The world exists: open the sim backends the recorders pass through to. */
static void on_world(void *user, struct bn_world *w)
{
	struct rec *r = user;
	struct bn_backend_open bo = { .world = w };
	struct bn_err err = { 0 };

	if (!w) { /* the world is going: the sim backends go with it */
		bn_fixture_close(&r->sim_fx);
		bn_load_close(&r->sim_ld);
		r->w = NULL;
		return;
	}
	r->w = w;
	assert_int_equal(bn_fixture_open(&r->sim_fx, "sim", &bo, &err), BN_OK);
	assert_int_equal(bn_load_open(&r->sim_ld, "sim", &bo, &err), BN_OK);
}

struct rec_run {
	struct rec r;
	struct rec_priv fx_priv, ld_priv;
	struct bn_fixture fx;
	struct bn_load ld;
	struct bn_report rep;
	struct bn_err err;
	int rc;
};

static void rec_run(struct rec_run *rr, const char *scn, const struct bn_guard *guard)
{
	char path[1024];
	struct bn_run_opts o;

	bn_test_path(scn, path, sizeof(path));
	rr->fx_priv.r = rr->ld_priv.r = &rr->r;
	rr->fx = (struct bn_fixture){ .ops = &rec_fixture_ops, .priv = &rr->fx_priv };
	rr->ld = (struct bn_load){ .ops = &rec_load_ops, .priv = &rr->ld_priv };
	o = (struct bn_run_opts){
		.scenario_path = path,
		.datadir = bn_test_srcdir(),
		.stop_flag = &rr->r.stop,
		.fixture = &rr->fx,
		.load = &rr->ld,
		.guard = guard,
		.world_hook = on_world,
		.world_hook_user = &rr->r,
	};
	bn_report_init(&rr->rep);
	rr->rc = bn_run_scenario(&o, &rr->rep, &rr->err);
	assert_null(rr->r.w);
}

static int find_call(const struct rec *r, const char *call, int from)
{
	for (int i = from; i < r->n && i < MAX_CALLS; i++)
		if (!strcmp(r->calls[i], call))
			return i;
	return -1;
}

static void assert_ends_safe(const struct rec *r)
{
	assert_true(r->n > 0);
	assert_string_equal(r->calls[r->n - 1], "safe");
	/* ... and the load let go before the fixture went safe */
	assert_true(find_call(r, "load_safe", 0) >= 0);
	assert_true(find_call(r, "load_safe", 0) < r->n - 1);
}

/* A real bench runs in real time: a 300 ms scenario takes at least
 * 300 ms of wall time when real_time is set (bcbench sets it whenever
 * bench.conf names real hardware). */
static void test_bench__real_time_waits(void **state)
{
	static const char scn[] = "name \"paced\"\nport sdp\ncapture vbus ibus at 1kHz\n"
				  "vbus on\nwait 300ms\nvbus off\n";
	char path[] = "/tmp/bcbench-paced-XXXXXX";
	struct bn_report *rep = calloc(1, sizeof(*rep));
	struct bn_err err = { 0 };
	struct bn_run_opts o;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, scn, sizeof(scn) - 1), (ssize_t)(sizeof(scn) - 1));
	close(fd);
	o = (struct bn_run_opts){ .scenario_path = path, .datadir = bn_test_srcdir(), .real_time = true };
	bn_report_init(rep);
	assert_int_equal(bn_run_scenario(&o, rep, &err), BN_OK);
	assert_int_equal(rep->status, BN_RUN_COMPLETED);
	assert_near(rep->sim_s, 0.3, 1e-6);
	assert_true(rep->wall_s >= 0.3);
	bn_report_free(rep);
	free(rep);
	unlink(path);
}

static void test_bench__dcp_through_ops(void **state)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));
	int totals[BN_VERDICT_COUNT];

	(void)state;
	rec_run(rr, "scripts/scenarios/dcp.scn", NULL);
	assert_int_equal(rr->rc, BN_OK);
	assert_int_equal(rr->rep.status, BN_RUN_COMPLETED);
	/* the port network is made before VBUS, once */
	assert_string_equal(rr->r.calls[0], "connect dcp");
	assert_string_equal(rr->r.calls[1], "vbus on");
	assert_int_equal(find_call(&rr->r, "connect dcp", 1), -1);
	assert_true(find_call(&rr->r, "vbus off", 2) > 1);
	assert_ends_safe(&rr->r);
	/* the world behaved as on the plain sim bench: nothing fails */
	bn_report_totals(&rr->rep, totals);
	assert_int_equal(totals[BN_VERDICT_FAIL], 0);
	assert_true(totals[BN_VERDICT_PASS] > 10);
	bn_report_free(&rr->rep);
	free(rr);
}

/* Setpoint with the input off, then the path, then the input; off in
 * reverse; and the OTG port is plugged (no VBUS from the bench). */
static void test_bench__load_order(void **state)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));
	int set, path, en, off, path_off;

	(void)state;
	rec_run(rr, "scripts/scenarios/otg.scn", NULL);
	assert_int_equal(rr->rep.status, BN_RUN_COMPLETED);
	assert_string_equal(rr->r.calls[0], "connect otg");
	assert_int_equal(find_call(&rr->r, "vbus on", 0), -1);
	set = find_call(&rr->r, "load_set 0.500", 0);
	path = find_call(&rr->r, "load_path on", 0);
	en = find_call(&rr->r, "load_enable on", 0);
	off = find_call(&rr->r, "load_enable off", 0);
	path_off = find_call(&rr->r, "load_path off", 0);
	assert_true(set >= 0 && set < path && path < en);
	assert_true(en < off && off < path_off);
	assert_true(find_call(&rr->r, "disconnect", path_off) > path_off);
	assert_ends_safe(&rr->r);
	bn_report_free(&rr->rep);
	free(rr);
}

static void signal_mid_run(int sig)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));

	/* the signal arrives as VBUS goes on: the run is in its first wait */
	rr->r.stop_at = 2;
	rr->r.stop_sig = sig;
	rec_run(rr, "scripts/scenarios/dbp.scn", NULL);
	assert_int_equal(rr->rc, BN_OK);
	assert_int_equal(rr->rep.status, BN_RUN_ABORTED);
	assert_int_equal(bn_report_exit_code(&rr->rep), 128 + sig);
	assert_non_null(strstr(rr->rep.reason, "interrupt"));
	assert_ends_safe(&rr->r);
	/* it stopped early: far from the scenario's 45 minutes */
	assert_true(rr->rep.sim_s < 60.0);
	bn_report_free(&rr->rep);
	free(rr);
}

static void test_bench__sigint_safe_state(void **state)
{
	(void)state;
	signal_mid_run(SIGINT);
}

static void test_bench__sigterm_safe_state(void **state)
{
	(void)state;
	signal_mid_run(SIGTERM);
}

/* An instrument lost mid-run: a bench fault, the report says which call,
 * and the bench still goes safe. */
static void test_bench__fixture_lost(void **state)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));

	(void)state;
	rr->r.fail_at = 3; /* the first "vbus off" */
	rr->r.fail_code = BN_ERR_IO;
	rec_run(rr, "scripts/scenarios/dcp.scn", NULL);
	assert_int_equal(rr->rc, BN_OK);
	assert_int_equal(rr->rep.status, BN_RUN_ERROR);
	/* an instrument lost mid-run: a bench fault */
	assert_int_equal(bn_report_exit_code(&rr->rep), 5);
	assert_non_null(strstr(rr->rep.reason, "vbus off: device vanished"));
	assert_ends_safe(&rr->r);
	bn_report_free(&rr->rep);
	free(rr);
}

static void test_bench__safe_state_not_reached(void **state)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));

	(void)state;
	rr->r.safe_fails = true;
	rec_run(rr, "scripts/scenarios/dcp.scn", NULL);
	assert_int_equal(rr->rep.status, BN_RUN_ERROR);
	assert_int_equal(bn_report_exit_code(&rr->rep), 5);
	assert_non_null(strstr(rr->rep.reason, "safe state not reached"));
	assert_non_null(strstr(rr->rep.reason, "relay driver"));
	bn_report_free(&rr->rep);
	free(rr);
}

/* A scenario asking for more than the bench's limit is refused before
 * anything is switched: no call at all. */
static void test_bench__hard_limit_refuses_scenario(void **state)
{
	struct rec_run *rr = calloc(1, sizeof(*rr));
	struct bn_guard g = { .max_load_a = 0.2, .origin = "lab.conf" };

	(void)state;
	rec_run(rr, "scripts/scenarios/otg.scn", &g);
	assert_int_equal(rr->rc, BN_ERR_DATA);
	assert_msg_has(&rr->err, "otg.scn:8:");
	assert_msg_has(&rr->err, "lab.conf max_load = 0.200 A");
	assert_int_equal(rr->r.n, 0);
	bn_report_free(&rr->rep);
	free(rr);
	/* within the limit it runs */
	rr = calloc(1, sizeof(*rr));
	g.max_load_a = 0.5;
	rec_run(rr, "scripts/scenarios/otg.scn", &g);
	assert_int_equal(rr->rc, BN_OK);
	assert_int_equal(rr->rep.status, BN_RUN_COMPLETED);
	bn_report_free(&rr->rep);
	free(rr);
}

static void test_bench__guard(void **state)
{
	struct bn_guard g = { .max_load_a = 2.0, .max_vbus_v = 5.5, .max_power_w = 7.5 };
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_guard_load(&g, 1.0, 5.0, &err), BN_OK);
	assert_int_equal(bn_guard_load(&g, 2.0, 0.0, &err), BN_ERR_ARG); /* 2 A x 5.5 V = 11 W */
	assert_msg_has(&err, "max_power = 7.50 W");
	bn_err_clear(&err);
	assert_int_equal(bn_guard_load(&g, 2.5, 1.0, &err), BN_ERR_ARG);
	assert_msg_has(&err, "max_load = 2.000 A");
	assert_msg_has(&err, "not sent");
	bn_err_clear(&err);
	assert_int_equal(bn_guard_load(&g, -0.1, 5.0, &err), BN_ERR_ARG);
	bn_err_clear(&err);
	assert_int_equal(bn_guard_supply(&g, 5.0, 1.5, &err), BN_OK);
	assert_int_equal(bn_guard_supply(&g, 6.0, 0.0, &err), BN_ERR_ARG);
	assert_msg_has(&err, "max_vbus = 5.500 V");
	bn_err_clear(&err);
	assert_int_equal(bn_guard_supply(&g, 5.0, 2.0, &err), BN_ERR_ARG);
	assert_msg_has(&err, "10.00 W");
	/* no limits: anything goes */
	assert_int_equal(bn_guard_load(NULL, 9.0, 20.0, &err), BN_OK);
	assert_int_equal(bn_guard_supply(&(struct bn_guard){ 0 }, 20.0, 5.0, &err), BN_OK);
}

/* ---- the bench lock ---- */

static void scratch_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/bcbench-lock-test.XXXXXX");
	assert_non_null(mkdtemp(buf));
}

static void test_bench__lock_exclusive(void **state)
{
	char dir[64], path[700], pid[32];
	struct bn_lock a, b;
	struct bn_err err = { 0 };

	(void)state;
	scratch_dir(dir, sizeof(dir));
	assert_int_equal(bn_lock_take(&a, dir, "fixture-a", 0, "bcbench run dcp.scn", NULL, &err), BN_OK);
	/* flock locks belong to the open file: a second open conflicts even
	 * in one process, as another run would */
	assert_int_equal(bn_lock_take(&b, dir, "fixture-a", 0, "bcbench run sdp.scn", NULL, &err),
			 BN_ERR_FAULT);
	snprintf(pid, sizeof(pid), "pid %ld", (long)getpid());
	assert_msg_has(&err, pid);
	assert_msg_has(&err, "bcbench run dcp.scn");
	assert_msg_has(&err, "bcbench-fixture-a.lock");
	assert_msg_has(&err, "--wait");
	assert_int_equal(b.fd, -1);
	/* another bench is another lock */
	bn_err_clear(&err);
	assert_int_equal(bn_lock_take(&b, dir, "fixture-b", 0, "x", NULL, &err), BN_OK);
	bn_lock_release(&b);
	/* released: free again */
	bn_lock_release(&a);
	assert_int_equal(bn_lock_take(&b, dir, "fixture-a", 0, "y", NULL, &err), BN_OK);
	bn_lock_release(&b);
	snprintf(path, sizeof(path), "%s/bcbench-fixture-a.lock", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bcbench-fixture-b.lock", dir);
	unlink(path);
	rmdir(dir);
}

static void test_bench__lock_wait_times_out(void **state)
{
	char dir[64], path[700];
	struct bn_lock a, b;
	struct bn_err err = { 0 };

	(void)state;
	scratch_dir(dir, sizeof(dir));
	assert_int_equal(bn_lock_take(&a, dir, "f", 0, "holder", NULL, &err), BN_OK);
	assert_int_equal(bn_lock_take(&b, dir, "f", 0.2, "waiter", NULL, &err), BN_ERR_FAULT);
	assert_msg_has(&err, "after waiting");
	assert_msg_has(&err, "holder");
	bn_lock_release(&a);
	snprintf(path, sizeof(path), "%s/bcbench-f.lock", dir);
	unlink(path);
	rmdir(dir);
}

static void test_bench__lock_wait_interrupted(void **state)
{
	char dir[64], path[700];
	struct bn_lock a, b;
	struct bn_err err = { 0 };
	volatile sig_atomic_t stop = SIGINT;

	(void)state;
	scratch_dir(dir, sizeof(dir));
	assert_int_equal(bn_lock_take(&a, dir, "f", 0, "holder", NULL, &err), BN_OK);
	assert_int_equal(bn_lock_take(&b, dir, "f", -1, "waiter", &stop, &err), BN_ERR_INTR);
	assert_msg_has(&err, "interrupted");
	bn_lock_release(&a);
	snprintf(path, sizeof(path), "%s/bcbench-f.lock", dir);
	unlink(path);
	rmdir(dir);
}

/* A suite holds the lock for its entries: a child told the descriptor
 * shares it, anything else still queues, and the child's release leaves
 * the parent holding it. */
static void test_bench__lock_shared_with_children(void **state)
{
	char dir[64], path[700], num[16];
	struct bn_lock suite, entry, other, b;
	struct bn_err err = { 0 };
	pid_t pid;
	int status;

	(void)state;
	scratch_dir(dir, sizeof(dir));
	unsetenv(BN_LOCK_FD_ENV);
	assert_int_equal(bn_lock_take(&suite, dir, "f", 0, "bcbench suite r.suite", NULL, &err), BN_OK);
	bn_lock_share_with_children(&suite);
	/* a forked entry, a process of its own, takes it over */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = bn_lock_take(&entry, dir, "f", 0, "bcbench run x.scn", NULL, &err) == BN_OK &&
			 entry.inherited && entry.fd == suite.fd;

		bn_lock_release(&entry);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the entry's release did not free the bench: a run without the
	 * descriptor is still refused, naming the suite */
	unsetenv(BN_LOCK_FD_ENV);
	assert_int_equal(bn_lock_take(&other, dir, "f", 0, "bcbench run y.scn", NULL, &err),
			 BN_ERR_FAULT);
	assert_msg_has(&err, "bcbench suite r.suite");
	bn_err_clear(&err);
	/* a descriptor on another lock file is not a pass */
	assert_int_equal(bn_lock_take(&b, dir, "g", 0, "other bench", NULL, &err), BN_OK);
	snprintf(num, sizeof(num), "%d", b.fd);
	setenv(BN_LOCK_FD_ENV, num, 1);
	assert_int_equal(bn_lock_take(&other, dir, "f", 0, "y", NULL, &err), BN_ERR_FAULT);
	bn_err_clear(&err);
	bn_lock_release(&b);
	/* nor is a number that is not a descriptor */
	setenv(BN_LOCK_FD_ENV, "999", 1);
	assert_int_equal(bn_lock_take(&other, dir, "f", 0, "y", NULL, &err), BN_ERR_FAULT);
	bn_err_clear(&err);
	setenv(BN_LOCK_FD_ENV, "x3", 1);
	assert_int_equal(bn_lock_take(&other, dir, "f", 0, "y", NULL, &err), BN_ERR_FAULT);
	bn_err_clear(&err);
	unsetenv(BN_LOCK_FD_ENV);
	bn_lock_release(&suite);
	assert_int_equal(bn_lock_take(&other, dir, "f", 0, "y", NULL, &err), BN_OK);
	bn_lock_release(&other);
	snprintf(path, sizeof(path), "%s/bcbench-f.lock", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bcbench-g.lock", dir);
	unlink(path);
	rmdir(dir);
}

static void test_bench__lock_bad_dir(void **state)
{
	struct bn_lock a;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(bn_lock_take(&a, "/nonexistent/bcbench", "f", 0, "x", NULL, &err), BN_ERR_IO);
	assert_msg_has(&err, "/nonexistent/bcbench/bcbench-f.lock");
}

/* ---- bench.conf ---- */

static int conf_text(const char *text, struct bn_conf *c, struct bn_err *err)
{
	char path[] = "/tmp/bcbench-conf-test.XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	bn_conf_defaults(c);
	rc = bn_conf_load(path, c, err);
	unlink(path);
	return rc;
}

static void test_bench__conf_instruments(void **state)
{
	struct bn_conf c;
	struct bn_err err = { 0 };

	(void)state;
	assert_int_equal(conf_text("fixture = ftdi:0403:6014:FT12345\n"
				   "fixture_file = fixtures/bcbench-fixture-a.json\n"
				   "load = scpi:/dev/ttyUSB0@115200\nload_dialect = korad-kel103\n"
				   "supply = scpi:/dev/ttyACM0\nsupply_dialect = rigol-dp800\n"
				   "max_load = 3A\nmax_vbus = 5500mV\nmax_power = 15W\n"
				   "instrument_timeout = 250ms\ninstrument_retries = 1\n"
				   "lock = yes\nlock_dir = /tmp\n",
				   &c, &err),
			 BN_OK);
	assert_string_equal(c.fixture, "ftdi:0403:6014:FT12345");
	assert_string_equal(c.load, "scpi:/dev/ttyUSB0@115200");
	assert_string_equal(c.supply_dialect, "rigol-dp800");
	assert_near(c.max_load_a, 3.0, 1e-12);
	assert_near(c.max_vbus_v, 5.5, 1e-12);
	assert_near(c.max_power_w, 15.0, 1e-12);
	assert_int_equal(c.instrument_timeout_ms, 250);
	assert_int_equal(c.instrument_retries, 1);
	assert_true(bn_conf_has_hardware(&c));
	bn_conf_defaults(&c);
	assert_false(bn_conf_has_hardware(&c));
	assert_string_equal(c.lock, "auto");
}

static void conf_error(const char *text, const char *want)
{
	struct bn_conf c;
	struct bn_err err = { 0 };

	assert_int_equal(conf_text(text, &c, &err), BN_ERR_DATA);
	assert_msg_has(&err, ":2: error:");
	assert_msg_has(&err, want);
}

static void test_bench__conf_errors(void **state)
{
	(void)state;
	conf_error("# lab bench\nfixture = gpio:0\n", "expected sim or ftdi");
	conf_error("\nload = scpi\n", "(the serial port)");
	conf_error("\nsupply = visa:USB0\n", "expected sim or scpi");
	conf_error("\nmax_load = 3V\n", "max_load \"3V\": expected a positive current");
	conf_error("\nmax_power = lots\n", "expected a positive power");
	conf_error("\nmax_vbus = -5V\n", "expected a positive voltage");
	conf_error("\nlock = maybe\n", "expected auto, yes or no");
	conf_error("\ninstrument_retries = 99\n", "expected 0 to 10");
	conf_error("\ninstrument_timeout = 1h\n", "at most 600s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bench__dcp_through_ops),
		cmocka_unit_test(test_bench__load_order),
		cmocka_unit_test(test_bench__sigint_safe_state),
		cmocka_unit_test(test_bench__sigterm_safe_state),
		cmocka_unit_test(test_bench__fixture_lost),
		cmocka_unit_test(test_bench__safe_state_not_reached),
		cmocka_unit_test(test_bench__hard_limit_refuses_scenario),
		cmocka_unit_test(test_bench__guard),
		cmocka_unit_test(test_bench__lock_exclusive),
		cmocka_unit_test(test_bench__lock_wait_times_out),
		cmocka_unit_test(test_bench__lock_wait_interrupted),
		cmocka_unit_test(test_bench__lock_shared_with_children),
		cmocka_unit_test(test_bench__lock_bad_dir),
		cmocka_unit_test(test_bench__conf_instruments),
		cmocka_unit_test(test_bench__conf_errors),
		cmocka_unit_test(test_bench__real_time_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
