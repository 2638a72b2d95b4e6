/* sr_peer: the libsigrok side of scripts/bench.sh, and the same work done
 * by our own code, so the two can be compared on one machine.
 *
 *   sr_peer write-sigrok OUT.sr FRAMES RATE [CHUNK]
 *        libsigrok's srzip output, CHUNK samples a packet (default 262144):
 *        it writes a member per packet, deflated at libzip's default
 *        level, 9 (libsigrok 0.5.2 has no option for it)
 *   sr_peer write-ours OUT.sr FRAMES RATE [LEVEL CHUNK THREADS]
 *        bench/capture/srzip_write.h (0 = its defaults)
 *   sr_peer ceiling FRAMES RATE LEVEL CHUNK
 *        the ceiling of write-ours: the same frames generated, split into
 *        the same chunks per channel and deflated by libdeflate at the same
 *        level (with the CRC), in memory: no file, no zip
 *   sr_peer write-short OUT.sr COUNT
 *        COUNT captures of 10 frames (a suite entry's), one after another:
 *        prints "captures N median_ms M min_ms L", the writer's fixed cost
 *        (open, 10 frames, close with its fsyncs)
 *   sr_peer read-sigrok FILE.sr               sr_session_load + a callback
 *   sr_peer rss -- CMD ARGS...                peak RSS and time of CMD
 *
 * The writers store FRAMES frames of 5 analog float32 channels (VBUS IBUS
 * DP DM ID): piecewise-constant levels changing every 50 ms of signal,
 * plus +-1 mV of xorshift noise, so the data is neither trivially
 * compressible nor random. Both writers get bit-identical values.
 * They and the reader print "samples N seconds S rate R cpu_seconds C
 * cpu_rate Q", where N counts the samples of every channel (frames x
 * channels), R = N / S and Q = N / C (C: user and system time of every
 * thread, which a machine shared with other work disturbs less); the
 * writers and the ceiling add "bytes B" (the file's, or the compressed
 * total). The writers' time includes generating the waveform (a few ns a
 * sample), the ceiling's too.
 * rss prints "maxrss_kb K seconds S exit E cpu_seconds C user_seconds U
 * sys_seconds Y" (E = 128 + signal when the child was killed; C = U + Y,
 * the child's and every descendant it waited for). Exit status: 0, 2 for bad usage or input, 3 when a
 * library call fails. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <libdeflate.h>
#include <libsigrok/libsigrok.h>
#include <sys/stat.h>

#include "capture/srzip_write.h"
#include "core/err.h"
#include "core/time.h"

#define PEER_CH 5
/* The largest packet worth sending to libsigrok's srzip output: it
 * rewrites the zip per packet (docs/capture-files.md). */
#define PEER_PACKET 262144
#define PEER_STEP_S 0.05
#define PEER_NOISE_V 1e-3
#define PEER_LEVELS 6

static const char *const peer_names[PEER_CH] = { "VBUS", "IBUS", "DP", "DM", "ID" };
static const char *const peer_units[PEER_CH] = { "V", "A", "V", "V", "V" };
/* Levels per channel, visited in turn, one every PEER_STEP_S. */
static const double peer_levels[PEER_CH][PEER_LEVELS] = {
	{ 0.0, 5.05, 4.95, 5.10, 4.80, 0.25 },
	{ 0.0, 0.10, 0.50, 1.50, 1.45, 0.02 },
	{ 0.0, 0.60, 0.60, 0.30, 3.30, 0.00 },
	{ 0.0, 0.00, 0.35, 0.60, 0.30, 0.00 },
	{ 3.3, 3.30, 1.20, 0.00, 3.30, 3.30 },
};

struct gen {
	uint32_t x;   /* xorshift32 state */
	int64_t k;    /* next frame */
	int64_t step; /* frames per level */
};

static void gen_init(struct gen *g, double rate_hz)
{
	g->x = 2463534242u;
	g->k = 0;
	g->step = (int64_t)(rate_hz * PEER_STEP_S);
	if (g->step < 1)
		g->step = 1;
}

static double gen_noise(struct gen *g)
{
	g->x ^= g->x << 13;
	g->x ^= g->x >> 17;
	g->x ^= g->x << 5;
	return ((double)(g->x >> 8) / 8388608.0 - 1.0) * PEER_NOISE_V;
}

/* Frame k, rounded to float as stored. */
static void gen_frame(struct gen *g, float *v)
{
	int64_t level = g->k / g->step;

	for (int ch = 0; ch < PEER_CH; ch++)
		v[ch] = (float)(peer_levels[ch][(level + ch) % PEER_LEVELS] + gen_noise(g));
	g->k++;
}

/* CPU seconds of the process so far, every thread's, user and system. */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void print_rate(int64_t samples, double seconds, double cpu_seconds)
{
	printf("samples %" PRId64 " seconds %.3f rate %.0f cpu_seconds %.3f cpu_rate %.0f\n",
	       samples, seconds, seconds > 0 ? (double)samples / seconds : 0.0, cpu_seconds,
	       cpu_seconds > 0 ? (double)samples / cpu_seconds : 0.0);
}

static long long file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: sr_peer write-sigrok OUT.sr FRAMES RATE [CHUNK]\n"
			"       sr_peer write-ours OUT.sr FRAMES RATE [LEVEL CHUNK THREADS]\n"
			"       sr_peer ceiling FRAMES RATE LEVEL CHUNK\n"
			"       sr_peer write-short OUT.sr COUNT\n"
			"       sr_peer read-sigrok FILE.sr\n"
			"       sr_peer rss -- CMD ARGS...\n");
	return 2;
}

static int parse_write_args(char **argv, int64_t *frames, double *rate)
{
	char *end;

	errno = 0;
	*frames = strtoll(argv[1], &end, 10);
	if (errno || *end || *frames < 0) {
		fprintf(stderr, "sr_peer: FRAMES \"%s\": expected a whole number >= 0\n", argv[1]);
		return -1;
	}
	*rate = strtod(argv[2], &end);
	if (*end || !(*rate >= 1) || !(*rate <= 1e12) || *rate != floor(*rate)) {
		fprintf(stderr, "sr_peer: RATE \"%s\": expected a whole number of Hz >= 1\n",
			argv[2]);
		return -1;
	}
	return 0;
}

static int sr_fail(const char *what, int ret)
{
	fprintf(stderr, "sr_peer: %s: %s\n", what, sr_strerror(ret));
	return 3;
}

static int send_packet(const struct sr_output *out, int type, const void *payload)
{
	struct sr_datafeed_packet p = { .type = type, .payload = payload };
	GString *text = NULL;
	int ret = sr_output_send(out, &p, &text);

	if (text)
		g_string_free(text, TRUE);
	return ret;
}

static int write_sigrok(const char *path, int64_t frames, double rate, long packet)
{
	struct sr_analog_encoding enc = {
		.unitsize = sizeof(float),
		.is_signed = TRUE,
		.is_float = TRUE,
		.is_bigendian = G_BYTE_ORDER == G_BIG_ENDIAN,
		.digits = 4,
		.is_digits_decimal = TRUE,
		.scale = { 1, 1 },
		.offset = { 0, 1 },
	};
	struct sr_analog_meaning meaning = { .mq = SR_MQ_VOLTAGE, .unit = SR_UNIT_VOLT };
	struct sr_analog_spec spec = { .spec_digits = 4 };
	struct sr_datafeed_analog analog = { .encoding = &enc, .meaning = &meaning, .spec = &spec };
	struct sr_datafeed_header header = { .feed_version = 1 };
	struct sr_config rate_cfg = { .key = SR_CONF_SAMPLERATE };
	struct sr_datafeed_meta meta;
	struct sr_channel *chan[PEER_CH];
	const struct sr_output *out;
	const struct sr_output_module *mod;
	struct sr_context *ctx;
	struct sr_dev_inst *sdi;
	float *buf[PEER_CH], v[PEER_CH];
	struct gen g;
	double t0, c0;
	GSList *l;
	int ret, rc = 0, i;

	ret = sr_init(&ctx);
	if (ret != SR_OK)
		return sr_fail("sr_init", ret);
	sdi = sr_dev_inst_user_new("bcbench", "sr_peer", NULL);
	for (i = 0; i < PEER_CH; i++)
		sr_dev_inst_channel_add(sdi, i, SR_CHANNEL_ANALOG, peer_names[i]);
	for (i = 0, l = sr_dev_inst_channels_get(sdi); l && i < PEER_CH; l = l->next)
		chan[i++] = l->data;
	mod = sr_output_find("srzip");
	if (!mod || i != PEER_CH) {
		fprintf(stderr, "sr_peer: libsigrok has no srzip output or lost channels\n");
		sr_exit(ctx);
		return 3;
	}
	for (i = 0; i < PEER_CH; i++) {
		buf[i] = malloc((size_t)packet * sizeof(float));
		if (!buf[i]) {
			fprintf(stderr, "sr_peer: out of memory\n");
			return 3;
		}
	}
	gen_init(&g, rate);
	t0 = bn_mono_s();
	c0 = cpu_s();
	out = sr_output_new(mod, NULL, sdi, path);
	if (!out) {
		fprintf(stderr, "sr_peer: %s: cannot create the srzip output\n", path);
		sr_exit(ctx);
		return 3;
	}
	gettimeofday(&header.starttime, NULL);
	ret = send_packet(out, SR_DF_HEADER, &header);
	rate_cfg.data = g_variant_ref_sink(g_variant_new_uint64((uint64_t)rate));
	meta.config = g_slist_append(NULL, &rate_cfg);
	if (ret == SR_OK)
		ret = send_packet(out, SR_DF_META, &meta);
	g_slist_free(meta.config);
	g_variant_unref(rate_cfg.data);
	for (int64_t at = 0; ret == SR_OK && at < frames; at += packet) {
		uint32_t n = (uint32_t)(frames - at < packet ? frames - at : packet);

		for (uint32_t k = 0; k < n; k++) {
			gen_frame(&g, v);
			for (i = 0; i < PEER_CH; i++)
				buf[i][k] = v[i];
		}
		/* One channel per packet: libsigrok 0.5.2 takes no more. */
		for (i = 0; ret == SR_OK && i < PEER_CH; i++) {
			GSList one = { .data = chan[i], .next = NULL };

			meaning.mq = i == 1 ? SR_MQ_CURRENT : SR_MQ_VOLTAGE;
			meaning.unit = i == 1 ? SR_UNIT_AMPERE : SR_UNIT_VOLT;
			meaning.channels = &one;
			analog.data = buf[i];
			analog.num_samples = n;
			ret = send_packet(out, SR_DF_ANALOG, &analog);
		}
	}
	if (ret == SR_OK)
		ret = send_packet(out, SR_DF_END, NULL);
	if (ret != SR_OK)
		rc = sr_fail(path, ret);
	ret = sr_output_free(out);
	if (ret != SR_OK && !rc)
		rc = sr_fail(path, ret);
	if (!rc) {
		print_rate(frames * PEER_CH, bn_mono_s() - t0, cpu_s() - c0);
		printf("bytes %lld\n", file_bytes(path));
	}
	for (i = 0; i < PEER_CH; i++)
		free(buf[i]);
	sr_exit(ctx);
	return rc;
}

static int write_ours(const char *path, int64_t frames, double rate, int level, long chunk,
		      int threads)
{
	struct bn_srw_opts o = { .rate_hz = rate, .n_ch = PEER_CH, .compression_level = level,
				 .chunk_samples = chunk, .threads = threads };
	struct bn_err err = { 0 };
	struct bn_srw *w;
	struct gen g;
	double v[PEER_CH], t0, c0;
	float f[PEER_CH];
	int rc = BN_OK;

	for (int i = 0; i < PEER_CH; i++) {
		o.names[i] = peer_names[i];
		o.units[i] = peer_units[i];
	}
	gen_init(&g, rate);
	t0 = bn_mono_s();
	c0 = cpu_s();
	if (bn_srw_open(path, &o, &w, &err) < 0) {
		fprintf(stderr, "sr_peer: %s\n", err.msg);
		return bn_err_exit_code(err.code);
	}
	for (int64_t k = 0; k < frames && rc == BN_OK; k++) {
		gen_frame(&g, f);
		for (int i = 0; i < PEER_CH; i++)
			v[i] = f[i];
		rc = bn_srw_frame(w, v);
	}
	/* close reports a sticky frame error again, with its message. */
	if (bn_srw_close(w, &err) < 0 || rc < 0) {
		fprintf(stderr, "sr_peer: %s: %s\n", path, err.msg[0] ? err.msg : bn_strerror(rc));
		return bn_err_exit_code(err.code ? err.code : rc);
	}
	print_rate(frames * PEER_CH, bn_mono_s() - t0, cpu_s() - c0);
	printf("bytes %lld\n", file_bytes(path));
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int write_short(const char *path, long count)
{
	struct bn_srw_opts o = { .rate_hz = 10000, .n_ch = PEER_CH };
	double *ms = malloc((size_t)count * sizeof(double)), v[PEER_CH] = { 5, 0.5, 0.6, 0.3, 3.3 };

	if (!ms)
		return 3;
	for (int i = 0; i < PEER_CH; i++) {
		o.names[i] = peer_names[i];
		o.units[i] = peer_units[i];
	}
	for (long n = 0; n < count; n++) {
		struct bn_err err = { 0 };
		struct bn_srw *w;
		double t0 = bn_mono_s();
		int rc = bn_srw_open(path, &o, &w, &err);

		for (int k = 0; k < 10 && rc == BN_OK; k++)
			rc = bn_srw_frame(w, v);
		if (rc == BN_OK)
			rc = bn_srw_close(w, &err);
		if (rc != BN_OK) {
			fprintf(stderr, "sr_peer: %s\n", err.msg[0] ? err.msg : bn_strerror(rc));
			free(ms);
			return bn_err_exit_code(rc);
		}
		ms[n] = (bn_mono_s() - t0) * 1e3;
	}
	qsort(ms, (size_t)count, sizeof(double), cmp_double);
	printf("captures %ld median_ms %.3f min_ms %.3f\n", count, ms[count / 2], ms[0]);
	free(ms);
	return 0;
}

/* write-ours without the file: what compressing the same chunks costs. */
static int ceiling(int64_t frames, double rate, int level, long chunk)
{
	struct libdeflate_compressor *c = level > 0 ? libdeflate_alloc_compressor(level) : NULL;
	float *buf = malloc((size_t)chunk * PEER_CH * sizeof(float)), *col, f[PEER_CH];
	unsigned char *out;
	long long bytes = 0;
	uint32_t crc = 0;
	struct gen g;
	double t0, c0;

	col = malloc((size_t)chunk * sizeof(float));
	out = malloc((size_t)chunk * sizeof(float));
	if (!buf || !col || !out || (level > 0 && !c)) {
		fprintf(stderr, "sr_peer: out of memory\n");
		return 3;
	}
	gen_init(&g, rate);
	t0 = bn_mono_s();
	c0 = cpu_s();
	for (int64_t at = 0; at < frames; at += chunk) {
		long n = (long)(frames - at < chunk ? frames - at : chunk);

		/* frame-major, as the writer keeps a chunk; doubles in between
		 * as the writer's callers give them */
		for (long k = 0; k < n; k++) {
			gen_frame(&g, f);
			for (int i = 0; i < PEER_CH; i++) {
				double d = f[i];

				buf[(size_t)k * PEER_CH + (size_t)i] = (float)d;
			}
		}
		for (int i = 0; i < PEER_CH; i++) {
			size_t len = (size_t)n * sizeof(float), got = 0;

			for (long k = 0; k < n; k++)
				col[k] = buf[(size_t)k * PEER_CH + (size_t)i];
			crc ^= (uint32_t)libdeflate_crc32(0, col, len);
			if (c)
				got = libdeflate_deflate_compress(c, col, len, out, len);
			bytes += got ? (long long)got : (long long)len;
		}
	}
	print_rate(frames * PEER_CH, bn_mono_s() - t0, cpu_s() - c0);
	printf("bytes %lld\n", bytes);
	fprintf(stderr, "sr_peer: ceiling crc xor %08x\n", (unsigned)crc);
	if (c)
		libdeflate_free_compressor(c);
	free(buf);
	free(col);
	free(out);
	return 0;
}

struct reader {
	int64_t samples;
	double sum;
	float *buf;
	size_t cap;
	int failed;
};

static void read_cb(const struct sr_dev_inst *sdi, const struct sr_datafeed_packet *p, void *data)
{
	struct reader *r = data;
	const struct sr_datafeed_analog *a;
	const struct sr_analog_encoding *e;
	const float *f;
	double s = 0;

	(void)sdi;
	if (p->type != SR_DF_ANALOG)
		return;
	a = p->payload;
	e = a->encoding;
	if (e->is_float && e->unitsize == sizeof(float) &&
	    e->is_bigendian == (G_BYTE_ORDER == G_BIG_ENDIAN) && e->scale.p == 1 &&
	    e->scale.q == 1 && e->offset.p == 0) {
		f = a->data; /* already what we want: no conversion */
	} else {
		if (a->num_samples > r->cap) {
			free(r->buf);
			r->cap = a->num_samples;
			r->buf = malloc(r->cap * sizeof(float));
			if (!r->buf) {
				r->cap = 0;
				r->failed = 1;
				return;
			}
		}
		if (sr_analog_to_float(a, r->buf) != SR_OK) {
			r->failed = 1;
			return;
		}
		f = r->buf;
	}
	for (uint32_t i = 0; i < a->num_samples; i++)
		s += f[i];
	r->sum += s;
	r->samples += a->num_samples;
}

static int read_sigrok(const char *path)
{
	struct reader r = { 0 };
	struct sr_context *ctx;
	struct sr_session *sess;
	double t0, c0;
	int ret;

	ret = sr_init(&ctx);
	if (ret != SR_OK)
		return sr_fail("sr_init", ret);
	t0 = bn_mono_s();
	c0 = cpu_s();
	ret = sr_session_load(ctx, path, &sess);
	if (ret != SR_OK) {
		fprintf(stderr, "sr_peer: %s: cannot load: %s\n", path, sr_strerror(ret));
		sr_exit(ctx);
		return 2;
	}
	sr_session_datafeed_callback_add(sess, read_cb, &r);
	ret = sr_session_start(sess);
	if (ret == SR_OK)
		ret = sr_session_run(sess);
	sr_session_destroy(sess);
	free(r.buf);
	sr_exit(ctx);
	if (ret != SR_OK)
		return sr_fail(path, ret);
	if (r.failed) {
		fprintf(stderr, "sr_peer: %s: a packet could not be converted to float\n", path);
		return 3;
	}
	print_rate(r.samples, bn_mono_s() - t0, cpu_s() - c0);
	fprintf(stderr, "sr_peer: %s: sum of all samples %.6g\n", path, r.sum);
	return 0;
}

static int rss(char **argv)
{
	struct rusage ru;
	double t0;
	pid_t pid;
	int status, code;

	t0 = bn_mono_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sr_peer: fork: %s\n", strerror(errno));
		return 3;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "sr_peer: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "sr_peer: wait4: %s\n", strerror(errno));
			return 3;
		}
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	/* cpu_seconds: the child's user + system time, steadier than the
	 * wall on a shared machine */
	{
		double user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		double sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;

		printf("maxrss_kb %ld seconds %.3f exit %d cpu_seconds %.3f user_seconds %.3f "
		       "sys_seconds %.3f\n",
		       ru.ru_maxrss, bn_mono_s() - t0, code, user_s + sys_s, user_s, sys_s);
	}
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || *v < lo || *v > hi) {
		fprintf(stderr, "sr_peer: \"%s\": expected a whole number %ld to %ld\n", s, lo, hi);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int64_t frames;
	double rate;
	long level = 0, chunk = 0, threads = 0;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "write-sigrok") && (argc == 5 || argc == 6)) {
		chunk = PEER_PACKET;
		if (parse_write_args(argv + 2, &frames, &rate) < 0 ||
		    (argc == 6 && parse_long(argv[5], 1, 1L << 28, &chunk) < 0))
			return 2;
		return write_sigrok(argv[2], frames, rate, chunk);
	}
	if (!strcmp(argv[1], "write-ours") && (argc == 5 || argc == 8)) {
		if (parse_write_args(argv + 2, &frames, &rate) < 0 ||
		    (argc == 8 && (parse_long(argv[5], -1, 9, &level) < 0 ||
				   parse_long(argv[6], 0, 1L << 28, &chunk) < 0 ||
				   parse_long(argv[7], 0, 64, &threads) < 0)))
			return 2;
		return write_ours(argv[2], frames, rate, (int)level, chunk, (int)threads);
	}
	if (!strcmp(argv[1], "ceiling") && argc == 6) {
		if (parse_write_args(argv + 1, &frames, &rate) < 0 ||
		    parse_long(argv[4], -1, 9, &level) < 0 || parse_long(argv[5], 1, 1L << 28, &chunk) < 0)
			return 2;
		return ceiling(frames, rate, level ? (int)level : BN_SRW_DEFAULT_LEVEL, chunk);
	}
	if (!strcmp(argv[1], "write-short") && argc == 4) {
		if (parse_long(argv[3], 1, 1000000, &chunk) < 0)
			return 2;
		return write_short(argv[2], chunk);
	}
	if (!strcmp(argv[1], "read-sigrok") && argc == 3)
		return read_sigrok(argv[2]);
	if (!strcmp(argv[1], "rss") && argc >= 4 && !strcmp(argv[2], "--"))
		return rss(argv + 3);
	return usage();
}
