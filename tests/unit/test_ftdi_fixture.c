/* The FTDI fixture backend (hil/ftdi_fixture.c) and its fixture file
 * (hil/fixture_def.c), run against the strict fake libftdi1
 * (fake/ftdi_fake.h): each port type's network as decoded from the pins,
 * break before make with the release time, the refusal of illegal
 * combinations, the safe state on close and on every error path, the
 * USB writes per change, and whole scenarios whose decoded switch states
 * drive the simulated world, interrupted ones included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <libftdi1/ftdi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/harness.h"
#include "fake/ftdi_fake.h"
#include "hil/backend.h"
#include "hil/fixture_def.h"
#include "report/report.h"
#include "scenario/runner.h"
#include "core/port_type.h"
#include "sim/world.h"

#define FIXTURE_A "fixtures/bcbench-fixture-a.json"
#define FIXTURE_R "tests/data/fixtures/ft232r-active-low.json"

/* One fake chip and the backend opened on it. */
struct rig {
	struct bn_fixture_def def;    /* the fake's copy of the file */
	struct ftdi_fake fk;
	struct bn_fixture fx;
	struct bn_err err;
	char path[1024];
};

static struct rig *rig_new(const char *file)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct bn_err err = { 0 };

	assert_non_null(r);
	bn_test_path(file, r->path, sizeof(r->path));
	if (bn_fixture_def_load(&r->def, r->path, &err) < 0)
		fail_msg("%s", err.msg);
	ftdi_fake_install(&r->fk, &r->def);
	return r;
}

static int rig_open(struct rig *r, const char *name_spec)
{
	struct bn_backend_open bo = { .file = r->path };

	bn_err_clear(&r->err);
	return bn_fixture_open(&r->fx, name_spec, &bo, &r->err);
}

static void rig_open_ok(struct rig *r)
{
	if (rig_open(r, "ftdi") < 0)
		fail_msg("%s", r->err.msg);
}

static void assert_no_violation(const struct rig *r)
{
	if (r->fk.violation[0])
		fail_msg("fake libftdi: %s", r->fk.violation);
}

/* Close and free, then check the chip was left alone safely. */
static void rig_free(struct rig *r)
{
	bn_fixture_close(&r->fx);
	assert_int_equal(r->fk.n_new, r->fk.n_free);
	assert_int_equal(r->fk.n_open, r->fk.n_close);
	ftdi_fake_uninstall();
	free(r);
}

static void assert_decoded(const struct rig *r, const char *want)
{
	char got[256];

	ftdi_fake_names(&r->fk, ftdi_fake_decode(&r->fk), got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("the pins show \"%s\", expected \"%s\"", got, want);
}

static int fx_connect(struct rig *r, const char *port)
{
	bn_err_clear(&r->err);
	return r->fx.ops->connect(r->fx.priv, port, &r->err);
}

static int fx_vbus(struct rig *r, bool on)
{
	bn_err_clear(&r->err);
	return r->fx.ops->vbus(r->fx.priv, on, &r->err);
}

static int fx_safe(struct rig *r)
{
	bn_err_clear(&r->err);
	return r->fx.ops->safe(r->fx.priv, &r->err);
}

static void ok(struct rig *r, int rc)
{
	if (rc < 0)
		fail_msg("%s", r->err.msg);
}

/* ---- the fixture file ---- */

static void test_ftdi__fixture_a_loads(void **state)
{
	struct bn_fixture_def d;
	struct bn_err err = { 0 };
	char path[1024];

	(void)state;
	bn_test_path(FIXTURE_A, path, sizeof(path));
	assert_int_equal(bn_fixture_def_load(&d, path, &err), BN_OK);
	assert_string_equal(d.name, "bcbench-fixture-a");
	assert_int_equal(d.mode, BN_FX_MPSSE);
	assert_int_equal(d.vid, 0x0403);
	assert_int_equal(d.pid, 0x6014);
	assert_int_equal(d.nsignals, 11);
	assert_int_equal(d.nports, 9);
	assert_int_equal(d.ninputs, 2);
	assert_int_equal(d.release_ms, 5);
	/* ADBUS1, 3, 5-7 and ACBUS0-5 driven; ACBUS6-7 are inputs; ADBUS0,
	 * 2 and 4 (UART outputs at power-up) unconnected */
	assert_int_equal(d.out_pins, 0x3fea);
	assert_string_equal(d.signals[d.vbus_signal].name, "VBUS_EN");
	assert_string_equal(d.signals[d.load_signal].name, "LOAD_EN");
	assert_near(d.signals[bn_fixture_def_signal(&d, "ID_RID_C")].r_ohm, 36500.0, 1e-6);
	assert_near(d.signals[bn_fixture_def_signal(&d, "CDP_VDM_SRC")].v_src_v, 0.6, 1e-9);
	/* every port type the bench knows has a network on this fixture */
	for (const char *const *p = (const char *const[]){ "sdp", "dcp", "cdp", "float", "aca-a",
							   "aca-b", "aca-c", "aca-dock", "otg",
							   NULL };
	     *p; p++)
		assert_non_null(bn_fixture_def_port(&d, *p));
}

struct bad_file {
	const char *json;
	const char *says;
};

/* A minimal valid file with one part replaced. */
#define HEAD "{\"ftdi\": {\"mode\": \"mpsse\", \"vid\": \"0403\", \"pid\": \"6014\"}, \"release_ms\": 5, "
#define SIGS                                                                             \
	"\"signals\": [{\"name\": \"VBUS_EN\", \"pin\": \"ADBUS1\", \"role\": \"vbus\"},"    \
	" {\"name\": \"SHORT\", \"pin\": \"ADBUS3\"}, {\"name\": \"PD\", \"pin\": \"ADBUS5\"}], "

static void test_ftdi__bad_fixture_files(void **state)
{
	static const struct bad_file bad[] = {
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"SHORT\"]}}", NULL }, /* the valid base */
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"SHORT\"]}", ":1:" },  /* syntax: line named */
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"SHRT\"]}}", "ports.dcp: unknown signal \"SHRT\"" },
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"VBUS_EN\"]}}", "not a data-line signal" },
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"SHORT\", \"SHORT\"]}}", "listed twice" },
		{ HEAD "\"signals\": [{\"name\": \"VBUS_EN\", \"pin\": \"ADBUS8\", \"role\": \"vbus\"}], "
		       "\"ports\": {\"x\": []}}",
		  "pin \"ADBUS8\": expected ADBUS0-7, ACBUS0-7 or D0-7" },
		{ HEAD "\"signals\": [{\"name\": \"VBUS_EN\", \"pin\": \"ADBUS1\", \"role\": \"vbus\"}, "
		       "{\"name\": \"B\", \"pin\": \"D1\"}], \"ports\": {\"x\": []}}",
		  "signals[1] (B): pin ADBUS1 used twice" },
		{ HEAD "\"signals\": [{\"name\": \"VBUS_EN\", \"pin\": \"ADBUS1\", \"role\": \"vbus\", "
		       "\"active\": \"low\"}], \"ports\": {\"x\": []}}",
		  "whenever the FTDI is in reset; fit a pull-up" },
		{ HEAD "\"signals\": [{\"name\": \"A\", \"pin\": \"ADBUS1\"}], \"ports\": {\"x\": []}}",
		  "none has role \"vbus\"" },
		/* TXD, RTS#, DTR# are driven in UART mode, at power-up */
		{ HEAD "\"signals\": [{\"name\": \"VBUS_EN\", \"pin\": \"ADBUS0\", \"role\": \"vbus\"}], "
		       "\"ports\": {\"x\": []}}",
		  "signals[0] (VBUS_EN): pin ADBUS0 is TXD while the chip is in UART mode" },
		{ HEAD SIGS "\"ports\": {\"x\": []}, \"inputs\": [{\"name\": \"S\", \"pin\": \"ADBUS4\"}]}",
		  "inputs[0] (S): pin ADBUS4 is DTR#" },
		{ "{\"ftdi\": {\"mode\": \"mpsse\", \"power_up\": \"maybe\"}, \"release_ms\": 5}",
		  "key \"power_up\": expected \"uart\"" },
		{ "{\"ftdi\": {\"mode\": \"mpsse\", \"vid\": \"0x403\"}, \"release_ms\": 5}",
		  "key \"vid\": expected four hex digits" },
		/* cJSON would keep the first of two: the file must not be read so */
		{ HEAD SIGS "\"ports\": {\"dcp\": []}, \"release_ms\": 0}", "key \"release_ms\" given twice" },
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"SHORT\"], \"dcp\": []}}", "ports.dcp: port type defined twice" },
		{ HEAD SIGS "\"ports\": {\"dcp\": []}, \"inputs\": [{\"name\": \"S\", \"pin\": \"ACBUS6\"}, "
			    "{\"name\": \"S\", \"pin\": \"ACBUS7\"}]}",
		  "inputs[1] (S): name used twice" },
		{ HEAD SIGS "\"ports\": {\"dcp\": {\"on\": [], \"expect\": {\"vbus\": [\"5V\", \"4V\"]}}}}",
		  "expect.vbus: min 5 above max 4" },
		{ HEAD SIGS "\"ports\": {\"dcp\": {\"on\": [], \"expect\": {\"vbus\": [\"5A\", \"6A\"]}}}}",
		  "expect.vbus: expected a voltage" },
		{ "{\"ftdi\": {\"mode\": \"bitbang\"}, \"release_ms\": 5, \"signals\": [{\"name\": "
		  "\"VBUS_EN\", \"pin\": \"ACBUS0\", \"role\": \"vbus\"}], \"ports\": {\"x\": []}}",
		  "bitbang mode drives ADBUS0-7 (D0-D7) only" },
		{ "{\"ftdi\": {\"mode\": \"gpio\"}, \"release_ms\": 5}", "expected \"mpsse\" or \"bitbang\"" },
		{ "{\"ftdi\": {\"mode\": \"mpsse\", \"vid\": \"40x3\"}, \"release_ms\": 5}",
		  "key \"vid\": expected four hex digits" },
		{ "{\"ftdi\": {\"mode\": \"mpsse\"}, \"release_ms\": 2.5}", "whole milliseconds" },
		{ "{\"ftdi\": {\"mode\": \"mpsse\"}}", "missing key \"release_ms\"" },
		{ HEAD SIGS "\"ports\": {\"dcp\": [\"SHORT\", \"PD\"]}, \"illegal\": [{\"all\": "
			    "[\"SHORT\", \"PD\"], \"why\": \"no\"}]}",
		  "ports.dcp: illegal network: SHORT+PD together: no" },
		{ HEAD SIGS "\"ports\": {\"dcp\": []}, \"illegal\": [{\"all\": [\"SHORT\"], \"why\": \"x\"}]}",
		  "a rule needs two signals or more" },
		{ HEAD SIGS "\"ports\": {\"dcp\": []}, \"illegal\": [{\"all\": [\"SHORT\", \"PD\"]}]}",
		  "illegal[0]: missing key \"why\"" },
		{ HEAD SIGS "\"ports\": {}, \"wires\": 3}", "unknown key \"wires\"" },
		{ HEAD SIGS "\"ports\": {\"dcp\": []}, \"inputs\": [{\"name\": \"S\", \"pin\": "
			    "\"ACBUS6\", \"follows\": \"VBUS\"}]}",
		  "follows: unknown signal \"VBUS\"" },
	};
	char path[] = "/tmp/bcbench-fx-XXXXXX";
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bn_fixture_def d;
		struct bn_err err = { 0 };
		FILE *f = fopen(path, "w");
		int rc;

		assert_non_null(f);
		fputs(bad[i].json, f);
		fclose(f);
		rc = bn_fixture_def_load(&d, path, &err);
		if (!bad[i].says) {
			if (rc < 0)
				fail_msg("case %zu: %s", i, err.msg);
			continue;
		}
		if (rc != BN_ERR_DATA)
			fail_msg("case %zu: expected BN_ERR_DATA, got %d (%s)", i, rc, err.msg);
		assert_msg_has(&err, path);
		if (!strstr(err.msg, bad[i].says))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, bad[i].says);
	}
	unlink(path);
}

/* ---- the fake is strict: each of its checks fires ---- */

static void test_ftdi__fake_catches_what_it_should(void **state)
{
	struct rig *r;
	struct ftdi_context *ctx;
	/* ADBUS5 = DP_DM_SHORT, ADBUS6 = DP_PULLDOWN */
	static const unsigned char both[] = { 0x80, 0x60, 0xff };
	static const unsigned char shrt[] = { 0x80, 0x20, 0xff }, none[] = { 0x80, 0x00, 0xff };
	static const unsigned char pd[] = { 0x80, 0x40, 0xff }, swap[] = { 0x80, 0x40, 0xff };
	static const unsigned char junk[] = { 0x8f };

	(void)state;
	/* an illegal combination */
	r = rig_new(FIXTURE_A);
	ctx = ftdi_new();
	assert_int_equal(ftdi_usb_open_desc_index(ctx, 0x403, 0x6014, NULL, NULL, 0), 0);
	ftdi_set_bitmode(ctx, 0, BITMODE_MPSSE);
	ftdi_write_data(ctx, both, 3);
	assert_non_null(strstr(r->fk.violation, "illegal state on the wires: DP_DM_SHORT+DP_PULLDOWN"));
	/* a make right after a break */
	ftdi_fake_install(&r->fk, &r->def);
	assert_int_equal(ftdi_usb_open_desc_index(ctx, 0x403, 0x6014, NULL, NULL, 0), 0);
	ftdi_set_bitmode(ctx, 0, BITMODE_MPSSE);
	ftdi_write_data(ctx, shrt, 3);
	ftdi_write_data(ctx, none, 3);
	ftdi_write_data(ctx, pd, 3);
	assert_non_null(strstr(r->fk.violation, "write 3: made DP_PULLDOWN"));
	assert_non_null(strstr(r->fk.violation, "after a break (release time 5 ms)"));
	/* make and break in one write */
	ftdi_fake_install(&r->fk, &r->def);
	assert_int_equal(ftdi_usb_open_desc_index(ctx, 0x403, 0x6014, NULL, NULL, 0), 0);
	ftdi_set_bitmode(ctx, 0, BITMODE_MPSSE);
	ftdi_write_data(ctx, shrt, 3);
	r->fk.skipped_us += 10000;
	ftdi_write_data(ctx, swap, 3);
	assert_non_null(strstr(r->fk.violation, "in the same write as a break"));
	/* bytes in reset mode, unknown commands, calls after close */
	ftdi_fake_install(&r->fk, &r->def);
	assert_int_equal(ftdi_usb_open_desc_index(ctx, 0x403, 0x6014, NULL, NULL, 0), 0);
	ftdi_write_data(ctx, shrt, 3);
	assert_non_null(strstr(r->fk.violation, "in reset mode go out of the UART"));
	ftdi_fake_install(&r->fk, &r->def);
	assert_int_equal(ftdi_usb_open_desc_index(ctx, 0x403, 0x6014, NULL, NULL, 0), 0);
	ftdi_set_bitmode(ctx, 0, BITMODE_MPSSE);
	ftdi_write_data(ctx, junk, 1);
	assert_non_null(strstr(r->fk.violation, "unknown MPSSE command 0x8f"));
	ftdi_fake_install(&r->fk, &r->def);
	ftdi_write_data(ctx, shrt, 3);
	assert_non_null(strstr(r->fk.violation, "not open"));
	ftdi_free(ctx);
	ftdi_fake_uninstall();
	free(r);
}

/* ---- the backend ---- */

struct port_net {
	const char *port;
	const char *network;  /* what the fixture's README says each port type is */
};

static void test_ftdi__each_port_network(void **state)
{
	static const struct port_net nets[] = {
		{ "sdp", "DP_PULLDOWN+DM_PULLDOWN" },
		{ "dcp", "DP_DM_SHORT" },
		{ "cdp", "DP_PULLDOWN+DM_PULLDOWN+CDP_VDM_SRC" },
		{ "float", "" },
		{ "aca-a", "ID_RID_A" },
		{ "aca-b", "ID_RID_B" },
		{ "aca-c", "DP_PULLDOWN+DM_PULLDOWN+ID_RID_C" },
		{ "aca-dock", "ID_RID_A+DOCK_VDM_SRC" },
		{ "otg", "ID_GND" },
		{ "dcp", "DP_DM_SHORT" },
		{ "aca-c", "DP_PULLDOWN+DM_PULLDOWN+ID_RID_C" },
		{ "sdp", "DP_PULLDOWN+DM_PULLDOWN" },
	};
	struct rig *r = rig_new(FIXTURE_A);

	(void)state;
	rig_open_ok(r);
	/* opened: the interface reset, the pins taken in MPSSE, all open */
	assert_int_equal(r->fk.mode, BITMODE_MPSSE);
	assert_int_equal(r->fk.dir, 0x3fea);
	assert_int_equal(r->fk.latency_ms, 1);
	assert_int_equal(r->fk.open_vid, 0x0403);
	assert_int_equal(r->fk.open_pid, 0x6014);
	assert_string_equal(r->fk.open_desc, "bcbench fixture A");
	assert_decoded(r, "");
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		ok(r, fx_connect(r, nets[i].port));
		assert_decoded(r, nets[i].network);
		/* the direction bits never change: inputs stay inputs */
		assert_int_equal(r->fk.dir, 0x3fea);
	}
	assert_no_violation(r);
	/* an unknown port type names the ones there are */
	assert_int_equal(fx_connect(r, "qc3"), BN_ERR_ARG);
	assert_msg_has(&r->err, "no port type \"qc3\"");
	assert_msg_has(&r->err, "sdp, dcp, cdp, float");
	rig_free(r);
}

static void test_ftdi__break_before_make(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	int w0, s0;

	(void)state;
	rig_open_ok(r);
	ok(r, fx_connect(r, "dcp"));
	ok(r, fx_vbus(r, true));
	assert_decoded(r, "VBUS_EN+DP_DM_SHORT");
	w0 = r->fk.writes;
	s0 = r->fk.nsteps;
	ok(r, fx_connect(r, "cdp"));
	/* two writes: the short opens with VBUS kept; the CDP network is
	 * made after the release time (its ADBUS and ACBUS commands are two
	 * steps of the second write) */
	assert_int_equal(r->fk.writes - w0, 2);
	assert_int_equal(r->fk.nsteps - s0, 3);
	assert_int_equal(r->fk.steps[s0].state, 1u << bn_fixture_def_signal(&r->def, "VBUS_EN"));
	assert_true(r->fk.steps[s0 + 1].t_us - r->fk.steps[s0].t_us >= 5000);
	assert_int_equal(r->fk.steps[s0 + 1].write_no, r->fk.steps[s0 + 2].write_no);
	assert_decoded(r, "VBUS_EN+DP_PULLDOWN+DM_PULLDOWN+CDP_VDM_SRC");
	/* the same port again: no write at all */
	w0 = r->fk.writes;
	ok(r, fx_connect(r, "cdp"));
	assert_int_equal(r->fk.writes, w0);
	/* to a subset (cdp -> sdp): only a break, one write */
	ok(r, fx_connect(r, "sdp"));
	assert_int_equal(r->fk.writes - w0, 1);
	/* one USB write per change, each a single MPSSE command when only
	 * one byte's pins change (cdp -> sdp opens ACBUS0 only) */
	assert_int_equal(r->fk.last_write_len, 3);
	w0 = r->fk.writes;
	ok(r, fx_connect(r, "aca-c"));
	assert_int_equal(r->fk.writes - w0, 1);
	assert_int_equal(r->fk.last_write_len, 3); /* ACBUS only: one 0x82 command */
	/* a make long after a break needs no wait; a make soon after one does */
	ok(r, r->fx.ops->disconnect(r->fx.priv, &r->err));
	r->fk.skipped_us += 60000;
	s0 = r->fk.nsteps;
	ok(r, fx_connect(r, "dcp"));
	assert_int_equal(r->fk.nsteps - s0, 1);
	assert_no_violation(r);
	rig_free(r);
}

/* The release time holds across roles: a relay commanded open is still
 * closed for up to release_ms, so ID_GND may not close right after
 * VBUS_EN opened, nor VBUS_EN right after ID_GND. */
static void test_ftdi__release_time_across_roles(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	int n;

	(void)state;
	rig_open_ok(r);
	ok(r, fx_connect(r, "float"));
	ok(r, fx_vbus(r, true));
	ok(r, fx_vbus(r, false));
	n = r->fk.nsteps;
	ok(r, fx_connect(r, "otg"));
	assert_int_equal(r->fk.nsteps - n, 1);
	assert_true(r->fk.steps[n].t_us - r->fk.steps[n - 1].t_us >= 5000);
	ok(r, r->fx.ops->disconnect(r->fx.priv, &r->err));
	n = r->fk.nsteps;
	ok(r, fx_vbus(r, true));
	assert_true(r->fk.steps[n].t_us - r->fk.steps[n - 1].t_us >= 5000);
	assert_decoded(r, "VBUS_EN");
	assert_no_violation(r);
	rig_free(r);
}

/* A bitbang fixture whose safe state has a relay on: open latches all
 * off, and the safe network is made after the release time. */
static void test_ftdi__bitbang_safe_network(void **state)
{
	static const char json[] =
		"{\"ftdi\": {\"mode\": \"bitbang\", \"vid\": \"0403\", \"pid\": \"6001\"}, "
		"\"release_ms\": 10, \"signals\": [{\"name\": \"VBUS_EN\", \"pin\": \"D1\", "
		"\"role\": \"vbus\"}, {\"name\": \"DP_PD\", \"pin\": \"D3\"}], "
		"\"ports\": {\"sdp\": [\"DP_PD\"]}, \"safe\": [\"DP_PD\"]}";
	char path[] = "/tmp/bcbench-fxsafe-XXXXXX";
	struct bn_backend_open bo = { 0 };
	struct ftdi_fake *fk = calloc(1, sizeof(*fk));
	struct bn_fixture_def *d = calloc(1, sizeof(*d));
	struct bn_fixture fx = { 0 };
	struct bn_err err = { 0 };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, sizeof(json) - 1), (ssize_t)(sizeof(json) - 1));
	close(fd);
	if (bn_fixture_def_load(d, path, &err) < 0)
		fail_msg("%s", err.msg);
	ftdi_fake_install(fk, d);
	bo.file = path;
	if (bn_fixture_open(&fx, "ftdi", &bo, &err) < 0)
		fail_msg("%s", err.msg);
	if (fk->violation[0])
		fail_msg("fake libftdi: %s", fk->violation);
	assert_int_equal(ftdi_fake_decode(fk), 1u << bn_fixture_def_signal(d, "DP_PD"));
	bn_fixture_close(&fx);
	assert_null(fk->violation[0] ? fk->violation : NULL);
	ftdi_fake_uninstall();
	unlink(path);
	free(fk);
	free(d);
}

static void test_ftdi__refuses_illegal(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	int w0;

	(void)state;
	rig_open_ok(r);
	ok(r, fx_connect(r, "otg"));
	w0 = r->fk.writes;
	assert_int_equal(fx_vbus(r, true), BN_ERR_ARG);
	assert_msg_has(&r->err, "refusing VBUS_EN+ID_GND");
	assert_msg_has(&r->err, "OTG A-device sources VBUS itself");
	assert_msg_has(&r->err, FIXTURE_A);
	assert_int_equal(r->fk.writes, w0);
	assert_decoded(r, "ID_GND");
	/* and the other way round: the old network stays whole */
	ok(r, fx_connect(r, "dcp"));
	ok(r, fx_vbus(r, true));
	w0 = r->fk.writes;
	assert_int_equal(fx_connect(r, "otg"), BN_ERR_ARG);
	assert_int_equal(r->fk.writes, w0);
	assert_decoded(r, "VBUS_EN+DP_DM_SHORT");
	assert_no_violation(r);
	rig_free(r);
}

static void test_ftdi__safe_on_close(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	int n;

	(void)state;
	rig_open_ok(r);
	ok(r, fx_connect(r, "cdp"));
	ok(r, fx_vbus(r, true));
	ok(r, r->fx.ops->load_path(r->fx.priv, true, &r->err));
	assert_decoded(r, "VBUS_EN+LOAD_EN+DP_PULLDOWN+DM_PULLDOWN+CDP_VDM_SRC");
	n = r->fk.nsteps;
	bn_fixture_close(&r->fx);
	assert_int_equal(r->fk.n_close, 1);
	assert_int_equal(r->fk.state_at_close, 0);
	/* VBUS and the load let go first, the data lines after */
	assert_true(r->fk.nsteps >= n + 2);
	assert_int_equal(r->fk.steps[n].state, bn_fixture_def_port(&r->def, "cdp")->on);
	assert_int_equal(r->fk.steps[r->fk.nsteps - 1].state, 0);
	/* the mode stays (the relays hold their safe state); no reset needed */
	assert_int_equal(r->fk.n_reset_mode, 1);
	assert_no_violation(r);
	rig_free(r);
}

/* The chip vanishes in the middle of a change: the error names the
 * state and libftdi's reason; safe() fails too while it is gone, and
 * close() falls back to reset mode (every pin tri-stated, every relay
 * open through the board's pull-downs). */
static void test_ftdi__lost_chip_fails_safe(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);

	(void)state;
	rig_open_ok(r);
	ok(r, fx_connect(r, "dcp"));
	ok(r, fx_vbus(r, true));
	r->fk.fail_writes_from = r->fk.write_calls + 2; /* the make of cdp */
	assert_int_equal(fx_connect(r, "cdp"), BN_ERR_FAULT);
	assert_msg_has(&r->err, "writing VBUS_EN+DP_PULLDOWN+DM_PULLDOWN+CDP_VDM_SRC");
	assert_msg_has(&r->err, "usb bulk write failed");
	assert_msg_has(&r->err, "bcbench-fixture-a");
	assert_int_equal(fx_safe(r), BN_ERR_FAULT);
	assert_int_not_equal(ftdi_fake_decode(&r->fk), 0); /* VBUS still on */
	bn_fixture_close(&r->fx);
	assert_int_equal(r->fk.n_reset_mode, 2);
	assert_int_equal(r->fk.state_at_close, 0);
	assert_no_violation(r);
	rig_free(r);
}

/* One write lost, then the chip answers again: the backend no longer
 * knows the relays, so safe() opens everything in one write. */
static void test_ftdi__glitch_then_safe(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	int w0;

	(void)state;
	rig_open_ok(r);
	ok(r, fx_connect(r, "sdp"));
	ok(r, fx_vbus(r, true));
	r->fk.fail_writes_from = r->fk.fail_writes_until = r->fk.write_calls + 1;
	assert_int_equal(fx_connect(r, "dcp"), BN_ERR_FAULT);
	w0 = r->fk.writes;
	ok(r, fx_safe(r));
	assert_int_equal(r->fk.writes - w0, 1);
	assert_decoded(r, "");
	/* and the next connect from there waits the release time */
	ok(r, fx_connect(r, "dcp"));
	assert_decoded(r, "DP_DM_SHORT");
	assert_no_violation(r);
	rig_free(r);
}

static void test_ftdi__open_errors(void **state)
{
	struct rig *r;

	(void)state;
	r = rig_new(FIXTURE_A);
	r->fk.open_rc = -3;
	assert_int_equal(rig_open(r, "ftdi"), BN_ERR_FAULT);
	assert_msg_has(&r->err, "0403:6014");
	assert_msg_has(&r->err, "device not found");
	assert_msg_has(&r->err, "bcbench devices");
	assert_null(r->fx.ops);
	assert_int_equal(r->fk.n_new, r->fk.n_free);
	ftdi_fake_install(&r->fk, &r->def);
	r->fk.open_rc = -5;
	assert_int_equal(rig_open(r, "ftdi:0403:6015:FT12AB"), BN_ERR_FAULT);
	assert_msg_has(&r->err, "udev rules");
	assert_int_equal(r->fk.open_pid, 0x6015);
	assert_string_equal(r->fk.open_serial, "FT12AB");
	assert_string_equal(r->fk.open_desc, ""); /* explicit ids win over the file's name */
	/* the chip opens but will not take the mode: closed again, in reset */
	ftdi_fake_install(&r->fk, &r->def);
	r->fk.fail_bitmode = true;
	assert_int_equal(rig_open(r, "ftdi"), BN_ERR_FAULT);
	assert_msg_has(&r->err, "entering MPSSE mode");
	assert_int_equal(r->fk.n_close, 1);
	assert_int_equal(r->fk.n_free, 1);
	assert_int_equal(r->fk.mode, BITMODE_RESET);
	/* specs */
	ftdi_fake_install(&r->fk, &r->def);
	assert_int_equal(rig_open(r, "ftdi:desc=bench 2"), BN_OK);
	assert_string_equal(r->fk.open_desc, "bench 2");
	bn_fixture_close(&r->fx);
	ftdi_fake_install(&r->fk, &r->def);
	assert_int_equal(rig_open(r, "ftdi:0403"), BN_ERR_ARG);
	assert_msg_has(&r->err, "expected VID:PID[:SERIAL]");
	assert_int_equal(r->fk.n_new, 0);
	/* no fixture file, a broken one */
	{
		struct bn_backend_open bo = { .file = NULL };

		bn_err_clear(&r->err);
		assert_int_equal(bn_fixture_open(&r->fx, "ftdi", &bo, &r->err), BN_ERR_ARG);
		assert_msg_has(&r->err, "needs fixture_file");
		bo.file = "/nonexistent/fx.json";
		bn_err_clear(&r->err);
		assert_int_equal(bn_fixture_open(&r->fx, "ftdi", &bo, &r->err), BN_ERR_IO);
		assert_msg_has(&r->err, "/nonexistent/fx.json");
	}
	rig_free(r);
}

/* Every step of open that can fail leaves nothing open and the pins as
 * a reset chip has them (every relay open). */
static void test_ftdi__each_open_step_fails_cleanly(void **state)
{
	static const struct {
		const char *call, *says;
	} steps[] = {
		{ "ftdi_usb_reset", "USB reset" },
		{ "ftdi_set_latency_timer", "setting the latency timer" },
		{ "ftdi_tcioflush", "flushing the buffers" },
		{ "ftdi_set_bitmode", "resetting the bit mode" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct rig *r = rig_new(FIXTURE_A);

		r->fk.fail_call = steps[i].call;
		assert_int_equal(rig_open(r, "ftdi"), BN_ERR_FAULT);
		assert_msg_has(&r->err, steps[i].says);
		assert_msg_has(&r->err, "USB transfer failed (injected)");
		assert_null(r->fx.ops);
		assert_int_equal(ftdi_fake_decode(&r->fk), 0);
		assert_no_violation(r);
		rig_free(r);
	}
}

/* A chip an earlier session (or another program) left driving relays:
 * open drops them, and the first make still waits the release time. */
static void test_ftdi__chip_left_driving(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);

	(void)state;
	ftdi_fake_left_driving(&r->fk, (1u << bn_fixture_def_signal(&r->def, "VBUS_EN")) |
					       (1u << bn_fixture_def_signal(&r->def, "DP_DM_SHORT")));
	assert_decoded(r, "VBUS_EN+DP_DM_SHORT");
	rig_open_ok(r);
	assert_decoded(r, "");
	ok(r, fx_connect(r, "cdp"));
	assert_decoded(r, "DP_PULLDOWN+DM_PULLDOWN+CDP_VDM_SRC");
	assert_no_violation(r);
	rig_free(r);
}

static void test_ftdi__inputs(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	unsigned bits = 0;

	(void)state;
	rig_open_ok(r);
	r->fk.input_levels = 0xc000; /* ACBUS6 VBUS_SENSE, ACBUS7 RELAY_PWR_OK */
	ok(r, r->fx.ops->inputs(r->fx.priv, &bits, &r->err));
	assert_int_equal(bits, 3);
	r->fk.input_levels = 0x4000;
	ok(r, r->fx.ops->inputs(r->fx.priv, &bits, &r->err));
	assert_int_equal(bits, 1);
	/* an output pin reads as driven, whatever the board tries */
	r->fk.input_levels = 0xffff;
	ok(r, r->fx.ops->inputs(r->fx.priv, &bits, &r->err));
	assert_int_equal(bits, 3);
	r->fk.reads_stall = true;
	bn_err_clear(&r->err);
	assert_int_equal(r->fx.ops->inputs(r->fx.priv, &bits, &r->err), BN_ERR_TIMEOUT);
	assert_msg_has(&r->err, "reading the pins: no answer");
	assert_no_violation(r);
	rig_free(r);
}

/* An FT232R in bitbang with active-low relay boards: one byte per
 * change, the levels inverted, the direction mask given to set_bitmode. */
static void test_ftdi__bitbang_active_low(void **state)
{
	struct rig *r = rig_new(FIXTURE_R);
	unsigned bits = 0;
	int w0;

	(void)state;
	rig_open_ok(r);
	assert_int_equal(r->fk.mode, BITMODE_BITBANG);
	assert_int_equal(r->fk.dir, 0x3f);
	assert_int_equal(r->fk.open_pid, 0x6001);
	assert_decoded(r, "");
	assert_int_equal(r->fk.level & 0x3f, 0x1f); /* active-low ones high, D5 low */
	ok(r, fx_connect(r, "dcp"));
	ok(r, fx_vbus(r, true));
	assert_decoded(r, "VBUS_EN+DP_DM_SHORT");
	assert_int_equal(r->fk.level & 0x3f, 0x1c);
	assert_int_equal(r->fk.last_write_len, 1);
	w0 = r->fk.writes;
	ok(r, fx_connect(r, "odd"));
	assert_int_equal(r->fk.writes - w0, 2);
	assert_decoded(r, "VBUS_EN+DP_PULLDOWN+ACTIVE_HIGH_ONE");
	assert_true(r->fk.steps[r->fk.nsteps - 1].t_us - r->fk.steps[r->fk.nsteps - 2].t_us >= 20000);
	/* VBUS_SENSE is active low on D7 */
	r->fk.input_levels = 0x00;
	ok(r, r->fx.ops->inputs(r->fx.priv, &bits, &r->err));
	assert_int_equal(bits, 1);
	r->fk.input_levels = 0x80;
	ok(r, r->fx.ops->inputs(r->fx.priv, &bits, &r->err));
	assert_int_equal(bits, 0);
	/* no load relay: turning the path on says so, off is a no-op */
	bn_err_clear(&r->err);
	assert_int_equal(r->fx.ops->load_path(r->fx.priv, true, &r->err), BN_ERR_NA);
	assert_msg_has(&r->err, "no load relay");
	ok(r, r->fx.ops->load_path(r->fx.priv, false, &r->err));
	bn_fixture_close(&r->fx);
	assert_int_equal(r->fk.state_at_close, 0);
	assert_int_equal(r->fk.level & 0x3f, 0x1f);
	assert_no_violation(r);
	rig_free(r);
}

/* ---- whole scenarios: the decoded pins drive the simulated world ---- */

struct e2e {
	struct rig *r;
	struct bn_world *w;
	char mismatch[256];
	int vbus_ons;
	int stop_at_vbus_on;          /* raise the "signal" at this VBUS on */
	int stop_sig;
	volatile sig_atomic_t stop;
	uint32_t final_state;
};

static void drive_world(void *user, uint32_t old_state, uint32_t now)
{
	struct e2e *e = user;
	const struct bn_fixture_def *d = &e->r->def;
	uint32_t vbus = 1u << d->vbus_signal, data = now & d->data_mask;

	if (!e->w)
		return;
	if ((old_state ^ now) & (d->data_mask | vbus)) {
		const struct bn_fx_port *p = bn_fixture_def_port(d, bn_world_port(e->w)->name);

		/* the world's one port, or nothing; float is both */
		if (p && data == p->on) {
			if (!bn_world_plugged(e->w))
				bn_world_plug(e->w);
		} else if (!data) {
			if (bn_world_plugged(e->w))
				bn_world_unplug(e->w);
		} else if (!e->mismatch[0]) {
			snprintf(e->mismatch, sizeof(e->mismatch), "network 0x%x is not port %s", data,
				 bn_world_port(e->w)->name);
		}
	}
	if ((old_state ^ now) & vbus) {
		bn_world_vbus(e->w, now & vbus);
		if (now & vbus && ++e->vbus_ons == e->stop_at_vbus_on)
			e->stop = e->stop_sig;
	}
}

static void on_world(void *user, struct bn_world *w)
{
	struct e2e *e = user;

	if (!w)
		e->final_state = ftdi_fake_decode(&e->r->fk);
	e->w = w;
}

static void run_scn(const char *scn, struct bn_fixture *fx, struct e2e *e, struct bn_report *rep)
{
	char path[1024];
	struct bn_err err = { 0 };
	struct bn_run_opts o;

	bn_test_path(scn, path, sizeof(path));
	o = (struct bn_run_opts){
		.scenario_path = path,
		.datadir = bn_test_srcdir(),
		.fixture = fx,
		.world_hook = fx ? on_world : NULL,
		.world_hook_user = e,
		.stop_flag = e ? &e->stop : NULL,
	};
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) < 0)
		fail_msg("%s: %s", scn, err.msg);
}

static void test_ftdi__scenarios_end_to_end(void **state)
{
	static const char *const scns[] = {
		"scripts/scenarios/dcp.scn",   "scripts/scenarios/cdp.scn",
		"scripts/scenarios/sdp-root.scn", "scripts/scenarios/otg.scn",
		"scripts/scenarios/aca-c.scn", "scripts/scenarios/aca-dock.scn",
		"scripts/scenarios/float.scn", "scripts/scenarios/faulty-sdp-idp-high.scn",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(scns) / sizeof(scns[0]); i++) {
		struct e2e *e = calloc(1, sizeof(*e));
		struct bn_report *sim = calloc(1, sizeof(*sim)), *hw = calloc(1, sizeof(*hw));
		int t_sim[BN_VERDICT_COUNT], t_hw[BN_VERDICT_COUNT];

		e->r = rig_new(FIXTURE_A);
		e->r->fk.on_state = drive_world;
		e->r->fk.user = e;
		rig_open_ok(e->r);
		run_scn(scns[i], NULL, NULL, sim);
		run_scn(scns[i], &e->r->fx, e, hw);
		if (e->mismatch[0])
			fail_msg("%s: %s", scns[i], e->mismatch);
		assert_no_violation(e->r);
		assert_int_equal(hw->status, BN_RUN_COMPLETED);
		/* the same verdicts as on the plain simulated bench */
		bn_report_totals(sim, t_sim);
		bn_report_totals(hw, t_hw);
		for (int v = 0; v < BN_VERDICT_COUNT; v++)
			if (t_sim[v] != t_hw[v])
				fail_msg("%s: verdict %d: %d through the FTDI fixture, %d simulated",
					 scns[i], v, t_hw[v], t_sim[v]);
		assert_true(t_hw[BN_VERDICT_PASS] > 0);
		/* it really ran through the pins, and ended safe */
		assert_true(e->r->fk.writes >= 3);
		assert_int_equal(e->final_state, 0);
		bn_report_free(sim);
		bn_report_free(hw);
		free(sim);
		free(hw);
		rig_free(e->r);
		free(e);
	}
}

static void interrupted(int sig)
{
	struct e2e *e = calloc(1, sizeof(*e));
	struct bn_report *rep = calloc(1, sizeof(*rep));

	e->r = rig_new(FIXTURE_A);
	e->r->fk.on_state = drive_world;
	e->r->fk.user = e;
	e->stop_at_vbus_on = 1;
	e->stop_sig = sig;
	rig_open_ok(e->r);
	run_scn("scripts/scenarios/dbp.scn", &e->r->fx, e, rep);
	assert_int_equal(rep->status, BN_RUN_ABORTED);
	assert_int_equal(bn_report_exit_code(rep), 128 + sig);
	assert_non_null(strstr(rep->reason, "interrupt"));
	assert_true(rep->sim_s < 60.0);
	/* the pins, read back through the fixture file: VBUS off, load off,
	 * data lines and ID open, before the run returned */
	assert_int_equal(e->final_state, 0);
	assert_int_equal(ftdi_fake_decode(&e->r->fk), 0);
	assert_no_violation(e->r);
	bn_report_free(rep);
	free(rep);
	rig_free(e->r);
	free(e);
}

static void test_ftdi__sigint_mid_scenario(void **state)
{
	(void)state;
	interrupted(SIGINT);
}

static void test_ftdi__sigterm_mid_scenario(void **state)
{
	(void)state;
	interrupted(SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftdi__fixture_a_loads),
		cmocka_unit_test(test_ftdi__bad_fixture_files),
		cmocka_unit_test(test_ftdi__fake_catches_what_it_should),
		cmocka_unit_test(test_ftdi__each_port_network),
		cmocka_unit_test(test_ftdi__break_before_make),
		cmocka_unit_test(test_ftdi__release_time_across_roles),
		cmocka_unit_test(test_ftdi__bitbang_safe_network),
		cmocka_unit_test(test_ftdi__refuses_illegal),
		cmocka_unit_test(test_ftdi__safe_on_close),
		cmocka_unit_test(test_ftdi__lost_chip_fails_safe),
		cmocka_unit_test(test_ftdi__glitch_then_safe),
		cmocka_unit_test(test_ftdi__open_errors),
		cmocka_unit_test(test_ftdi__each_open_step_fails_cleanly),
		cmocka_unit_test(test_ftdi__chip_left_driving),
		cmocka_unit_test(test_ftdi__inputs),
		cmocka_unit_test(test_ftdi__bitbang_active_low),
		cmocka_unit_test(test_ftdi__scenarios_end_to_end),
		cmocka_unit_test(test_ftdi__sigint_mid_scenario),
		cmocka_unit_test(test_ftdi__sigterm_mid_scenario),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
