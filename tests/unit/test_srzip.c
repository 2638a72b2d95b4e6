/* srzip capture files: our writer and reader against each other, against
 * libsigrok 0.5.2 (its loader, its srzip output) and sigrok-cli, and the
 * reader against broken files. Each test works in its own scratch
 * directory under $TMPDIR.
 * Optional argument: a cmocka test-name filter (e.g. "test_srzip__corrupt*"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <libsigrok/libsigrok.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include "lib/harness.h"
#include "capture/srzip_read.h"
#include "capture/srzip_write.h"
#include "core/err.h"

/* Leaks inside libsigrok 0.5.2 that a caller cannot free, kept out of
 * LeakSanitizer's report: a user device instance (sr_dev_inst_free is
 * private; the foreign-file test makes one), and the session driver's
 * "analog-1-N" capturefile names, which stream_session_data() replaces
 * without freeing while sr_session_run() plays a file back. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:sr_dev_inst_user_new\nleak:sr_dev_inst_channel_add\n"
	       "leak:sr_session_run\n";
}

/* libsigrok is built without frame pointers: only the slow unwinder sees
 * the sr_session_run frame the suppression above names. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

static const char *const names5[] = {"VBUS", "IBUS", "DP", "DM", "ID"};
static const char *const units5[] = {"V", "A", "V", "V", "V"};

struct scratch {
	char dir[256];
	char path[512]; /* dir/cap.sr */
};

static int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/bn_test_srzip.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
	snprintf(s->path, sizeof(s->path), "%s/cap.sr", s->dir);
	*state = s;
	return 0;
}

static void remove_tree(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[768];
	DIR *d = opendir(path);

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub);
		else
			unlink(sub);
	}
	closedir(d);
	rmdir(path);
}

static int scratch_teardown(void **state)
{
	struct scratch *s = *state;

	remove_tree(s->dir);
	free(s);
	return 0;
}

/* Entries of dir (without . and ..); the first one's name into first. */
static int count_entries(const char *dir, char *first, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n++ == 0 && first)
			snprintf(first, len, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

/* Distinct known waveforms: channels 0 and 3 exactly representable as
 * float, 1, 2 and 4 not. */
static double wave(int ch, long k)
{
	double base = 100.0 * (ch / 5);

	switch (ch % 5) {
	case 0: return base + 5.0 * (double)((k / 250) % 2) + 0.25 * (double)(k % 4);
	case 1: return base + 0.1 * (double)k - 1.5;
	case 2: return base + 3.3 * sin((double)k * 0.01);
	case 3: return base + (double)(k % 7) - 3.0;
	default: return base + 1.0 / 3.0 + 1e-3 * (double)k;
	}
}

static void opts_init(struct bn_srw_opts *o, int n_ch, double rate, long chunk, int level)
{
	static const char *const extra[] = {"CH6",  "CH7",  "CH8",  "CH9",  "CH10", "CH11",
					    "CH12", "CH13", "CH14", "CH15", "CH16"};

	memset(o, 0, sizeof(*o));
	o->rate_hz = rate;
	o->n_ch = n_ch;
	for (int c = 0; c < n_ch && c < BN_SRW_MAX_CH; c++) {
		o->names[c] = c < 5 ? names5[c] : extra[c - 5];
		o->units[c] = c < 5 ? units5[c] : "V";
	}
	o->chunk_samples = chunk;
	o->compression_level = level;
}

static void write_capture(const char *path, int n_ch, long n_frames, long chunk, int level,
			  double rate)
{
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};
	double v[BN_SRW_MAX_CH];

	opts_init(&o, n_ch, rate, chunk, level);
	assert_int_equal(bn_srw_open(path, &o, &w, &err), BN_OK);
	assert_non_null(w);
	for (long k = 0; k < n_frames; k++) {
		for (int c = 0; c < n_ch; c++)
			v[c] = wave(c, k);
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	assert_int_equal(bn_srw_frames(w), n_frames);
	if (bn_srw_close(w, &err) != BN_OK)
		fail_msg("close: %s", err.msg);
}

/* Read the selected channels to the end in pieces of step frames and check
 * every value against (float)wave(). Returns the frame count. */
static long read_and_check(struct bn_srr *r, int n, const int sel[], const int wave_ch[], long step)
{
	struct bn_err err = {0};
	float *f = malloc((size_t)step * (size_t)n * sizeof(float));
	long got, total = 0;

	assert_non_null(f);
	assert_int_equal(bn_srr_select(r, n, sel, &err), BN_OK);
	while ((got = bn_srr_read(r, f, step, &err)) > 0) {
		for (long i = 0; i < got; i++)
			for (int c = 0; c < n; c++) {
				float want = (float)wave(wave_ch[c], total + i);

				if (f[i * n + c] != want)
					fail_msg("frame %ld column %d: %.9g, expected %.9g",
						 total + i, c, (double)f[i * n + c], (double)want);
			}
		total += got;
	}
	if (got < 0)
		fail_msg("read: %s", err.msg);
	assert_int_equal(bn_srr_read(r, f, step, &err), 0); /* stays at the end */
	free(f);
	return total;
}

/* The compression method of a member, straight from libzip. */
static int member_method(const char *path, const char *name)
{
	zip_stat_t st;
	int zerr = 0, m;
	zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);

	assert_non_null(za);
	assert_int_equal(zip_stat(za, name, 0, &st), 0);
	m = st.comp_method;
	zip_discard(za);
	return m;
}

struct member {
	const char *name;
	const void *data;
	size_t len; /* 0: strlen(data) */
};

/* A zip made by hand, for files our writer would never produce. */
static void make_zip(const char *path, const struct member *m, int n)
{
	int zerr = 0;
	zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);

	assert_non_null(za);
	for (int i = 0; i < n; i++) {
		size_t len = m[i].len ? m[i].len : strlen(m[i].data);
		zip_source_t *src = zip_source_buffer(za, m[i].data, len, 0);

		assert_non_null(src);
		assert_true(zip_file_add(za, m[i].name, src, 0) >= 0);
	}
	assert_int_equal(zip_close(za), 0);
}

/* version 2, this metadata, and float32 members analog-1-1-1 (and
 * analog-1-2-1) of 10 samples. */
static void make_capture(const char *path, const char *meta)
{
	static const float data[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	const struct member m[] = {
	    {"version", "2", 0},
	    {"metadata", meta, 0},
	    {"analog-1-1-1", data, sizeof(data)},
	    {"analog-1-2-1", data, sizeof(data)},
	};

	make_zip(path, m, 4);
}

static void assert_open_fails(const char *path, int code, const char *what)
{
	struct bn_err err = {0};
	struct bn_srr *r = (struct bn_srr *)&err; /* must be reset to NULL */

	assert_int_equal(bn_srr_open(path, &r, &err), code);
	assert_null(r);
	assert_int_equal(err.code, code);
	assert_msg_has(&err, path);
	assert_msg_has(&err, what);
}

static char *read_file(const char *path, size_t *len)
{
	gchar *data = NULL;
	gsize n = 0;

	assert_true(g_file_get_contents(path, &data, &n, NULL));
	*len = n;
	return data;
}

static void write_file(const char *path, const void *data, size_t len)
{
	assert_true(g_file_set_contents(path, data, (gssize)len, NULL));
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Where a member's (compressed) data lies in a small zip: through the
 * central directory to the local header. */
static void member_data(const unsigned char *z, size_t len, const char *name, size_t *off,
			size_t *size)
{
	size_t eocd = len - 22, cd, n, nl = strlen(name);

	while (eocd > 0 && le32(z + eocd) != 0x06054b50)
		eocd--;
	assert_int_equal(le32(z + eocd), 0x06054b50);
	n = le16(z + eocd + 10);
	cd = le32(z + eocd + 16);
	for (size_t i = 0; i < n; i++) {
		size_t name_len = le16(z + cd + 28), extra = le16(z + cd + 30),
		       comment = le16(z + cd + 32), local = le32(z + cd + 42);

		assert_int_equal(le32(z + cd), 0x02014b50);
		if (name_len == nl && !memcmp(z + cd + 46, name, nl)) {
			*size = le32(z + cd + 20);
			*off = local + 30 + le16(z + local + 26) + le16(z + local + 28);
			assert_true(*off + *size <= len);
			return;
		}
		cd += 46 + name_len + extra + comment;
	}
	fail_msg("no member %s", name);
}

static bool have_sigrok_cli(void)
{
	return system("command -v sigrok-cli >/dev/null 2>&1") == 0;
}

/* ---- round trips ---- */

static void test_srzip__round_trip(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	const struct bn_srr_info *in;
	const int sel[5] = {0, 1, 2, 3, 4};
	const long n = 4321; /* 5 chunks of 1000, the last one short */

	write_capture(s->path, 5, n, 1000, 0, 1e6);
	assert_int_equal(member_method(s->path, "analog-1-1-1"), ZIP_CM_DEFLATE);
	assert_int_equal(member_method(s->path, "analog-1-5-5"), ZIP_CM_DEFLATE);

	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	in = bn_srr_info(r);
	assert_near(in->rate_hz, 1e6, 0);
	assert_int_equal(in->n_ch, 5);
	assert_int_equal(in->n_analog, 5);
	assert_int_equal(in->n_logic, 0);
	assert_int_equal(in->unitsize, 0);
	assert_int_equal(in->n_frames, n);
	for (int c = 0; c < 5; c++) {
		assert_string_equal(in->ch[c].name, names5[c]);
		assert_string_equal(in->ch[c].unit, units5[c]);
		assert_true(in->ch[c].analog);
		assert_int_equal(in->ch[c].index, c + 1);
		assert_int_equal(in->ch[c].n_samples, n);
	}
	assert_int_equal(bn_srr_find(r, "ibus"), 1);
	assert_int_equal(bn_srr_find(r, "Id"), 4);
	assert_int_equal(bn_srr_find(r, "VBUS2"), -1);
	/* 777 does not divide 1000 nor 4321: reads straddle chunks */
	assert_int_equal(read_and_check(r, 5, sel, sel, 777), n);
	bn_srr_close(r);
}

/* Stored members, one chunk much longer than the reader's buffer, a
 * subset of the channels in another order. */
static void test_srzip__round_trip_stored_subset(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	const long n = 150001;
	int sel[2], wch[2] = {3, 0};

	write_capture(s->path, 5, n, 0, -1, 20e3);
	assert_int_equal(member_method(s->path, "analog-1-1-1"), ZIP_CM_STORE);
	assert_int_equal(member_method(s->path, "metadata"), ZIP_CM_STORE);
	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	assert_near(bn_srr_info(r)->rate_hz, 20e3, 0);
	sel[0] = bn_srr_find(r, "DM");
	sel[1] = bn_srr_find(r, "VBUS");
	assert_int_equal(sel[0], 3);
	assert_int_equal(sel[1], 0);
	assert_int_equal(read_and_check(r, 2, sel, wch, 10000), n);
	bn_srr_close(r);

	/* the same channel through a single-column read (the memcpy path) */
	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	sel[0] = 2;
	wch[0] = 2;
	assert_int_equal(read_and_check(r, 1, sel, wch, 65536 + 3), n);
	bn_srr_close(r);
}

/* Samplerates through our writer and reader, and as libsigrok spells them. */
/* The metadata member of path, as libzip reads it, into buf. */
static void read_metadata(const char *path, char *buf, size_t len)
{
	int zerr = 0;
	zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
	zip_file_t *zf;

	assert_non_null(za);
	zf = zip_fopen(za, "metadata", 0);
	assert_non_null(zf);
	memset(buf, 0, len);
	assert_true(zip_fread(zf, buf, len - 1) > 0);
	zip_fclose(zf);
	zip_discard(za);
}

static void test_srzip__samplerates(void **state)
{
	static const struct {
		double hz;
		const char *text;
	} cases[] = {
	    {250, "samplerate=250 Hz"},
	    {10e3, "samplerate=10 kHz"},
	    {1e6, "samplerate=1 MHz"},
	    {1.5e6, "samplerate=1.5 MHz"},
	    {1234567, "samplerate=1.234567 MHz"},
	    {2e9, "samplerate=2 GHz"},
	};
	struct scratch *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_err err = {0};
		struct bn_srr *r = NULL;
		char *meta;
		char buf[1024] = {0};

		write_capture(s->path, 1, 10, 0, 0, cases[i].hz);
		read_metadata(s->path, buf, sizeof(buf));
		meta = strstr(buf, cases[i].text);
		if (!meta)
			fail_msg("metadata lacks \"%s\":\n%s", cases[i].text, buf);
		assert_non_null(strstr(buf, "bcbench units=V\n"));
		assert_true(strstr(buf, "total probes=0\n") < strstr(buf, "total analog=1\n"));
		assert_non_null(strstr(buf, "total probes=0\n"));

		assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
		assert_near(bn_srr_info(r)->rate_hz, cases[i].hz, 0);
		bn_srr_close(r);
	}
}

/* Channels without a unit: all of them, the last one, a middle one; and
 * unit lists as other writers may spell them. */
static void test_srzip__missing_units(void **state)
{
	static const struct {
		int n_ch;
		const char *units[3];
	} cases[] = {
	    {1, {NULL}},
	    {3, {NULL, NULL, NULL}},
	    {2, {"V", NULL}},
	    {3, {"V", "", "A"}},
	};
	static const struct {
		const char *list;
		const char *u1, *u2;
	} lists[] = {
	    {"V;A", "V", "A"}, {"V;A;", "V", "A"}, {";A", "", "A"}, {"V;", "V", ""}, {";", "", ""},
	};
	struct scratch *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_srw_opts o;
		struct bn_srw *w = NULL;
		struct bn_srr *r = NULL;
		struct bn_err err = {0};
		const double v[3] = {1, 2, 3};

		opts_init(&o, cases[i].n_ch, 1e3, 0, 0);
		for (int c = 0; c < cases[i].n_ch; c++)
			o.units[c] = cases[i].units[c];
		assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
		assert_int_equal(bn_srw_close(w, &err), BN_OK);
		if (bn_srr_open(s->path, &r, &err) != BN_OK)
			fail_msg("case %zu: %s", i, err.msg);
		for (int c = 0; c < cases[i].n_ch; c++) {
			const char *want = cases[i].units[c] ? cases[i].units[c] : "";

			assert_string_equal(bn_srr_info(r)->ch[c].unit, want);
		}
		bn_srr_close(r);
	}
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct bn_srr *r = NULL;
		struct bn_err err = {0};
		char *meta = g_strdup_printf("[device 1]\nsamplerate=1 MHz\nanalog2=IBUS\n"
					     "analog1=VBUS\nbcbench units=%s\n",
					     lists[i].list);

		make_capture(s->path, meta);
		g_free(meta);
		if (bn_srr_open(s->path, &r, &err) != BN_OK)
			fail_msg("units=%s: %s", lists[i].list, err.msg);
		/* in the order of analogN, not of the keys */
		assert_string_equal(bn_srr_info(r)->ch[bn_srr_find(r, "VBUS")].unit, lists[i].u1);
		assert_string_equal(bn_srr_info(r)->ch[bn_srr_find(r, "IBUS")].unit, lists[i].u2);
		bn_srr_close(r);
	}
}

/* ---- libsigrok and sigrok-cli read our files ---- */

struct feed {
	long count[5];
	double sum[5], want_sum[5];
	long mismatches, foreign, logic;
	char first_mismatch[160];
};

static void feed_cb(const struct sr_dev_inst *sdi, const struct sr_datafeed_packet *p, void *data)
{
	struct feed *f = data;
	const struct sr_datafeed_analog *a;
	struct sr_channel *ch;
	float *v;
	int c = -1;

	(void)sdi;
	if (p->type == SR_DF_LOGIC)
		f->logic++;
	if (p->type != SR_DF_ANALOG)
		return;
	a = p->payload;
	if (g_slist_length(a->meaning->channels) != 1) {
		f->foreign++;
		return;
	}
	ch = a->meaning->channels->data;
	for (int i = 0; i < 5; i++)
		if (!strcmp(ch->name, names5[i]))
			c = i;
	if (c < 0) {
		f->foreign++;
		return;
	}
	v = g_malloc((size_t)a->num_samples * sizeof(float));
	if (sr_analog_to_float(a, v) != SR_OK) {
		f->foreign++;
		g_free(v);
		return;
	}
	for (uint32_t i = 0; i < a->num_samples; i++) {
		float want = (float)wave(c, f->count[c] + (long)i);

		if (v[i] != want && f->mismatches++ == 0)
			snprintf(f->first_mismatch, sizeof(f->first_mismatch),
				 "%s sample %ld: %.9g, expected %.9g", names5[c],
				 f->count[c] + (long)i, (double)v[i], (double)want);
		f->sum[c] += v[i];
		f->want_sum[c] += want;
	}
	f->count[c] += a->num_samples;
	g_free(v);
}

static void test_srzip__libsigrok_reads_our_file(void **state)
{
	struct scratch *s = *state;
	struct sr_context *ctx = NULL;
	struct sr_session *sess = NULL;
	struct sr_dev_inst *sdi;
	struct feed f;
	GSList *devs = NULL, *l;
	GVariant *gv = NULL;
	const long n = 2500; /* three chunks of 1000, 1000, 500 */
	int i = 0;

	memset(&f, 0, sizeof(f));
	write_capture(s->path, 5, n, 1000, 0, 1e6);
	assert_int_equal(sr_init(&ctx), SR_OK);
	assert_int_equal(sr_session_load(ctx, s->path, &sess), SR_OK);
	assert_int_equal(sr_session_dev_list(sess, &devs), SR_OK);
	assert_int_equal(g_slist_length(devs), 1);
	sdi = devs->data;
	for (l = sr_dev_inst_channels_get(sdi); l; l = l->next, i++) {
		struct sr_channel *ch = l->data;

		assert_true(i < 5);
		assert_string_equal(ch->name, names5[i]);
		assert_int_equal(ch->type, SR_CHANNEL_ANALOG);
		assert_true(ch->enabled);
	}
	assert_int_equal(i, 5);
	assert_int_equal(
	    sr_config_get(sr_dev_inst_driver_get(sdi), sdi, NULL, SR_CONF_SAMPLERATE, &gv), SR_OK);
	assert_int_equal(g_variant_get_uint64(gv), 1000000);
	g_variant_unref(gv);

	assert_int_equal(sr_session_datafeed_callback_add(sess, feed_cb, &f), SR_OK);
	assert_int_equal(sr_session_start(sess), SR_OK);
	assert_int_equal(sr_session_run(sess), SR_OK);
	sr_session_stop(sess);
	sr_dev_close(sdi); /* frees the session device's state */
	g_slist_free(devs);
	sr_session_destroy(sess);
	sr_exit(ctx);

	if (f.mismatches)
		fail_msg("%ld values differ; first: %s", f.mismatches, f.first_mismatch);
	assert_int_equal(f.foreign, 0);
	assert_int_equal(f.logic, 0);
	for (int c = 0; c < 5; c++) {
		assert_int_equal(f.count[c], n);
		assert_near(f.sum[c], f.want_sum[c], 0);
	}
}

/* Run a command, its stdout (and stderr) into a malloc'ed string. */
static char *run_cmd(const char *cmd, int *status)
{
	GString *out = g_string_new(NULL);
	char buf[4096];
	size_t n;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		g_string_append_len(out, buf, (gssize)n);
	*status = pclose(p);
	return g_string_free(out, FALSE);
}

static void test_srzip__sigrok_cli_shows_our_file(void **state)
{
	struct scratch *s = *state;
	char cmd[768], *out;
	int status;

	if (!have_sigrok_cli()) {
		print_message("sigrok-cli is not installed: skipped (scripts/install-deps.sh)\n");
		skip();
	}
	write_capture(s->path, 5, 2500, 1000, 0, 1.5e6);
	snprintf(cmd, sizeof(cmd), "sigrok-cli -i '%s' --show 2>&1", s->path);
	out = run_cmd(cmd, &status);
	if (status != 0 || !strstr(out, "Samplerate: 1500000") ||
	    !strstr(out, "Analog sample count: 2500") || !strstr(out, "Channels: 5"))
		fail_msg("sigrok-cli --show (status %d):\n%s", status, out);
	for (int c = 0; c < 5; c++) {
		char line[64];

		snprintf(line, sizeof(line), "- %s: analog", names5[c]);
		if (!strstr(out, line))
			fail_msg("sigrok-cli --show lacks \"%s\":\n%s", line, out);
	}
	g_free(out);
}

static void test_srzip__sigrok_cli_csv_values(void **state)
{
	struct scratch *s = *state;
	char cmd[768], *out, **lines;
	int status;
	long rows = 0;

	if (!have_sigrok_cli()) {
		print_message("sigrok-cli is not installed: skipped (scripts/install-deps.sh)\n");
		skip();
	}
	/* csv works on single-chunk files only (docs/capture-files.md) */
	write_capture(s->path, 3, 200, 0, 0, 1e3);
	snprintf(cmd, sizeof(cmd), "sigrok-cli -i '%s' -O csv 2>/dev/null", s->path);
	out = run_cmd(cmd, &status);
	if (status != 0 || !strstr(out, "VBUS, IBUS, DP"))
		fail_msg("sigrok-cli -O csv (status %d):\n%s", status, out);
	lines = g_strsplit(out, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		char **tok = g_strsplit(lines[i], ",", -1);
		double v[3];
		int nt = (int)g_strv_length(tok), ok = nt == 3;

		/* data rows are three numbers; headers, the unit row and the
		 * "VBUS: 1.00 V DC" lines sigrok-cli adds are not */
		for (int c = 0; ok && c < 3; c++) {
			char *end;

			v[c] = g_ascii_strtod(tok[c], &end);
			ok = end != tok[c] && *end == '\0';
		}
		g_strfreev(tok);
		if (!ok)
			continue;
		for (int c = 0; c < 3; c++) {
			double want = (float)wave(c, rows);

			/* csv prints %g: 6 significant digits */
			assert_near(v[c], want, 1e-5 * fabs(want) + 1e-9);
		}
		rows++;
	}
	g_strfreev(lines);
	if (rows != 200)
		fail_msg("%ld csv rows, expected 200:\n%s", rows, out);
	g_free(out);
}

/* ---- a file written by libsigrok's own srzip output ---- */

static void send_packet(const struct sr_output *o, int type, const void *payload)
{
	struct sr_datafeed_packet p = {.type = (uint16_t)type, .payload = payload};
	GString *out = NULL;

	assert_int_equal(sr_output_send(o, &p, &out), SR_OK);
	if (out)
		g_string_free(out, TRUE);
}

static void test_srzip__reads_libsigrok_srzip_output(void **state)
{
	struct scratch *s = *state;
	struct sr_dev_inst *sdi = sr_dev_inst_user_new("bcbench", "test", "1");
	const struct sr_output *o;
	struct sr_datafeed_header hdr = {.feed_version = 1};
	struct sr_config rate = {.key = SR_CONF_SAMPLERATE};
	struct sr_datafeed_meta meta = {0};
	uint8_t logic_bytes[600];
	struct sr_datafeed_logic logic = {
	    .length = sizeof(logic_bytes), .unitsize = 1, .data = logic_bytes};
	struct sr_analog_encoding enc = {.unitsize = 4,
					 .is_signed = TRUE,
					 .is_float = TRUE,
					 .is_bigendian = FALSE,
					 .digits = 6,
					 .is_digits_decimal = TRUE,
					 .scale = {1, 1},
					 .offset = {0, 1}};
	struct sr_analog_spec spec = {.spec_digits = 6};
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	const struct bn_srr_info *in;
	int sel[2], wch[2] = {1, 2};
	char name[8];
	GSList *l;

	assert_non_null(sdi);
	/* logic channels first: 0.5.2's srzip output cannot place an analog
	 * channel of index 0 (0 ends its index map) */
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "D%d", i);
		assert_int_equal(sr_dev_inst_channel_add(sdi, i, SR_CHANNEL_LOGIC, name), SR_OK);
	}
	assert_int_equal(sr_dev_inst_channel_add(sdi, 8, SR_CHANNEL_ANALOG, "IBUS"), SR_OK);
	assert_int_equal(sr_dev_inst_channel_add(sdi, 9, SR_CHANNEL_ANALOG, "DP"), SR_OK);
	o = sr_output_new(sr_output_find("srzip"), NULL, sdi, s->path);
	assert_non_null(o);

	gettimeofday(&hdr.starttime, NULL);
	send_packet(o, SR_DF_HEADER, &hdr);
	rate.data = g_variant_ref_sink(g_variant_new_uint64(250000));
	meta.config = g_slist_append(NULL, &rate);
	send_packet(o, SR_DF_META, &meta);
	g_slist_free(meta.config);
	g_variant_unref(rate.data);
	for (size_t i = 0; i < sizeof(logic_bytes); i++)
		logic_bytes[i] = (uint8_t)(i * 7);
	send_packet(o, SR_DF_LOGIC, &logic);

	l = sr_dev_inst_channels_get(sdi);
	for (int c = 0; c < 2; c++) {
		struct sr_channel *ch = g_slist_nth_data(l, (guint)(8 + c));

		/* two packets, so two chunks, per channel */
		for (int part = 0; part < 2; part++) {
			float v[300];
			struct sr_analog_meaning mean = {
			    .mq = SR_MQ_VOLTAGE, .unit = SR_UNIT_VOLT, .mqflags = SR_MQFLAG_DC};
			struct sr_datafeed_analog a = {.data = v,
						       .num_samples = 300,
						       .encoding = &enc,
						       .meaning = &mean,
						       .spec = &spec};

			for (int i = 0; i < 300; i++)
				v[i] = (float)wave(wch[c], part * 300 + i);
			mean.channels = g_slist_append(NULL, ch);
			send_packet(o, SR_DF_ANALOG, &a);
			g_slist_free(mean.channels);
		}
	}
	send_packet(o, SR_DF_END, NULL);
	assert_int_equal(sr_output_free(o), SR_OK);

	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	in = bn_srr_info(r);
	assert_near(in->rate_hz, 250000, 0);
	assert_int_equal(in->n_ch, 10);
	assert_int_equal(in->n_logic, 8);
	assert_int_equal(in->n_analog, 2);
	assert_int_equal(in->unitsize, 1);
	assert_int_equal(in->n_frames, 600);
	for (int i = 0; i < 8; i++) {
		int c;

		snprintf(name, sizeof(name), "D%d", i);
		c = bn_srr_find(r, name);
		assert_true(c >= 0);
		assert_false(in->ch[c].analog);
		assert_int_equal(in->ch[c].index, i + 1);
		assert_int_equal(in->ch[c].n_samples, 0);
	}
	sel[0] = bn_srr_find(r, "IBUS");
	sel[1] = bn_srr_find(r, "DP");
	assert_true(sel[0] >= 0 && sel[1] >= 0);
	assert_true(in->ch[sel[0]].analog);
	assert_int_equal(in->ch[sel[0]].index, 9); /* after "total probes" */
	assert_int_equal(in->ch[sel[1]].index, 10);
	assert_string_equal(in->ch[sel[0]].unit, ""); /* libsigrok keeps no units */
	/* logic channels are listed, not streamed */
	{
		int d0 = bn_srr_find(r, "D0");

		assert_int_equal(bn_srr_select(r, 1, &d0, &err), BN_ERR_ARG);
		assert_msg_has(&err, "D0");
		bn_err_clear(&err);
	}
	assert_int_equal(read_and_check(r, 2, sel, wch, 128), 600);
	bn_srr_close(r);
}

/* ---- broken inputs ---- */

static void test_srzip__not_a_zip(void **state)
{
	struct scratch *s = *state;
	const char *text = "time,vbus\n0,5.0\n";

	write_file(s->path, text, strlen(text));
	assert_open_fails(s->path, BN_ERR_DATA, "zip");
}

static void test_srzip__truncated_zip(void **state)
{
	struct scratch *s = *state;
	size_t len;
	char *data;

	write_capture(s->path, 5, 3000, 1000, 0, 1e6);
	data = read_file(s->path, &len);
	write_file(s->path, data, len / 2);
	g_free(data);
	assert_open_fails(s->path, BN_ERR_DATA, "zip");
}

static void test_srzip__missing_file(void **state)
{
	struct scratch *s = *state;

	assert_open_fails(s->path, BN_ERR_IO, "No such file");
	assert_open_fails(s->dir, BN_ERR_IO, "not a regular file");
}

/* Flip bytes in the middle of a member's data; read everything. The read
 * must fail naming the member, and never deliver more than n frames. */
static void corrupt_and_read(const char *path, int level, const char *member)
{
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	int sel[5] = {0, 1, 2, 3, 4};
	size_t len, off = 0, size = 0;
	unsigned char *z;
	float f[5 * 512];
	long got, total = 0;
	const long n = 1200000; /* 4 chunks of 300000, each longer than the read buffer */

	write_capture(path, 5, n, 300000, level, 1e6);
	z = (unsigned char *)read_file(path, &len);
	member_data(z, len, member, &off, &size);
	assert_true(size > 64);
	for (size_t i = 0; i < 8; i++)
		z[off + size / 2 + i] ^= 0x5a;
	write_file(path, z, len);
	g_free(z);

	/* sizes come from the central directory, which is intact */
	assert_int_equal(bn_srr_open(path, &r, &err), BN_OK);
	assert_int_equal(bn_srr_info(r)->n_frames, n);
	assert_int_equal(bn_srr_select(r, 5, sel, &err), BN_OK);
	while ((got = bn_srr_read(r, f, 512, &err)) > 0)
		total += got;
	assert_true(got < 0);
	assert_int_equal(got, BN_ERR_DATA);
	assert_true(total > 0); /* mid-stream */
	assert_true(total < n);
	assert_msg_has(&err, path);
	assert_msg_has(&err, member);
	/* the error is sticky */
	bn_err_clear(&err);
	assert_int_equal(bn_srr_read(r, f, 512, &err), BN_ERR_DATA);
	assert_msg_has(&err, member);
	bn_srr_close(r);
}

static void test_srzip__corrupt_stored_member(void **state)
{
	struct scratch *s = *state;

	corrupt_and_read(s->path, -1, "analog-1-3-3");
}

static void test_srzip__corrupt_deflated_member(void **state)
{
	struct scratch *s = *state;

	corrupt_and_read(s->path, 0, "analog-1-2-4");
}

/* Every byte position of a small capture, flipped in turn (a sample of
 * them): open and read never crash, fail with a message naming the file,
 * and what is delivered is right and as long as the file says. */
static void mutate_all(const char *path, int level)
{
	size_t len;
	unsigned char *orig;
	uint32_t lcg = 12345;
	int fails = 0, oks = 0;

	write_capture(path, 2, 300, 100, level, 1e3);
	orig = (unsigned char *)read_file(path, &len);
	for (int it = 0; it < 400; it++) {
		unsigned char *z = g_memdup2(orig, len);
		struct bn_err err = {0};
		struct bn_srr *r = NULL;
		size_t pos;
		int rc;

		lcg = lcg * 1103515245u + 12345u;
		pos = (size_t)(lcg >> 8) % len;
		z[pos] ^= (unsigned char)(1u << ((lcg >> 4) % 8));
		write_file(path, z, len);
		g_free(z);
		rc = bn_srr_open(path, &r, &err);
		if (rc == BN_OK) {
			const struct bn_srr_info *in = bn_srr_info(r);
			float f[2 * 64];
			long got = 0, total = 0;
			int sel[2] = {0, 1};

			assert_true(in->n_frames <= 300);
			if (in->n_analog == 2 && bn_srr_select(r, 2, sel, &err) == BN_OK) {
				while ((got = bn_srr_read(r, f, 64, &err)) > 0) {
					for (long i = 0; i < got; i++)
						for (int c = 0; c < 2; c++)
							if (f[i * 2 + c] !=
							    (float)wave(c, total + i))
								fail_msg("byte %zu flipped: frame "
									 "%ld differs",
									 pos, total + i);
					total += got;
				}
				if (got == 0)
					assert_int_equal(total, in->n_frames);
				else
					rc = (int)got;
			}
			bn_srr_close(r);
		}
		if (rc != BN_OK) {
			assert_true(rc < 0);
			assert_int_equal(err.code, rc);
			assert_msg_has(&err, path);
			fails++;
		} else {
			oks++;
		}
	}
	g_free(orig);
	/* most flips must be caught: CRCs cover every member */
	assert_true(fails > oks);
}

static void test_srzip__mutations_stored(void **state)
{
	struct scratch *s = *state;

	mutate_all(s->path, -1);
}

static void test_srzip__mutations_deflated(void **state)
{
	struct scratch *s = *state;

	mutate_all(s->path, 0);
}

static void test_srzip__bad_metadata(void **state)
{
	static const struct {
		const char *meta, *what;
	} cases[] = {
	    {"[device 1]\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n", "no samplerate"},
	    {"[device 1]\nsamplerate=0\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n", "is zero"},
	    {"[device 1]\nsamplerate=0 Hz\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n",
	     "is zero"},
	    {"[device 1]\nsamplerate=fast\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n",
	     "samplerate=fast"},
	    {"[device 1]\nsamplerate=\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n",
	     "cannot parse samplerate"},
	    {"[device 1]\nsamplerate=-5 Hz\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n",
	     "samplerate=-5 Hz"},
	    {"[device 1]\nsamplerate=0.5 Hz\ntotal analog=2\nanalog1=VBUS\nanalog2=IBUS\n",
	     "samplerate=0.5 Hz"},
	    {"[device 1]\nsamplerate=99999999999999999999 GHz\nanalog1=VBUS\n",
	     "cannot parse samplerate"},
	    {"[global]\nsigrok version=0.5.2\n", "no [device 1]"},
	    {"[device 2]\nsamplerate=1 MHz\nanalog1=VBUS\n", "no [device 1]"},
	    {"\x01\x02 this is [[ not an ini file\n", "not an ini file"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog0=VBUS\n", "analog0"},
	    {"[device 1]\nsamplerate=1 MHz\nanalogX=VBUS\n", "analogX"},
	    {"[device 1]\nsamplerate=1 MHz\nprobe=D0\n", "\"probe\""},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1=VBUS\nanalog01=IBUS\n", "twice"},
	    {"[device 1]\nsamplerate=1 MHz\ntotal analog=many\nanalog1=VBUS\n",
	     "total analog=many"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1="
	     "A_channel_name_that_is_much_longer_than_sixty_three_characters_in_all\n",
	     "longer than 63"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1=VBUS\nanalog2=IBUS\nbcbench units=V\n",
	     "lists 1 units for 2 analog channels"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1=VBUS\nanalog2=IBUS\nbcbench units=V;A;V\n",
	     "lists 3 units for 2 analog channels"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1=VBUS\nanalog2=IBUS\nbcbench units=\n",
	     "lists 1 units for 2 analog channels"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1=VBUS\nbcbench units=Millivolts\n",
	     "Millivolts"},
	    {"[device 1]\nsamplerate=1 MHz\nanalog1=VBUS\nanalog3=DP\n", "analog-1-3-1"},
	};
	struct scratch *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make_capture(s->path, cases[i].meta);
		assert_open_fails(s->path, BN_ERR_DATA, cases[i].what);
	}
}

static void test_srzip__too_many_channels(void **state)
{
	struct scratch *s = *state;
	GString *meta = g_string_new("[device 1]\nsamplerate=1 MHz\n");

	for (int i = 1; i <= BN_SRR_MAX_CH + 1; i++)
		g_string_append_printf(meta, "probe%d=D%d\n", i, i);
	make_capture(s->path, meta->str);
	g_string_free(meta, TRUE);
	assert_open_fails(s->path, BN_ERR_DATA, "more than 64 channels");
}

static void test_srzip__samplerate_strings(void **state)
{
	static const struct {
		const char *text;
		double hz;
	} cases[] = {
	    {"1 MHz", 1e6},	{"10 kHz", 1e4},  {"250 Hz", 250},
	    {"1.5 MHz", 1.5e6}, {"200 MHz", 2e8}, {"1234567", 1234567},
	};
	struct scratch *s = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_err err = {0};
		struct bn_srr *r = NULL;
		char *meta = g_strdup_printf("[device 1]\nsamplerate=%s\ntotal analog=1\n"
					     "analog1=VBUS\n",
					     cases[i].text);

		make_capture(s->path, meta);
		g_free(meta);
		if (bn_srr_open(s->path, &r, &err) != BN_OK)
			fail_msg("samplerate=%s: %s", cases[i].text, err.msg);
		assert_near(bn_srr_info(r)->rate_hz, cases[i].hz, 0);
		assert_int_equal(bn_srr_info(r)->n_frames, 10);
		bn_srr_close(r);
	}
}

static void test_srzip__bad_version_and_members(void **state)
{
	struct scratch *s = *state;
	static const char meta[] = "[device 1]\nsamplerate=1 MHz\ntotal analog=1\nanalog1=VBUS\n";
	static const unsigned char odd[1001] = {0};
	static const float data[4] = {1, 2, 3, 4};

	{
		const struct member m[] = {{"version", "3", 0},
					   {"metadata", meta, 0},
					   {"analog-1-1-1", data, sizeof(data)}};

		make_zip(s->path, m, 3);
		assert_open_fails(s->path, BN_ERR_DATA, "version \"3\" (expected 1 or 2)");
	}
	{
		const struct member m[] = {{"metadata", meta, 0},
					   {"analog-1-1-1", data, sizeof(data)}};

		make_zip(s->path, m, 2);
		assert_open_fails(s->path, BN_ERR_DATA, "no \"version\" member");
	}
	{
		const struct member m[] = {{"version", "2", 0},
					   {"analog-1-1-1", data, sizeof(data)}};

		make_zip(s->path, m, 2);
		assert_open_fails(s->path, BN_ERR_DATA, "no \"metadata\" member");
	}
	{
		const struct member m[] = {{"version", "2", 0},
					   {"metadata", meta, 0},
					   {"analog-1-1-1", data, sizeof(data)},
					   {"analog-1-1-2", odd, sizeof(odd)}};

		make_zip(s->path, m, 4);
		assert_open_fails(s->path, BN_ERR_DATA, "analog-1-1-2 is 1001 bytes");
	}
	{
		/* libsigrok stops at the first missing chunk: so do we, loudly */
		const struct member m[] = {{"version", "2", 0},
					   {"metadata", meta, 0},
					   {"analog-1-1-1", data, sizeof(data)},
					   {"analog-1-1-3", data, sizeof(data)}};

		make_zip(s->path, m, 4);
		assert_open_fails(s->path, BN_ERR_DATA, "analog-1-1-2 is missing");
	}
	{
		/* chunk numbers are not bounded like channel indexes: 100001 chunks
		 * of one sample each is what libsigrok's output makes of a long
		 * capture in small packets; here the last few of them */
		const struct member m[] = {{"version", "2", 0},
					   {"metadata", meta, 0},
					   {"analog-1-1-1", data, sizeof(data)},
					   {"analog-1-1-100001", data, sizeof(data)}};

		make_zip(s->path, m, 4);
		assert_open_fails(s->path, BN_ERR_DATA, "analog-1-1-2 is missing");
	}
	{
		/* version 1, one unchunked member, chunks in any zip order */
		const struct member m[] = {{"analog-1-1", data, sizeof(data)},
					   {"metadata", meta, 0},
					   {"version", "1\n", 0}};
		struct bn_err err = {0};
		struct bn_srr *r = NULL;
		float f[8];
		int sel = 0;

		make_zip(s->path, m, 3);
		assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
		assert_int_equal(bn_srr_info(r)->n_frames, 4);
		assert_int_equal(bn_srr_select(r, 1, &sel, &err), BN_OK);
		assert_int_equal(bn_srr_read(r, f, 8, &err), 4);
		assert_memory_equal(f, data, sizeof(data));
		bn_srr_close(r);
	}
	{
		const struct member m[] = {{"version", "2", 0},
					   {"metadata", meta, 0},
					   {"analog-1-1-2", data, sizeof(data)},
					   {"analog-1-1-1", data + 1, 3 * sizeof(float)}};
		struct bn_err err = {0};
		struct bn_srr *r = NULL;
		float f[8];
		const float want[7] = {2, 3, 4, 1, 2, 3, 4};
		int sel = 0;

		make_zip(s->path, m, 4);
		assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
		assert_int_equal(bn_srr_info(r)->n_frames, 7);
		assert_int_equal(bn_srr_select(r, 1, &sel, &err), BN_OK);
		assert_int_equal(bn_srr_read(r, f, 8, &err), 7);
		assert_memory_equal(f, want, sizeof(want));
		bn_srr_close(r);
	}
}

static void test_srzip__logic_only(void **state)
{
	struct scratch *s = *state;
	static const char meta[] = "[global]\nsigrok version=0.5.2\n\n[device 1]\n"
				   "capturefile=logic-1\ntotal probes=3\nsamplerate=1 MHz\n"
				   "total analog=0\nprobe1=D0\nprobe2=D1\nprobe3=CLK\nunitsize=1\n";
	static const unsigned char logic[100] = {1, 2, 3};
	const struct member m[] = {
	    {"version", "2", 0}, {"metadata", meta, 0}, {"logic-1-1", logic, sizeof(logic)}};
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	const struct bn_srr_info *in;
	int clk;

	make_zip(s->path, m, 3);
	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	in = bn_srr_info(r);
	assert_int_equal(in->n_analog, 0);
	assert_int_equal(in->n_logic, 3);
	assert_int_equal(in->n_ch, 3);
	assert_int_equal(in->unitsize, 1);
	assert_int_equal(in->n_frames, 0);
	clk = bn_srr_find(r, "clk");
	assert_int_equal(clk, 2);
	assert_int_equal(in->ch[clk].index, 3);
	assert_false(in->ch[clk].analog);
	assert_int_equal(bn_srr_select(r, 1, &clk, &err), BN_ERR_ARG);
	assert_msg_has(&err, "logic channel");
	bn_srr_close(r);
}

static void test_srzip__reader_api_misuse(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	float f[16];
	int sel[2] = {0, 7};

	write_capture(s->path, 2, 10, 0, 0, 1e3);
	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	assert_int_equal(bn_srr_read(r, f, 4, &err), BN_ERR_ARG);
	assert_msg_has(&err, "before bn_srr_select");
	bn_err_clear(&err);
	assert_int_equal(bn_srr_select(r, 2, sel, &err), BN_ERR_ARG);
	assert_msg_has(&err, "channel index 7");
	bn_err_clear(&err);
	assert_int_equal(bn_srr_select(r, 0, sel, &err), BN_ERR_ARG);
	bn_err_clear(&err);
	assert_int_equal(bn_srr_select(r, 1, sel, &err), BN_OK);
	sel[0] = 1; /* choosing again before reading is fine */
	assert_int_equal(bn_srr_select(r, 1, sel, &err), BN_OK);
	assert_int_equal(bn_srr_read(r, f, -1, &err), BN_ERR_ARG);
	bn_err_clear(&err);
	assert_int_equal(bn_srr_read(r, f, 4, &err), 4);
	assert_true(f[0] == (float)wave(1, 0));
	assert_int_equal(bn_srr_select(r, 1, sel, &err), BN_ERR_ARG);
	assert_msg_has(&err, "after reading");
	bn_err_clear(&err);
	assert_int_equal(bn_srr_read(r, f, 16, &err), 6);
	assert_true(f[5] == (float)wave(1, 9));
	assert_int_equal(bn_srr_read(r, f, 16, &err), 0);
	bn_srr_close(r);
	bn_srr_close(NULL);
	assert_int_equal(bn_srr_find(NULL, "x"), -1);
}

/* ---- writer ---- */

static void test_srzip__zero_frames(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	float f[10];
	int sel[5] = {0, 1, 2, 3, 4};

	write_capture(s->path, 5, 0, 0, 0, 1e6);
	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	assert_int_equal(bn_srr_info(r)->n_frames, 0);
	assert_int_equal(bn_srr_info(r)->n_analog, 5);
	assert_string_equal(bn_srr_info(r)->ch[4].name, "ID");
	assert_int_equal(bn_srr_select(r, 5, sel, &err), BN_OK);
	assert_int_equal(bn_srr_read(r, f, 2, &err), 0);
	bn_srr_close(r);
	assert_int_equal(count_entries(s->dir, NULL, 0), 1);
}

static void test_srzip__spool_is_removed(void **state)
{
	struct scratch *s = *state;
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};
	char first[256], spool[600];
	struct stat st;
	const double v[2] = {1, 2};

	opts_init(&o, 2, 1e3, 0, 0);
	/* while writing: one hidden directory beside the output, holding the spool */
	assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
	for (int i = 0; i < 100000; i++)
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	assert_true(!strncmp(first, ".cap.sr.", 8));
	snprintf(spool, sizeof(spool), "%s/%s", s->dir, first);
	assert_int_equal(stat(spool, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* cap.sr.part (the zip so far) and pending (the chunk being filled) */
	assert_int_equal(count_entries(spool, NULL, 0), 2);
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	assert_string_equal(first, "cap.sr");

	/* discard: nothing left, not even an output */
	unlink(s->path);
	assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
	for (int i = 0; i < 70000; i++)
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	assert_int_equal(count_entries(s->dir, NULL, 0), 1);
	bn_srw_discard(w);
	assert_int_equal(count_entries(s->dir, NULL, 0), 0);
	bn_srw_discard(NULL);
}

static void test_srzip__replaces_existing_file_at_close(void **state)
{
	struct scratch *s = *state;
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	char *old = malloc(300000), *now;
	size_t len;
	double v[5];
	int sel[5] = {0, 1, 2, 3, 4};

	assert_non_null(old);
	memset(old, 'x', 300000);
	write_file(s->path, old, 300000);
	opts_init(&o, 5, 1e6, 0, 0);
	assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
	for (long k = 0; k < 1000; k++) {
		for (int c = 0; c < 5; c++)
			v[c] = wave(c, k);
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	}
	/* until close, a reader sees the old file whole */
	now = read_file(s->path, &len);
	assert_int_equal(len, 300000);
	assert_memory_equal(now, old, 300000);
	g_free(now);
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
	now = read_file(s->path, &len);
	assert_true(len < 300000);
	assert_true(len > 22);
	assert_memory_equal(now, "PK", 2);
	g_free(now);
	assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
	assert_int_equal(read_and_check(r, 5, sel, sel, 333), 1000);
	bn_srr_close(r);
	assert_int_equal(count_entries(s->dir, NULL, 0), 1);
	free(old);
}

static void test_srzip__missing_directory(void **state)
{
	struct scratch *s = *state;
	struct bn_srw_opts o;
	struct bn_srw *w = (struct bn_srw *)&o;
	struct bn_err err = {0};
	char path[600];

	opts_init(&o, 5, 1e6, 0, 0);
	snprintf(path, sizeof(path), "%s/no/such/cap.sr", s->dir);
	assert_int_equal(bn_srw_open(path, &o, &w, &err), BN_ERR_ENV);
	assert_null(w);
	assert_msg_has(&err, "no/such");
	assert_msg_has(&err, "No such file or directory");
	assert_int_equal(count_entries(s->dir, NULL, 0), 0);

	/* the path is a directory */
	bn_err_clear(&err);
	assert_int_equal(bn_srw_open(s->dir, &o, &w, &err), BN_ERR_ENV);
	assert_msg_has(&err, "is a directory");
}

static void test_srzip__bad_options(void **state)
{
	struct scratch *s = *state;
	static const char *const long_name =
	    "A_channel_name_that_is_much_longer_than_sixty_three_characters_in_all";
	struct {
		struct bn_srw_opts o;
		const char *what;
	} cases[13];
	int n = 0;

	for (int i = 0; i < 13; i++)
		opts_init(&cases[i].o, 5, 1e6, 0, 0);
	cases[n].o.rate_hz = 0, cases[n++].what = "samplerate 0 Hz";
	cases[n].o.rate_hz = NAN, cases[n++].what = "samplerate nan";
	cases[n].o.rate_hz = 1000.5, cases[n++].what = "not a whole number";
	cases[n].o.n_ch = 0, cases[n++].what = "0 channels";
	cases[n].o.n_ch = BN_SRW_MAX_CH + 1, cases[n++].what = "17 channels";
	cases[n].o.names[2] = NULL, cases[n++].what = "channel 3 has no name";
	cases[n].o.names[1] = "vbus", cases[n++].what = "used twice";
	cases[n].o.names[0] = long_name, cases[n++].what = "longer than 63";
	cases[n].o.units[1] = "Amperes!", cases[n++].what = "unit \"Amperes!\"";
	cases[n].o.units[1] = "m;A", cases[n++].what = "unit \"m;A\"";
	cases[n].o.compression_level = 10, cases[n++].what = "compression level 10";
	cases[n].o.chunk_samples = -1, cases[n++].what = "chunk_samples -1";
	cases[n].o.threads = -1, cases[n++].what = "threads -1";

	for (int i = 0; i < n; i++) {
		struct bn_err err = {0};
		struct bn_srw *w = NULL;

		assert_int_equal(bn_srw_open(s->path, &cases[i].o, &w, &err), BN_ERR_ARG);
		assert_null(w);
		assert_msg_has(&err, s->path);
		assert_msg_has(&err, cases[i].what);
	}
	assert_int_equal(count_entries(s->dir, NULL, 0), 0);
	assert_int_equal(bn_srw_frame(NULL, NULL), BN_ERR_ARG);
	assert_int_equal(bn_srw_frames(NULL), 0);
}

/* A file size limit stands in for a full disk (EFBIG where ENOSPC would
 * be): the error sticks, close reports it with the spool file's path, and
 * nothing is left behind. */
static void test_srzip__spool_write_error_is_sticky(void **state)
{
	struct scratch *s = *state;
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};
	struct rlimit old, lim;
	void (*old_sig)(int);
	const double v[1] = {1.0};
	int rc = BN_OK, rc_after, rc_close, rc_now;
	long at = -1;

	opts_init(&o, 1, 1e3, 0, 0);
	assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100000;
	old_sig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (long i = 0; i < 200000 && rc == BN_OK; i++) {
		rc = bn_srw_frame(w, v);
		if (rc != BN_OK)
			at = i;
	}
	rc_after = bn_srw_frame(w, v);
	/* the caller that stops at once hears the same as close will say,
	 * and the limit that was hit */
	rc_now = bn_srw_error(w, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, old_sig);

	assert_int_equal(rc, BN_ERR_ENV);
	/* the pending file, doubling from 4 KiB, cannot grow past 64 KiB */
	assert_int_equal(at, (65536 - 64) / 4);
	assert_int_equal(rc_after, BN_ERR_ENV);
	assert_int_equal(rc_now, BN_ERR_ENV);
	assert_msg_has(&err, "/pending");
	assert_msg_has(&err, "the file size limit (ulimit -f) is 100000 bytes");
	bn_err_clear(&err);
	rc_close = bn_srw_close(w, &err);
	assert_int_equal(rc_close, BN_ERR_ENV);
	assert_msg_has(&err, s->path);
	assert_msg_has(&err, "writing the capture: ");
	assert_msg_has(&err, "/.cap.sr.");
	assert_msg_has(&err, strerror(EFBIG));
	assert_int_equal(count_entries(s->dir, NULL, 0), 0);
}

/* The zip's last members fail at close: the old capture stays, the
 * temporary zip and the spool go. */
static void test_srzip__failed_close_keeps_old_file(void **state)
{
	struct scratch *s = *state;
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};
	struct rlimit old, lim;
	void (*old_sig)(int);
	const double v[2] = {1.0, 2.0};
	char first[256], *now;
	size_t len;
	int rc;

	write_file(s->path, "old capture", 11);
	opts_init(&o, 2, 1e3, 0, -1);
	assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
	/* a chunk in the zip (512 KiB stored), 30,000 frames pending */
	for (int i = 0; i < 65536 + 30000; i++)
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 700000; /* the last 240 kB of members do not fit */
	old_sig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	rc = bn_srw_close(w, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, old_sig);

	assert_int_equal(rc, BN_ERR_ENV);
	assert_msg_has(&err, s->path);
	assert_msg_has(&err, strerror(EFBIG));
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	assert_string_equal(first, "cap.sr");
	now = read_file(s->path, &len);
	assert_int_equal(len, 11);
	assert_memory_equal(now, "old capture", 11);
	g_free(now);
}

/* ---- salvage: a writer that dies before close ---- */

/* The writer's rename at close, or the child's death there: a process
 * killed after the members and the central directory are written (the
 * fsync of a large capture takes seconds), before the capture is in
 * place. The test binary's rename() wins over libc's for the writer. */
static volatile sig_atomic_t die_in_rename;

int rename(const char *from, const char *to)
{
	if (die_in_rename)
		_exit(9);
	return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

/* A child writes n frames of wave() in chunks of chunk (0: the default)
 * and dies: killed before close, as a crashing firmware or the watchdog
 * kills a run, or inside close, in its rename. The parent finishes the
 * capture. */
static void write_and_die_at(const char *path, int n_ch, long n, long chunk, int threads,
			     bool in_close)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct bn_srw_opts o;
		struct bn_srw *w = NULL;
		struct bn_err err = {0};
		double v[BN_SRW_MAX_CH];

		opts_init(&o, n_ch, 100e3, chunk, 0);
		o.threads = threads;
		if (bn_srw_open(path, &o, &w, &err) != BN_OK)
			_exit(1);
		for (long k = 0; k < n; k++) {
			for (int c = 0; c < n_ch; c++)
				v[c] = wave(c, k);
			if (bn_srw_frame(w, v) != BN_OK)
				_exit(1);
		}
		if (in_close) {
			die_in_rename = 1;
			bn_srw_close(w, &err);
		} else {
			kill(getpid(), SIGKILL);
		}
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (in_close)
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 9);
	else
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void write_and_die_th(const char *path, int n_ch, long n, int threads)
{
	write_and_die_at(path, n_ch, n, 0, threads, false);
}

static void write_and_die(const char *path, int n_ch, long n)
{
	write_and_die_th(path, n_ch, n, 0);
}

static void check_capture(const char *path, int n_ch, long n)
{
	struct bn_err err = {0};
	struct bn_srr *r = NULL;
	const int sel[5] = {0, 1, 2, 3, 4};

	if (bn_srr_open(path, &r, &err) != BN_OK)
		fail_msg("open: %s", err.msg);
	assert_int_equal(bn_srr_info(r)->n_frames, n);
	assert_near(bn_srr_info(r)->rate_hz, 100e3, 0);
	assert_string_equal(bn_srr_info(r)->ch[1].unit, "A");
	assert_int_equal(read_and_check(r, n_ch, sel, sel, 10007), n);
	bn_srr_close(r);
}

static void test_srzip__salvage_after_kill(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	int64_t frames = -1;
	const long n = 3 * 65536 + 1234; /* three flushes, then a part in the buffer */

	write_and_die(s->path, 5, n);
	assert_int_equal(count_entries(s->dir, NULL, 0), 1); /* only the spool */
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_OK);
	assert_int_equal(frames, n);
	check_capture(s->path, 5, n);
	/* the spool is gone: only the capture is left */
	assert_int_equal(count_entries(s->dir, NULL, 0), 1);
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_ERR_NA);
	assert_msg_has(&err, "no capture spool");

	/* exactly at a flush, and before any */
	unlink(s->path);
	write_and_die(s->path, 3, 2 * 65536);
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_OK);
	assert_int_equal(frames, 2 * 65536);
	check_capture(s->path, 3, 2 * 65536);
	unlink(s->path);
	write_and_die(s->path, 2, 17);
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_OK);
	check_capture(s->path, 2, 17);
}

/* Killed inside close, after every member is in NAME.part: no frames, a
 * partial last chunk, whole chunks only; with and without a thread. The
 * salvage gives every frame back. */
static void test_srzip__salvage_killed_in_close(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	int64_t frames = -1;
	const long sizes[] = {0, 1, 150, 200, 350};

	for (int threads = 0; threads <= 1; threads++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			unlink(s->path);
			write_and_die_at(s->path, 5, sizes[i], 100, threads, true);
			assert_int_equal(count_entries(s->dir, NULL, 0), 1); /* the spool */
			bn_err_clear(&err);
			if (bn_srw_salvage(s->path, &frames, &err) != BN_OK)
				fail_msg("%ld frames, threads %d: %s", sizes[i], threads, err.msg);
			assert_int_equal(frames, sizes[i]);
			check_capture(s->path, 5, sizes[i]);
			assert_int_equal(count_entries(s->dir, NULL, 0), 1);
		}
}

/* Killed while it appended a chunk's members: the zip holds part of a
 * member past what pending calls complete. Each frame must come out once. */
static void test_srzip__salvage_mid_member(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	char first[256], part[700];
	int64_t frames = -1;
	const long n = 65536 + 500;
	FILE *f;

	write_and_die(s->path, 3, n);
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	snprintf(part, sizeof(part), "%s/%s/cap.sr.part", s->dir, first);
	f = fopen(part, "ab");
	assert_non_null(f);
	/* a local header and some data of a member the writer died in */
	fputs("PK\003\004", f);
	for (int i = 0; i < 3000; i++)
		fputc(0x7f, f);
	fclose(f);
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_OK);
	assert_int_equal(frames, n);
	check_capture(s->path, 3, n);
}

/* With threads: a chunk may be in a thread's hands (compressed, not yet in
 * the zip) when the process dies; its slot still holds it. */
static void test_srzip__salvage_with_threads(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	int64_t frames = -1;
	const long sizes[] = {5, 65536, 65537, 2 * 65536 + 7, 5 * 65536 + 4321};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unlink(s->path);
		write_and_die_th(s->path, 5, sizes[i], 2);
		assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_OK);
		assert_int_equal(frames, sizes[i]);
		check_capture(s->path, 5, sizes[i]);
		assert_int_equal(count_entries(s->dir, NULL, 0), 1);
	}
}

/* Died after close renamed the capture into place, before the spool was
 * removed: nothing to salvage, the capture stays, the spool goes. */
static void test_srzip__salvage_after_rename(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	char first[256], part[800] = "";
	int64_t frames = -1;
	struct dirent *de;
	DIR *d;

	/* a whole capture at path, and a dead writer's spool beside it whose
	 * zip is gone, as close's rename takes it */
	write_and_die(s->path, 2, 1000);
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_OK);
	write_and_die(s->path, 2, 1000);
	d = opendir(s->dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, ".cap.sr.", 8))
			snprintf(part, sizeof(part), "%s/%s/cap.sr.part", s->dir, de->d_name);
	closedir(d);
	assert_int_equal(unlink(part), 0);
	bn_err_clear(&err);
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_ERR_NA);
	assert_msg_has(&err, "was finished");
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	assert_string_equal(first, "cap.sr");
	check_capture(s->path, 2, 1000);
}

/* A writer that died in bn_srw_open before its header was whole (pending
 * all zeros, NAME.part empty or with version only), or one without a
 * shared mapping (pending empty): nothing to salvage, the spool goes. */
static void test_srzip__salvage_died_opening(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	char dir[700], file[800];
	char *zeros = g_malloc0(4096);
	int64_t frames = -1;

	for (int empty = 0; empty <= 1; empty++) {
		snprintf(dir, sizeof(dir), "%s/.cap.sr.abc123", s->dir);
		assert_int_equal(mkdir(dir, 0700), 0);
		snprintf(file, sizeof(file), "%s/pending", dir);
		assert_true(g_file_set_contents(file, zeros, empty ? 0 : 4096, NULL));
		snprintf(file, sizeof(file), "%s/cap.sr.part", dir);
		assert_true(g_file_set_contents(file, "", 0, NULL));
		bn_err_clear(&err);
		assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_ERR_NA);
		assert_msg_has(&err, "nothing to salvage");
		assert_msg_has(&err, ".cap.sr.abc123");
		assert_int_equal(frames, 0);
		assert_int_equal(count_entries(s->dir, NULL, 0), 0);
	}
	g_free(zeros);
}

/* The salvage's own writes fail (the file size limit, as a full disk):
 * the spool stays, named in the error, and a second salvage finishes. */
static void test_srzip__salvage_failure_keeps_spool(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	char first[256], pend[800], second[256];
	int64_t frames = -1, zip_bytes = 0;
	const long n = 65536 + 500;
	struct rlimit old, lim;
	void (*old_sig)(int);
	FILE *f;
	int rc;

	write_and_die(s->path, 3, n);
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	/* zip_bytes: the header's 5th field (magic, n_ch, n_slots, chunk,
	 * level, reserved before it) */
	snprintf(pend, sizeof(pend), "%s/%s/pending", s->dir, first);
	f = fopen(pend, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 32, SEEK_SET), 0);
	assert_int_equal(fread(&zip_bytes, sizeof(zip_bytes), 1, f), 1);
	fclose(f);
	assert_true(zip_bytes > 0);

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)zip_bytes + 100; /* the tail's members do not fit */
	old_sig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	rc = bn_srw_salvage(s->path, &frames, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, old_sig);

	assert_int_equal(rc, BN_ERR_ENV);
	assert_msg_has(&err, strerror(EFBIG));
	assert_msg_has(&err, "is kept");
	assert_msg_has(&err, first);
	assert_int_equal(count_entries(s->dir, second, sizeof(second)), 1);
	assert_string_equal(second, first);
	bn_err_clear(&err);
	if (bn_srw_salvage(s->path, &frames, &err) != BN_OK)
		fail_msg("second salvage: %s", err.msg);
	assert_int_equal(frames, n);
	check_capture(s->path, 3, n);
	assert_int_equal(count_entries(s->dir, NULL, 0), 1);
}

/* A directory that looks like a spool but is not one: refused, named. */
static void test_srzip__salvage_foreign_spool(void **state)
{
	struct scratch *s = *state;
	struct bn_err err = {0};
	char dir[700], file[800];
	int64_t frames = -1;

	snprintf(dir, sizeof(dir), "%s/.cap.sr.abc123", s->dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/pending", dir);
	assert_true(g_file_set_contents(file, "not a spool at all, just text that is long enough "
					      "to read a header from it",
					-1, NULL));
	assert_int_equal(bn_srw_salvage(s->path, &frames, &err), BN_ERR_DATA);
	assert_msg_has(&err, "is not one bcbench wrote");
	assert_msg_has(&err, ".cap.sr.abc123");
	assert_int_equal(frames, 0);
	assert_int_equal(access(s->path, F_OK), -1);
}

/* Threads or not, every chunking: the same samples come back, and every
 * member's CRC checks (libzip reads them all). */
static void test_srzip__threads_round_trip(void **state)
{
	struct scratch *s = *state;
	static const struct {
		long frames, chunk;
		int threads, level;
	} cases[] = {
	    {0, 0, 2, 0},	  {1, 1, 1, 0},		{1000, 7, 3, 6},
	    {200000, 0, 1, 0},	  {200000, 65536, 4, -1}, {131072, 65536, 2, 9},
	    {100001, 1000, 16, 1}, {100001, 1000, 0, 1},
	};
	const int sel[5] = {0, 1, 2, 3, 4};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bn_srw_opts o;
		struct bn_srw *w = NULL;
		struct bn_err err = {0};
		struct bn_srr *r = NULL;
		double v[5];
		int zerr = 0;
		zip_t *za;

		opts_init(&o, 5, 1e5, cases[i].chunk, cases[i].level);
		o.threads = cases[i].threads;
		assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
		for (long k = 0; k < cases[i].frames; k++) {
			for (int c = 0; c < 5; c++)
				v[c] = wave(c, k);
			assert_int_equal(bn_srw_frame(w, v), BN_OK);
		}
		if (bn_srw_close(w, &err) != BN_OK)
			fail_msg("case %zu: close: %s", i, err.msg);
		assert_int_equal(bn_srr_open(s->path, &r, &err), BN_OK);
		assert_int_equal(bn_srr_info(r)->n_frames, cases[i].frames);
		assert_int_equal(read_and_check(r, 5, sel, sel, 4099), cases[i].frames);
		bn_srr_close(r);
		/* libzip, with its consistency checks and every CRC */
		za = zip_open(s->path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
		assert_non_null(za);
		for (zip_int64_t m = 0; m < zip_get_num_entries(za, 0); m++) {
			zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)m, 0);
			char buf[65536];
			zip_int64_t got;

			assert_non_null(zf);
			while ((got = zip_fread(zf, buf, sizeof(buf))) > 0)
				;
			assert_int_equal(got, 0);
			zip_fclose(zf);
		}
		zip_discard(za);
		assert_int_equal(count_entries(s->dir, NULL, 0), 1);
	}
}

/* Our samplerate text is libsigrok's, with its fallback to plain Hz where
 * its own parser would not read its text back. */
static void test_srzip__samplerate_string_is_libsigroks(void **state)
{
	uint64_t x = 88172645463325252ull;
	int n = 0;

	(void)state;
	for (uint64_t rate = 1; rate <= 1000000000000ull; rate = rate < 100 ? rate + 1 : rate * 7 / 5) {
		for (int d = -3; d <= 3; d++) {
			uint64_t r = rate + (uint64_t)(d < 0 && rate < 10 ? 0 : d);
			char ours[64], *theirs = sr_samplerate_string(r);
			uint64_t back = 0;

			bn_srw_samplerate_string(r, ours, sizeof(ours));
			if (!theirs || sr_parse_sizestring(theirs, &back) != SR_OK || back != r) {
				g_free(theirs);
				theirs = g_strdup_printf("%llu Hz", (unsigned long long)r);
			}
			if (strcmp(ours, theirs))
				fail_msg("%llu Hz: ours \"%s\", libsigrok's \"%s\"",
					 (unsigned long long)r, ours, theirs);
			g_free(theirs);
			n++;
		}
	}
	/* and random rates of every size */
	for (int i = 0; i < 20000; i++) {
		uint64_t r;
		char ours[64], *theirs;
		uint64_t back = 0;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r = 1 + x % (1000000000000ull >> (x % 40));
		theirs = sr_samplerate_string(r);
		bn_srw_samplerate_string(r, ours, sizeof(ours));
		if (!theirs || sr_parse_sizestring(theirs, &back) != SR_OK || back != r) {
			g_free(theirs);
			theirs = g_strdup_printf("%llu Hz", (unsigned long long)r);
		}
		if (strcmp(ours, theirs))
			fail_msg("%llu Hz: ours \"%s\", libsigrok's \"%s\"", (unsigned long long)r,
				 ours, theirs);
		g_free(theirs);
		n++;
	}
	assert_true(n > 20000);
}

/* A short run costs little: the pending file stays at its first 4 KiB,
 * and the finished capture says which sigrok version's layout it is. */
static void test_srzip__short_run_is_small(void **state)
{
	struct scratch *s = *state;
	struct bn_srw_opts o;
	struct bn_srw *w = NULL;
	struct bn_err err = {0};
	char first[256], pend[700], *meta;
	struct stat st;
	double v[5] = {1, 2, 3, 4, 5};
	char buf[1024] = {0};

	opts_init(&o, 5, 1e4, 0, 0);
	o.threads = 4;
	assert_int_equal(bn_srw_open(s->path, &o, &w, &err), BN_OK);
	for (int k = 0; k < 10; k++)
		assert_int_equal(bn_srw_frame(w, v), BN_OK);
	assert_int_equal(count_entries(s->dir, first, sizeof(first)), 1);
	snprintf(pend, sizeof(pend), "%s/%s/pending", s->dir, first);
	assert_int_equal(stat(pend, &st), 0);
	assert_int_equal(st.st_size, 4096);
	assert_int_equal(bn_srw_close(w, &err), BN_OK);
	read_metadata(s->path, buf, sizeof(buf));
	meta = strstr(buf, "sigrok version=" SR_PACKAGE_VERSION_STRING "\n");
	assert_non_null(meta);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, scratch_setup, scratch_teardown)
	    T(test_srzip__round_trip),
	    T(test_srzip__round_trip_stored_subset),
	    T(test_srzip__samplerates),
	    T(test_srzip__missing_units),
	    T(test_srzip__libsigrok_reads_our_file),
	    T(test_srzip__sigrok_cli_shows_our_file),
	    T(test_srzip__sigrok_cli_csv_values),
	    T(test_srzip__reads_libsigrok_srzip_output),
	    T(test_srzip__not_a_zip),
	    T(test_srzip__truncated_zip),
	    T(test_srzip__missing_file),
	    T(test_srzip__corrupt_stored_member),
	    T(test_srzip__corrupt_deflated_member),
	    T(test_srzip__mutations_stored),
	    T(test_srzip__mutations_deflated),
	    T(test_srzip__bad_metadata),
	    T(test_srzip__too_many_channels),
	    T(test_srzip__samplerate_strings),
	    T(test_srzip__bad_version_and_members),
	    T(test_srzip__logic_only),
	    T(test_srzip__reader_api_misuse),
	    T(test_srzip__zero_frames),
	    T(test_srzip__spool_is_removed),
	    T(test_srzip__replaces_existing_file_at_close),
	    T(test_srzip__missing_directory),
	    T(test_srzip__bad_options),
	    T(test_srzip__spool_write_error_is_sticky),
	    T(test_srzip__failed_close_keeps_old_file),
	    T(test_srzip__salvage_after_kill),
	    T(test_srzip__salvage_mid_member),
	    T(test_srzip__salvage_with_threads),
	    T(test_srzip__salvage_after_rename),
	    T(test_srzip__salvage_killed_in_close),
	    T(test_srzip__salvage_died_opening),
	    T(test_srzip__salvage_failure_keeps_spool),
	    T(test_srzip__threads_round_trip),
	    T(test_srzip__samplerate_string_is_libsigroks),
	    T(test_srzip__short_run_is_small),
	    T(test_srzip__salvage_foreign_spool),
#undef T
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("srzip", tests, NULL, NULL);
}
