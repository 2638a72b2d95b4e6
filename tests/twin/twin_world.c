/* The twin's world (twin_world.h): profiles loaded as the run loads
 * them, the instruments' state mapped onto the world's actions. */
#include "twin_world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/channel.h"

/* What the VBUS_SENSE comparator on the device side of K1 trips at
 * (fixtures/README.md): VBUS above 4 V. */
#define TWIN_VBUS_SENSE_V 4.0
/* Below this a constant-current load has nothing to sink. */
#define TWIN_LOAD_MIN_V 0.1
/* The world's sample clock without a scope: nothing takes its samples
 * (the instruments read bn_world_sample_now), so a slow one costs
 * nothing. */
#define TWIN_WORLD_RATE_HZ 1000.0

/* Bare names are profiles/KIND/NAME.json under the data dir; paths as
 * written, else under the data dir (as the run resolves them). */
static void resolve(const char *datadir, const char *kind, const char *spec, char *out, size_t len)
{
	bool bare = !strchr(spec, '/') && !strstr(spec, ".json") && !strstr(spec, ".so");

	if (bare)
		snprintf(out, len, "%s/profiles/%s/%s.json", datadir, kind, spec);
	else if (spec[0] == '/' || access(spec, R_OK) == 0)
		snprintf(out, len, "%s", spec);
	else
		snprintf(out, len, "%s/%s", datadir, spec);
}

static int add_port(struct twin_world *tw, const struct bn_fx_port *fp, const char *profile,
		    bool must, struct bn_err *err)
{
	struct twin_port *p = &tw->ports[tw->nports];
	char path[1400];
	struct bn_err e = { 0 };

	resolve(tw->o.datadir, "ports", profile, path, sizeof(path));
	if (!must && access(path, R_OK) != 0)
		return BN_OK; /* a port type the profiles do not model: not emulated */
	if (bn_port_load(path, &tw->lim, &p->prof, &e) < 0)
		return bn_err_set(err, BN_ERR_DATA, "port type %s: %s", fp->name, e.msg);
	snprintf(p->fx_name, sizeof(p->fx_name), "%s", fp->name);
	p->on = fp->on;
	tw->nports++;
	return BN_OK;
}

static int load_ports(struct twin_world *tw, struct bn_err *err)
{
	const struct bn_fixture_def *d = tw->o.fx;
	char list[512], *save = NULL;
	int rc;

	if (!tw->o.ports) {
		for (int i = 0; i < d->nports; i++)
			if ((rc = add_port(tw, &d->ports[i], d->ports[i].name, false, err)) < 0)
				return rc;
	} else {
		snprintf(list, sizeof(list), "%s", tw->o.ports);
		for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(it, '=');
			const struct bn_fx_port *fp;

			if (eq)
				*eq++ = '\0';
			fp = bn_fixture_def_port(d, it);
			if (!fp)
				return bn_err_set(err, BN_ERR_ARG, "--port-types: %s has no port type \"%s\"",
						  d->path, it);
			if ((rc = add_port(tw, fp, eq && *eq ? eq : it, true, err)) < 0)
				return rc;
		}
	}
	if (!tw->nports)
		return bn_err_set(err, BN_ERR_DATA, "no port type of %s has a port profile under %s/profiles/ports",
				  d->path, tw->o.datadir);
	return BN_OK;
}

/* The charger's curve as the supply's setpoints make it (twin_world.h). */
static void derive_charger(const struct bn_charger *base, double v, double ilim_a,
			   struct bn_charger *out)
{
	double shift = v > 0 ? v - base->v_v[0] : 0.0, last_i = 0.0;
	int n = 0;

	*out = *base;
	for (int i = 0; i < base->n_points; i++)
		if (base->v_v[i] > 0)
			last_i = base->i_a[i];
	for (int i = 0; i < base->n_points; i++) {
		if (ilim_a > 0 && ilim_a < last_i && base->i_a[i] >= ilim_a)
			break;
		out->i_a[n] = base->i_a[i];
		out->v_v[n] = base->v_v[i] > 0 ? base->v_v[i] + shift : 0.0;
		n++;
	}
	if (ilim_a > 0 && ilim_a < last_i && n < BN_CHARGER_MAX_POINTS - 1) {
		/* a constant-current limit: the curve falls steeply at ilim */
		out->i_a[n] = ilim_a;
		out->v_v[n] = bn_charger_v_out(base, ilim_a) + shift;
		n++;
		out->i_a[n] = ilim_a * 1.001 + 1e-4;
		out->v_v[n] = 0.0;
		n++;
	}
	out->n_points = n;
}

static void on_event(void *user, bn_time_us t, const char *kind, const char *detail)
{
	struct twin_world *tw = user;

	if (tw->o.log) {
		fprintf(tw->o.log, "%.6f\t%s\t%s\n", bn_time_to_s(t), kind, detail);
		fflush(tw->o.log);
	}
}

static void on_cev(void *user, const struct bn_cev *ev)
{
	struct twin_world *tw = user;

	if (ev->kind == BN_CEV_TELEMETRY && tw->o.on_telemetry && ev->key && ev->text)
		tw->o.on_telemetry(tw->o.user, ev->t_us, ev->key, ev->text);
}

static void on_sample(void *user, bn_time_us t, const struct bn_sample *s)
{
	struct twin_world *tw = user;

	tw->o.on_sample(tw->o.user, t, s);
}

static int load_profiles(struct twin_world *tw, struct bn_err *err)
{
	const struct twin_world_opts *o = &tw->o;
	const char *fw_spec;
	char path[1400];
	struct bn_err e = { 0 };
	int rc;

	resolve(o->datadir, "limits", o->limits ? o->limits : "bc12", path, sizeof(path));
	if ((rc = bn_limits_load(path, &tw->lim, err)) < 0)
		return rc;
	tw->have_lim = true;
	if ((rc = load_ports(tw, err)) < 0)
		return rc;
	resolve(o->datadir, "chargers", o->charger ? o->charger : "ideal-5a", path, sizeof(path));
	if ((rc = bn_charger_load(path, &tw->base, &e)) < 0)
		return bn_err_set(err, rc, "--charger: %s", e.msg);
	if (o->host) {
		resolve(o->datadir, "hosts", o->host, path, sizeof(path));
		if ((rc = bn_host_load(path, &tw->lim, &tw->host, &e)) < 0)
			return bn_err_set(err, rc, "--host: %s", e.msg);
	} else {
		bn_host_default(&tw->lim, &tw->host);
	}
	resolve(o->datadir, "duts", o->dut ? o->dut : "phone", path, sizeof(path));
	if ((rc = bn_dut_load(path, &tw->lim, &tw->dut, &e)) < 0)
		return bn_err_set(err, rc, "--dut: %s", e.msg);
	fw_spec = o->firmware ? o->firmware : tw->dut.firmware;
	if (!bn_fw_is_builtin(fw_spec)) {
		if (access(fw_spec, R_OK) == 0)
			snprintf(path, sizeof(path), "%s", fw_spec);
		else
			snprintf(path, sizeof(path), "%s/%s", o->datadir, fw_spec);
		fw_spec = path;
	}
	if ((rc = bn_fw_load(fw_spec, &tw->fw, &e)) < 0)
		return bn_err_set(err, rc, "firmware: %s", e.msg);
	return BN_OK;
}

int twin_world_open(struct twin_world *tw, const struct twin_world_opts *o, struct bn_err *err)
{
	struct bn_world_cfg wc;
	int rc;

	memset(tw, 0, sizeof(*tw));
	tw->o = *o;
	if ((rc = load_profiles(tw, err)) < 0)
		return rc;
	tw->sup_v = tw->base.v_v[0];
	derive_charger(&tw->base, tw->sup_v, 0.0, &tw->chg[0]);
	wc = (struct bn_world_cfg){
		.lim = &tw->lim,
		.port = &tw->ports[0].prof,
		.charger = &tw->chg[0],
		.host = &tw->host,
		.dut = &tw->dut,
		.fw = tw->fw.fw,
		.battery_v = o->battery_v,
		.data_delay_us = -1,
		.sample_rate_hz = o->on_sample ? o->sample_rate_hz : TWIN_WORLD_RATE_HZ,
		.host_external = o->host_external,
		.sink = { .user = tw, .sample = o->on_sample ? on_sample : NULL, .event = on_event,
			  .cev = on_cev },
		.stop_flag = o->stop,
	};
	rc = bn_world_new(&wc, &tw->w, err);
	if (rc < 0)
		return rc;
	/* The fixture powers up with every relay open. */
	bn_world_safe_state(tw->w);
	return BN_OK;
}

void twin_world_close(struct twin_world *tw)
{
	bn_world_free(tw->w);
	tw->w = NULL;
	bn_fw_unload(&tw->fw);
	if (tw->have_lim)
		bn_limits_free(&tw->lim);
	tw->have_lim = false;
}

int twin_world_advance(struct twin_world *tw, bn_time_us t, struct bn_err *err)
{
	if (t <= bn_world_now(tw->w))
		return BN_OK;
	return bn_world_run_until(tw->w, t, err);
}

/* A new curve for the charger, while unplugged. */
static void apply_charger(struct twin_world *tw)
{
	int next = 1 - tw->chg_cur;

	if (!tw->chg_pending || bn_world_plugged(tw->w))
		return;
	derive_charger(&tw->base, tw->sup_v, tw->sup_ilim_a, &tw->chg[next]);
	if (bn_world_move(tw->w, NULL, &tw->chg[next], NULL, -1, -1, 0, NULL) == BN_OK) {
		tw->chg_cur = next;
		tw->chg_pending = false;
	}
}

static const struct twin_port *network(const struct twin_world *tw, uint32_t data)
{
	for (int i = 0; i < tw->nports; i++)
		if (tw->ports[i].on == data)
			return &tw->ports[i];
	return NULL;
}

/* Plug, port and VBUS switch from what the fixture and supply say. */
static void apply(struct twin_world *tw)
{
	struct bn_world *w = tw->w;
	bool vbus = tw->vbus_en && (tw->sup_on || !tw->o.supply_gates);
	bool want = tw->net && (tw->net->on != 0 || tw->vbus_en);
	double load = tw->load_en && tw->load_on ? tw->load_set_a : 0.0;

	if (!want) {
		bn_world_unplug(w);
		bn_world_vbus(w, false); /* unplugged: only the switch opens */
		apply_charger(tw);
	} else {
		if (bn_world_port(w) != &tw->net->prof) {
			bn_world_unplug(w);
			apply_charger(tw);
			bn_world_move(w, &tw->net->prof, NULL, NULL, -1, -1, 0, NULL);
		}
		if (bn_world_plugged(w)) {
			bn_world_vbus(w, vbus);
		} else if (vbus) {
			bn_world_vbus(w, true); /* plugs */
		} else {
			bn_world_vbus(w, false);
			bn_world_plug(w);
		}
	}
	if (load != bn_world_load_a(w))
		bn_world_load(w, load);
}

void twin_world_fixture(struct twin_world *tw, uint32_t state, char *what, size_t len)
{
	const struct bn_fixture_def *d = tw->o.fx;
	uint32_t data = state & d->data_mask;
	const struct bn_fx_port *known = NULL;

	tw->fx_state = state;
	tw->vbus_en = state & (1u << d->vbus_signal);
	tw->load_en = d->load_signal >= 0 && (state & (1u << d->load_signal));
	tw->net = network(tw, data);
	for (int i = 0; i < d->nports && !known; i++)
		if (d->ports[i].on == data)
			known = &d->ports[i];
	apply(tw);
	/* Data lines open and no VBUS: nothing is plugged, whatever port
	 * type ("float") has the empty network. */
	snprintf(what, len, "port=%s vbus=%s load=%s%s",
		 !data && !tw->vbus_en ? "none"
		 : tw->net	       ? tw->net->fx_name
		 : known	       ? known->name
				       : "?",
		 tw->vbus_en ? "on" : "off", tw->load_en ? "on" : "off",
		 !tw->net && known ? " (no port profile: unplugged)"
		 : !tw->net && (data || tw->vbus_en) ? " (no port type has this network: unplugged)"
						      : "");
}

void twin_world_supply(struct twin_world *tw, bool on, double v, double ilim_a)
{
	if (v != tw->sup_v || ilim_a != tw->sup_ilim_a)
		tw->chg_pending = true;
	tw->sup_on = on;
	tw->sup_v = v;
	tw->sup_ilim_a = ilim_a;
	apply_charger(tw);
	apply(tw);
}

void twin_world_load(struct twin_world *tw, bool on, double set_a)
{
	tw->load_on = on;
	tw->load_set_a = set_a;
	apply(tw);
}

double twin_world_vbus_v(const struct twin_world *tw)
{
	return bn_world_sample_now(tw->w)->v[BN_CH_VBUS];
}

double twin_world_ibus_a(const struct twin_world *tw)
{
	return bn_world_sample_now(tw->w)->v[BN_CH_IBUS];
}

double twin_world_load_v(const struct twin_world *tw)
{
	return tw->load_en ? twin_world_vbus_v(tw) : 0.0;
}

double twin_world_load_a(const struct twin_world *tw)
{
	return twin_world_load_v(tw) > TWIN_LOAD_MIN_V ? bn_world_load_a(tw->w) : 0.0;
}

double twin_world_supply_a(const struct twin_world *tw)
{
	double i;

	if (!tw->sup_on || !bn_world_plugged(tw->w) || !bn_world_vbus_switch(tw->w))
		return 0.0;
	i = twin_world_ibus_a(tw);
	return (i > 0 ? i : 0.0) + twin_world_load_a(tw);
}

double twin_world_supply_v(const struct twin_world *tw)
{
	const struct bn_charger *c = &tw->chg[tw->chg_cur];

	if (!tw->sup_on)
		return 0.0;
	if (!bn_world_plugged(tw->w) || !bn_world_vbus_switch(tw->w))
		return bn_charger_v_out(c, 0.0); /* open circuit */
	return twin_world_vbus_v(tw) + twin_world_supply_a(tw) * c->cable_ohm;
}

uint16_t twin_world_inputs(const struct twin_world *tw)
{
	const struct bn_fixture_def *d = tw->o.fx;
	uint16_t levels = 0;

	for (int i = 0; i < d->ninputs; i++) {
		const struct bn_fx_input *in = &d->inputs[i];
		bool active;

		if (in->follows == d->vbus_signal)
			active = twin_world_vbus_v(tw) > TWIN_VBUS_SENSE_V;
		else if (in->follows >= 0)
			active = tw->fx_state & (1u << in->follows);
		else
			active = in->expect == 1;
		if (active == in->active_high)
			levels |= (uint16_t)(1u << in->pin);
	}
	return levels;
}
