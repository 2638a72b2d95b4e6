#include "core/meas.h"
#include "core/minmax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bn_meas_src_name(enum bn_meas_src s)
{
	switch (s) {
	case BN_MEAS_SRC_IDEAL:
		return "ideal (the simulated bench without measurement conditions)";
	case BN_MEAS_SRC_SIM:
		return "the simulated bench's measurement conditions";
	case BN_MEAS_SRC_CONF:
		return "bench.conf";
	case BN_MEAS_SRC_GIVEN:
		return "given";
	case BN_MEAS_SRC_ESTIMATED:
		return "estimated from the data (the instrument's accuracy is unknown)";
	}
	return "?";
}

void bn_meas_ideal(struct bn_meas *m)
{
	memset(m, 0, sizeof(*m));
}

bool bn_meas_is_ideal(const struct bn_meas *m)
{
	return m->noise_rms == 0 && m->offset == 0 && m->gain == 0 && m->bits == 0 &&
	       m->jitter_s == 0;
}

double bn_meas_lsb(const struct bn_meas *m)
{
	if (m->bits <= 0 || !(m->range_hi > m->range_lo))
		return 0;
	return (m->range_hi - m->range_lo) / ldexp(1.0, m->bits);
}

void bn_meas_combine(struct bn_meas *out, const struct bn_meas *a, const struct bn_meas *b)
{
	struct bn_meas m = *a;

	m.noise_rms = sqrt(a->noise_rms * a->noise_rms + b->noise_rms * b->noise_rms);
	m.offset = fabs(a->offset) + fabs(b->offset);
	m.gain = fabs(a->gain) + fabs(b->gain);
	m.jitter_s = sqrt(a->jitter_s * a->jitter_s + b->jitter_s * b->jitter_s);
	if (bn_meas_lsb(b) > bn_meas_lsb(a)) {
		m.bits = b->bits;
		m.range_lo = b->range_lo;
		m.range_hi = b->range_hi;
	}
	*out = m;
}

static int why_set(char *why, unsigned len, const char *fmt, const char *a, const char *b)
{
	if (why && len)
		snprintf(why, len, fmt, a, b);
	return BN_ERR_DATA;
}

#define EXPECTED "noise=, offset=, gain=, bits=, range=LO..HI, jitter= or gnd="

static int parse_item(const char *key, const char *val, enum bn_dim dim, struct bn_meas *m,
		      bool *have_range, char *why, unsigned why_len)
{
	char sub[200];
	double x;

	if (!strcmp(key, "noise") || !strcmp(key, "offset")) {
		if (bn_quantity_parse(val, dim, &x, sub, sizeof(sub)) < 0)
			return why_set(why, why_len, "%s: %s", key, sub);
		if (!strcmp(key, "noise")) {
			if (x < 0)
				return why_set(why, why_len, "%s: expected a noise >= 0, got \"%s\"", key, val);
			m->noise_rms = x;
		} else {
			m->offset = x;
		}
		return BN_OK;
	}
	if (!strcmp(key, "gain")) {
		char *end;
		size_t n = strlen(val);

		x = strtod(val, &end);
		if (end == val || (*end && strcmp(end, "%")) || !isfinite(x))
			return why_set(why, why_len, "%s: expected a relative error such as 0.5%% or 0.005, got \"%s\"",
				       key, val);
		if (n && val[n - 1] == '%')
			x /= 100.0;
		if (fabs(x) >= 0.5)
			return why_set(why, why_len, "%s: expected a gain error below 50%%, got \"%s\"", key, val);
		m->gain = x;
		return BN_OK;
	}
	if (!strcmp(key, "bits")) {
		char *end;
		long b = strtol(val, &end, 10);

		if (end == val || *end || b < 1 || b > 32)
			return why_set(why, why_len, "%s: expected a whole number of bits 1..32, got \"%s\"", key, val);
		m->bits = (int)b;
		return BN_OK;
	}
	if (!strcmp(key, "range")) {
		const char *dots = strstr(val, "..");
		char lo[64];
		double a, b;

		if (!dots || (size_t)(dots - val) >= sizeof(lo))
			return why_set(why, why_len, "%s: expected LO..HI such as 0V..6V, got \"%s\"", key, val);
		memcpy(lo, val, (size_t)(dots - val));
		lo[dots - val] = '\0';
		if (bn_quantity_parse(lo, dim, &a, sub, sizeof(sub)) < 0 ||
		    bn_quantity_parse(dots + 2, dim, &b, sub, sizeof(sub)) < 0)
			return why_set(why, why_len, "%s: %s", key, sub);
		if (!(b > a))
			return why_set(why, why_len, "%s: expected LO < HI, got \"%s\"", key, val);
		m->range_lo = a;
		m->range_hi = b;
		*have_range = true;
		return BN_OK;
	}
	if (!strcmp(key, "jitter")) {
		if (bn_quantity_parse(val, BN_DIM_S, &x, sub, sizeof(sub)) < 0)
			return why_set(why, why_len, "%s: %s", key, sub);
		if (x < 0)
			return why_set(why, why_len, "%s: expected a time >= 0, got \"%s\"", key, val);
		m->jitter_s = x;
		return BN_OK;
	}
	if (!strcmp(key, "gnd")) {
		if (!strcmp(val, "port"))
			m->gnd = BN_GND_PORT;
		else if (!strcmp(val, "dut"))
			m->gnd = BN_GND_DUT;
		else
			return why_set(why, why_len, "%s: expected port or dut, got \"%s\"", key, val);
		return BN_OK;
	}
	return why_set(why, why_len, "unknown item \"%s\" (expected %s)", key, EXPECTED);
}

int bn_meas_parse(const char *text, enum bn_dim dim, struct bn_meas *m, char *why, unsigned why_len)
{
	char buf[512];
	bool have_range = false;
	char *save = NULL, *item;

	bn_meas_ideal(m);
	if (!text || strlen(text) >= sizeof(buf))
		return why_set(why, why_len, "expected %s, got \"%s\"", EXPECTED, text ? "(too long)" : "");
	snprintf(buf, sizeof(buf), "%s", text);
	if (!strcmp(buf, "ideal"))
		return BN_OK;
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		int rc;

		while (*item == ' ')
			item++;
		if (!eq || eq == item || !eq[1])
			return why_set(why, why_len, "expected KEY=VALUE (%s), got \"%s\"", EXPECTED, item);
		*eq = '\0';
		rc = parse_item(item, eq + 1, dim, m, &have_range, why, why_len);
		if (rc < 0)
			return rc;
	}
	if (m->bits && !have_range)
		return why_set(why, why_len, "bits=%s needs range=LO..HI (the span the %s steps cover)",
			       "N", "2^bits");
	return BN_OK;
}

static int fmt_q(char *buf, unsigned len, double v, enum bn_dim dim)
{
	const char *u = bn_dim_unit(dim);

	if (v != 0 && fabs(v) < 1.0)
		return snprintf(buf, len, "%.6gm%s", v * 1e3, u);
	return snprintf(buf, len, "%.6g%s", v, u);
}

void bn_meas_format(const struct bn_meas *m, enum bn_dim dim, char *buf, unsigned len)
{
	char q[48], q2[48];
	unsigned used = 0;

#define ADD(...)                                                                          \
	do {                                                                              \
		int k_ = snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__); \
		if (k_ > 0)                                                               \
			used += (unsigned)k_;                                             \
	} while (0)
	if (!len)
		return;
	buf[0] = '\0';
	if (m->noise_rms) {
		fmt_q(q, sizeof(q), m->noise_rms, dim);
		ADD("%snoise=%s", used ? "," : "", q);
	}
	if (m->offset) {
		fmt_q(q, sizeof(q), m->offset, dim);
		ADD("%soffset=%s", used ? "," : "", q);
	}
	if (m->gain)
		ADD("%sgain=%.6g%%", used ? "," : "", m->gain * 100.0);
	if (m->bits) {
		fmt_q(q, sizeof(q), m->range_lo, dim);
		fmt_q(q2, sizeof(q2), m->range_hi, dim);
		ADD("%sbits=%d,range=%s..%s", used ? "," : "", m->bits, q, q2);
	}
	if (m->jitter_s)
		ADD("%sjitter=%.6gus", used ? "," : "", m->jitter_s * 1e6);
	if (m->gnd == BN_GND_DUT)
		ADD("%sgnd=dut", used ? "," : "");
	if (!used)
		snprintf(buf, len, "ideal");
#undef ADD
}

/* ---- the generator ---- */

void bn_rng_seed(struct bn_rng *r, uint64_t seed)
{
	r->s = seed;
	r->have_spare = false;
}

static uint64_t splitmix64(struct bn_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double bn_rng_uniform(struct bn_rng *r)
{
	return (double)(splitmix64(r) >> 11) * 0x1.0p-53;
}

double bn_rng_gauss(struct bn_rng *r)
{
	double u1, u2, mag;

	if (r->have_spare) {
		r->have_spare = false;
		return r->spare;
	}
	do
		u1 = bn_rng_uniform(r);
	while (u1 <= 0);
	u2 = bn_rng_uniform(r);
	mag = sqrt(-2.0 * log(u1));
	r->spare = mag * sin(2.0 * M_PI * u2);
	r->have_spare = true;
	return mag * cos(2.0 * M_PI * u2);
}

double bn_meas_apply(const struct bn_meas *m, struct bn_rng *r, double v, double slope_per_s)
{
	double q = bn_meas_lsb(m);

	if (isnan(v))
		return v;
	if (m->jitter_s > 0 && isfinite(slope_per_s))
		v += slope_per_s * m->jitter_s * bn_rng_gauss(r);
	v = v * (1.0 + m->gain) + m->offset;
	if (m->noise_rms > 0)
		v += m->noise_rms * bn_rng_gauss(r);
	if (q > 0) {
		v = bn_fmin(bn_fmax(v, m->range_lo), m->range_hi - q);
		v = m->range_lo + floor((v - m->range_lo) / q + 0.5) * q;
	}
	return v;
}

/* ---- uncertainty ---- */

static double u_noise_quant(const struct bn_meas *m, long n)
{
	double q = bn_meas_lsb(m), s2 = m->noise_rms * m->noise_rms, q2 = q * q / 12.0;

	if (n < 1)
		n = 1;
	/* Noise of at least half a step dithers the quantizer: its error then
	 * averages down like the noise. Below that, the step's error stays. */
	if (q > 0 && m->noise_rms >= q / 2)
		return sqrt((s2 + q2) / (double)n);
	return sqrt(s2 / (double)n + q2);
}

double bn_meas_u_level(const struct bn_meas *m, double v, long n)
{
	double uo = fabs(m->offset) / sqrt(3.0), ug = fabs(m->gain * v) / sqrt(3.0);
	double un = u_noise_quant(m, n);

	return sqrt(uo * uo + ug * ug + un * un);
}

double bn_meas_u_delta(const struct bn_meas *m, double dv, long n)
{
	double ug = fabs(m->gain * dv) / sqrt(3.0), un = u_noise_quant(m, n);

	/* two levels, each with its own noise */
	return sqrt(ug * ug + 2.0 * un * un);
}

double bn_meas_u_edge(const struct bn_meas *m, double rate_hz, double slew_per_s)
{
	double up = rate_hz > 0 ? 1.0 / rate_hz / sqrt(12.0) : 0;
	double us = 0;

	if (slew_per_s > 0 && isfinite(slew_per_s)) {
		double un = u_noise_quant(m, 1);

		us = un / slew_per_s;
	}
	return sqrt(up * up + us * us + m->jitter_s * m->jitter_s);
}

double bn_u_expand(int n, const double *u)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += u[i] * u[i];
	return BN_MEAS_K * sqrt(s);
}
