/* Fixture device-side networks (hil/fixture_def.h "device_side", the FTDI
 * backend's device_side op) against the strict fake libftdi1
 * (fake/ftdi_fake.h): reference fixture B loads with every network, a
 * wrong block is refused naming its key, the networks switch break
 * before make beside the port's network and within the file's rules, and
 * a port run (the dut is the bench's built-in probe) on a real bench
 * plays the probe's sequence on the pins; on
 * fixture A the run says the data lines cannot be judged, naming the
 * fixture; a device run never touches the device side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <libftdi1/ftdi.h>
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
#define FIXTURE_B "fixtures/bcbench-fixture-b.json"
#define SCN "tests/data/scenarios/probe-dcp.scn"
#define MAX_SEEN 256

struct rig {
	struct bn_fixture_def def;
	struct ftdi_fake fk;
	struct bn_fixture fx;
	struct bn_err err;
	char path[1024];
	/* a whole run: the world the pins drive, and every decoded state */
	struct bn_world *w;
	uint32_t seen[MAX_SEEN];
	int n_seen;
	uint32_t final_state;
};

static struct rig *rig_new(const char *file)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct bn_backend_open bo = { 0 };

	assert_non_null(r);
	bn_test_path(file, r->path, sizeof(r->path));
	if (bn_fixture_def_load(&r->def, r->path, &r->err) < 0)
		fail_msg("%s", r->err.msg);
	ftdi_fake_install(&r->fk, &r->def);
	bo.file = r->path;
	if (bn_fixture_open(&r->fx, "ftdi", &bo, &r->err) < 0)
		fail_msg("%s", r->err.msg);
	return r;
}

static void assert_no_violation(const struct rig *r)
{
	if (r->fk.violation[0])
		fail_msg("fake libftdi: %s", r->fk.violation);
}

static void rig_free(struct rig *r)
{
	bn_fixture_close(&r->fx);
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

static int dev_side(struct rig *r, unsigned nets)
{
	bn_err_clear(&r->err);
	return r->fx.ops->device_side(r->fx.priv, nets, &r->err);
}

static void ok(struct rig *r, int rc)
{
	if (rc < 0)
		fail_msg("%s", r->err.msg);
}

#define NET(n) (1u << BN_FX_DEV_##n)

/* ---- the file ---- */

static void test_devside__fixture_b_loads(void **state)
{
	struct bn_fixture_def d;
	struct bn_err err = { 0 };
	char path[1024];
	const struct bn_fx_signal *s;

	(void)state;
	bn_test_path(FIXTURE_B, path, sizeof(path));
	if (bn_fixture_def_load(&d, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(d.name, "bcbench-fixture-b");
	assert_int_equal(d.nsignals, 12);
	assert_int_equal(d.dev_nets, (1u << BN_FX_DEV_COUNT) - 1u);
	assert_int_equal(d.dev_mask, 0x7f0u << 1); /* signals 5..11 */
	assert_int_equal(d.data_mask, 0x1cu);
	/* ADBUS1, 3, 5-7 and ACBUS0-6 driven, ACBUS7 the VBUS_SENSE input */
	assert_int_equal(d.out_pins, 0x7fea);
	s = &d.signals[d.dev_signal[BN_FX_DEV_IDP_SRC]];
	assert_string_equal(s->name, "DEV_IDP_SRC");
	assert_int_equal(s->role, BN_FX_DEVICE);
	assert_near(s->i_src_a, 10e-6, 1e-12);
	assert_non_null(strstr(s->part, "LM334"));
	s = &d.signals[d.dev_signal[BN_FX_DEV_VDP_SRC]];
	assert_near(s->v_src_v, 0.6, 1e-12);
	assert_near(s->r_ohm, 100.0, 1e-9);
	s = &d.signals[d.dev_signal[BN_FX_DEV_DP_PULLUP]];
	assert_near(s->r_ohm, 1500.0, 1e-9);
	assert_near(s->v_src_v, 3.3, 1e-12);
	assert_non_null(bn_fixture_def_port(&d, "external"));
	assert_int_equal(bn_fixture_def_port(&d, "external")->on, 0);
	assert_int_equal(bn_fixture_def_dev_state(&d, NET(VDP_SRC) | NET(IDM_SINK)),
			 (1u << d.dev_signal[BN_FX_DEV_VDP_SRC]) | (1u << d.dev_signal[BN_FX_DEV_IDM_SINK]));
	/* fixture A declares none */
	bn_test_path(FIXTURE_A, path, sizeof(path));
	assert_int_equal(bn_fixture_def_load(&d, path, &err), BN_OK);
	assert_int_equal(d.dev_nets, 0);
	assert_int_equal(d.dev_mask, 0);
	for (int k = 0; k < BN_FX_DEV_COUNT; k++)
		assert_int_equal(d.dev_signal[k], -1);
}

/* Fixture B's text with one edit, loaded from a scratch file. */
static int load_edit(const char *from, const char *to, struct bn_err *err)
{
	char path[1024], tmp[] = "/tmp/bn-fxb-XXXXXX";
	FILE *fp;
	char *text, *at, *out;
	long n;
	struct bn_fixture_def d;
	int fd, rc;

	bn_test_path(FIXTURE_B, path, sizeof(path));
	fp = fopen(path, "r");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	at = strstr(text, from);
	if (!at)
		fail_msg("fixture B lacks \"%s\"", from);
	out = calloc(1, (size_t)n + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcat(out, to);
	strcat(out, at + strlen(from));
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, out, strlen(out)), (ssize_t)strlen(out));
	close(fd);
	rc = bn_fixture_def_load(&d, tmp, err);
	unlink(tmp);
	free(text);
	free(out);
	return rc;
}

static void test_devside__bad_blocks(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		/* a required network missing */
		{ "\"dp_pullup\": {", "\"dp_pullup_x\": {", "unknown network \"dp_pullup_x\"" },
		{ "\"networks\": {", "\"networks\": { \"idp_src\": 1,",
		  "networks.idp_src: expected an object" },
		/* a role is not the file's to give */
		{ "\"name\": \"DEV_RDM_DWN\",", "\"name\": \"DEV_RDM_DWN\", \"role\": \"data\",",
		  "device_side.networks.rdm_dwn: unknown key \"role\"" },
		{ "\"pin\": \"ACBUS1\"", "\"pin\": \"ADBUS5\"", "pin ADBUS5 used twice" },
		{ "\"pin\": \"ACBUS1\"", "\"pin\": \"ADBUS0\"", "pin ADBUS0 is TXD" },
		{ "\"i_src_a\": \"10uA\"", "\"i_src_a\": \"10mV\"", "i_src_a" },
		/* a port type cannot hold a device-side network */
		{ "\"on\": [\"DP_DM_SHORT\"]", "\"on\": [\"DP_DM_SHORT\", \"DEV_VDP_SRC\"]",
		  "ports.dcp: \"DEV_VDP_SRC\" is not a data-line signal (role device)" },
		/* an active-high network whose pin floats high would be on in reset */
		{ "\"name\": \"DEV_VDM_SRC\", \"pin\": \"ACBUS4\", \"active\": \"high\",",
		  "\"name\": \"DEV_VDM_SRC\", \"pin\": \"ACBUS4\", \"active\": \"high\", \"undriven\": \"high\",",
		  "on whenever the FTDI is in reset" },
		{ "\"device_side\": {", "\"device_side\": { \"extra\": 1,",
		  "device_side: unknown key \"extra\"" },
	};
	struct bn_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bn_err_clear(&err);
		if (load_edit(cases[i].from, cases[i].to, &err) != BN_ERR_DATA)
			fail_msg("case %zu (%s): loaded", i, cases[i].to);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].msg);
		assert_non_null(strstr(err.msg, "/tmp/bn-fxb-"));
	}
	/* a block without a required network */
	bn_err_clear(&err);
	assert_int_equal(load_edit("\"idm_sink\": {", "\"rdm_dwn_2\": {", &err), BN_ERR_DATA);
	bn_err_clear(&err);
	assert_int_equal(load_edit(",\n      \"dp_pullup\": {", ",\n      \"zz_gone\": {", &err),
			 BN_ERR_DATA);
	{
		/* the whole network cut out: "missing dp_pullup" */
		char path[1024];
		FILE *fp;
		char text[16384] = "";
		char *a, *b;
		size_t n;

		bn_test_path(FIXTURE_B, path, sizeof(path));
		fp = fopen(path, "r");
		assert_non_null(fp);
		n = fread(text, 1, sizeof(text) - 1, fp);
		fclose(fp);
		text[n] = '\0';
		a = strstr(text, ",\n      \"dp_pullup\"");
		b = a ? strstr(a, "}\n    }\n  },") : NULL;
		assert_non_null(b);
		memmove(a, b + 1, strlen(b + 1) + 1);
		{
			char tmp[] = "/tmp/bn-fxb-XXXXXX";
			int fd = mkstemp(tmp);
			struct bn_fixture_def d;

			assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
			close(fd);
			bn_err_clear(&err);
			assert_int_equal(bn_fixture_def_load(&d, tmp, &err), BN_ERR_DATA);
			unlink(tmp);
			if (!strstr(err.msg, "networks: missing dp_pullup"))
				fail_msg("\"%s\"", err.msg);
		}
	}
}

/* ---- switching through the fake chip ---- */

static void test_devside__switching(void **state)
{
	struct rig *r = rig_new(FIXTURE_B);
	int writes;

	(void)state;
	assert_string_equal(r->fx.ops->wiring(r->fx.priv), "bcbench-fixture-b");
	assert_int_equal(r->fx.ops->device_nets(r->fx.priv), (1u << BN_FX_DEV_COUNT) - 1u);
	bn_err_clear(&r->err);
	ok(r, r->fx.ops->connect(r->fx.priv, "dcp", &r->err));
	ok(r, dev_side(r, NET(IDP_SRC) | NET(RDM_DWN)));
	assert_decoded(r, "DP_DM_SHORT+DEV_IDP_SRC+DEV_RDM_DWN");
	/* DCD to primary: both open, the release time, then the two new */
	ok(r, dev_side(r, NET(VDP_SRC) | NET(IDM_SINK)));
	assert_decoded(r, "DP_DM_SHORT+DEV_VDP_SRC+DEV_IDM_SINK");
	{
		const struct ftdi_fake_step *st = r->fk.steps;
		int n = r->fk.nsteps;
		uint32_t dcp = 1u << bn_fixture_def_signal(&r->def, "DP_DM_SHORT");

		assert_true(n >= 3);
		assert_int_equal(st[n - 2].state, dcp); /* the break: the port's network kept */
		assert_true(st[n - 1].t_us - st[n - 2].t_us >= r->def.release_ms * 1000);
	}
	/* a source and a sink on D+: refused, nothing written */
	writes = r->fk.writes;
	assert_int_equal(dev_side(r, NET(VDP_SRC) | NET(IDP_SINK)), BN_ERR_ARG);
	assert_non_null(strstr(r->err.msg, "a source and a sink on D+"));
	assert_non_null(strstr(r->err.msg, "bcbench-fixture-b"));
	assert_int_equal(r->fk.writes, writes);
	assert_decoded(r, "DP_DM_SHORT+DEV_VDP_SRC+DEV_IDM_SINK");
	/* a change of port type keeps the device side */
	bn_err_clear(&r->err);
	ok(r, r->fx.ops->connect(r->fx.priv, "sdp", &r->err));
	assert_decoded(r, "DP_PULLDOWN+DM_PULLDOWN+DEV_VDP_SRC+DEV_IDM_SINK");
	ok(r, r->fx.ops->vbus(r->fx.priv, true, &r->err));
	ok(r, dev_side(r, NET(DP_PULLUP)));
	assert_decoded(r, "VBUS_EN+DP_PULLDOWN+DM_PULLDOWN+DEV_DP_PULLUP");
	/* the plug goes: the device side with it, VBUS as it was */
	ok(r, r->fx.ops->disconnect(r->fx.priv, &r->err));
	assert_decoded(r, "VBUS_EN");
	ok(r, dev_side(r, NET(VDM_SRC) | NET(IDP_SINK)));
	ok(r, r->fx.ops->safe(r->fx.priv, &r->err));
	assert_decoded(r, "");
	ok(r, dev_side(r, NET(IDP_SRC)));
	assert_no_violation(r);
	bn_fixture_close(&r->fx);
	assert_int_equal(r->fk.state_at_close, 0); /* close opens the device side too */
	rig_free(r);
}

static void test_devside__fixture_a_has_none(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	int writes = r->fk.writes;

	(void)state;
	assert_int_equal(r->fx.ops->device_nets(r->fx.priv), 0);
	assert_string_equal(r->fx.ops->wiring(r->fx.priv), "bcbench-fixture-a");
	assert_int_equal(dev_side(r, NET(VDP_SRC)), BN_ERR_NA);
	assert_non_null(strstr(r->err.msg, "has no device-side network vdp_src"));
	assert_int_equal(r->fk.writes, writes);
	ok(r, dev_side(r, 0)); /* none asked: nothing to refuse */
	assert_no_violation(r);
	rig_free(r);
}

/* ---- whole runs: the decoded pins drive the simulated world ---- */

static void drive_world(void *user, uint32_t old_state, uint32_t now)
{
	struct rig *r = user;
	const struct bn_fixture_def *d = &r->def;
	uint32_t vbus = 1u << d->vbus_signal, data = now & d->data_mask;

	if (r->n_seen < MAX_SEEN)
		r->seen[r->n_seen++] = now;
	if (!r->w)
		return;
	if ((old_state ^ now) & (d->data_mask | vbus)) {
		const struct bn_fx_port *p = bn_fixture_def_port(d, bn_world_port(r->w)->name);

		if (p && data == p->on && !bn_world_plugged(r->w))
			bn_world_plug(r->w);
		else if (!data && bn_world_plugged(r->w) && !(now & vbus))
			bn_world_unplug(r->w);
	}
	if ((old_state ^ now) & vbus)
		bn_world_vbus(r->w, now & vbus);
}

static void on_world(void *user, struct bn_world *w)
{
	struct rig *r = user;

	if (!w)
		r->final_state = ftdi_fake_decode(&r->fk);
	r->w = w;
}

/* SCN on the fake chip as a real bench; dut: NULL for the scenario's
 * (the probe), else a device declaration in its place. */
static void run_scn(struct rig *r, const char *scn, const char *dut, struct bn_report *rep)
{
	char path[1024];
	struct bn_err err = { 0 };
	struct bn_run_opts o;

	bn_test_path(scn, path, sizeof(path));
	r->fk.on_state = drive_world;
	r->fk.user = r;
	o = (struct bn_run_opts){
		.scenario_path = path,
		.datadir = bn_test_srcdir(),
		.dut_override = dut,
		.fixture = &r->fx,
		.world_hook = on_world,
		.world_hook_user = r,
		.real_time = true,
		.real_bench = true,
	};
	bn_report_init(rep);
	if (bn_run_scenario(&o, rep, &err) < 0)
		fail_msg("%s: %s", scn, err.msg);
	if (rep->status != BN_RUN_COMPLETED)
		fail_msg("run: %s", rep->reason);
}

static void run(struct rig *r, const char *dut, struct bn_report *rep)
{
	run_scn(r, SCN, dut, rep);
}

/* The index of the first decoded state from `from` on whose device side
 * is exactly nets (and the port's network dcp), -1 if none. */
static int find_state(const struct rig *r, unsigned nets, int from)
{
	uint32_t dev = bn_fixture_def_dev_state(&r->def, nets);
	uint32_t dcp = 1u << bn_fixture_def_signal(&r->def, "DP_DM_SHORT");

	for (int i = from < 0 ? 0 : from; i < r->n_seen; i++)
		if ((r->seen[i] & r->def.dev_mask) == dev && (r->seen[i] & dcp))
			return i;
	return -1;
}

static bool has_event(const struct bn_report *rep, const char *kind, const char *detail)
{
	const cJSON *ev;

	cJSON_ArrayForEach(ev, rep->events) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(ev, "kind");
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "detail");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, kind) && cJSON_IsString(d) &&
		    strstr(d->valuestring, detail))
			return true;
	}
	return false;
}

/* A port run on fixture B: the probe's DCD, primary detection, its
 * release, secondary detection and done (nothing on a DCP), in that
 * order, on the pins beside the port's short; break before make
 * throughout; all open at the end. */
static void test_devside__port_run_plays_probe(void **state)
{
	struct rig *r = rig_new(FIXTURE_B);
	struct bn_report *rep = calloc(1, sizeof(*rep));
	int dcd, pri, rel, sec, done;

	(void)state;
	run(r, NULL, rep);
	assert_no_violation(r);
	assert_string_equal(rep->judges, "port");
	dcd = find_state(r, NET(IDP_SRC) | NET(RDM_DWN), 0);
	pri = find_state(r, NET(VDP_SRC) | NET(IDM_SINK), dcd);
	rel = find_state(r, 0, pri);
	sec = find_state(r, NET(VDM_SRC) | NET(IDP_SINK), rel);
	done = find_state(r, 0, sec);
	if (dcd < 0 || pri < dcd || rel < pri || sec < rel || done < sec)
		fail_msg("the probe's sequence on the pins: DCD at %d, primary %d, release %d, "
			 "secondary %d, done %d (of %d states)", dcd, pri, rel, sec, done, r->n_seen);
	assert_true(has_event(rep, "device-side", "idp_src+rdm_dwn"));
	assert_true(has_event(rep, "device-side", "vdp_src+idm_sink"));
	assert_true(has_event(rep, "device-side", "vdm_src+idp_sink"));
	assert_int_equal(r->final_state, 0);
	bn_report_free(rep);
	free(rep);
	rig_free(r);
}

/* A device run on fixture B: the real device plays its own detection;
 * the bench never closes a device-side relay on it. */
static void test_devside__device_run_leaves_device_side(void **state)
{
	struct rig *r = rig_new(FIXTURE_B);
	struct bn_report *rep = calloc(1, sizeof(*rep));

	(void)state;
	run(r, "phone", rep);
	assert_no_violation(r);
	assert_true(r->n_seen > 2); /* it ran through the pins */
	for (int i = 0; i < r->n_seen; i++)
		if (r->seen[i] & r->def.dev_mask)
			fail_msg("state %d: a device-side network on the lines in a device run", i);
	assert_false(has_event(rep, "device-side", ""));
	bn_report_free(rep);
	free(rep);
	rig_free(r);
}

/* A port run on fixture A: D+ and D- are not judged, and the record says
 * why, naming the fixture; the run completes. */
static void test_devside__port_run_fixture_a_says_why(void **state)
{
	struct rig *r = rig_new(FIXTURE_A);
	struct bn_report *rep = calloc(1, sizeof(*rep));
	static const char why[] = "fixture bcbench-fixture-a has no device-side networks";
	const cJSON *chs;

	(void)state;
	run_scn(r, "tests/data/scenarios/probe-cdp.scn", NULL, rep);
	assert_no_violation(r);
	assert_true(has_event(rep, "device-side", why));
	assert_false(rep->channel_mask & ((1u << BN_CH_DP) | (1u << BN_CH_DM)));
	chs = cJSON_GetObjectItemCaseSensitive(rep->measurement, "channels");
	for (int ch = BN_CH_DP; ch <= BN_CH_DM; ch++) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(chs, bn_chan_label(ch));
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "why");

		if (!cJSON_IsString(w) || !strstr(w->valuestring, why))
			fail_msg("channel %s: why %s", bn_chan_label(ch),
				 cJSON_IsString(w) ? w->valuestring : "(none)");
	}
	/* the port's data-line rules: inconclusive, naming the fixture */
	{
		int n = 0;

		for (int i = 0; i < rep->n_results; i++) {
			const struct bn_result *res = &rep->results[i];

			if (getenv("BN_TEST_SHOW"))
				fprintf(stderr, "%s %s: %s\n", res->id, bn_verdict_name(res->verdict), res->reason);
			/* the CDP's answer on D- to the probe's VDP_SRC */
			if (strcmp(res->id, "bc12.port.tvdmsrc_en") && strcmp(res->id, "bc12.port.vdm_src") &&
			    strcmp(res->id, "bc12.port.tvdmsrc_dis"))
				continue;
			n++;
			assert_int_equal(res->verdict, BN_VERDICT_INCONCLUSIVE);
			if (!strstr(res->reason, why))
				fail_msg("%s: \"%s\" does not name the fixture", res->id, res->reason);
		}
		assert_int_equal(n, 3);
	}
	assert_int_equal(r->final_state, 0);
	bn_report_free(rep);
	free(rep);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devside__fixture_b_loads),
		cmocka_unit_test(test_devside__bad_blocks),
		cmocka_unit_test(test_devside__switching),
		cmocka_unit_test(test_devside__fixture_a_has_none),
		cmocka_unit_test(test_devside__port_run_plays_probe),
		cmocka_unit_test(test_devside__device_run_leaves_device_side),
		cmocka_unit_test(test_devside__port_run_fixture_a_says_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
