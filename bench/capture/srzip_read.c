/* srzip reader: libzip cursors over the analog members, one per selected
 * channel, interleaved into frames.
 *
 * What is accepted follows libsigrok 0.5.2's loader (src/session_file.c,
 * src/session_driver.c): "version" 1 or 2; "metadata" an ini file with a
 * [device 1] group holding samplerate (sr_parse_sizestring, capture/sizestr.h: "1 MHz",
 * "1.5 MHz", "250 Hz"), probeN (logic) and analogN (analog) channel names;
 * analog data in "analog-1-N-K" (K = 1, 2, ... consecutive) or a single
 * unchunked "analog-1-N"; logic data in "logic-1[-K]" (not read here).
 * Stricter than libsigrok where it would read garbage or stop early: a gap
 * in the chunks, a member that is not whole float32 samples, an analog
 * channel without data, and any read, inflate or CRC error, are errors. */
#include "capture/srzip_read.h"
#include "capture/sizestr.h"

#include <errno.h>
#include <glib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <zip.h>

#define SRR_BUF_SAMPLES 262144	  /* per selected channel, streamed through libzip */
/* A member up to this size is inflated whole, by libdeflate, into a
 * buffer of its stated size (the writer's are 4 MiB): 2-3x zlib's speed,
 * and its CRC-32 checked by libdeflate's. Larger ones, and methods other
 * than deflate and store, stream through libzip. */
#define SRR_WHOLE_MAX (16u << 20)
#define SRR_META_MAX (1 << 20)	  /* bytes of "metadata" we accept */
#define SRR_INDEX_MAX 100000	  /* probeN / analogN */
#define SRR_CHUNK_MAX 2147483647L /* K of analog-1-N-K: libsigrok prints it with %d */
#define SRR_RATE_MAX 1e12
#define SRR_UNITS_KEY "bcbench units"

struct srr_chunk {
	zip_uint64_t idx;  /* zip entry */
	zip_uint64_t size; /* bytes */
	zip_uint64_t comp_size;
	zip_uint32_t crc;
	bool stored;       /* ZIP_CM_STORE */
	bool whole;        /* inflated whole: deflate or store, sizes and CRC known, small */
	long num;	   /* K of analog-1-N-K; 0 for analog-1-N */
};

struct srr_chunks {
	struct srr_chunk *v;
	int n, cap;
};

/* One selected channel's cursor. */
struct srr_cur {
	int ch;		   /* into info.ch */
	int next;	   /* next chunk to open */
	zip_file_t *zf;	   /* the open member, or NULL */
	zip_uint64_t left; /* its bytes not read yet */
	bool whole;        /* every member inflated whole (SRR_WHOLE_MAX) */
	float *buf;
	long cap;      /* samples buf holds: the channel's, at most SRR_BUF_SAMPLES */
	long pos, len; /* samples used / held in buf */
};

struct bn_srr {
	char *path;
	zip_t *za;
	struct bn_srr_info info;
	struct srr_chunks chunks[BN_SRR_MAX_CH]; /* per info.ch, analog only */
	int n_sel;
	struct srr_cur cur[BN_SRR_MAX_CH];
	bool started; /* a read happened: selection fixed */
	struct libdeflate_decompressor *dec;
	unsigned char *zbuf; /* a member's compressed bytes */
	size_t zcap;
	int64_t left; /* frames still to deliver */
	int fail;     /* sticky read error */
	char fail_msg[BN_ERR_MSG_LEN];
};

/* ---- small parsers ---- */

/* "123" (digits only, value 1..max) -> 123; else -1. canonical: no
 * leading zeros, as libsigrok prints member names. */
static long parse_index(const char *s, bool canonical, long max)
{
	long v = 0;

	if (!*s || (canonical && s[0] == '0'))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	return v >= 1 ? v : -1;
}

/* A non-negative integer key value ("total analog", "unitsize"). */
static int parse_count(const char *s, long max, long *out)
{
	char *end;
	long v;

	while (*s == ' ' || *s == '\t')
		s++;
	errno = 0;
	v = strtol(s, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == s || *end || errno || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int chunks_add(struct srr_chunks *c, const zip_stat_t *st, long num)
{
	if (c->n == c->cap) {
		struct srr_chunk *v;
		int cap;

		if (c->cap > (1 << 28))
			return -1;
		cap = c->cap ? c->cap * 2 : 16;
		v = realloc(c->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct srr_chunk){ .idx = st->index, .size = st->size,
					   .comp_size = st->comp_size, .crc = st->crc,
					   .stored = st->comp_method == ZIP_CM_STORE,
					   .whole = (st->valid & (ZIP_STAT_COMP_SIZE | ZIP_STAT_CRC)) ==
						    (ZIP_STAT_COMP_SIZE | ZIP_STAT_CRC) &&
						    (st->comp_method == ZIP_CM_DEFLATE ||
						     st->comp_method == ZIP_CM_STORE) &&
						    st->size <= SRR_WHOLE_MAX &&
						    st->comp_size <= SRR_WHOLE_MAX,
					   .num = num };
	return 0;
}

static int chunk_cmp(const void *a, const void *b)
{
	long x = ((const struct srr_chunk *)a)->num, y = ((const struct srr_chunk *)b)->num;

	return (x > y) - (x < y);
}

/* The member name of chunk k of analog channel n. */
static void chunk_name(char *buf, size_t len, int index, long num)
{
	if (num == 0)
		snprintf(buf, len, "analog-1-%d", index);
	else
		snprintf(buf, len, "analog-1-%d-%ld", index, num);
}

/* ---- open: version and metadata ---- */

static int zip_code_to_bn(int zcode)
{
	switch (zcode) {
	case ZIP_ER_OPEN:
	case ZIP_ER_READ:
	case ZIP_ER_SEEK:
	case ZIP_ER_NOENT: return BN_ERR_IO;
	case ZIP_ER_MEMORY: return BN_ERR_NOMEM;
	default: return BN_ERR_DATA;
	}
}

/* Read a whole small member into a NUL-terminated g_malloc'ed buffer. */
static int read_small(struct bn_srr *r, const char *name, size_t max, char **out, size_t *len,
		      struct bn_err *err)
{
	zip_stat_t st;
	zip_file_t *zf;
	zip_int64_t idx = zip_name_locate(r->za, name, 0);
	char *buf;
	size_t got = 0;

	*out = NULL;
	if (idx < 0)
		return 1;
	if (zip_stat_index(r->za, (zip_uint64_t)idx, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE))
		return bn_err_set(err, BN_ERR_DATA, "%s: error: %s: %s", r->path, name,
				  zip_strerror(r->za));
	if (st.size > max)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: member %s is %" PRIu64
				  " bytes (expected at most %zu)",
				  r->path, name, (uint64_t)st.size, max);
	zf = zip_fopen_index(r->za, (zip_uint64_t)idx, 0);
	if (!zf)
		return bn_err_set(err, BN_ERR_DATA, "%s: error: cannot open member %s: %s", r->path,
				  name, zip_strerror(r->za));
	buf = g_malloc((size_t)st.size + 1);
	for (;;) {
		/* read one byte past the stated size: EOF there checks the CRC */
		zip_int64_t n = zip_fread(zf, buf + got, (size_t)st.size + 1 - got);

		if (n < 0) {
			int rc = bn_err_set(err, BN_ERR_DATA, "%s: error: reading member %s: %s",
					    r->path, name, zip_file_strerror(zf));

			zip_fclose(zf);
			g_free(buf);
			return rc;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > st.size) {
			zip_fclose(zf);
			g_free(buf);
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: member %s is longer than its stated %" PRIu64
					  " bytes",
					  r->path, name, (uint64_t)st.size);
		}
	}
	zip_fclose(zf);
	if (got != st.size) {
		g_free(buf);
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: member %s ended after %zu of %" PRIu64 " bytes",
				  r->path, name, got, (uint64_t)st.size);
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return BN_OK;
}

static int check_version(struct bn_srr *r, struct bn_err *err)
{
	char *text;
	size_t len;
	int rc = read_small(r, "version", 16, &text, &len, err);

	if (rc == 1)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: no \"version\" member: not a sigrok session file",
				  r->path);
	if (rc)
		return rc;
	g_strstrip(text);
	if (strcmp(text, "1") && strcmp(text, "2")) {
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: session file version \"%.16s\" (expected 1 or 2)",
				r->path, text);
		g_free(text);
		return rc;
	}
	g_free(text);
	return BN_OK;
}

static int parse_rate(struct bn_srr *r, GKeyFile *kf, struct bn_err *err)
{
	char *s = g_key_file_get_string(kf, "device 1", "samplerate", NULL);
	uint64_t v = 0;
	bool overflow = false;
	int rc = BN_OK;

	if (!s)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: metadata has no samplerate (expected samplerate=... "
				  "in [device 1], e.g. samplerate=1 MHz)",
				  r->path);
	/* libsigrok's parse (capture/sizestr.h) takes "-5" as a huge number:
	 * reject a sign; a number too large for it is told apart from a zero */
	if (!strpbrk(s, "0123456789") || strchr(s, '-') ||
	    bn_sizestr_parse(s, &v, &overflow) != BN_OK || (double)v > SRR_RATE_MAX)
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: cannot parse samplerate=%.40s in [device 1] (expected "
				"e.g. 1 MHz, 10 kHz, 250 Hz, 1.5 MHz)",
				r->path, s);
	else if (overflow || (v == 0 && strpbrk(s, "123456789")))
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: cannot parse samplerate=%.40s in [device 1] (expected "
				"at most 1 THz, in whole Hz)",
				r->path, s);
	else if (v == 0)
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: samplerate=%.40s in [device 1] is zero (expected a "
				"rate > 0, e.g. 1 MHz)",
				r->path, s);
	else
		r->info.rate_hz = (double)v;
	g_free(s);
	return rc;
}

static int add_channel(struct bn_srr *r, GKeyFile *kf, const char *key, bool analog, long index,
		       struct bn_err *err)
{
	struct bn_srr_info *in = &r->info;
	struct bn_srr_chan *ch;
	char *name;

	for (int i = 0; i < in->n_ch; i++)
		if (in->ch[i].analog == analog && in->ch[i].index == index)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: metadata names %s channel %ld twice (%s)",
					  r->path, analog ? "analog" : "logic", index, key);
	if (in->n_ch == BN_SRR_MAX_CH)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: more than %d channels in [device 1] (at %s)", r->path,
				  BN_SRR_MAX_CH, key);
	name = g_key_file_get_string(kf, "device 1", key, NULL);
	if (!name)
		return bn_err_set(err, BN_ERR_DATA, "%s: error: metadata key %s is not a string",
				  r->path, key);
	if (strlen(name) >= sizeof(ch->name)) {
		int rc = bn_err_set(err, BN_ERR_DATA,
				    "%s: error: channel name %s=%.20s... is longer than %zu "
				    "characters",
				    r->path, key, name, sizeof(ch->name) - 1);

		g_free(name);
		return rc;
	}
	ch = &in->ch[in->n_ch++];
	memset(ch, 0, sizeof(*ch));
	snprintf(ch->name, sizeof(ch->name), "%s", name);
	g_free(name);
	ch->analog = analog;
	ch->index = (int)index;
	if (analog)
		in->n_analog++;
	else
		in->n_logic++;
	return BN_OK;
}

/* "bcbench units": the units of the analog channels in ascending analogN,
 * joined by ';' ("V;A;V;V;V"). Split by hand: GKeyFile's list parser
 * drops a trailing empty item, so "V;" (a last channel without a unit)
 * or "" (one channel without) would lose a unit. A trailing ';' as
 * g_key_file_set_string_list writes it is accepted too. */
static int parse_units(struct bn_srr *r, GKeyFile *kf, struct bn_err *err)
{
	struct bn_srr_info *in = &r->info;
	char *raw, **u;
	int order[BN_SRR_MAX_CH], k = 0, n, rc = BN_OK;

	raw = g_key_file_get_string(kf, "device 1", SRR_UNITS_KEY, NULL);
	if (!raw)
		return BN_OK;
	if (*raw) {
		/* at most 2 more items than channels: enough to tell a mismatch */
		u = g_strsplit(raw, ";", BN_SRR_MAX_CH + 2);
	} else {
		/* one channel without a unit: one empty item */
		u = g_new0(char *, 2);
		u[0] = g_strdup("");
	}
	n = (int)g_strv_length(u);
	for (int i = 0; i < in->n_ch; i++)
		if (in->ch[i].analog)
			order[k++] = i;
	for (int a = 1; a < k; a++)
		for (int b = a; b > 0 && in->ch[order[b]].index < in->ch[order[b - 1]].index; b--) {
			int t = order[b];

			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	if (n == k + 1 && !*u[k])
		n = k;
	if (n != k) {
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: \"%s\" lists %d units for %d analog channels", r->path,
				SRR_UNITS_KEY, n, k);
		goto out;
	}
	for (int i = 0; i < k; i++) {
		struct bn_srr_chan *ch = &in->ch[order[i]];

		if (strlen(u[i]) >= sizeof(ch->unit)) {
			rc = bn_err_set(
			    err, BN_ERR_DATA,
			    "%s: error: unit \"%.16s\" of channel %s in \"%s\" is longer "
			    "than %zu characters",
			    r->path, u[i], ch->name, SRR_UNITS_KEY, sizeof(ch->unit) - 1);
			goto out;
		}
		snprintf(ch->unit, sizeof(ch->unit), "%s", u[i]);
	}
out:
	g_strfreev(u);
	g_free(raw);
	return rc;
}

static int parse_metadata(struct bn_srr *r, struct bn_err *err)
{
	struct bn_srr_info *in = &r->info;
	GKeyFile *kf;
	GError *gerr = NULL;
	char *text, **keys = NULL;
	size_t len = 0;
	int rc = read_small(r, "metadata", SRR_META_MAX, &text, &len, err);

	if (rc == 1)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: no \"metadata\" member: not a sigrok session file",
				  r->path);
	if (rc)
		return rc;
	kf = g_key_file_new();
	if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &gerr)) {
		rc = bn_err_set(err, BN_ERR_DATA, "%s: error: metadata is not an ini file: %s",
				r->path, gerr ? gerr->message : "?");
		g_clear_error(&gerr);
		goto out;
	}
	if (!g_key_file_has_group(kf, "device 1")) {
		rc = bn_err_set(err, BN_ERR_DATA,
				"%s: error: metadata has no [device 1] (expected the capture's "
				"samplerate and channels there)",
				r->path);
		goto out;
	}
	rc = parse_rate(r, kf, err);
	if (rc)
		goto out;
	keys = g_key_file_get_keys(kf, "device 1", NULL, NULL);
	for (int j = 0; keys && keys[j] && rc == BN_OK; j++) {
		const char *k = keys[j];
		char *v;
		long n;

		if (!strncmp(k, "probe", 5) || !strncmp(k, "analog", 6)) {
			bool analog = k[0] == 'a';

			n = parse_index(k + (analog ? 6 : 5), false, SRR_INDEX_MAX);
			if (n < 0)
				rc = bn_err_set(err, BN_ERR_DATA,
						"%s: error: metadata key \"%.40s\" in [device 1] "
						"(expected %sN=NAME, N from 1 to %d)",
						r->path, k, analog ? "analog" : "probe",
						SRR_INDEX_MAX);
			else
				rc = add_channel(r, kf, k, analog, n, err);
		} else if (!strcmp(k, "unitsize") || !strcmp(k, "total probes") ||
			   !strcmp(k, "total analog")) {
			v = g_key_file_get_string(kf, "device 1", k, NULL);
			if (!v || parse_count(v, k[0] == 'u' ? 1024 : SRR_INDEX_MAX, &n) < 0)
				rc = bn_err_set(
				    err, BN_ERR_DATA,
				    "%s: error: %s=%.20s in [device 1] (expected a whole "
				    "number >= 0)",
				    r->path, k, v ? v : "");
			else if (k[0] == 'u')
				in->unitsize = (int)n;
			g_free(v);
		}
	}
	if (rc == BN_OK)
		rc = parse_units(r, kf, err);
	if (in->n_logic == 0)
		in->unitsize = 0;
out:
	g_strfreev(keys);
	g_key_file_free(kf);
	g_free(text);
	return rc;
}

/* ---- open: the members ---- */

static int find_analog(const struct bn_srr *r, long index)
{
	for (int i = 0; i < r->info.n_ch; i++)
		if (r->info.ch[i].analog && r->info.ch[i].index == index)
			return i;
	return -1;
}

/* "analog-1-N" -> N, chunk 0; "analog-1-N-K" -> N, K. Names libsigrok
 * would not look for (leading zeros, other devices) do not match. */
static bool parse_member(const char *name, long *index, long *num)
{
	char buf[40];
	char *dash;

	if (strncmp(name, "analog-1-", 9) || strlen(name + 9) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", name + 9);
	dash = strchr(buf, '-');
	*num = 0;
	if (dash) {
		*dash = '\0';
		*num = parse_index(dash + 1, true, SRR_CHUNK_MAX);
		if (*num < 0)
			return false;
	}
	*index = parse_index(buf, true, SRR_INDEX_MAX);
	return *index > 0;
}

static int scan_members(struct bn_srr *r, struct bn_err *err)
{
	struct bn_srr_info *in = &r->info;
	zip_int64_t n = zip_get_num_entries(r->za, 0);
	char name[48];

	for (zip_int64_t i = 0; i < n; i++) {
		const char *mname = zip_get_name(r->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		zip_stat_t st;
		long index, num;
		int ch;

		if (!mname || !parse_member(mname, &index, &num))
			continue;
		ch = find_analog(r, index);
		if (ch < 0)
			continue; /* not listed in the metadata: libsigrok ignores it too */
		if (zip_stat_index(r->za, (zip_uint64_t)i, 0, &st) < 0 ||
		    (st.valid & (ZIP_STAT_SIZE | ZIP_STAT_COMP_METHOD)) !=
			(ZIP_STAT_SIZE | ZIP_STAT_COMP_METHOD))
			return bn_err_set(err, BN_ERR_DATA, "%s: error: member %s: %s", r->path,
					  mname, zip_strerror(r->za));
		if (st.size % 4)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: member %s is %" PRIu64 " bytes, not a whole "
					  "number of float32 samples",
					  r->path, mname, (uint64_t)st.size);
		if (!zip_compression_method_supported(st.comp_method, 0))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: member %s uses compression method %d, which "
					  "libzip cannot read",
					  r->path, mname, (int)st.comp_method);
		if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
			return bn_err_set(err, BN_ERR_DATA, "%s: error: member %s is encrypted",
					  r->path, mname);
		st.index = (zip_uint64_t)i;
		if (chunks_add(&r->chunks[ch], &st, num) < 0)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", r->path);
	}

	in->n_frames = -1;
	for (int c = 0; c < in->n_ch; c++) {
		struct srr_chunks *cs = &r->chunks[c];
		struct bn_srr_chan *ch = &in->ch[c];

		if (!ch->analog)
			continue;
		if (cs->n == 0) {
			chunk_name(name, sizeof(name), ch->index, 1);
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: analog channel %s (analog%d) has no data "
					  "(expected a member %s)",
					  r->path, ch->name, ch->index, name);
		}
		qsort(cs->v, (size_t)cs->n, sizeof(cs->v[0]), chunk_cmp);
		if (cs->v[0].num == 0 && cs->n > 1) {
			chunk_name(name, sizeof(name), ch->index, cs->v[1].num);
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: analog channel %s has both analog-1-%d and "
					  "chunks like %s",
					  r->path, ch->name, ch->index, name);
		}
		for (int k = 0; k < cs->n; k++) {
			if (cs->v[0].num == 0)
				break;
			if (cs->v[k].num != k + 1) {
				/* libsigrok stops at the first missing chunk */
				chunk_name(name, sizeof(name), ch->index, k + 1);
				return bn_err_set(err, BN_ERR_DATA,
						  "%s: error: analog channel %s: member %s is "
						  "missing (chunks must be numbered 1, 2, ...)",
						  r->path, ch->name, name);
			}
		}
		ch->n_samples = 0;
		for (int k = 0; k < cs->n; k++) {
			uint64_t add = cs->v[k].size / 4;

			if (add > (uint64_t)(INT64_MAX - ch->n_samples)) {
				chunk_name(name, sizeof(name), ch->index, cs->v[k].num);
				return bn_err_set(err, BN_ERR_DATA,
						  "%s: error: analog channel %s: member %s "
						  "states an impossible size",
						  r->path, ch->name, name);
			}
			ch->n_samples += (int64_t)add;
		}
		if (in->n_frames < 0 || ch->n_samples < in->n_frames)
			in->n_frames = ch->n_samples;
	}
	if (in->n_frames < 0)
		in->n_frames = 0;
	return BN_OK;
}

int bn_srr_open(const char *path, struct bn_srr **out, struct bn_err *err)
{
	struct bn_srr *r;
	struct stat st;
	zip_error_t ze;
	int zcode = 0, rc;

	if (out)
		*out = NULL;
	if (!path || !*path || !out)
		return bn_err_set(err, BN_ERR_ARG,
				  "srzip: error: bn_srr_open needs a path and "
				  "an output pointer");
	if (stat(path, &st) < 0)
		return bn_err_set(err, BN_ERR_IO, "%s: error: cannot open: %s", path,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bn_err_set(err, BN_ERR_IO, "%s: error: not a regular file", path);

	r = calloc(1, sizeof(*r));
	if (!r)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", path);
	r->path = g_strdup(path);
	r->za = zip_open(path, ZIP_RDONLY, &zcode);
	if (!r->za) {
		zip_error_init_with_code(&ze, zcode);
		rc = bn_err_set(err, zip_code_to_bn(zcode),
				"%s: error: not a sigrok capture: cannot read it as a zip "
				"archive (truncated, or not a .sr file?): %s",
				path, zip_error_strerror(&ze));
		zip_error_fini(&ze);
		bn_srr_close(r);
		return rc;
	}
	rc = check_version(r, err);
	if (rc == BN_OK)
		rc = parse_metadata(r, err);
	if (rc == BN_OK)
		rc = scan_members(r, err);
	if (rc != BN_OK) {
		bn_srr_close(r);
		return rc;
	}
	*out = r;
	return BN_OK;
}

const struct bn_srr_info *bn_srr_info(const struct bn_srr *r)
{
	return r ? &r->info : NULL;
}

void bn_srr_list_channels(const struct bn_srr_info *in, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < in->n_ch && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "",
					 in->ch[i].name, in->ch[i].analog ? "" : " (logic)");
	if (!in->n_ch)
		snprintf(buf, len, "no channels");
}

int bn_srr_find(const struct bn_srr *r, const char *name)
{
	if (!r || !name)
		return -1;
	for (int i = 0; i < r->info.n_ch; i++)
		if (!strcasecmp(r->info.ch[i].name, name))
			return i;
	return -1;
}

/* ---- streaming ---- */

static void cur_release(struct srr_cur *c)
{
	if (c->zf)
		zip_fclose(c->zf);
	c->zf = NULL;
	free(c->buf);
	c->buf = NULL;
}

int bn_srr_select(struct bn_srr *r, int n, const int ch_idx[], struct bn_err *err)
{
	int64_t left = -1;

	if (!r)
		return bn_err_set(err, BN_ERR_ARG, "srzip: error: bn_srr_select(NULL)");
	if (r->started)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: channels selected after reading started", r->path);
	if (n < 1 || n > BN_SRR_MAX_CH || !ch_idx)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: selecting %d channels (expected 1 to %d)", r->path, n,
				  BN_SRR_MAX_CH);
	for (int i = 0; i < n; i++) {
		int c = ch_idx[i];

		if (c < 0 || c >= r->info.n_ch)
			return bn_err_set(err, BN_ERR_ARG,
					  "%s: error: channel index %d (the file has %d channels)",
					  r->path, c, r->info.n_ch);
		if (!r->info.ch[c].analog)
			return bn_err_set(err, BN_ERR_ARG,
					  "%s: error: channel %s is a logic channel (only analog "
					  "channels are streamed)",
					  r->path, r->info.ch[c].name);
		/* Frames are time-aligned across channels: a channel shorter
		 * than another is a truncated or mis-assembled capture, not a
		 * shorter run to be judged. */
		if (i > 0 && r->info.ch[c].n_samples != r->info.ch[ch_idx[0]].n_samples)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: channels of unequal length: %s has %" PRId64
					  " samples, %s %" PRId64 " (expected one sample per frame on "
					  "every channel)",
					  r->path, r->info.ch[c].name, r->info.ch[c].n_samples,
					  r->info.ch[ch_idx[0]].name, r->info.ch[ch_idx[0]].n_samples);
	}
	for (int i = 0; i < r->n_sel; i++)
		cur_release(&r->cur[i]);
	r->n_sel = 0;
	for (int i = 0; i < n; i++) {
		struct srr_cur *c = &r->cur[i];

		memset(c, 0, sizeof(*c));
		c->ch = ch_idx[i];
		/* A short capture gets a short buffer: no 1 MB per channel to
		 * read a few samples (an open per input under a fuzzer). */
		c->cap = r->info.ch[c->ch].n_samples < SRR_BUF_SAMPLES
				 ? (long)r->info.ch[c->ch].n_samples + 1
				 : SRR_BUF_SAMPLES;
		/* Inflated whole: a buffer of its largest member. */
		c->whole = true;
		for (int k = 0; k < r->chunks[c->ch].n; k++) {
			const struct srr_chunk *ck = &r->chunks[c->ch].v[k];

			c->whole = c->whole && ck->whole;
		}
		if (c->whole) {
			c->cap = 1;
			for (int k = 0; k < r->chunks[c->ch].n; k++)
				if ((long)(r->chunks[c->ch].v[k].size / 4) > c->cap)
					c->cap = (long)(r->chunks[c->ch].v[k].size / 4);
		}
		c->buf = malloc((size_t)c->cap * sizeof(float));
		if (!c->buf) {
			for (int j = 0; j < i; j++)
				cur_release(&r->cur[j]);
			return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", r->path);
		}
		if (left < 0 || r->info.ch[c->ch].n_samples < left)
			left = r->info.ch[c->ch].n_samples;
	}
	r->n_sel = n;
	r->left = left;
	return BN_OK;
}

static int cur_fail(struct bn_srr *r, struct srr_cur *c, int code, const char *what,
		    const char *detail, struct bn_err *err)
{
	char name[48];
	const struct srr_chunks *cs = &r->chunks[c->ch];
	int k = c->next < cs->n ? c->next : cs->n - 1;
	long num = k >= 0 ? cs->v[k].num : 1;

	chunk_name(name, sizeof(name), r->info.ch[c->ch].index, num);
	snprintf(r->fail_msg, sizeof(r->fail_msg), "%s: error: %s member %s (channel %s): %s",
		 r->path, what, name, r->info.ch[c->ch].name, detail);
	r->fail = code;
	return bn_err_set(err, code, "%s", r->fail_msg);
}

/* The member c is in has been read to its stated size: one more read must
 * give EOF, which is where libzip checks the CRC. */
static int cur_finish_member(struct bn_srr *r, struct srr_cur *c, struct bn_err *err)
{
	char extra;
	zip_int64_t n = zip_fread(c->zf, &extra, 1);
	int rc;

	if (n < 0) {
		rc = cur_fail(r, c, BN_ERR_DATA, "reading", zip_file_strerror(c->zf), err);
		return rc;
	}
	if (n > 0)
		return cur_fail(r, c, BN_ERR_DATA, "reading", "more data than its stated size",
				err);
	zip_fclose(c->zf);
	c->zf = NULL;
	c->next++;
	return BN_OK;
}

/* The next member of c, whole, into c->buf: its compressed bytes read
 * raw, inflated by libdeflate to exactly its stated size, then its
 * CRC-32 checked. An empty member is passed over. */
static int cur_fill_whole(struct bn_srr *r, struct srr_cur *c, struct bn_err *err)
{
	const struct srr_chunks *cs = &r->chunks[c->ch];
	char detail[96];

	c->pos = c->len = 0;
	while (c->next < cs->n) {
		const struct srr_chunk *ck = &cs->v[c->next];
		bool stored = ck->stored;
		unsigned char *dst;
		size_t got = 0, out = 0;
		int rc = BN_OK;

		if (ck->size == 0) {
			c->next++;
			continue;
		}
		if (stored && ck->comp_size != ck->size)
			return cur_fail(r, c, BN_ERR_DATA, "reading",
					"a stored member whose sizes differ", err);
		if (!stored && !r->dec) {
			r->dec = libdeflate_alloc_decompressor();
			if (!r->dec)
				return cur_fail(r, c, BN_ERR_NOMEM, "reading", "out of memory", err);
		}
		if (!stored && r->zcap < ck->comp_size) {
			unsigned char *z = realloc(r->zbuf, (size_t)ck->comp_size);

			if (!z)
				return cur_fail(r, c, BN_ERR_NOMEM, "reading", "out of memory", err);
			r->zbuf = z;
			r->zcap = (size_t)ck->comp_size;
		}
		dst = stored ? (unsigned char *)c->buf : r->zbuf;
		c->zf = zip_fopen_index(r->za, ck->idx, ZIP_FL_COMPRESSED);
		if (!c->zf)
			return cur_fail(r, c, BN_ERR_DATA, "opening", zip_strerror(r->za), err);
		while (got < ck->comp_size) {
			zip_int64_t n = zip_fread(c->zf, dst + got, (size_t)ck->comp_size - got);

			if (n < 0)
				return cur_fail(r, c, BN_ERR_DATA, "reading", zip_file_strerror(c->zf),
						err);
			if (n == 0) {
				snprintf(detail, sizeof(detail),
					 "ended %" PRIu64 " bytes short of its compressed size",
					 (uint64_t)(ck->comp_size - got));
				return cur_fail(r, c, BN_ERR_DATA, "reading", detail, err);
			}
			got += (size_t)n;
		}
		zip_fclose(c->zf);
		c->zf = NULL;
		if (!stored) {
			enum libdeflate_result lr = libdeflate_deflate_decompress(
			    r->dec, r->zbuf, got, c->buf, (size_t)ck->size, &out);

			if (lr == LIBDEFLATE_INSUFFICIENT_SPACE)
				rc = cur_fail(r, c, BN_ERR_DATA, "reading",
					      "more data than its stated size", err);
			else if (lr != LIBDEFLATE_SUCCESS)
				rc = cur_fail(r, c, BN_ERR_DATA, "reading",
					      "Zlib error: the deflate data is corrupt", err);
			else if (out != ck->size) {
				snprintf(detail, sizeof(detail),
					 "ended %" PRIu64 " bytes short of its size",
					 (uint64_t)(ck->size - out));
				rc = cur_fail(r, c, BN_ERR_DATA, "reading", detail, err);
			}
			if (rc)
				return rc;
		}
		if (libdeflate_crc32(0, c->buf, (size_t)ck->size) != ck->crc)
			return cur_fail(r, c, BN_ERR_DATA, "reading", "CRC error", err);
		c->next++;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		{
			uint32_t *u = (uint32_t *)c->buf;

			for (size_t i = 0; i < ck->size / 4; i++)
				u[i] = __builtin_bswap32(u[i]);
		}
#endif
		c->len = (long)(ck->size / sizeof(float));
		return BN_OK;
	}
	return BN_OK;
}

/* Refill c's buffer from its members, crossing into the next as needed. */
static int cur_fill(struct bn_srr *r, struct srr_cur *c, struct bn_err *err)
{
	const struct srr_chunks *cs = &r->chunks[c->ch];
	char *dst = (char *)c->buf;
	size_t want = (size_t)c->cap * sizeof(float), got = 0;
	int rc;

	while (got < want) {
		zip_int64_t n;
		size_t ask;

		if (!c->zf) {
			if (c->next >= cs->n)
				break;
			c->zf = zip_fopen_index(r->za, cs->v[c->next].idx, 0);
			if (!c->zf)
				return cur_fail(r, c, BN_ERR_DATA, "opening", zip_strerror(r->za),
						err);
			c->left = cs->v[c->next].size;
			if (c->left == 0) {
				rc = cur_finish_member(r, c, err);
				if (rc)
					return rc;
				continue;
			}
		}
		ask = want - got < c->left ? want - got : (size_t)c->left;
		n = zip_fread(c->zf, dst + got, ask);
		if (n < 0)
			return cur_fail(r, c, BN_ERR_DATA, "reading", zip_file_strerror(c->zf),
					err);
		if (n == 0) {
			char detail[96];

			snprintf(detail, sizeof(detail),
				 "ended %" PRIu64 " bytes short of its size", (uint64_t)c->left);
			return cur_fail(r, c, BN_ERR_DATA, "reading", detail, err);
		}
		got += (size_t)n;
		c->left -= (zip_uint64_t)n;
		if (c->left == 0) {
			rc = cur_finish_member(r, c, err);
			if (rc)
				return rc;
		}
	}
	if (got % sizeof(float))
		return cur_fail(r, c, BN_ERR_BUG, "reading", "partial sample", err);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	{
		uint32_t *u = (uint32_t *)c->buf;

		for (size_t i = 0; i < got / 4; i++)
			u[i] = __builtin_bswap32(u[i]);
	}
#endif
	c->pos = 0;
	c->len = (long)(got / sizeof(float));
	return BN_OK;
}

static long srr_read(struct bn_srr *r, float *frames, float *const *cols, long max_frames,
		     struct bn_err *err)
{
	long out = 0, want;
	int ns;

	if (!r)
		return bn_err_set(err, BN_ERR_ARG, "srzip: error: bn_srr_read(NULL)");
	if (r->n_sel == 0)
		return bn_err_set(err, BN_ERR_ARG, "%s: error: bn_srr_read before bn_srr_select",
				  r->path);
	if (max_frames < 0 || (max_frames > 0 && !frames && !cols))
		return bn_err_set(err, BN_ERR_ARG, "%s: error: bn_srr_read of %ld frames into %p",
				  r->path, max_frames, (void *)frames);
	if (r->fail)
		return bn_err_set(err, r->fail, "%s", r->fail_msg);
	r->started = true;
	ns = r->n_sel;
	want = r->left < max_frames ? (long)r->left : max_frames;
	while (out < want) {
		long n = want - out;

		for (int k = 0; k < ns; k++) {
			struct srr_cur *c = &r->cur[k];

			if (c->pos == c->len) {
				int rc = c->whole ? cur_fill_whole(r, c, err) : cur_fill(r, c, err);

				if (rc)
					return rc;
				if (c->len == 0)
					return cur_fail(r, c, BN_ERR_DATA, "reading",
							"no more samples than its stated size",
							err);
			}
			if (c->len - c->pos < n)
				n = c->len - c->pos;
		}
		for (int k = 0; k < ns; k++) {
			struct srr_cur *c = &r->cur[k];
			const float *s = c->buf + c->pos;
			float *d = cols ? cols[k] + out : frames + (size_t)out * ns + k;

			if (ns == 1 || cols) {
				memcpy(d, s, (size_t)n * sizeof(float));
			} else {
				for (long i = 0; i < n; i++)
					d[(size_t)i * ns] = s[i];
			}
			c->pos += n;
		}
		out += n;
	}
	r->left -= out;
	return out;
}

long bn_srr_read(struct bn_srr *r, float *frames, long max_frames, struct bn_err *err)
{
	return srr_read(r, frames, NULL, max_frames, err);
}

long bn_srr_read_cols(struct bn_srr *r, float *const cols[], long max_frames, struct bn_err *err)
{
	return srr_read(r, NULL, cols, max_frames, err);
}

void bn_srr_close(struct bn_srr *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n_sel; i++)
		cur_release(&r->cur[i]);
	for (int c = 0; c < BN_SRR_MAX_CH; c++)
		free(r->chunks[c].v);
	if (r->za)
		zip_discard(r->za);
	libdeflate_free_decompressor(r->dec);
	free(r->zbuf);
	g_free(r->path);
	free(r);
}
