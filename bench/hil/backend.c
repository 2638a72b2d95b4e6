/* The backend arrays, open/close by name, and the simulated backends: the
 * template every real backend follows. The sim ones act on the run's
 * world: the fixture's switches are the world's plug and VBUS switch,
 * the load is the world's sink, the supply is the charger profile's
 * curve (its setpoints are recorded, not modelled). */
#define BN_LOG_MODULE "backend"
#include "hil/backend.h"

#include <stdlib.h>
#include <string.h>

#include "core/channel.h"
#include "core/log.h"
#include "hil/guard.h"
#include "core/port_type.h"
#include "sim/world.h"

/* ---- sim fixture ---- */

struct sim_fixture {
	struct bn_world *w;
	bool connected;
};

static int need_world(const struct bn_backend_open *o, const char *role, struct bn_err *err)
{
	if (!o || !o->world)
		return bn_err_set(err, BN_ERR_ARG, "%s \"sim\": the simulated %s needs the run's world",
				  role, role);
	return BN_OK;
}

static int simfx_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	struct sim_fixture *f = priv;
	int rc = need_world(o, "fixture", err);

	if (rc < 0)
		return rc;
	f->w = o->world;
	return BN_OK;
}

/* The world emulates one port profile: connecting another is a bug in
 * the caller, not a state of the bench. */
static int simfx_connect(void *priv, const char *port_type, struct bn_err *err)
{
	struct sim_fixture *f = priv;
	const char *have = bn_world_port(f->w)->name;

	if (strcmp(port_type, have) != 0)
		return bn_err_set(err, BN_ERR_ARG,
				  "fixture \"sim\": the simulated bench emulates port \"%s\", not \"%s\"",
				  have, port_type);
	if (!f->connected)
		bn_world_plug(f->w);
	f->connected = true;
	return BN_OK;
}

static int simfx_disconnect(void *priv, struct bn_err *err)
{
	struct sim_fixture *f = priv;

	bn_world_unplug(f->w);
	f->connected = false;
	return BN_OK;
}

static int simfx_vbus(void *priv, bool on, struct bn_err *err)
{
	struct sim_fixture *f = priv;

	bn_world_vbus(f->w, on);
	if (on)
		f->connected = true;
	return BN_OK;
}

static int simfx_load_path(void *priv, bool on, struct bn_err *err)
{
	return BN_OK; /* the sim load sinks only what it is set to */
}

static int simfx_safe(void *priv, struct bn_err *err)
{
	struct sim_fixture *f = priv;

	if (f->w)
		bn_world_safe_state(f->w);
	f->connected = false;
	return BN_OK;
}

const struct bn_fixture_ops bn_fixture_sim_ops = {
	.name = "sim",
	.priv_size = sizeof(struct sim_fixture),
	.open = simfx_open,
	.connect = simfx_connect,
	.disconnect = simfx_disconnect,
	.vbus = simfx_vbus,
	.load_path = simfx_load_path,
	.safe = simfx_safe,
};

/* ---- sim load ---- */

struct sim_load {
	struct bn_world *w;
	double set_a;
	bool on;
};

static int simld_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	struct sim_load *l = priv;
	int rc = need_world(o, "load", err);

	if (rc < 0)
		return rc;
	l->w = o->world;
	return BN_OK;
}

static void simld_apply(struct sim_load *l)
{
	double a = l->on ? l->set_a : 0.0;

	if (a != bn_world_load_a(l->w))
		bn_world_load(l->w, a);
}

static int simld_set(void *priv, double amps, struct bn_err *err)
{
	struct sim_load *l = priv;

	l->set_a = amps;
	if (l->on)
		bn_world_load(l->w, amps);
	return BN_OK;
}

static int simld_enable(void *priv, bool on, struct bn_err *err)
{
	struct sim_load *l = priv;

	l->on = on;
	simld_apply(l);
	return BN_OK;
}

static int simld_measure(void *priv, double *volts, double *amps, struct bn_err *err)
{
	struct sim_load *l = priv;
	const struct bn_sample *s = bn_world_sample_now(l->w);

	*volts = s->v[BN_CH_VBUS];
	*amps = l->on ? l->set_a : 0.0;
	return BN_OK;
}

static int simld_safe(void *priv, struct bn_err *err)
{
	struct sim_load *l = priv;

	l->on = false;
	if (l->w)
		simld_apply(l);
	return BN_OK;
}

const struct bn_load_ops bn_load_sim_ops = {
	.name = "sim",
	.priv_size = sizeof(struct sim_load),
	.open = simld_open,
	.set_current = simld_set,
	.enable = simld_enable,
	.measure = simld_measure,
	.safe = simld_safe,
};

/* ---- sim supply ---- */

struct sim_supply {
	struct bn_world *w;
	double set_v, ilim_a;
	bool on;
};

static int simsp_open(void *priv, const struct bn_backend_open *o, struct bn_err *err)
{
	struct sim_supply *p = priv;
	int rc = need_world(o, "supply", err);

	if (rc < 0)
		return rc;
	p->w = o->world;
	return BN_OK;
}

static int simsp_set_v(void *priv, double volts, struct bn_err *err)
{
	((struct sim_supply *)priv)->set_v = volts;
	return BN_OK;
}

static int simsp_set_i(void *priv, double amps, struct bn_err *err)
{
	((struct sim_supply *)priv)->ilim_a = amps;
	return BN_OK;
}

static int simsp_enable(void *priv, bool on, struct bn_err *err)
{
	((struct sim_supply *)priv)->on = on;
	return BN_OK;
}

static int simsp_measure(void *priv, double *volts, double *amps, struct bn_err *err)
{
	struct sim_supply *p = priv;
	const struct bn_sample *s = bn_world_sample_now(p->w);

	*volts = s->v[BN_CH_VBUS];
	*amps = s->v[BN_CH_IBUS];
	return BN_OK;
}

static int simsp_safe(void *priv, struct bn_err *err)
{
	((struct sim_supply *)priv)->on = false;
	return BN_OK;
}

const struct bn_supply_ops bn_supply_sim_ops = {
	.name = "sim",
	.priv_size = sizeof(struct sim_supply),
	.open = simsp_open,
	.set_voltage = simsp_set_v,
	.set_current_limit = simsp_set_i,
	.enable = simsp_enable,
	.measure = simsp_measure,
	.safe = simsp_safe,
};

/* ---- the arrays ---- */

static const struct bn_fixture_ops *const fixture_backends[] = {
	&bn_fixture_sim_ops,
	&bn_fixture_ftdi_ops,
};
static const struct bn_load_ops *const load_backends[] = {
	&bn_load_sim_ops,
	&bn_load_scpi_ops,
};
static const struct bn_supply_ops *const supply_backends[] = {
	&bn_supply_sim_ops,
	&bn_supply_scpi_ops,
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const struct bn_fixture_ops *bn_fixture_backend(const char *name)
{
	for (size_t i = 0; i < N_OF(fixture_backends); i++)
		if (fixture_backends[i] && !strcmp(fixture_backends[i]->name, name))
			return fixture_backends[i];
	return NULL;
}

const struct bn_load_ops *bn_load_backend(const char *name)
{
	for (size_t i = 0; i < N_OF(load_backends); i++)
		if (load_backends[i] && !strcmp(load_backends[i]->name, name))
			return load_backends[i];
	return NULL;
}

const struct bn_supply_ops *bn_supply_backend(const char *name)
{
	for (size_t i = 0; i < N_OF(supply_backends); i++)
		if (supply_backends[i] && !strcmp(supply_backends[i]->name, name))
			return supply_backends[i];
	return NULL;
}

/* The arrays hold two entries each; the lists are immutable literals. */
const char *bn_fixture_backend_names(void)
{
	return "sim, ftdi";
}

const char *bn_load_backend_names(void)
{
	return "sim, scpi";
}

const char *bn_supply_backend_names(void)
{
	return "sim, scpi";
}

/* "NAME[:SPEC]" -> name; the spec (after the first ':') into o2. */
static int split_spec(const char *role, const char *name_spec, char *name, size_t len,
		      const char **spec, struct bn_err *err)
{
	const char *colon = strchr(name_spec, ':');
	size_t n = colon ? (size_t)(colon - name_spec) : strlen(name_spec);

	if (n == 0 || n >= len)
		return bn_err_set(err, BN_ERR_ARG, "%s \"%s\": expected NAME[:SPEC]", role, name_spec);
	memcpy(name, name_spec, n);
	name[n] = '\0';
	*spec = colon ? colon + 1 : "";
	return BN_OK;
}

#define OPEN_ROLE(ROLE, TYPE, FIND, NAMES)                                                     \
	char name[32];                                                                         \
	const char *spec;                                                                      \
	struct bn_backend_open o2 = o ? *o : (struct bn_backend_open){ 0 };                    \
	const struct TYPE *ops;                                                                \
	int rc = split_spec(ROLE, name_spec, name, sizeof(name), &spec, err);                  \
                                                                                               \
	if (rc < 0)                                                                            \
		return rc;                                                                     \
	ops = FIND(name);                                                                      \
	if (!ops)                                                                              \
		return bn_err_set(err, BN_ERR_ARG, "%s \"%s\": unknown backend (expected one of: %s)", \
				  ROLE, name, NAMES());                                        \
	o2.spec = spec;                                                                        \
	h->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);                             \
	if (!h->priv)                                                                          \
		return bn_err_set(err, BN_ERR_NOMEM, "%s \"%s\": out of memory", ROLE, name);  \
	rc = ops->open ? ops->open(h->priv, &o2, err) : BN_OK;                                 \
	if (rc < 0) {                                                                          \
		free(h->priv);                                                                 \
		h->priv = NULL;                                                                \
		return rc;                                                                     \
	}                                                                                      \
	h->ops = ops;                                                                          \
	return BN_OK;

int bn_fixture_open(struct bn_fixture *h, const char *name_spec, const struct bn_backend_open *o,
		    struct bn_err *err)
{
	OPEN_ROLE("fixture", bn_fixture_ops, bn_fixture_backend, bn_fixture_backend_names)
}

int bn_load_open(struct bn_load *h, const char *name_spec, const struct bn_backend_open *o,
		 struct bn_err *err)
{
	OPEN_ROLE("load", bn_load_ops, bn_load_backend, bn_load_backend_names)
}

int bn_supply_open(struct bn_supply *h, const char *name_spec, const struct bn_backend_open *o,
		   struct bn_err *err)
{
	OPEN_ROLE("supply", bn_supply_ops, bn_supply_backend, bn_supply_backend_names)
}

int bn_supply_start(struct bn_supply *sp, const struct bn_guard *g, double volts, double ilim_a,
		    struct bn_err *err)
{
	const struct bn_supply_ops *p = sp->ops;
	int rc = bn_guard_supply(g, volts, ilim_a, err);

	if (rc == BN_OK && p->set_voltage)
		rc = p->set_voltage(sp->priv, volts, err);
	if (rc == BN_OK && ilim_a > 0 && p->set_current_limit)
		rc = p->set_current_limit(sp->priv, ilim_a, err);
	if (rc == BN_OK && p->enable)
		rc = p->enable(sp->priv, true, err);
	return rc;
}

/* close() reaches the safe state itself; a backend without close gets
 * safe() here so the contract holds either way. */
#define CLOSE_ROLE(h)                                                                          \
	if (!h->ops)                                                                           \
		return;                                                                        \
	if (h->ops->close) {                                                                   \
		h->ops->close(h->priv);                                                        \
	} else if (h->ops->safe) {                                                             \
		struct bn_err e = { 0 };                                                       \
		if (h->ops->safe(h->priv, &e) < 0)                                             \
			bn_err_log("%s", e.msg);                                               \
	}                                                                                      \
	free(h->priv);                                                                         \
	h->priv = NULL;                                                                        \
	h->ops = NULL;

void bn_fixture_close(struct bn_fixture *h)
{
	CLOSE_ROLE(h)
}

void bn_load_close(struct bn_load *h)
{
	CLOSE_ROLE(h)
}

void bn_supply_close(struct bn_supply *h)
{
	CLOSE_ROLE(h)
}
