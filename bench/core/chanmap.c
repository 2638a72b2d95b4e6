/* Channel map parsing: "VBUS=A0,IBUS=A1:shunt=0.1,DP=A2".
 *
 * Entries are CHANNEL=SOURCE[:scale=NUMBER][:unit=UNIT][:shunt=OHMS],
 * comma-separated, options in any order. CHANNEL is a bench channel (vbus,
 * ibus, dp, dm, id; any case); SOURCE is the source's channel name as it
 * spells it. scale is finite and non-zero (negative flips a probe wired
 * backwards); raw * scale is the source's value in unit. unit is V or mV
 * for the line and VBUS voltages, A or mA for IBUS.
 *
 * shunt (IBUS only) says the source measures a voltage, the one across a
 * shunt of that many ohms (finite, above 0); IBUS = the voltage / shunt.
 * unit is then the voltage's, V (the default) or mV. A current probe that
 * outputs 100 mV per A is shunt=0.1 too. So a 0.1 ohm shunt read in volts
 * is "IBUS=A1:shunt=0.1", read in mV "IBUS=A1:shunt=0.1:unit=mV". Saying
 * shunt= is how a capture device's voltage channel may feed IBUS: a
 * source that reports its quantity (a sigrok device) is checked against
 * it, and "IBUS=A1:scale=10:unit=A" on a channel that reports volts is
 * refused (it reads volts as amperes).
 *
 * A channel named twice in one spec is an error; a later spec (--map over
 * bench.conf) replaces the entries it names, options starting again from
 * scale 1, no shunt and the channel's unit. On error the map is left
 * unchanged. */
#include "core/chanmap.h"

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

/* What the options of one entry said, checked together once all are in
 * (they may come in any order). */
struct entry_opts {
	const struct unit_def *unit;
	const char *unit_text;
	bool shunt;
};

static int parse_number(const char *what, const char *entry, const char *opt, const char *val,
			bool positive, double *out, struct bn_err *err)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (!*val || *end || errno == ERANGE || !isfinite(v) || v == 0.0 || (positive && v < 0))
		return bn_err_set(err, BN_ERR_DATA, "%s: entry \"%s\": %s \"%s\": expected %s",
				  what, entry, opt, val,
				  positive ? "a finite number of ohms above 0" : "a finite non-zero number");
	*out = v;
	return BN_OK;
}

static int parse_option(char *opt, int ch, struct bn_chanmap_entry *e, struct entry_opts *eo,
			const char *what, const char *entry, struct bn_err *err)
{
	char *eq = strchr(opt, '=');
	const char *val;

	if (!eq)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": option \"%s\": expected scale=NUMBER, unit=UNIT or shunt=OHMS",
				  what, entry, opt);
	*eq = '\0';
	val = eq + 1;
	if (strcmp(opt, "scale") == 0)
		return parse_number(what, entry, "scale", val, false, &e->scale, err);
	if (strcmp(opt, "shunt") == 0) {
		if (ch != BN_CH_IBUS)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entry \"%s\": shunt= is for IBUS (a current read as the voltage across a shunt): %s is a voltage, expected no shunt=",
					  what, entry, bn_chan_label(ch));
		eo->shunt = true;
		return parse_number(what, entry, "shunt", val, true, &e->shunt_ohm, err);
	}
	if (strcmp(opt, "unit") == 0) {
		eo->unit = unit_find(val);
		eo->unit_text = val;
		return BN_OK;
	}
	return bn_err_set(err, BN_ERR_DATA,
			  "%s: entry \"%s\": unknown option \"%s\": expected scale=, unit= or shunt=",
			  what, entry, opt);
}

/* The unit fits the channel: a voltage's V or mV (IBUS across a shunt
 * too), a current's A or mA. */
static int check_unit(int ch, struct bn_chanmap_entry *e, const struct entry_opts *eo,
		      const char *what, const char *entry, struct bn_err *err)
{
	bool want_current = ch == BN_CH_IBUS && !eo->shunt;
	const struct unit_def *u = eo->unit ? eo->unit : unit_find(want_current ? "A" : "V");

	if (eo->unit_text && (!eo->unit || eo->unit->current != want_current)) {
		if (ch == BN_CH_IBUS && eo->shunt)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: entry \"%s\": unit \"%s\": with shunt= the source is the voltage across the shunt, expected V or mV",
					  what, entry, eo->unit_text);
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": unit \"%s\": %s is %s, expected %s", what, entry,
				  eo->unit_text, bn_chan_label(ch),
				  want_current ? "a current" : "a voltage",
				  want_current ? "A or mA (or shunt=OHMS for the voltage across a shunt)"
					       : "V or mV");
	}
	e->unit_set = eo->unit != NULL;
	e->to_si = eo->shunt ? u->to_si / e->shunt_ohm : u->to_si;
	snprintf(e->unit, sizeof(e->unit), "%s", u->sym);
	return BN_OK;
}

/* One "CH=SRC[:opt=val]..." entry, in a writable copy. */
static int parse_entry(char *buf, const char *entry, struct bn_chanmap *m, const char *what,
		       struct bn_err *err)
{
	struct bn_chanmap_entry e;
	struct entry_opts eo = { 0 };
	char *eq = strchr(buf, '=');
	char *src, *opts;
	int ch, rc;

	if (!eq)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: entry \"%s\": expected CHANNEL=SOURCE[:scale=N][:unit=U][:shunt=OHMS]", what,
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
	e.shunt_ohm = 0.0;
	while (opts) {
		char *next = strchr(opts, ':');

		if (next)
			*next++ = '\0';
		rc = parse_option(opts, ch, &e, &eo, what, entry, err);
		if (rc < 0)
			return rc;
		opts = next;
	}
	rc = check_unit(ch, &e, &eo, what, entry, err);
	if (rc < 0)
		return rc;
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
