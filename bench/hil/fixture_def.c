/* The fixture file (hil/fixture_def.h): parsing and the checks that make
 * a wrong file an error at load time rather than a wrong network on the
 * wires. */
#include "hil/fixture_def.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/channel.h"
#include "core/json.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const dev_net_names[BN_FX_DEV_COUNT] = {
	[BN_FX_DEV_IDP_SRC] = "idp_src",   [BN_FX_DEV_RDM_DWN] = "rdm_dwn",
	[BN_FX_DEV_VDP_SRC] = "vdp_src",   [BN_FX_DEV_IDM_SINK] = "idm_sink",
	[BN_FX_DEV_VDM_SRC] = "vdm_src",   [BN_FX_DEV_IDP_SINK] = "idp_sink",
	[BN_FX_DEV_DP_PULLUP] = "dp_pullup",
};

const char *bn_fx_dev_net_name(int net)
{
	return net >= 0 && net < BN_FX_DEV_COUNT ? dev_net_names[net] : "?";
}

int bn_fx_dev_net_parse(const char *name)
{
	for (int k = 0; name && k < BN_FX_DEV_COUNT; k++)
		if (!strcmp(dev_net_names[k], name))
			return k;
	return -1;
}

void bn_fx_dev_nets_str(unsigned nets, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (!nets) {
		snprintf(buf, len, "(none)");
		return;
	}
	for (int k = 0; k < BN_FX_DEV_COUNT && o < len; k++) {
		int w;

		if (!(nets & (1u << k)))
			continue;
		w = snprintf(buf + o, len - o, "%s%s", o ? "+" : "", dev_net_names[k]);
		if (w < 0)
			return;
		o += (size_t)w;
	}
}

uint32_t bn_fixture_def_dev_state(const struct bn_fixture_def *d, unsigned nets)
{
	uint32_t st = 0;

	for (int k = 0; k < BN_FX_DEV_COUNT; k++)
		if ((nets & (1u << k)) && d->dev_signal[k] >= 0)
			st |= 1u << d->dev_signal[k];
	return st;
}

/* "ADBUS0".."ADBUS7" and "D0".."D7" are bits 0..7; "ACBUS0".."ACBUS7"
 * bits 8..15, which only MPSSE reaches (bitbang drives one byte). */
static int parse_pin(const char *s, enum bn_fx_mode mode)
{
	int base, n;
	const char *num;

	if (!strncmp(s, "ADBUS", 5)) {
		base = 0;
		num = s + 5;
	} else if (!strncmp(s, "ACBUS", 5)) {
		if (mode != BN_FX_MPSSE)
			return -2;
		base = 8;
		num = s + 5;
	} else if (s[0] == 'D') {
		base = 0;
		num = s + 1;
	} else {
		return -1;
	}
	if (num[0] < '0' || num[0] > '7' || num[1])
		return -1;
	n = num[0] - '0';
	return base + n;
}

void bn_fixture_def_pin_name(const struct bn_fixture_def *d, int pin, char *buf, size_t len)
{
	if (d->mode == BN_FX_BITBANG)
		snprintf(buf, len, "D%d", pin);
	else
		snprintf(buf, len, "%s%d", pin < 8 ? "ADBUS" : "ACBUS", pin & 7);
}

int bn_fixture_def_signal(const struct bn_fixture_def *d, const char *name)
{
	for (int i = 0; i < d->nsignals; i++)
		if (!strcmp(d->signals[i].name, name))
			return i;
	return -1;
}

const struct bn_fx_port *bn_fixture_def_port(const struct bn_fixture_def *d, const char *name)
{
	for (int i = 0; i < d->nports; i++)
		if (!strcmp(d->ports[i].name, name))
			return &d->ports[i];
	return NULL;
}

void bn_fixture_def_state_str(const struct bn_fixture_def *d, uint32_t state, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	if (!state) {
		snprintf(buf, len, "(none)");
		return;
	}
	for (int i = 0; i < d->nsignals && o < len; i++) {
		int w;

		if (!(state & (1u << i)))
			continue;
		w = snprintf(buf + o, len - o, "%s%s", o ? "+" : "", d->signals[i].name);
		if (w < 0)
			return;
		o += (size_t)w;
	}
}

uint16_t bn_fixture_def_levels(const struct bn_fixture_def *d, uint32_t state)
{
	uint16_t levels = 0;

	for (int i = 0; i < d->nsignals; i++) {
		const struct bn_fx_signal *s = &d->signals[i];
		bool on = state & (1u << i);

		if (on == s->active_high)
			levels |= (uint16_t)(1u << s->pin);
	}
	return levels;
}

static int popcount32(uint32_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

int bn_fixture_def_legal(const struct bn_fixture_def *d, uint32_t state, char *why, size_t len)
{
	for (int i = 0; i < d->nrules; i++) {
		const struct bn_fx_rule *r = &d->rules[i];
		uint32_t hit = state & r->set;
		bool bad = r->kind == BN_FX_ALL ? hit == r->set : popcount32(hit) > 1;

		if (bad) {
			if (why) {
				char names[256];

				bn_fixture_def_state_str(d, hit, names, sizeof(names));
				snprintf(why, len, "%s together: %s", names, r->why);
			}
			return BN_ERR_ARG;
		}
	}
	return BN_OK;
}

/* A list of signal names into a bit set; role "data" only unless any. */
static int name_set(const struct bn_fixture_def *d, const cJSON *arr, bool data_only, uint32_t *out,
		    const char *what, struct bn_err *err)
{
	const cJSON *it;

	*out = 0;
	if (!cJSON_IsArray(arr))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected a list of signal names", what);
	cJSON_ArrayForEach(it, arr) {
		int k;

		if (!cJSON_IsString(it))
			return bn_err_set(err, BN_ERR_DATA, "%s: expected a list of signal names",
					  what);
		k = bn_fixture_def_signal(d, it->valuestring);
		if (k < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: unknown signal \"%s\"", what,
					  it->valuestring);
		if (data_only && d->signals[k].role != BN_FX_DATA)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: \"%s\" is not a data-line signal (role %s); port types "
					  "and the safe state switch D+, D- and ID only",
					  what, it->valuestring,
					  d->signals[k].role == BN_FX_VBUS	 ? "vbus"
					  : d->signals[k].role == BN_FX_LOAD ? "load"
									     : "device");
		if (*out & (1u << k))
			return bn_err_set(err, BN_ERR_DATA, "%s: \"%s\" listed twice", what,
					  it->valuestring);
		*out |= 1u << k;
	}
	return BN_OK;
}

static int parse_level(const cJSON *obj, const char *key, const char *hi, const char *lo,
		       bool dflt, bool *out, const char *what, struct bn_err *err)
{
	char v[16] = "";
	int rc = bn_json_str(obj, key, false, v, sizeof(v), what, err);

	if (rc < 0)
		return rc;
	if (!v[0])
		*out = dflt;
	else if (!strcmp(v, hi))
		*out = true;
	else if (!strcmp(v, lo))
		*out = false;
	else
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected \"%s\" or \"%s\", got \"%s\"",
				  what, key, hi, lo, v);
	return BN_OK;
}

static int load_usb(struct bn_fixture_def *d, const cJSON *root, struct bn_err *err)
{
	static const char *const known[] = { "chip", "mode", "vid", "pid", "description",
					     "serial", "interface", "power_up", NULL };
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "ftdi");
	char what[BN_FX_PATH_LEN + 16], mode[16] = "", id[16], chip[32];
	int rc;

	snprintf(what, sizeof(what), "%s: ftdi", d->path);
	if (!o)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: missing key \"ftdi\" (the chip, its mode and USB ids)", d->path);
	rc = bn_json_check_keys(o, known, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "chip", false, chip, sizeof(chip), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "mode", true, mode, sizeof(mode), what, err);
	if (rc == BN_OK) {
		if (!strcmp(mode, "mpsse"))
			d->mode = BN_FX_MPSSE;
		else if (!strcmp(mode, "bitbang"))
			d->mode = BN_FX_BITBANG;
		else
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"mode\": expected \"mpsse\" or \"bitbang\", got \"%s\"",
					  what, mode);
	}
	for (int k = 0; rc == BN_OK && k < 2; k++) {
		const char *key = k ? "pid" : "vid";
		char *end;
		long v;

		id[0] = '\0';
		rc = bn_json_str(o, key, false, id, sizeof(id), what, err);
		if (rc < 0 || !id[0])
			break;
		v = strtol(id, &end, 16);
		if (strlen(id) != 4 || strspn(id, "0123456789abcdefABCDEF") != 4 || *end || v <= 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: key \"%s\": expected four hex digits such as \"0403\", got \"%s\"",
					  what, key, id);
		*(k ? &d->pid : &d->vid) = (int)v;
	}
	if (rc == BN_OK)
		rc = bn_json_str(o, "description", false, d->usb_description,
				 sizeof(d->usb_description), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "serial", false, d->usb_serial, sizeof(d->usb_serial), what, err);
	if (rc == BN_OK) {
		char pu[16] = "uart";

		rc = bn_json_str(o, "power_up", false, pu, sizeof(pu), what, err);
		if (rc == BN_OK && !strcmp(pu, "uart"))
			d->uart_out_pins = 0x15; /* TXD, RTS#, DTR# on every FTDI chip */
		else if (rc == BN_OK && strcmp(pu, "inputs"))
			rc = bn_err_set(err, BN_ERR_DATA,
					"%s: key \"power_up\": expected \"uart\" (the default EEPROM) or "
					"\"inputs\", got \"%s\"", what, pu);
	}
	if (rc == BN_OK) {
		char itf[4] = "";

		rc = bn_json_str(o, "interface", false, itf, sizeof(itf), what, err);
		if (rc == BN_OK && itf[0]) {
			if (itf[1] || itf[0] < 'A' || itf[0] > 'D')
				return bn_err_set(err, BN_ERR_DATA,
						  "%s: key \"interface\": expected \"A\" to \"D\", got \"%s\"",
						  what, itf);
			d->interface = itf[0] - 'A' + 1;
		}
	}
	return rc;
}

/* A signal of "signals" (where NULL: signals[i]), or a device-side
 * network's (where: "device_side.networks.NET"; role device, a current
 * and its parts may be given). */
static int load_signal(struct bn_fixture_def *d, const cJSON *o, int i, bool undriven_high,
		       const char *where, struct bn_err *err)
{
	static const char *const known[] = { "name", "pin", "active", "undriven", "role", "relay",
					     "what", "r_ohm", "v_src_v", NULL };
	static const char *const known_dev[] = { "name", "pin", "active", "undriven", "relay",
						 "what", "r_ohm", "v_src_v", "i_src_a", "part", NULL };
	struct bn_fx_signal *s = &d->signals[i];
	char what[BN_FX_PATH_LEN + 64], pin[16], role[16] = "data", relay[16] = "", at[48];
	int rc;

	if (where)
		snprintf(at, sizeof(at), "%s", where);
	else
		snprintf(at, sizeof(at), "signals[%d]", i);
	bn_str_fmt(what, sizeof(what), "%s: %s", d->path, at);
	rc = bn_json_check_keys(o, where ? known_dev : known, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "name", true, s->name, sizeof(s->name), what, err);
	if (rc < 0)
		return rc;
	bn_str_fmt(what, sizeof(what), "%s: %s (%s)", d->path, at, s->name);
	if (bn_fixture_def_signal(d, s->name) >= 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: name used twice", what);
	rc = bn_json_str(o, "pin", true, pin, sizeof(pin), what, err);
	if (rc < 0)
		return rc;
	s->pin = parse_pin(pin, d->mode);
	if (s->pin == -2)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: pin \"%s\": bitbang mode drives ADBUS0-7 (D0-D7) only; ACBUS "
				  "needs \"mode\": \"mpsse\"", what, pin);
	if (s->pin < 0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: pin \"%s\": expected ADBUS0-7, ACBUS0-7 or D0-7", what, pin);
	rc = parse_level(o, "active", "high", "low", true, &s->active_high, what, err);
	if (rc == BN_OK)
		rc = parse_level(o, "undriven", "high", "low", undriven_high, &s->undriven_high, what,
				 err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "role", false, role, sizeof(role), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "relay", false, relay, sizeof(relay), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "what", false, s->what, sizeof(s->what), what, err);
	if (rc == BN_OK)
		rc = bn_json_quantity(o, "r_ohm", false, BN_DIM_OHM, 1.0, &s->r_ohm, what, err);
	if (rc == BN_OK)
		rc = bn_json_quantity(o, "v_src_v", false, BN_DIM_V, 1.0, &s->v_src_v, what, err);
	if (rc == BN_OK && where)
		rc = bn_json_quantity(o, "i_src_a", false, BN_DIM_A, 1.0, &s->i_src_a, what, err);
	if (rc == BN_OK && where)
		rc = bn_json_str(o, "part", false, s->part, sizeof(s->part), what, err);
	if (rc < 0)
		return rc;
	if (where)
		s->role = BN_FX_DEVICE;
	else if (!strcmp(role, "data"))
		s->role = BN_FX_DATA;
	else if (!strcmp(role, "vbus"))
		s->role = BN_FX_VBUS;
	else if (!strcmp(role, "load"))
		s->role = BN_FX_LOAD;
	else
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"role\": expected \"data\", \"vbus\" or \"load\", got \"%s\"",
				  what, role);
	/* A relay that closes while the FTDI is in reset or unpowered (its
	 * pins tri-stated) defeats the fail-safe the hardware is built for. */
	if (s->undriven_high == s->active_high)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: active %s but its pin reads %s while undriven, so it would be on "
				  "whenever the FTDI is in reset; fit a pull-%s and say \"undriven\": \"%s\"",
				  what, s->active_high ? "high" : "low", s->undriven_high ? "high" : "low",
				  s->active_high ? "down" : "up", s->active_high ? "low" : "high");
	return BN_OK;
}

static int load_input(struct bn_fixture_def *d, const cJSON *o, int i, struct bn_err *err)
{
	static const char *const known[] = { "name", "pin", "active", "follows", "expect", "what",
					     NULL };
	struct bn_fx_input *in = &d->inputs[i];
	char what[BN_FX_PATH_LEN + 64], pin[16], follows[BN_FX_NAME_LEN] = "";
	const cJSON *ex;
	int rc;

	in->follows = in->expect = -1;
	snprintf(what, sizeof(what), "%s: inputs[%d]", d->path, i);
	rc = bn_json_check_keys(o, known, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "name", true, in->name, sizeof(in->name), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "pin", true, pin, sizeof(pin), what, err);
	if (rc == BN_OK)
		rc = parse_level(o, "active", "high", "low", true, &in->active_high, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "follows", false, follows, sizeof(follows), what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "what", false, in->what, sizeof(in->what), what, err);
	if (rc < 0)
		return rc;
	in->pin = parse_pin(pin, d->mode);
	if (in->pin < 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: pin \"%s\": expected %s", what, pin,
				  d->mode == BN_FX_MPSSE ? "ADBUS0-7 or ACBUS0-7" : "D0-7");
	if (follows[0]) {
		in->follows = bn_fixture_def_signal(d, follows);
		if (in->follows < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: follows: unknown signal \"%s\"", what,
					  follows);
	}
	ex = cJSON_GetObjectItemCaseSensitive(o, "expect");
	if (ex) {
		if (!cJSON_IsBool(ex))
			return bn_err_set(err, BN_ERR_DATA, "%s: key \"expect\": expected true or false",
					  what);
		in->expect = cJSON_IsTrue(ex) ? 1 : 0;
	}
	return BN_OK;
}

static int load_rule(struct bn_fixture_def *d, const cJSON *o, int i, struct bn_err *err)
{
	static const char *const known[] = { "all", "at_most_one", "why", NULL };
	struct bn_fx_rule *r = &d->rules[i];
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(o, "all");
	const cJSON *one = cJSON_GetObjectItemCaseSensitive(o, "at_most_one");
	char what[BN_FX_PATH_LEN + 32];
	int rc;

	snprintf(what, sizeof(what), "%s: illegal[%d]", d->path, i);
	rc = bn_json_check_keys(o, known, what, err);
	if (rc < 0)
		return rc;
	if (!all == !one)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: expected exactly one of \"all\" (never all on together) or "
				  "\"at_most_one\"", what);
	r->kind = all ? BN_FX_ALL : BN_FX_AT_MOST_ONE;
	rc = name_set(d, all ? all : one, false, &r->set, what, err);
	if (rc == BN_OK)
		rc = bn_json_str(o, "why", true, r->why, sizeof(r->why), what, err);
	if (rc == BN_OK && popcount32(r->set) < 2)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: a rule needs two signals or more", what);
	return rc;
}

/* An array member of root, each element through fn. */
static int load_array(struct bn_fixture_def *d, const cJSON *root, const char *key, int max,
		      int *count, int (*fn)(struct bn_fixture_def *, const cJSON *, int, struct bn_err *),
		      struct bn_err *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key), *it;
	int rc;

	*count = 0;
	if (!arr)
		return BN_OK;
	if (!cJSON_IsArray(arr))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"%s\": expected a list", d->path, key);
	cJSON_ArrayForEach(it, arr) {
		if (*count == max)
			return bn_err_set(err, BN_ERR_DATA, "%s: %s: more than %d entries", d->path,
					  key, max);
		rc = fn(d, it, *count, err);
		if (rc < 0)
			return rc;
		(*count)++;
	}
	return BN_OK;
}

/* The file-wide "undriven" level was put in each slot beforehand. */
static int load_signal_cb(struct bn_fixture_def *d, const cJSON *o, int i, struct bn_err *err)
{
	return load_signal(d, o, i, d->signals[i].undriven_high, NULL, err);
}

/* "device_side": {"description": "...", "networks": {"idp_src": {signal
 * without role}, ...}}: each network a signal of role device after the
 * port side's. Every required network or none. */
static int load_device_side(struct bn_fixture_def *d, const cJSON *root, bool undriven_high,
			    struct bn_err *err)
{
	static const char *const known[] = { "description", "networks", NULL };
	const cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "device_side"), *nets, *it;
	char what[BN_FX_PATH_LEN + 32], missing[160];
	int rc;

	for (int k = 0; k < BN_FX_DEV_COUNT; k++)
		d->dev_signal[k] = -1;
	if (!ds)
		return BN_OK;
	snprintf(what, sizeof(what), "%s: device_side", d->path);
	if (!cJSON_IsObject(ds))
		return bn_err_set(err, BN_ERR_DATA, "%s: expected an object with \"networks\"", what);
	rc = bn_json_check_keys(ds, known, what, err);
	if (rc < 0)
		return rc;
	nets = cJSON_GetObjectItemCaseSensitive(ds, "networks");
	if (!cJSON_IsObject(nets))
		return bn_err_set(err, BN_ERR_DATA, "%s: key \"networks\": expected an object of "
				  "network: {name, pin, ...}", what);
	cJSON_ArrayForEach(it, nets) {
		int net = bn_fx_dev_net_parse(it->string), i = d->nsignals;
		char where[48];

		if (net < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: networks: unknown network \"%s\" "
					  "(expected idp_src, rdm_dwn, vdp_src, idm_sink, vdm_src, "
					  "idp_sink or dp_pullup)", what, it->string);
		if (d->dev_nets & (1u << net))
			return bn_err_set(err, BN_ERR_DATA, "%s: networks.%s: given twice", what,
					  it->string);
		if (i == BN_FX_MAX_SIGNALS)
			return bn_err_set(err, BN_ERR_DATA, "%s: networks.%s: more than %d signals "
					  "with the port side's", what, it->string, BN_FX_MAX_SIGNALS);
		if (!cJSON_IsObject(it))
			return bn_err_set(err, BN_ERR_DATA, "%s: networks.%s: expected an object "
					  "{name, pin, ...}", what, it->string);
		snprintf(where, sizeof(where), "device_side.networks.%s", it->string);
		d->signals[i].undriven_high = undriven_high;
		rc = load_signal(d, it, i, undriven_high, where, err);
		if (rc < 0)
			return rc;
		d->dev_signal[net] = i;
		d->dev_nets |= 1u << net;
		d->nsignals++;
	}
	if (BN_FX_DEV_REQUIRED & ~d->dev_nets) {
		bn_fx_dev_nets_str(BN_FX_DEV_REQUIRED & ~d->dev_nets, missing, sizeof(missing));
		return bn_err_set(err, BN_ERR_DATA, "%s: networks: missing %s (a port run plays "
				  "data contact, primary and secondary detection and the pull-up: "
				  "each needs its network)", what, missing);
	}
	return BN_OK;
}

/* "expect": {"vbus": ["4.75V", "5.25V"], "dm": ["0.5V", "0.7V"]} */
static int load_expect(struct bn_fixture_def *d, struct bn_fx_port *p, const cJSON *ex,
		       const char *what, struct bn_err *err)
{
	const cJSON *it;

	if (!cJSON_IsObject(ex))
		return bn_err_set(err, BN_ERR_DATA, "%s: expect: expected an object of channel: "
				  "[min, max]", what);
	cJSON_ArrayForEach(it, ex) {
		int ch = bn_chan_from_name(it->string);
		enum bn_dim dim = ch == BN_CH_IBUS ? BN_DIM_A : BN_DIM_V;
		double v[2];

		if (ch < 0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: expect: unknown channel \"%s\" (expected vbus, ibus, dp, "
					  "dm or id)", what, it->string);
		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
			return bn_err_set(err, BN_ERR_DATA, "%s: expect.%s: expected [min, max]", what,
					  it->string);
		for (int k = 0; k < 2; k++) {
			const cJSON *e = cJSON_GetArrayItem(it, k);
			char why[160] = "";

			if (cJSON_IsNumber(e))
				v[k] = e->valuedouble;
			else if (!cJSON_IsString(e) ||
				 bn_quantity_parse(e->valuestring, dim, &v[k], why, sizeof(why)) < 0)
				return bn_err_set(err, BN_ERR_DATA, "%s: expect.%s: expected %s such as "
						  "\"%s\"%s%s", what, it->string, bn_dim_name(dim),
						  dim == BN_DIM_A ? "10mA" : "0.6V", why[0] ? ": " : "", why);
		}
		if (v[0] > v[1])
			return bn_err_set(err, BN_ERR_DATA, "%s: expect.%s: min %g above max %g", what,
					  it->string, v[0], v[1]);
		p->expect_mask |= 1u << ch;
		p->expect_lo[ch] = v[0];
		p->expect_hi[ch] = v[1];
	}
	(void)d;
	return BN_OK;
}

/* A port type is a list of signals, or {"on": [...], "expect": {...}}. */
static int load_ports(struct bn_fixture_def *d, const cJSON *root, struct bn_err *err)
{
	static const char *const known[] = { "on", "expect", NULL };
	const cJSON *ports = cJSON_GetObjectItemCaseSensitive(root, "ports"), *it;
	char what[BN_FX_PATH_LEN + 64];
	int rc;

	if (!cJSON_IsObject(ports))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"ports\": expected an object of port type: [signals]", d->path);
	cJSON_ArrayForEach(it, ports) {
		const cJSON *on = it;
		struct bn_fx_port *p;

		if (d->nports == BN_FX_MAX_PORTS)
			return bn_err_set(err, BN_ERR_DATA, "%s: ports: more than %d", d->path,
					  BN_FX_MAX_PORTS);
		p = &d->ports[d->nports];
		if (strlen(it->string) >= sizeof(p->name))
			return bn_err_set(err, BN_ERR_DATA, "%s: ports: name \"%s\" too long", d->path,
					  it->string);
		snprintf(p->name, sizeof(p->name), "%s", it->string);
		snprintf(what, sizeof(what), "%s: ports.%s", d->path, p->name);
		if (bn_fixture_def_port(d, p->name))
			return bn_err_set(err, BN_ERR_DATA, "%s: port type defined twice", what);
		if (cJSON_IsObject(it)) {
			rc = bn_json_check_keys(it, known, what, err);
			if (rc < 0)
				return rc;
			on = cJSON_GetObjectItemCaseSensitive(it, "on");
			if (!on)
				return bn_err_set(err, BN_ERR_DATA, "%s: missing key \"on\"", what);
			if (cJSON_GetObjectItemCaseSensitive(it, "expect")) {
				rc = load_expect(d, p, cJSON_GetObjectItemCaseSensitive(it, "expect"),
						 what, err);
				if (rc < 0)
					return rc;
			}
		}
		rc = name_set(d, on, true, &p->on, what, err);
		if (rc < 0)
			return rc;
		d->nports++;
	}
	if (!d->nports)
		return bn_err_set(err, BN_ERR_DATA, "%s: ports: none defined", d->path);
	return BN_OK;
}

/* Each port type and the safe state must be legal as written. Whether
 * VBUS or the load may join a network is decided when it is asked for
 * (OTG: VBUS with ID grounded is refused then). */
static int check_states(struct bn_fixture_def *d, struct bn_err *err)
{
	char why[400];

	if (bn_fixture_def_legal(d, d->safe, why, sizeof(why)) < 0)
		return bn_err_set(err, BN_ERR_DATA, "%s: safe: the safe state is illegal: %s", d->path,
				  why);
	for (int i = 0; i < d->nports; i++)
		if (bn_fixture_def_legal(d, d->ports[i].on, why, sizeof(why)) < 0)
			return bn_err_set(err, BN_ERR_DATA, "%s: ports.%s: illegal network: %s",
					  d->path, d->ports[i].name, why);
	return BN_OK;
}

static int uart_pin(const struct bn_fixture_def *d, const char *list, int i, const char *name,
		    int pin, struct bn_err *err)
{
	static const char *const uart[] = { "TXD", "", "RTS#", "", "DTR#" };
	char pn[16];

	bn_fixture_def_pin_name(d, pin, pn, sizeof(pn));
	return bn_err_set(err, BN_ERR_DATA,
			  "%s: %s[%d] (%s): pin %s is %s while the chip is in UART mode (at power-up "
			  "and after a reset), so the FTDI drives it before bcbench takes the chip; "
			  "use a pin that is an input in UART mode, or say \"power_up\": \"inputs\" "
			  "in \"ftdi\" if this board's EEPROM makes every pin an input",
			  d->path, list, i, name, pn, uart[pin]);
}

int bn_fixture_def_load(struct bn_fixture_def *d, const char *path, struct bn_err *err)
{
	static const char *const known[] = { "name", "description", "ftdi", "undriven",
					     "release_ms", "settle_ms", "signals", "inputs", "ports",
					     "safe", "illegal", "device_side", NULL };
	cJSON *root = NULL, *sigs;
	bool undriven_high = false;
	double release_ms = -1, settle_ms = 100;
	uint16_t pins = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->load_signal = d->vbus_signal = -1;
	snprintf(d->path, sizeof(d->path), "%s", path);
	rc = bn_json_load(path, &root, err);
	if (rc < 0)
		return rc;
	rc = bn_json_check_keys(root, known, path, err);
	if (rc == BN_OK) {
		bn_json_stem(path, d->name, sizeof(d->name));
		rc = bn_json_str(root, "name", false, d->name, sizeof(d->name), path, err);
	}
	if (rc == BN_OK)
		rc = load_usb(d, root, err);
	if (rc == BN_OK)
		rc = parse_level(root, "undriven", "high", "low", false, &undriven_high, path, err);
	if (rc == BN_OK)
		rc = bn_json_num(root, "release_ms", true, &release_ms, path, err);
	if (rc == BN_OK && (release_ms < 0 || release_ms > 1000 || release_ms != (int)release_ms))
		rc = bn_err_set(err, BN_ERR_DATA,
				  "%s: key \"release_ms\": expected whole milliseconds 0 to 1000 (the "
				  "relays' release time from their data sheet), got %g",
				  path, release_ms);
	if (rc == BN_OK)
		d->release_ms = (int)release_ms;
	if (rc == BN_OK)
		rc = bn_json_num(root, "settle_ms", false, &settle_ms, path, err);
	if (rc == BN_OK && (settle_ms < 0 || settle_ms > 10000 || settle_ms != (int)settle_ms))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: key \"settle_ms\": expected whole milliseconds 0 to 10000, got %g",
				path, settle_ms);
	if (rc == BN_OK)
		d->settle_ms = (int)settle_ms;
	sigs = cJSON_GetObjectItemCaseSensitive(root, "signals");
	if (rc == BN_OK && (!cJSON_IsArray(sigs) || !cJSON_GetArraySize(sigs)))
		rc = bn_err_set(err, BN_ERR_DATA, "%s: key \"signals\": expected a list of signals",
				path);
	for (int i = 0; rc == BN_OK && i < BN_FX_MAX_SIGNALS; i++)
		d->signals[i].undriven_high = undriven_high;
	if (rc == BN_OK)
		rc = load_array(d, root, "signals", BN_FX_MAX_SIGNALS, &d->nsignals, load_signal_cb, err);
	if (rc == BN_OK)
		rc = load_device_side(d, root, undriven_high, err);
	for (int i = 0; rc == BN_OK && i < d->nsignals; i++) {
		const struct bn_fx_signal *s = &d->signals[i];
		char pn[16];

		if (pins & (1u << s->pin)) {
			bn_fixture_def_pin_name(d, s->pin, pn, sizeof(pn));
			rc = bn_err_set(err, BN_ERR_DATA, "%s: signals[%d] (%s): pin %s used twice",
					path, i, s->name, pn);
			break;
		}
		pins |= (uint16_t)(1u << s->pin);
		if (d->uart_out_pins & (1u << s->pin)) {
			rc = uart_pin(d, "signals", i, s->name, s->pin, err);
			break;
		}
		if (s->role == BN_FX_DATA) {
			d->data_mask |= 1u << i;
		} else if (s->role == BN_FX_DEVICE) {
			d->dev_mask |= 1u << i;
		} else {
			int *slot = s->role == BN_FX_VBUS ? &d->vbus_signal : &d->load_signal;

			if (*slot >= 0)
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s: signals[%d] (%s): a second signal with role %s",
						path, i, s->name, s->role == BN_FX_VBUS ? "vbus" : "load");
			*slot = i;
		}
	}
	if (rc == BN_OK && d->vbus_signal < 0)
		rc = bn_err_set(err, BN_ERR_DATA, "%s: signals: none has role \"vbus\"", path);
	d->out_pins = pins;
	if (rc == BN_OK)
		rc = load_array(d, root, "inputs", BN_FX_MAX_INPUTS, &d->ninputs, load_input, err);
	for (int i = 0; rc == BN_OK && i < d->ninputs; i++) {
		char pn[16];

		bn_fixture_def_pin_name(d, d->inputs[i].pin, pn, sizeof(pn));
		if (pins & (1u << d->inputs[i].pin))
			rc = bn_err_set(err, BN_ERR_DATA, "%s: inputs[%d] (%s): pin %s used twice",
					path, i, d->inputs[i].name, pn);
		else if (d->uart_out_pins & (1u << d->inputs[i].pin))
			rc = uart_pin(d, "inputs", i, d->inputs[i].name, d->inputs[i].pin, err);
		for (int k = 0; rc == BN_OK && k < i; k++)
			if (!strcmp(d->inputs[k].name, d->inputs[i].name) ||
			    bn_fixture_def_signal(d, d->inputs[i].name) >= 0)
				rc = bn_err_set(err, BN_ERR_DATA, "%s: inputs[%d] (%s): name used twice",
						path, i, d->inputs[i].name);
		pins |= (uint16_t)(1u << d->inputs[i].pin);
	}
	if (rc == BN_OK)
		rc = load_ports(d, root, err);
	if (rc == BN_OK && cJSON_GetObjectItemCaseSensitive(root, "safe")) {
		char what[BN_FX_PATH_LEN + 8];

		snprintf(what, sizeof(what), "%s: safe", path);
		rc = name_set(d, cJSON_GetObjectItemCaseSensitive(root, "safe"), true, &d->safe, what,
			      err);
	}
	if (rc == BN_OK)
		rc = load_array(d, root, "illegal", BN_FX_MAX_RULES, &d->nrules, load_rule, err);
	if (rc == BN_OK)
		rc = check_states(d, err);
	cJSON_Delete(root);
	return rc;
}
