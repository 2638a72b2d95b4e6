/* A real run with the bench PC as the device's USB host (bench.conf
 * dut_usb): a scenario on a test fixture whose VBUS plugs a device into a
 * fake kernel's sysfs tree (fake/sysfs_kernel.h, stepped in a thread as
 * the kernel runs beside the bench). What the runner must do with it: see
 * the device enumerate (CONNECT, with the window back to when a connect
 * became possible), take the configurations it really advertises (not the
 * simulated device's) for the task 2 rules and the report, make the host
 * profile's choice through sysfs (CONFIG), suspend and resume through
 * runtime PM (SUSPEND, RESUME with their windows), see it go
 * (DISCONNECT); and refuse what it cannot play, before anything runs. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake/sysfs_kernel.h"
#include "hil/backend.h"
#include "hil/usb_dev.h"
#include "lib/harness.h"
#include "scenario/runner.h"

#define CLASS_VENDOR 0xff
#define CLASS_CDC 0x02

struct world {
	struct sysfs_kernel k;
	char sys[SK_PATH_LEN];
	char scn[SK_PATH_LEN + 32];
	pthread_t kthread;
	atomic_bool kstop;
	/* the device the fixture plugs */
	uint8_t desc[256];
	size_t desc_len;
	bool plugged;
	int n_plugs;
};

static struct world *W;

static void *kernel_loop(void *p)
{
	struct world *w = p;
	struct timespec ts = { 0, 300000 };

	while (!atomic_load(&w->kstop)) {
		sysfs_kernel_step(&w->k);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* A device descriptor and n configurations of one interface each. */
static void build_desc(struct world *w, const int *max_ma, int n, uint8_t if_class)
{
	const uint8_t dev[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64, 0xd1, 0x18, 0xe1, 0x4e,
				  0x00, 0x01, 0, 0, 0, (uint8_t)n };
	size_t off = 18;

	memcpy(w->desc, dev, 18);
	for (int i = 0; i < n; i++) {
		const uint8_t cfg[9] = { 9, 2, 18, 0, 1, (uint8_t)(i + 1), 0, 0x80,
					 (uint8_t)(max_ma[i] / 2) };
		const uint8_t ifd[9] = { 9, 4, 0, 0, 0, if_class, 0, 0, 0 };

		memcpy(w->desc + off, cfg, 9);
		memcpy(w->desc + off + 9, ifd, 9);
		off += 18;
	}
	w->desc_len = off;
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/bn-runusb-XXXXXX";
	static const int cfgs[] = { 100, 500 };
	FILE *f;

	W = calloc(1, sizeof(*W));
	if (!W || !mkdtemp(tmpl) || sysfs_kernel_init(&W->k, tmpl) < 0)
		return -1;
	sysfs_kernel_sys(&W->k, W->sys, sizeof(W->sys));
	sysfs_kernel_add_driver(&W->k, CLASS_VENDOR, "usbfs_like", true);
	sysfs_kernel_add_driver(&W->k, CLASS_CDC, "cdc_acm", false);
	build_desc(W, cfgs, 2, CLASS_VENDOR);
	snprintf(W->scn, sizeof(W->scn), "%s/host.scn", tmpl);
	f = fopen(W->scn, "w");
	if (!f)
		return -1;
	fputs("name \"real host\"\nport sdp\ncharger host-500ma\nhost root-500ma\ndut phone\n"
	      "capture vbus ibus at 1kHz\nvbus on\nwait 300ms\nsuspend\nwait 100ms\nresume\n"
	      "wait 100ms\nvbus off\nwait 100ms\n", f);
	fclose(f);
	atomic_store(&W->kstop, false);
	if (pthread_create(&W->kthread, NULL, kernel_loop, W))
		return -1;
	*state = W;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	atomic_store(&W->kstop, true);
	pthread_join(W->kthread, NULL);
	sysfs_kernel_remove(&W->k);
	free(W);
	W = NULL;
	return 0;
}

/* ---- a fixture whose VBUS plugs the device into the fake kernel ---- */

struct tfx {
	bool lines, vbus;
};

static void tfx_update(struct tfx *f)
{
	const struct sysfs_kernel_dev d = { .name = "1-1", .busnum = 1, .devnum = 5, .speed = "480",
					    .serial = "BENCH0001", .desc = W->desc,
					    .desc_len = W->desc_len };
	bool on = f->lines && f->vbus;

	if (on && !W->plugged) {
		assert_int_equal(sysfs_kernel_plug(&W->k, &d), 0);
		W->n_plugs++;
	} else if (!on && W->plugged) {
		assert_int_equal(sysfs_kernel_unplug(&W->k, "1-1"), 0);
	}
	W->plugged = on;
}

static int tfx_connect(void *priv, const char *port, struct bn_err *err)
{
	(void)port;
	(void)err;
	((struct tfx *)priv)->lines = true;
	tfx_update(priv);
	return BN_OK;
}

static int tfx_disconnect(void *priv, struct bn_err *err)
{
	(void)err;
	((struct tfx *)priv)->lines = false;
	tfx_update(priv);
	return BN_OK;
}

static int tfx_vbus(void *priv, bool on, struct bn_err *err)
{
	(void)err;
	((struct tfx *)priv)->vbus = on;
	tfx_update(priv);
	return BN_OK;
}

static int tfx_safe(void *priv, struct bn_err *err)
{
	struct tfx *f = priv;

	(void)err;
	f->lines = f->vbus = false;
	tfx_update(f);
	return BN_OK;
}

static const struct bn_fixture_ops tfx_ops = { .name = "test", .connect = tfx_connect,
					       .disconnect = tfx_disconnect, .vbus = tfx_vbus,
					       .safe = tfx_safe };

static int run_real(const char *scn, bool with_host, struct bn_report *rep, struct bn_err *err)
{
	struct tfx fx_priv = { 0 };
	struct bn_fixture fx = { &tfx_ops, &fx_priv };
	struct bn_usb_spec spec;
	struct bn_err e = { 0 };
	struct bn_run_opts o = {
		.scenario_path = scn,
		.datadir = bn_test_srcdir(),
		.fixture = &fx,
		.real_bench = true,
		.real_time = true,
		.dut_usb = with_host ? &spec : NULL,
		.sysfs_root = W->sys,
	};

	assert_int_equal(bn_usb_spec_parse("18d1:4ee1:BENCH0001", &spec, &e), BN_OK);
	bn_report_init(rep);
	return bn_run_scenario(&o, rep, err);
}

static const struct bn_result *result(const struct bn_report *rep, const char *id)
{
	for (int i = 0; i < rep->n_results; i++)
		if (!strcmp(rep->results[i].id, id))
			return &rep->results[i];
	fail_msg("no result %s", id);
	return NULL;
}

/* The report's events of the USB host, in order, one line each. */
static void host_events(const struct bn_report *rep, char *buf, size_t len)
{
	const cJSON *ev;
	size_t n = 0;

	buf[0] = 0;
	cJSON_ArrayForEach(ev, rep->events) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(ev, "kind");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "detail");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, "usb-host") && cJSON_IsString(d))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s\n", d->valuestring);
	}
}

static void test_run_usb_host__enumerate_choose_suspend(void **state)
{
	struct bn_report rep;
	struct bn_err err = { 0 };
	char evs[4000], path[SK_PATH_LEN];
	const struct bn_result *r;
	const cJSON *cfg;

	(void)state;
	assert_int_equal(run_real(W->scn, true, &rep, &err), BN_OK);
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	assert_int_equal(W->n_plugs, 1);
	host_events(&rep, evs, sizeof(evs));
	print_message("%s", evs);
	/* seen, configured by the kernel (its choice: the first the port can
	 * power), then by the host profile (the largest within 500 mA) */
	assert_non_null(strstr(evs, "1-1 enumerated (18d1:4ee1 (serial BENCH0001), 2 configurations)"));
	assert_non_null(strstr(evs, "the kernel's choice at enumeration: configuration 1 (bMaxPower 100 mA)"));
	assert_non_null(strstr(evs, "the host profile's choice: configuration 2 (bMaxPower 500 mA)"));
	assert_non_null(strstr(evs, "suspend: power/runtime_status suspended"));
	assert_non_null(strstr(evs, "resume: power/runtime_status active"));
	assert_true(strstr(evs, "suspend:") < strstr(evs, "resume:"));
	assert_non_null(strstr(evs, "the device left the bus"));
	/* unplugged at the end: the tree no longer has it */
	sysfs_kernel_path(&W->k, "1-1", "bConfigurationValue", path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);
	/* the configurations are the device's, not the simulated phone's */
	assert_int_equal(cJSON_GetArraySize(rep.configs), 2);
	cfg = cJSON_GetArrayItem(rep.configs, 1);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(cfg, "max_power_ma")->valueint, 500);
	r = result(&rep, "bc12.adv.max_power");
	assert_int_equal(r->verdict, BN_VERDICT_PASS);
	assert_float_equal(r->measured, 0.5, 1e-9);
	/* no IBUS on this bench: the host's rules say so, they do not guess */
	r = result(&rep, "bc12.host.configured_bmaxpower");
	assert_int_equal(r->verdict, BN_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r->reason, "ibus"));
	bn_report_free(&rep);
}

/* A device advertising more than ICFG_MAX (510 mA, bMaxPower's largest
 * value) fails task 2 from its own descriptors. */
static void test_run_usb_host__real_configs_judged(void **state)
{
	static const int cfgs[] = { 510 };
	struct bn_report rep;
	struct bn_err err = { 0 };

	(void)state;
	build_desc(W, cfgs, 1, CLASS_VENDOR);
	assert_int_equal(run_real(W->scn, true, &rep, &err), BN_OK);
	assert_int_equal(result(&rep, "bc12.adv.max_power")->verdict, BN_VERDICT_FAIL);
	assert_float_equal(result(&rep, "bc12.adv.max_power")->measured, 0.51, 1e-9);
	/* nothing fits 500 mA: the kernel and the host leave it unconfigured,
	 * and it still suspends and resumes */
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	bn_report_free(&rep);
}

/* A driver without autosuspend (cdc_acm) keeps the device from
 * suspending: the run cannot make the state the scenario asks for, the
 * bench PC's set-up naming the driver (environment: a retry repeats
 * it), not a verdict on the device. */
static void test_run_usb_host__suspend_blocked(void **state)
{
	static const int cfgs[] = { 100, 500 };
	struct bn_report rep;
	struct bn_err err = { 0 };

	(void)state;
	build_desc(W, cfgs, 2, CLASS_CDC);
	assert_int_equal(run_real(W->scn, true, &rep, &err), BN_OK);
	assert_int_equal(rep.status, BN_RUN_ERROR);
	/* the bench PC's driver set-up: the environment's (6), not retried */
	assert_int_equal(rep.exit_code, 6);
	assert_non_null(strstr(rep.reason, "could not suspend the device"));
	assert_non_null(strstr(rep.reason, "cdc_acm"));
	for (int i = 0; i < rep.n_results; i++)
		assert_int_not_equal(rep.results[i].verdict, BN_VERDICT_PASS);
	bn_report_free(&rep);
}

/* What the bench cannot play is refused before anything is switched. */
static void test_run_usb_host__refused(void **state)
{
	struct bn_report rep;
	struct bn_err err = { 0 };
	char scn[SK_PATH_LEN + 32];
	FILE *f;

	(void)state;
	assert_int_equal(run_real(W->scn, false, &rep, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "host.scn:9:1: error: suspend needs the bench PC as the "
					"device's USB host"));
	assert_int_equal(W->n_plugs, 0);
	bn_report_free(&rep);
	snprintf(scn, sizeof(scn), "%s/noenum.scn", W->k.world);
	f = fopen(scn, "w");
	assert_non_null(f);
	fputs("port sdp\ncharger host-500ma\nhost no-enum\ndut phone\nvbus on\nwait 10ms\n", f);
	fclose(f);
	bn_err_clear(&err);
	assert_int_equal(run_real(scn, true, &rep, &err), BN_ERR_DATA);
	assert_non_null(strstr(err.msg, "host no-enum never enumerates"));
	assert_int_equal(W->n_plugs, 0);
	bn_report_free(&rep);
}

/* A host that grants less than the PC's root port is played by choosing
 * its configuration after the kernel's: a host with no power left (0 mA)
 * unconfigures the device, both recorded as configuration events. */
static void test_run_usb_host__budget_below_root_port(void **state)
{
	struct bn_report rep;
	struct bn_err err = { 0 };
	char scn[SK_PATH_LEN + 32], evs[4000];
	FILE *f;

	(void)state;
	snprintf(scn, sizeof(scn), "%s/noconfig.scn", W->k.world);
	f = fopen(scn, "w");
	assert_non_null(f);
	fputs("port sdp\ncharger host-500ma\nhost no-config\ndut phone\nvbus on\nwait 500ms\n"
	      "vbus off\nwait 100ms\n", f);
	fclose(f);
	assert_int_equal(run_real(scn, true, &rep, &err), BN_OK);
	assert_int_equal(rep.status, BN_RUN_COMPLETED);
	host_events(&rep, evs, sizeof(evs));
	print_message("%s", evs);
	assert_non_null(strstr(evs, "the kernel's choice at enumeration: configuration 1 (bMaxPower 100 mA)"));
	assert_non_null(strstr(evs, "the host profile's choice: configuration 0 (bMaxPower 0 mA)"));
	assert_true(strstr(evs, "the kernel's choice") < strstr(evs, "the host profile's choice"));
	bn_report_free(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_usb_host__enumerate_choose_suspend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_usb_host__real_configs_judged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_usb_host__suspend_blocked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_usb_host__refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_usb_host__budget_below_root_port, setup, teardown),
	};

	return cmocka_run_group_tests_name("run_usb_host", tests, NULL, NULL);
}
