/* Channel map parsing: "VBUS=A0,IBUS=A1:scale=0.1:unit=A,DP=A2".
 *
 * Entries are CHANNEL=SOURCE[:scale=NUMBER][:unit=UNIT], comma-separated.
 * CHANNEL is a bench channel (vbus, ibus, dp, dm, id; any case); SOURCE is
 * the source's channel name as it spells it. scale is finite and non-zero
 * (negative flips a probe wired backwards). unit is V or mV for the line
 * and VBUS voltages, A or mA for IBUS. A current measured as a shunt
 * voltage is mapped with scale, not with a voltage unit: a 0.1 ohm shunt
 * read in volts is "IBUS=A1:scale=10:unit=A" (1 V across it = 10 A), read
 * in mV "IBUS=A1:scale=10:unit=mA". A channel named twice in one spec is an
 * error; a later spec (--map over bench.conf) replaces the entries it
 * names, options starting again from scale 1 and the channel's unit. On
 * error the map is left unchanged. */
#include "capture/chanmap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest entry we look at; longer ones are an error, never truncated. */
#define CHANMAP_ENTRY_MAX 256

struct unit_def {
	const char *sym;
	double to_si;
	int current; /* 1: A, mA (IBUS only); 0: V, mV */
};

static const struct unit_def unit_defs[] = {
	{ "V", 1.0, 0 },
	{ "mV", 1e-3, 0 },
	{ "A", 1.0, 1 },
	{ "mA", 1e-3, 1 },
};

void bn_chanmap_default(struct bn_chanmap *m)
{
	memset(m, 0, sizeof(*m));
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		struct bn_chanmap_entry *e = &m->e[ch];

		snprintf(e->src, sizeof(e->src), "%s", bn_chan_label(ch));
		snprintf(e->unit, sizeof(e->unit), "%s", bn_chan_unit(ch));
		e->scale = 1.0;
		e->to_si = 1.0;
	}
}

static const char *chan_list(void)
{
	return "VBUS, IBUS, DP, DM, ID";
}

/* Case-sensitive: "mA" and "MA" differ by a factor of 10^9 elsewhere. */
static const struct unit_def *unit_find(const char *sym)
{
	for (size_t i = 0; i < sizeof(unit_defs) / sizeof(unit_defs[0]); i++)
		if (strcmp(sym, unit_defs[i].sym) == 0)
			return &unit_defs[i];
	return NULL;
}

static int parse_option(char *opt, int ch, struct bn_chanmap_entry *e, const char *what,
			const char *entry, struct bn_err *err)
{
	char *eq = strchr(opt, '=');
	const char *val;

	if (!eq)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": option \"%s\": expected scale=NUMBER or unit=UNIT",
				  what, entry, opt);
	*eq = '\0';
	val = eq + 1;
	if (strcmp(opt, "scale") == 0) {
		char *end = NULL;
		double v;

		errno = 0;
		v = strtod(val, &end);
		if (!*val || *end || errno == ERANGE || !isfinite(v) || v == 0.0)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entry \"%s\": scale \"%s\": expected a finite non-zero number",
					  what, entry, val);
		e->scale = v;
		return BN_OK;
	}
	if (strcmp(opt, "unit") == 0) {
		const struct unit_def *u = unit_find(val);
		int want_current = ch == BN_CH_IBUS;

		if (!u || u->current != want_current)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entry \"%s\": unit \"%s\": %s is %s, expected %s",
					  what, entry, val, bn_chan_label(ch),
					  want_current ? "a current" : "a voltage",
					  want_current ? "A or mA" : "V or mV");
		e->to_si = u->to_si;
		snprintf(e->unit, sizeof(e->unit), "%s", u->sym);
		return BN_OK;
	}
	return bn_err_set(err, BN_ERR_DATA,
			  "%s: entry \"%s\": unknown option \"%s\": expected scale= or unit=", what,
			  entry, opt);
}

/* One "CH=SRC[:opt=val]..." entry, in a writable copy. */
static int parse_entry(char *buf, const char *entry, struct bn_chanmap *m, const char *what,
		       struct bn_err *err)
{
	struct bn_chanmap_entry e;
	char *eq = strchr(buf, '=');
	char *src, *opts;
	int ch, rc;

	if (!eq)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": expected CHANNEL=SOURCE[:scale=N][:unit=U]", what,
				  entry);
	*eq = '\0';
	ch = bn_chan_from_name(buf);
	if (ch < 0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": unknown channel \"%s\": expected one of %s", what,
				  entry, buf, chan_list());
	if (m->e[ch].set)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": %s mapped twice: expected each channel at most once",
				  what, entry, bn_chan_label(ch));
	src = eq + 1;
	opts = strchr(src, ':');
	if (opts)
		*opts++ = '\0';
	if (!*src)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": empty source: expected a source channel name after \"=\"",
				  what, entry);
	if (strlen(src) >= sizeof(e.src))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": source name too long: expected at most %zu characters",
				  what, entry, sizeof(e.src) - 1);

	e = m->e[ch];
	snprintf(e.src, sizeof(e.src), "%s", src);
	/* The options are relative to this entry, never to an earlier parse. */
	e.scale = 1.0;
	e.to_si = 1.0;
	snprintf(e.unit, sizeof(e.unit), "%s", bn_chan_unit(ch));
	while (opts) {
		char *next = strchr(opts, ':');

		if (next)
			*next++ = '\0';
		rc = parse_option(opts, ch, &e, what, entry, err);
		if (rc < 0)
			return rc;
		opts = next;
	}
	e.set = true;
	m->e[ch] = e;
	return BN_OK;
}

int bn_chanmap_parse(const char *spec, struct bn_chanmap *m, const char *what, struct bn_err *err)
{
	struct bn_chanmap out = *m;
	const char *p = spec;

	if (!what)
		what = "channel map";
	if (!spec)
		return bn_err_set(err, BN_ERR_ARG, "%s: no channel map given", what);
	/* "set" counts per parse: a channel named twice in one spec is an
	 * error, one named again by a later spec overrides. */
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		out.e[ch].set = false;
	while (*p) {
		char buf[CHANMAP_ENTRY_MAX], entry[CHANMAP_ENTRY_MAX];
		size_t len = strcspn(p, ",");
		size_t a = 0, b = len;
		int rc;

		/* Spaces around an entry are allowed ("VBUS=A0, IBUS=A1"). */
		while (a < b && (p[a] == ' ' || p[a] == '\t'))
			a++;
		while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
			b--;
		if (b - a >= sizeof(buf))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entry \"%.40s...\" too long: expected at most %d characters",
					  what, p + a, CHANMAP_ENTRY_MAX - 1);
		memcpy(buf, p + a, b - a);
		buf[b - a] = '\0';
		memcpy(entry, buf, b - a + 1);
		if (b == a)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: empty entry in \"%s\": expected CHANNEL=SOURCE between commas",
					  what, spec);
		rc = parse_entry(buf, entry, &out, what, err);
		if (rc < 0)
			return rc;
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return bn_err_set(err, BN_ERR_DATA,
						  "%s: trailing comma in \"%s\": expected another CHANNEL=SOURCE",
						  what, spec);
		}
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		out.e[ch].set = out.e[ch].set || m->e[ch].set;
	*m = out;
	return BN_OK;
}
