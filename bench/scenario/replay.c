#define BN_LOG_MODULE "replay"
#include "scenario/replay.h"

#include <ctype.h>
#include <libgen.h>
#include <pthread.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/chanmap.h"
#include "core/channel.h"
#include "capture/events.h"
#include "capture/srzip_read.h"
#include "checks/check.h"
#include "checks/estimate.h"
#include "checks/logbin.h"
#include "checks/persist.h"
#include "core/datadir.h"
#include "core/suggest.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/json.h"
#include "scenario/expect.h"
#include "scenario/scenario.h"
#include "core/limits.h"
#include "core/log.h"
#include "sim/charger.h"
#include "sim/dut.h"
#include "sim/port.h"
#include "core/text.h"
#include "core/time.h"

/* Frames read from the file at once, into the reading thread's columns. */
#define REPLAY_READ_FRAMES 16384
/* Frames per block at most: the stop flag is looked at once a block. */
#define REPLAY_BLOCK_FRAMES 65536
/* Distinct frames per block at most: big enough to amortise the hand-over
 * between the reading thread and the judging one, small enough to stay
 * in the second-level cache (48 bytes each). */
#define REPLAY_BLOCK_ENTRIES 16384
/* Frames converted at once, a channel at a time (convert()). */
#define REPLAY_CONV 256
/* Copies of the noise estimate's bins counted in turn (convert()), a
 * power of 2. */
#define REPLAY_HISTS 4
/* Blocks in flight between them. */
#define REPLAY_BLOCKS 4
/* Times of repeated frames handed to the engine at once. */
#define REPLAY_RUN_TIMES 1024

typedef double bn_v2d __attribute__((vector_size(16)));
typedef int64_t bn_v2i __attribute__((vector_size(16)));

/* A stored float32 keeps 24 bits: 0.1 A comes back as 0.100000001 A, and
 * a device drawing exactly IUNIT would fail on the storage, not on its
 * draw. Samples are read back on a grid of 1e-8 (10 nV, 10 nA): finer than
 * float32's own step above 0.17 V or A, far below any instrument's, and it
 * gives the decimal value the bench wrote. Rounds half to even with the
 * 1.5 * 2^52 trick (|v| < 2e7), a few cycles where rint() is a call.
 * Two at a time: SSE2 divides two in the time of one. */
static inline bn_v2d snap2(bn_v2d v)
{
	const bn_v2d big = { 6755399441055744.0, 6755399441055744.0 };
	const bn_v2d scale = { 1e8, 1e8 }, lim = { 2e7, 2e7 };
	const bn_v2i abs_mask = { INT64_MAX, INT64_MAX };
	bn_v2i in = (bn_v2i)((bn_v2d)((bn_v2i)v & abs_mask) < lim); /* false for a NaN */
	bn_v2d r = ((v * scale + big) - big) / scale;

	return (bn_v2d)(((bn_v2i)r & in) | ((bn_v2i)v & ~in));
}

/* Frame i of the columns equals prev, bitwise, as stored: -0 and 0
 * differ, a NaN equals itself. */
static inline bool frame_eq(float *const *col, long i, const float *prev, int n)
{
	for (int j = 0; j < n; j++) {
		uint32_t x, y;

		memcpy(&x, &col[j][i], sizeof(x));
		memcpy(&y, &prev[j], sizeof(y));
		if (x != y)
			return false;
	}
	return true;
}

/* Frame i of the columns equals frame i - 1, as frame_eq(). */
static inline bool frame_eq_prev(float *const *col, long i, int n)
{
	for (int j = 0; j < n; j++) {
		uint32_t x, y;

		memcpy(&x, &col[j][i], sizeof(x));
		memcpy(&y, &col[j][i - 1], sizeof(y));
		if (x != y)
			return false;
	}
	return true;
}

/* The end of the run of frames equal to prev from i: the first index in
 * [i, n) that differs, n if none. Channel by channel, each a plain scan. */
static long run_end(float *const *col, long i, long n, const float *prev, int nsel)
{
	long e = n;

	for (int j = 0; j < nsel; j++) {
		const float *c = col[j];
		uint32_t p;
		long x = i;

		memcpy(&p, &prev[j], sizeof(p));
		for (; x < e; x++) {
			uint32_t y;

			memcpy(&y, &c[x], sizeof(y));
			if (y != p)
				break;
		}
		e = x;
	}
	return e;
}

/* The capture is inflated in one thread while the rules judge in
 * another (and the file's SHA-256 is taken in a third). On a noisy
 * capture inflating costs about as much as judging, so the reading
 * thread also does what needs no rule: it takes each frame to SI, folds
 * the frames equal to the one before (as stored) into it, and counts the
 * noise estimate's steps (checks/estimate.h). */
struct entry {
	struct bn_sample s;   /* SI on the 1e-8 grid; NaN on the channels not read */
	long n;               /* frames: this one and those after it equal to it as stored */
};

struct block {
	struct entry *e;
	long n_e;             /* entries */
	long n;               /* frames, 0 at the end, < 0 on a read error */
	bool cont;            /* e[0]'s first frame equals, as stored, the frame before it */
	struct bn_est est;    /* the noise estimate's steps into these frames */
};

struct reader {
	struct bn_srr *srr;
	int n_sel;
	int sel_ch[BN_CH_COUNT];
	double gain[BN_CH_COUNT];
	unsigned est_ch;      /* the channels whose noise estimate is counted here */
	struct bn_logbin lb;
	/* the file's frames read and not yet in a block: [raw_i, raw_n) */
	float *raw;
	float *col[BN_CH_COUNT];
	long raw_i, raw_n;
	long end;             /* the read's return once it is <= 0, else 1 */
	/* the last frame put in a block, as stored and in SI (channel j
	 * read is the bench's sel_ch[j]) */
	bool have_last, have_v;
	float last_raw[BN_CH_COUNT];
	double last_v[BN_CH_COUNT];
	/* convert()'s: the new frames' indexes in col[], their values, and
	 * whether each differs from the one before */
	int32_t src[REPLAY_READ_FRAMES];
	double dv[BN_CH_COUNT][REPLAY_CONV + 1];
	unsigned char diff[REPLAY_CONV + 1];
	/* the estimate's bins of the block being filled (convert()) */
	uint32_t hist[BN_CH_COUNT][REPLAY_HISTS][BN_LOGBIN_BINS];
	pthread_t th;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block b[REPLAY_BLOCKS];
	long head, tail;      /* filled: [tail, head) */
	bool quit;
	struct bn_err err;
};

/* Entries [e0, e1) of b, new frames, from the frames src[0..] read: in
 * SI on the 1e-8 grid, with their noise estimate's steps. A channel at a
 * time, two values at a time, in batches that stay in the first-level
 * cache: on a noisy capture this is as much work as inflating it. */
static void convert(struct reader *rd, struct block *b, long e0, long e1, const int32_t *src)
{
	const int nsel = rd->n_sel;

	for (long m0 = e0; m0 < e1; m0 += REPLAY_CONV) {
		const long nm = e1 - m0 < REPLAY_CONV ? e1 - m0 : REPLAY_CONV;
		const int32_t *sx = src + (m0 - e0);
		/* from the first step on: the capture's first frame has none */
		const long from = rd->have_v ? 1 : 2;
		unsigned char *diff = rd->diff;
		long n_same = 0;

		/* v[1..nm] the values, v[0] the one before */
		for (int j = 0; j < nsel; j++) {
			const float *c = rd->col[j];
			const bn_v2d g = { rd->gain[j], rd->gain[j] };
			double *v = rd->dv[j];

			v[0] = rd->last_v[j];
			for (long m = 0; m + 1 < nm; m += 2) {
				bn_v2d r = snap2((bn_v2d){ c[sx[m]], c[sx[m + 1]] } * g);

				memcpy(&v[m + 1], &r, sizeof(r));
			}
			if (nm & 1) {
				bn_v2d r = snap2((bn_v2d){ c[sx[nm - 1]], c[sx[nm - 1]] } * g);

				v[nm] = r[0];
			}
			/* which differ from the one before, bit for bit */
			if (!j)
				memset(diff, 0, (size_t)nm + 1);
			for (long m = 1; m <= nm; m++) {
				uint64_t x, y;

				memcpy(&x, &v[m], sizeof(x));
				memcpy(&y, &v[m - 1], sizeof(y));
				diff[m] |= x != y;
			}
		}
		/* each step as the engine counts it: a frame equal to the one
		 * before, bit for bit, by bn_est_repeat(), any other by
		 * bn_est_add() on each channel read (the others are NaN in both,
		 * and not estimated) */
		if (rd->est_ch) {
			for (long m = from; m <= nm; m++)
				n_same += !diff[m];
			bn_est_repeat(&b->est, rd->est_ch, n_same);
			for (int j = 0; j < nsel; j++) {
				const double *v = rd->dv[j];
				const int ch = rd->sel_ch[j];
				uint32_t(*h)[BN_LOGBIN_BINS] = rd->hist[ch];
				long n_zero = 0, n_step = 0;

				if (!(rd->est_ch & (1u << ch)))
					continue;
				/* bn_est_add() of each step, its counts in locals, the
				 * bins' in REPLAY_HISTS copies taken in turn: steps of
				 * noise fall in a few bins, and adding to the same
				 * count one after another would wait on each add. */
				for (long m = from; m <= nm; m++) {
					double a = fabs(v[m] - v[m - 1]);

					if (!diff[m])
						continue;
					if (!(a > 0)) { /* 0, or NaN: no step */
						n_step += a == 0;
						n_zero += a == 0;
						continue;
					}
					n_step++;
					h[m & (REPLAY_HISTS - 1)][bn_logbin_of(&rd->lb, a)]++;
				}
				b->est.n[ch] += n_step;
				b->est.zero[ch] += n_zero;
			}
		}
		for (int j = 0; j < nsel; j++) {
			const double *v = rd->dv[j];
			const int ch = rd->sel_ch[j];
			struct entry *en = &b->e[m0];

			for (long m = 0; m < nm; m++)
				en[m].s.v[ch] = v[m + 1];
			rd->last_v[j] = v[nm];
		}
		rd->have_v = true;
	}
}

/* The copies of the bins into block b's estimate, emptied. */
static void hist_flush(struct reader *rd, struct block *b)
{
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		if (!(rd->est_ch & (1u << ch)))
			continue;
		for (int k = 0; k < REPLAY_HISTS; k++)
			for (int i = 0; i < BN_LOGBIN_BINS; i++)
				b->est.bin[ch][i] += rd->hist[ch][k][i];
		memset(rd->hist[ch], 0, sizeof(rd->hist[ch]));
	}
}

/* Block b from the next frames: up to REPLAY_BLOCK_FRAMES of them, and up
 * to REPLAY_BLOCK_ENTRIES distinct ones. */
static void fill(struct reader *rd, struct block *b)
{
	const int nsel = rd->n_sel;
	long n_rep = 0; /* frames equal to the one before, as stored */

	b->n_e = 0;
	b->n = 0;
	b->cont = false;
	if (rd->est_ch)
		memset(&b->est, 0, sizeof(b->est));
	while (b->n < REPLAY_BLOCK_FRAMES && rd->end > 0) {
		long i, stop, e0 = b->n_e;

		if (rd->raw_i == rd->raw_n) {
			long n = bn_srr_read_cols(rd->srr, rd->col, REPLAY_READ_FRAMES, &rd->err);

			if (n <= 0) {
				rd->end = n;
				break;
			}
			rd->raw_i = 0;
			rd->raw_n = n;
		}
		i = rd->raw_i;
		stop = rd->raw_n - i < REPLAY_BLOCK_FRAMES - b->n ? rd->raw_n : i + REPLAY_BLOCK_FRAMES - b->n;
		/* which frames are new, and how many equal ones follow each; the
		 * one before a frame is the one before it in col[], but for the
		 * first */
		while (i < stop) {
			if (i > rd->raw_i ? frame_eq_prev(rd->col, i, nsel)
					  : rd->have_last && frame_eq(rd->col, i, rd->last_raw, nsel)) {
				float cur[BN_CH_COUNT];
				long e;

				for (int j = 0; j < nsel; j++)
					cur[j] = rd->col[j][i];
				e = run_end(rd->col, i + 1, stop, cur, nsel);

				if (!b->n_e) {
					/* the frames before are converted: last_v is theirs */
					for (int j = 0; j < nsel; j++)
						b->e[0].s.v[rd->sel_ch[j]] = rd->last_v[j];
					b->e[0].n = 0;
					b->n_e = e0 = 1;
					b->cont = true;
				}
				b->e[b->n_e - 1].n += e - i;
				n_rep += e - i;
				i = e;
				continue;
			}
			if (b->n_e == REPLAY_BLOCK_ENTRIES)
				break;
			rd->src[b->n_e - e0] = (int32_t)i;
			/* the entry was the judging thread's last: ask for it early */
			if (b->n_e + 16 < REPLAY_BLOCK_ENTRIES)
				__builtin_prefetch(&b->e[b->n_e + 16], 1);
			b->e[b->n_e++].n = 1;
			i++;
		}
		if (i > rd->raw_i) {
			for (int j = 0; j < nsel; j++)
				rd->last_raw[j] = rd->col[j][i - 1];
			rd->have_last = true;
		}
		convert(rd, b, e0, b->n_e, rd->src);
		b->n += i - rd->raw_i;
		rd->raw_i = i;
		if (i < stop)
			break; /* the entries are full */
	}
	bn_est_repeat(&b->est, rd->est_ch, n_rep);
	hist_flush(rd, b);
	if (!b->n)
		b->n = rd->end;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;

	for (;;) {
		struct block *b;

		pthread_mutex_lock(&rd->mu);
		while (rd->head - rd->tail == REPLAY_BLOCKS && !rd->quit)
			pthread_cond_wait(&rd->cv, &rd->mu);
		if (rd->quit) {
			pthread_mutex_unlock(&rd->mu);
			break;
		}
		b = &rd->b[rd->head % REPLAY_BLOCKS];
		pthread_mutex_unlock(&rd->mu);
		fill(rd, b);
		pthread_mutex_lock(&rd->mu);
		rd->head++;
		pthread_cond_broadcast(&rd->cv);
		pthread_mutex_unlock(&rd->mu);
		if (b->n <= 0)
			break;
	}
	return NULL;
}

/* The n_sel channels read go to the bench's sel_ch[], times gain[];
 * est_ch: the channels whose noise estimate the reading thread counts. */
static int reader_start(struct reader *rd, struct bn_srr *srr, int n_sel, const int *sel_ch,
			const double *gain, unsigned est_ch, struct bn_err *err)
{
	memset(rd, 0, sizeof(*rd));
	rd->srr = srr;
	rd->n_sel = n_sel;
	for (int j = 0; j < n_sel; j++) {
		rd->sel_ch[j] = sel_ch[j];
		rd->gain[j] = gain[j];
	}
	rd->est_ch = est_ch;
	if (est_ch)
		bn_logbin_init(&rd->lb);
	rd->end = 1;
	rd->raw = malloc(sizeof(float) * (size_t)REPLAY_READ_FRAMES * (size_t)n_sel);
	if (!rd->raw)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	for (int j = 0; j < n_sel; j++)
		rd->col[j] = rd->raw + (size_t)j * REPLAY_READ_FRAMES;
	for (int i = 0; i < REPLAY_BLOCKS; i++) {
		rd->b[i].e = malloc(sizeof(struct entry) * REPLAY_BLOCK_ENTRIES);
		if (!rd->b[i].e)
			return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		/* the channels not read stay NaN */
		for (long k = 0; k < REPLAY_BLOCK_ENTRIES; k++)
			for (int ch = 0; ch < BN_CH_COUNT; ch++)
				rd->b[i].e[k].s.v[ch] = NAN;
	}
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv, NULL);
	if (pthread_create(&rd->th, NULL, reader_main, rd) != 0)
		return bn_err_set(err, BN_ERR_NOMEM, "cannot start the reading thread");
	rd->started = true;
	return BN_OK;
}

/* The next filled block (NULL never: the end is a block with n <= 0). */
static struct block *reader_next(struct reader *rd)
{
	struct block *b;

	pthread_mutex_lock(&rd->mu);
	while (rd->head == rd->tail)
		pthread_cond_wait(&rd->cv, &rd->mu);
	b = &rd->b[rd->tail % REPLAY_BLOCKS];
	pthread_mutex_unlock(&rd->mu);
	return b;
}

static void reader_release(struct reader *rd)
{
	pthread_mutex_lock(&rd->mu);
	rd->tail++;
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
}

/* The reading thread stopped, its buffers and rd (malloc'ed) freed. */
static void reader_end(struct reader *rd)
{
	if (rd->started) {
		pthread_mutex_lock(&rd->mu);
		rd->quit = true;
		pthread_cond_broadcast(&rd->cv);
		pthread_mutex_unlock(&rd->mu);
		pthread_join(rd->th, NULL);
		pthread_mutex_destroy(&rd->mu);
		pthread_cond_destroy(&rd->cv);
		rd->started = false;
	}
	for (int i = 0; i < REPLAY_BLOCKS; i++) {
		free(rd->b[i].e);
		rd->b[i].e = NULL;
	}
	free(rd->raw);
	free(rd);
}

struct hasher {
	pthread_t th;
	bool started;
	const char *path;
	char hex[65];
	int rc;
};

static void *hasher_main(void *arg)
{
	struct hasher *h = arg;
	struct bn_err e = { 0 };

	h->rc = bn_file_sha256(h->path, h->hex, &e);
	return NULL;
}

/* Events inferred from the samples when there is no sidecar. */
struct infer {
	bool on;                 /* which inferences run */
	bool started;            /* the first sample was seen */
	bool connected;
	bool contact;            /* D+ seen low since VBUS came: the data lines touch */
	double vbus_on_v;        /* VOTG_SESS_VLD min */
	double dp_high_v;        /* VLGC max */
	double dp_low_v;         /* VLGC min */
	bool use_dp;
	/* Levels judged with persistence, so noise makes no events. */
	struct bn_persist vbus, dp_high, dp_low;
};

struct replay {
	const struct bn_replay_opts *o;
	struct bn_limits lim;
	bool have_lim, have_evrec;
	struct bn_evrec evrec;
	struct bn_srr *srr;
	struct bn_chanmap map;
	struct bn_check_ctx ctx;
	struct bn_checks *checks;
	int n_sel, sel_ch[BN_CH_COUNT], sel_src[BN_CH_COUNT];
	double gain[BN_CH_COUNT];
	struct infer inf;
	struct bn_rng rng;        /* --perturb */
	/* The scenario's expectations as the record lists them, judged again
	 * from the capture when the stream passes their time. */
	struct rexp {
		bn_time_us t_us;
		int line;
		const char *text;
		int n_before;
		bool parsed;
		struct bn_expect ex;
	} *rx;
	int n_rx, next_rx;
	struct bn_sample_ring ring;
	bool ring_on;
	/* Frames before ring_from_t are overwritten before the next
	 * expectation reads the ring (it keeps the last ring.cap frames):
	 * they are counted, not written (ring_skip), and the ring's head and
	 * count move past them when the next frame is written. */
	bn_time_us next_rx_t, ring_from_t;
	long ring_skip;
	int next_mv;              /* the record's next move */
	char port_name[64];
	char charger_name[64];
};

/* A bare name is profiles/<kind>/<name>.json under the data dir. */
static void resolve(const struct bn_replay_opts *o, const char *kind, const char *spec, char *out,
		    size_t len)
{
	const char *dd = o->datadir ? o->datadir : ".";

	if (!strchr(spec, '/') && !strstr(spec, ".json"))
		snprintf(out, len, "%s/profiles/%s/%s.json", dd, kind, spec);
	else
		snprintf(out, len, "%s", spec);
}

/* For a bare name that is not there: the names the data dir has, the
 * nearest, and how to use another data dir (into buf). */
static const char *dd_hint(const struct bn_replay_opts *o, const char *kind, const char *spec,
			   char *buf, size_t len)
{
	if (strchr(spec, '/') || strstr(spec, ".json"))
		return "";
	bn_suggest_profile(o->datadir, kind, spec, buf, len);
	return buf;
}

static int load_limits(struct replay *r, struct bn_report *rep, struct bn_err *err)
{
	char path[1200];
	int rc;

	if (r->o->limits_path)
		snprintf(path, sizeof(path), "%s", r->o->limits_path);
	else
		snprintf(path, sizeof(path), "%s/profiles/limits/bc12.json",
			 r->o->datadir ? r->o->datadir : ".");
	rc = bn_limits_load(path, &r->lim, err);
	if (rc < 0)
		return rc;
	r->have_lim = true;
	bn_report_add_file(rep, "limits", path, NULL);
	bn_report_set_limits(rep, &r->lim);
	return BN_OK;
}

/* Which file channel feeds each bench channel, and the gain to SI. */
static int map_channels(struct replay *r, struct bn_report *rep, struct bn_err *err)
{
	const char *path = r->o->capture_path;
	const struct bn_srr_info *in = bn_srr_info(r->srr);
	char have[600];
	int rc;

	bn_srr_list_channels(in, have, sizeof(have));
	if (in->n_analog == 0)
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: no analog channels (%s): replay needs VBUS, and IBUS or "
				  "DP, as analog samples",
				  path, have);
	bn_chanmap_default(&r->map);
	if (r->o->map) {
		rc = bn_chanmap_parse(r->o->map, &r->map, "--map", err);
		if (rc < 0)
			return rc;
	}
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		const struct bn_chanmap_entry *e = &r->map.e[ch];
		int idx = bn_srr_find(r->srr, e->src);
		const char *funit;

		if (idx < 0) {
			if (e->set)
				return bn_err_set(err, BN_ERR_DATA,
						  "%s: error: --map %s=%s: the file has no channel "
						  "\"%s\" (it has: %s)",
						  path, bn_chan_label(ch), e->src, e->src, have);
			continue;
		}
		if (!in->ch[idx].analog)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: %s <- %s: a logic channel (expected an analog one)",
					  path, bn_chan_label(ch), e->src);
		/* A file that states its units must agree with the map, unless
		 * the map says what the numbers are. */
		funit = in->ch[idx].unit;
		if (funit[0] && !(e->set && e->scale != 1.0) &&
		    strcasecmp(funit, e->unit) && !(strlen(funit) == 2 && tolower(funit[0]) == 'm' &&
						     !strcasecmp(funit + 1, e->unit)))
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: %s <- %s: the file says it is in %s, but %s is "
					  "in %s (give --map %s=%s:scale=...:unit=%s)",
					  path, bn_chan_label(ch), e->src, funit, bn_chan_label(ch),
					  bn_chan_unit(ch), bn_chan_label(ch), e->src, bn_chan_unit(ch));
		if (!funit[0] && !e->set && ch == BN_CH_IBUS)
			bn_warn("%s: the file does not say IBUS's unit: taken as %s (a shunt voltage "
				"needs --map IBUS=%s:shunt=OHMS)",
				path, e->unit, e->src);
		r->sel_ch[r->n_sel] = ch;
		r->sel_src[r->n_sel] = idx;
		r->gain[r->n_sel] = e->scale * e->to_si;
		bn_str_copy(rep->chan_src[ch], sizeof(rep->chan_src[ch]), in->ch[idx].name);
		rep->chan_gain[ch] = r->gain[r->n_sel];
		r->n_sel++;
		r->ctx.channels |= 1u << ch;
	}
	if (!(r->ctx.channels & (1u << BN_CH_VBUS)) ||
	    !(r->ctx.channels & ((1u << BN_CH_IBUS) | (1u << BN_CH_DP))))
		return bn_err_set(err, BN_ERR_DATA,
				  "%s: error: replay needs VBUS, and IBUS or DP; missing %s%s%s (the "
				  "file has: %s; name them with --map VBUS=...,IBUS=...)",
				  path, r->ctx.channels & (1u << BN_CH_VBUS) ? "" : "VBUS",
				  !(r->ctx.channels & (1u << BN_CH_VBUS)) &&
						  !(r->ctx.channels & ((1u << BN_CH_IBUS) | (1u << BN_CH_DP)))
					  ? " and "
					  : "",
				  r->ctx.channels & ((1u << BN_CH_IBUS) | (1u << BN_CH_DP)) ? ""
											      : "IBUS or DP",
				  have);
	return bn_srr_select(r->srr, r->n_sel, r->sel_src, err);
}

/* Whether the record is of a real bench: the report beside its sidecar
 * says (bench.backend), else the sidecar's charger recorded without a
 * cable (the runner leaves it unknown on a real bench). 1 real, 0 the
 * simulated bench, -1 not known (a bare capture). */
static int record_real(const struct replay *r)
{
	char dir[1024], path[1100];
	cJSON *doc = NULL;
	struct bn_err e = { 0 };
	int real = -1;

	if (!r->have_evrec || !r->o->events_path)
		return -1;
	snprintf(dir, sizeof(dir), "%s", r->o->events_path);
	snprintf(path, sizeof(path), "%s/report.json", dirname(dir));
	if (access(path, R_OK) == 0 && bn_json_load(path, &doc, &e) == BN_OK) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "bench");
		const cJSON *be = cJSON_GetObjectItemCaseSensitive(b, "backend");

		if (cJSON_IsString(be) && !strcmp(be->valuestring, "real"))
			real = 1;
		else if (cJSON_IsString(be) && !strcmp(be->valuestring, "sim"))
			real = 0;
	}
	cJSON_Delete(doc);
	if (real < 0 && r->evrec.ctx.charger_name)
		real = isnan(r->evrec.ctx.cable_ohm) ? 1 : 0;
	return real;
}

/* The charger behind the port, for the port rules: as the capture's
 * sidecar recorded it, or --charger's profile (its rating, whether it is
 * meant to be compliant, and its cable as the runner takes it: the
 * profile's only for a record of the simulated bench; a real bench's own
 * cable is not the profile's, and a bare capture does not say which).
 * Neither: the port rules know no charger. */
static int load_charger(struct replay *r, struct bn_report *rep, struct bn_err *err)
{
	struct bn_charger *ch;
	struct bn_err e2 = { 0 };
	char path[1200], hint[1100];
	int rc;

	/* the sidecar's record stands unless --charger says otherwise */
	if (!r->have_evrec) {
		r->ctx.charger_name = NULL;
		r->ctx.cable_ohm = NAN;
		r->ctx.charger_compliant = -1;
	}
	if (!r->o->charger)
		return BN_OK;
	resolve(r->o, "chargers", r->o->charger, path, sizeof(path));
	if (access(path, R_OK) != 0)
		return bn_err_set(err, BN_ERR_IO, "--charger %s: cannot open %s%s", r->o->charger, path,
					  dd_hint(r->o, "chargers", r->o->charger, hint, sizeof(hint)));
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	rc = bn_charger_load(path, ch, &e2);
	if (rc < 0) {
		free(ch);
		return bn_err_set(err, rc, "%s", e2.msg);
	}
	snprintf(r->charger_name, sizeof(r->charger_name), "%s", ch->name);
	r->ctx.charger_name = r->charger_name;
	r->ctx.charger_rated_a = ch->rated_a;
	r->ctx.charger_compliant = ch->compliant;
	r->ctx.cable_ohm = record_real(r) == 0 ? ch->cable_ohm : NAN;
	r->ctx.cable_u_ohm = 0;
	bn_report_add_file(rep, "charger", path, ch->name);
	free(ch);
	return BN_OK;
}

static int load_context(struct replay *r, struct bn_report *rep, struct bn_err *err)
{
	const struct bn_srr_info *in = bn_srr_info(r->srr);
	struct bn_err e2 = { 0 };
	char path[1200], hint[1100];
	int rc;

	r->ctx.lim = &r->lim;
	r->ctx.rate_hz = in->rate_hz;
	if (r->o->events_path) {
		rc = bn_evrec_load(r->o->events_path, &r->evrec, err);
		if (rc < 0)
			return rc;
		r->have_evrec = true;
		bn_report_add_file(rep, "events", r->o->events_path, NULL);
		if (r->evrec.ctx.rate_hz > 0 && fabs(r->evrec.ctx.rate_hz - in->rate_hz) > 1e-6 * in->rate_hz)
			return bn_err_set(err, BN_ERR_DATA,
					  "%s: error: recorded at %g Hz, but %s is at %g Hz (is it "
					  "this capture's sidecar?)",
					  r->o->events_path, r->evrec.ctx.rate_hz, r->o->capture_path,
					  in->rate_hz);
		{
			unsigned ch = r->ctx.channels;

			r->ctx = r->evrec.ctx;
			r->ctx.lim = &r->lim;
			r->ctx.rate_hz = in->rate_hz;
			r->ctx.channels = ch;
		}
		snprintf(r->port_name, sizeof(r->port_name), "%s", r->evrec.port_profile);
	} else {
		const struct bn_limit *sv = bn_limits_find(&r->lim, "VOTG_SESS_VLD");
		const struct bn_limit *lg = bn_limits_find(&r->lim, "VLGC");

		r->ctx.port_unknown = true;
		r->ctx.decl_unknown = true;
		r->inf.on = true;
		r->inf.vbus_on_v = sv ? sv->min : NAN;
		r->inf.dp_high_v = lg ? lg->max : NAN;
		r->inf.dp_low_v = lg ? lg->min : NAN;
		r->inf.use_dp = (r->ctx.channels & (1u << BN_CH_DP)) != 0;
		r->ctx.events = BN_CEV_BIT(BN_CEV_VBUS_ON) | BN_CEV_BIT(BN_CEV_VBUS_OFF);
		if (r->inf.use_dp)
			r->ctx.events |= BN_CEV_BIT(BN_CEV_CONNECT) | BN_CEV_BIT(BN_CEV_DISCONNECT);
	}
	if (r->o->origins)
		r->ctx.events &= bn_origin_kinds(r->o->origins);
	/* Each channel's accuracy: --uncertainty, else the record's, else
	 * estimated from the samples (and said to be unknown). */
	for (int ch = 0; ch < BN_CH_COUNT; ch++) {
		if (r->o->meas_given & (1u << ch)) {
			r->ctx.meas[ch] = r->o->meas[ch];
			r->ctx.meas_src[ch] = BN_MEAS_SRC_GIVEN;
		} else if (r->have_evrec && (r->evrec.meas_known & (1u << ch))) {
			r->ctx.meas_src[ch] = BN_MEAS_SRC_GIVEN;
		} else {
			bn_meas_ideal(&r->ctx.meas[ch]);
			r->ctx.meas_src[ch] = BN_MEAS_SRC_ESTIMATED;
		}
	}
	r->ctx.acceptance = r->o->acceptance;
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		if (r->o->perturb_set & (1u << ch)) {
			bn_meas_combine(&r->ctx.meas[ch], &r->ctx.meas[ch], &r->o->perturb[ch]);
			/* an estimated channel is estimated after the perturbation */
		}
	bn_rng_seed(&r->rng, r->o->perturb_seed ? r->o->perturb_seed : 1);
	if (r->o->port) {
		struct bn_port_profile port;

		resolve(r->o, "ports", r->o->port, path, sizeof(path));
		if (access(path, R_OK) != 0)
			return bn_err_set(err, BN_ERR_IO, "--port %s: cannot open %s%s", r->o->port, path,
					  dd_hint(r->o, "ports", r->o->port, hint, sizeof(hint)));
		rc = bn_port_load(path, &r->lim, &port, &e2);
		if (rc < 0)
			return bn_err_set(err, rc, "%s", e2.msg);
		r->ctx.port = port.expect;
		r->ctx.port_unknown = false;
		r->ctx.dp_pulldown_ohm = port.dp_pulldown_ohm;
		r->ctx.dm_pulldown_ohm = port.dm_pulldown_ohm;
		r->ctx.dp_dm_short_ohm = port.dp_dm_short_ohm;
		snprintf(r->port_name, sizeof(r->port_name), "%s", port.name);
		bn_report_add_file(rep, "port", path, port.name);
	}
	if (r->o->dut) {
		struct bn_dut_decl *d = calloc(1, sizeof(*d));
		unsigned keep = r->ctx.decl & BN_DECL_DEAD_BATTERY;

		if (!d)
			return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
		resolve(r->o, "duts", r->o->dut, path, sizeof(path));
		if (access(path, R_OK) != 0) {
			free(d);
			return bn_err_set(err, BN_ERR_IO, "--dut %s: cannot open %s%s", r->o->dut, path,
					  dd_hint(r->o, "duts", r->o->dut, hint, sizeof(hint)));
		}
		rc = bn_dut_load(path, &r->lim, d, &e2);
		if (rc < 0) {
			free(d);
			return bn_err_set(err, rc, "%s", e2.msg);
		}
		/* Whether the battery started dead is a fact of the run, not
		 * of the declaration: only the sidecar can say. */
		r->ctx.decl = keep;
		if (d->battery_powered)
			r->ctx.decl |= BN_DECL_BATTERY;
		if (d->dbp)
			r->ctx.decl |= BN_DECL_DBP;
		if (d->otg_rating_a > 0)
			r->ctx.decl |= BN_DECL_OTG;
		if (d->secondary_detection)
			r->ctx.decl |= BN_DECL_SECONDARY;
		if (d->droop_threshold_v > 0)
			r->ctx.decl |= BN_DECL_DROOP;
		r->ctx.droop_threshold_v = d->droop_threshold_v;
		rep->droop_threshold_v = d->droop_threshold_v;
		r->ctx.otg_rating_a = d->otg_rating_a;
		r->ctx.decl_unknown = false;
		bn_report_add_file(rep, "dut", path, d->name);
		free(d);
	}
	return BN_OK;
}

static void emit(struct replay *r, enum bn_cev_kind kind, bn_time_us t)
{
	/* VBUS crossing the session-valid threshold is how testers define
	 * attach and removal: a measurement. A connect read off D+ is a guess
	 * (a D+ that sits high before the data pins touch, an SRP pulse). */
	struct bn_cev ev = { .kind = kind, .t_us = t,
			     .inferred = kind == BN_CEV_CONNECT || kind == BN_CEV_DISCONNECT };

	bn_checks_event(r->checks, &ev);
}

/* Before the sample at t: what crossing it shows. Each level must hold
 * for BN_PERSIST_LEVEL_US (and BN_PERSIST_MIN_SAMPLES) and is dated at
 * its first sample. A capture that starts with VBUS already on has no
 * attach in it: its VBUS_ON at the first sample is marked inferred, so
 * nothing passes on that time. A connect is a D+ rise after the data
 * lines touched (D+ seen low since VBUS came): a D+ that sits high
 * before the pins touch is not one. */
static void infer_sample(struct replay *r, bn_time_us t, const struct bn_sample *s)
{
	struct infer *f = &r->inf;
	double vbus = s->v[BN_CH_VBUS], dp = s->v[BN_CH_DP];
	bn_time_us tc;

	if (!f->started) {
		bool on = vbus > f->vbus_on_v;

		f->started = true;
		bn_persist_init(&f->vbus, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, on);
		bn_persist_init(&f->dp_high, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
		bn_persist_init(&f->dp_low, BN_PERSIST_LEVEL_US, BN_PERSIST_MIN_SAMPLES, false);
		if (on) {
			struct bn_cev ev = { .kind = BN_CEV_VBUS_ON, .t_us = t, .inferred = true };

			bn_checks_event(r->checks, &ev);
		}
	} else if (!isnan(vbus) && bn_persist_feed(&f->vbus, vbus > f->vbus_on_v, t, t, 1, &tc)) {
		if (!f->vbus.state && f->connected) {
			f->connected = false;
			emit(r, BN_CEV_DISCONNECT, tc);
		}
		emit(r, f->vbus.state ? BN_CEV_VBUS_ON : BN_CEV_VBUS_OFF, tc);
		f->contact = false;
	}
	if (!f->use_dp || !f->vbus.state || isnan(dp))
		return;
	if (bn_persist_feed(&f->dp_low, dp < f->dp_low_v, t, t, 1, &tc) && f->dp_low.state) {
		f->contact = true;
		if (f->connected) {
			f->connected = false;
			emit(r, BN_CEV_DISCONNECT, tc);
		}
	}
	if (bn_persist_feed(&f->dp_high, dp > f->dp_high_v, t, t, 1, &tc) && f->dp_high.state &&
	    f->contact && !f->connected) {
		f->connected = true;
		emit(r, BN_CEV_CONNECT, tc);
	}
}

/* A level change waiting for its persistence: equal frames still count
 * toward it, so they go through infer_sample() one by one. */
static bool infer_pending(const struct infer *f)
{
	return bn_persist_pending(&f->vbus) || bn_persist_pending(&f->dp_high) ||
	       bn_persist_pending(&f->dp_low);
}

static void ring_due(struct replay *r);

/* The record's expectations, parsed as the scenario language reads them. */
static int setup_expects(struct replay *r, struct bn_err *err)
{
	bn_time_us longest = 0;

	if (!r->have_evrec || !r->evrec.n_expects)
		return BN_OK;
	r->rx = calloc((size_t)r->evrec.n_expects, sizeof(*r->rx));
	if (!r->rx)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	for (int i = 0; i < r->evrec.n_expects; i++) {
		const struct bn_evrec_expect *e = &r->evrec.expects[i];
		struct rexp *x = &r->rx[r->n_rx++];
		struct bn_scenario scn;
		struct bn_err e2 = { 0 };
		char text[600];

		x->t_us = e->t_us;
		x->line = e->line;
		x->text = e->text;
		x->n_before = e->n_before;
		snprintf(text, sizeof(text), "%s\n", e->text);
		if (bn_scenario_parse_text("events.json", text, &scn, &e2) == BN_OK && scn.n_steps == 1 &&
		    scn.steps[0].kind == BN_STEP_EXPECT) {
			x->ex = scn.steps[0].expect;
			x->parsed = true;
			if (x->ex.kind == BN_EXPECT_STAT && x->ex.window_us > longest)
				longest = x->ex.window_us;
		}
		bn_scenario_free(&scn);
	}
	if (bn_ring_init(&r->ring, longest, r->ctx.rate_hz) < 0)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory for the expectations' window");
	r->ring_on = true;
	ring_due(r);
	return BN_OK;
}

/* The device's last report of key before the expectation, from the
 * record (events at its time but written after it came after it). */
static const char *telemetry_before(const struct replay *r, const char *key, int n_before)
{
	const char *v = NULL;

	for (int i = 0; i < r->evrec.n && i < n_before; i++)
		if (r->evrec.ev[i].kind == BN_CEV_TELEMETRY && r->evrec.ev[i].key &&
		    !strcmp(r->evrec.ev[i].key, key))
			v = r->evrec.ev[i].text;
	return v;
}

/* The next expectation's time, and from when the frames before it must
 * be written: at least ring.cap of them (frames are 1/rate apart, give or
 * take a microsecond of rounding), with a margin of as many again. None
 * left: nothing reads the ring again. */
static void ring_due(struct replay *r)
{
	double span_us, last_t, from;

	if (r->next_rx >= r->n_rx) {
		r->next_rx_t = r->ring_from_t = INT64_MAX;
		return;
	}
	r->next_rx_t = r->rx[r->next_rx].t_us;
	span_us = 2.0 * (double)(r->ring.cap + 2) * (1e6 / r->ctx.rate_hz + 1.0);
	/* The capture may end before the expectation (a salvaged capture,
	 * --events of a longer record): then the end judges it on the
	 * capture's last frames, so those are always written. */
	last_t = (double)r->ctx.t_start_us +
		 (double)bn_srr_info(r->srr)->n_frames * (1e6 / r->ctx.rate_hz);
	from = (double)r->next_rx_t < last_t ? (double)r->next_rx_t : last_t;
	r->ring_from_t = from - span_us > (double)INT64_MIN / 2 ? (bn_time_us)(from - span_us) : INT64_MIN;
}

/* Every expectation due at or before the frame at t: a live run judges
 * at world time T on the frames taken before T, so the ring holds the
 * frames before t. */
static void judge_expects(struct replay *r, bn_time_us t, struct bn_report *rep)
{
	while (r->next_rx < r->n_rx && r->rx[r->next_rx].t_us <= t) {
		const struct rexp *x = &r->rx[r->next_rx++];
		struct bn_result *res = bn_report_add(rep);

		if (!res)
			return;
		bn_expect_result_init(res, x->line, x->text);
		if (!x->parsed) {
			bn_result_inconclusive(res, "the record's expectation cannot be read");
		} else if (x->ex.kind == BN_EXPECT_STAT) {
			bn_expect_judge_stat(&x->ex, &r->ring, r->ctx.rate_hz,
					     (r->ctx.channels & (1u << x->ex.chan)) != 0, x->t_us, res);
		} else if (!(r->ctx.events & BN_CEV_BIT(BN_CEV_TELEMETRY))) {
			res->t0_us = res->t1_us = x->t_us;
			bn_result_inconclusive(res, "judged on the device's telemetry, which this replay "
					       "does not use");
		} else {
			bn_expect_judge_value(&x->ex, telemetry_before(r, x->ex.key, x->n_before), " in the record",
					      x->t_us, res);
		}
	}
	ring_due(r);
}

static inline void ring_frame(struct replay *r, bn_time_us t, const struct bn_sample *s,
			      struct bn_report *rep)
{
	if (!r->ring_on)
		return;
	if (t >= r->next_rx_t)
		judge_expects(r, t, rep);
	if (t < r->ring_from_t) {
		r->ring_skip++;
		return;
	}
	if (r->ring_skip) {
		struct bn_sample_ring *w = &r->ring;

		w->head = (long)((w->head + r->ring_skip) % w->cap);
		w->n = w->n + r->ring_skip < w->cap ? w->n + r->ring_skip : w->cap;
		r->ring_skip = 0;
	}
	bn_ring_push(&r->ring, s);
}

/* ring_frame() for n frames of one value at the times t[0..n-1]. */
static inline void ring_frames(struct replay *r, const bn_time_us *t, long n,
			       const struct bn_sample *s, struct bn_report *rep)
{
	if (!r->ring_on || n == 0)
		return;
	if (t[n - 1] < r->next_rx_t && t[n - 1] < r->ring_from_t) {
		r->ring_skip += n;
		return;
	}
	for (long j = 0; j < n; j++)
		ring_frame(r, t[j], s, rep);
}

/* The record's moves of the device due at or before the frame at t (a
 * live run moves before the frames of the move's time): the events
 * recorded before each first, then the checks judge a new session on the
 * new port. The next move's time. */
static bn_time_us replay_moves(struct replay *r, bn_time_us t, int *next_ev)
{
	while (r->next_mv < r->evrec.n_moves && r->evrec.moves[r->next_mv].t_us <= t) {
		const struct bn_evrec_move *m = &r->evrec.moves[r->next_mv++];
		struct bn_check_ctx next = r->ctx;
		struct bn_err e = { 0 };

		while (*next_ev < r->evrec.n && *next_ev < m->n_before)
			bn_checks_event(r->checks, &r->evrec.ev[(*next_ev)++]);
		next.port = m->port.port;
		next.port_unknown = false;
		next.port_name = m->port_profile;
		next.dp_pulldown_ohm = m->port.dp_pulldown_ohm;
		next.dm_pulldown_ohm = m->port.dm_pulldown_ohm;
		next.dp_dm_short_ohm = m->port.dp_dm_short_ohm;
		/* the move's own name (its ctx's pointer does not survive the
		 * loader's realloc) */
		if (m->charger_name[0] && !r->o->charger) {
			next.charger_name = m->charger_name;
			next.charger_rated_a = m->port.charger_rated_a;
			next.cable_ohm = m->port.cable_ohm;
			next.cable_u_ohm = m->port.cable_u_ohm;
			next.charger_compliant = m->port.charger_compliant;
		}
		if (bn_checks_move(r->checks, m->t_us, &next, &e) < 0)
			bn_err_log("replay: move at %.6f s: %s", bn_time_to_s(m->t_us), e.msg);
	}
	return r->next_mv < r->evrec.n_moves ? r->evrec.moves[r->next_mv].t_us : INT64_MAX;
}

/* The record's moves, then its events, due at or before the frame at t;
 * the times of the next of each. */
static inline void record_due(struct replay *r, bn_time_us t, int *next_ev, bn_time_us *next_mv_t,
			      bn_time_us *next_ev_t)
{
	int n_ev = r->have_evrec ? r->evrec.n : 0;

	if (t >= *next_mv_t) {
		*next_mv_t = replay_moves(r, t, next_ev);
		*next_ev_t = *next_ev < n_ev ? r->evrec.ev[*next_ev].t_us : INT64_MAX;
	}
	if (t >= *next_ev_t) {
		while (*next_ev < n_ev && r->evrec.ev[*next_ev].t_us <= t)
			bn_checks_event(r->checks, &r->evrec.ev[(*next_ev)++]);
		*next_ev_t = *next_ev < n_ev ? r->evrec.ev[*next_ev].t_us : INT64_MAX;
	}
}

/* bn_ticker_next() on stream()'s locals, which stay in registers (the
 * ticker struct's address escapes, so its fields would be reloaded). */
#define NEXT_TICK() (exact ? tick_step(&q, &rr, dq, dr, den) : bn_tick_time(k, rate))

static inline bn_time_us tick_step(int64_t *q, int64_t *rr, int64_t dq, int64_t dr, int64_t den)
{
	bn_time_us t = *q;

	*q += dq;
	*rr += dr;
	if (*rr >= den) {
		*rr -= den;
		(*q)++;
	}
	return t;
}

static int stream(struct replay *r, struct bn_report *rep, bn_time_us *t_end, struct bn_err *err)
{
	const double rate = r->ctx.rate_hz;
	const bn_time_us t0 = r->ctx.t_start_us;
	struct reader *rd = malloc(sizeof(*rd)); /* big: not on the stack */
	struct bn_ticker tk;
	int64_t q, rr, dq, dr, den;
	bool exact;
	struct block *b;
	struct bn_sample s;
	bn_time_us tbuf[REPLAY_RUN_TIMES];
	bool have_prev = false;
	bn_time_us next_ev_t, next_mv_t;
	int next_ev = 0, n_ev = r->have_evrec ? r->evrec.n : 0;
	int64_t k = 0;
	long n;
	int rc;

	if (!rd)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	/* --perturb's noise is estimated after it is added: by the engine */
	rc = reader_start(rd, r->srr, r->n_sel, r->sel_ch, r->gain,
			  r->o->perturb_set ? 0 : bn_checks_estimate_outside(r->checks), err);
	if (rc < 0) {
		reader_end(rd);
		return rc;
	}
	/* The live run's tick times, so the two line up; the ticker's state
	 * in locals (registers: it steps once a frame). */
	bn_ticker_init(&tk, rate, 0);
	q = tk.q;
	rr = tk.r;
	exact = tk.exact;
	dq = tk.dq;
	dr = tk.dr;
	den = tk.den;
	next_ev_t = n_ev ? r->evrec.ev[0].t_us : INT64_MAX;
	next_mv_t = r->have_evrec && r->evrec.n_moves ? r->evrec.moves[0].t_us : INT64_MAX;
	for (int ch = 0; ch < BN_CH_COUNT; ch++)
		s.v[ch] = NAN;
	while ((n = (b = reader_next(rd))->n) > 0) {
		if (r->o->stop_flag && *r->o->stop_flag) {
			reader_end(rd);
			*t_end = t0 + bn_tick_time(k, rate);
			return BN_ERR_INTR;
		}
		for (long x = 0; x < b->n_e; x++) {
			const struct entry *en = &b->e[x];
			long left = en->n;
			/* the entry's first frame equals the last one, as stored */
			bool again = x == 0 && b->cont;

			while (left > 0) {
				const struct bn_sample *sp = &en->s;
				bn_time_us t;

				/* A run of frames equal to the last (as stored): no
				 * inference changes, and the engine takes them as
				 * repeats. Their times in batches; a batch stops short at
				 * the next move or event, which come between frames as
				 * one by one. */
				if (again && have_prev && !r->o->perturb_set &&
				    !(r->inf.on && infer_pending(&r->inf))) {
					while (left > 0) {
						long m = left < REPLAY_RUN_TIMES ? left : REPLAY_RUN_TIMES;

						for (long j = 0; j < m; j++)
							tbuf[j] = t0 + NEXT_TICK();
						for (long c = 0, d; c < m; c = d) {
							bn_time_us lim = next_mv_t < next_ev_t ? next_mv_t : next_ev_t;

							d = c;
							while (d < m && tbuf[d] < lim)
								d++;
							ring_frames(r, tbuf + c, d - c, sp, rep);
							bn_checks_sample_again_n(r->checks, tbuf + c, d - c);
							if (d == m)
								break;
							record_due(r, tbuf[d], &next_ev, &next_mv_t, &next_ev_t);
						}
						left -= m;
						k += m;
					}
					break;
				}
				t = t0 + NEXT_TICK();
				if (t >= next_mv_t || t >= next_ev_t)
					record_due(r, t, &next_ev, &next_mv_t, &next_ev_t);
				have_prev = true;
				if (r->o->perturb_set) {
					for (int j = 0; j < r->n_sel; j++)
						s.v[r->sel_ch[j]] = en->s.v[r->sel_ch[j]];
					for (int ch = 0; ch < BN_CH_COUNT; ch++)
						if (r->o->perturb_set & (1u << ch))
							s.v[ch] = bn_meas_apply(&r->o->perturb[ch], &r->rng,
										s.v[ch], 0);
					sp = &s;
				}
				if (r->inf.on)
					infer_sample(r, t, sp);
				ring_frame(r, t, sp, rep);
				bn_checks_sample(r->checks, t, sp);
				left--;
				k++;
				again = true;
			}
		}
		if (rd->est_ch)
			bn_checks_add_estimate(r->checks, &b->est);
		reader_release(rd);
	}
	if (n < 0)
		rc = bn_err_set(err, (int)n, "%s", rd->err.msg);
	reader_end(rd);
	if (n < 0)
		return rc;
	rep->n_samples = (long)k;
	*t_end = t0 + bn_tick_time(k, rate);
	if (r->have_evrec && r->evrec.t_end_us > *t_end)
		*t_end = r->evrec.t_end_us;
	if (r->ring_on)
		judge_expects(r, *t_end, rep);
	while (next_ev < n_ev && r->evrec.ev[next_ev].t_us <= *t_end)
		bn_checks_event(r->checks, &r->evrec.ev[next_ev++]);
	return BN_OK;
}

/* The record is of a run that did not complete (it crashed, hung, was
 * stopped; its capture was salvaged): the run itself judged nothing on a
 * partial stream, and neither may its replay. Each verdict becomes
 * inconclusive, saying what it would have been, so the evidence of what
 * led up to the end is still there to read. */
static void partial_record(struct replay *r, struct bn_report *rep, int first)
{
	char why[200];

	if (r->evrec.t_end_us >= 0)
		snprintf(why, sizeof(why),
			 "the recorded run did not complete (status \"%s\", ended at t=%.3f s)",
			 r->evrec.status, bn_time_to_s(r->evrec.t_end_us));
	else
		snprintf(why, sizeof(why), "the recorded run did not complete (status \"%s\")",
			 r->evrec.status);
	bn_str_fmt(rep->reason, sizeof(rep->reason), "%s: every verdict is inconclusive", why);
	for (int i = first; i < rep->n_results; i++) {
		struct bn_result *res = &rep->results[i];
		char was[sizeof(res->reason)];

		if (res->verdict == BN_VERDICT_SKIPPED)
			continue;
		snprintf(was, sizeof(was), "%s", res->reason);
		/* the cause first: it is what the reader needs; what the
		 * verdict would have been is cut if it must be */
		snprintf(res->reason, sizeof(res->reason), "%s; would be %s%s", why,
			 bn_verdict_name(res->verdict), was[0] ? ": " : "");
		snprintf(res->reason + strlen(res->reason), sizeof(res->reason) - strlen(res->reason),
			 "%s", was);
		res->verdict = BN_VERDICT_INCONCLUSIVE;
	}
}

int bn_replay(const struct bn_replay_opts *o, struct bn_report *rep, struct bn_err *err)
{
	struct replay *r = calloc(1, sizeof(*r));
	double w0 = bn_mono_s();
	bn_time_us t_end = 0;
	struct hasher hash = { .rc = BN_ERR_IO };
	struct bn_file_ref *cap_file = NULL;
	int rc, first;

	if (!r)
		return bn_err_set(err, BN_ERR_NOMEM, "out of memory");
	r->o = o;
	snprintf(rep->backend, sizeof(rep->backend), "replay");
	rc = load_limits(r, rep, err);
	if (rc < 0)
		goto out;
	rc = bn_srr_open(o->capture_path, &r->srr, err);
	if (rc < 0)
		goto out;
	/* the file by its absolute path: the record's page finds it from
	 * wherever it is rendered (a path relative to where the replay ran
	 * would name another file, or none, from elsewhere) */
	{
		char *abs = realpath(o->capture_path, NULL);

		cap_file = bn_report_add_file_sha(rep, "capture", abs ? abs : o->capture_path, NULL, "");
		free(abs);
	}
	hash.path = o->capture_path;
	hash.started = pthread_create(&hash.th, NULL, hasher_main, &hash) == 0;
	rc = map_channels(r, rep, err);
	if (rc < 0)
		goto out;
	rc = load_context(r, rep, err);
	if (rc < 0)
		goto out;
	rc = load_charger(r, rep, err);
	if (rc < 0)
		goto out;
	rc = bn_checks_new(&r->ctx, &r->checks, err);
	if (rc < 0)
		goto out;
	rc = setup_expects(r, err);
	if (rc < 0)
		goto out;
	snprintf(rep->scenario_name, sizeof(rep->scenario_name), "replay of %.60s%s%.80s%s",
		 o->capture_path, r->evrec.scenario[0] ? " (" : "", r->evrec.scenario,
		 r->evrec.scenario[0] ? ")" : "");
	snprintf(rep->port_name, sizeof(rep->port_name), "%.47s", r->port_name);
	snprintf(rep->port_expect, sizeof(rep->port_expect), "%s",
		 r->ctx.port_unknown ? "unknown" : bn_port_name(r->ctx.port));
	rep->rate_hz = r->ctx.rate_hz;
	rep->channel_mask = r->ctx.channels;
	for (int i = 0; r->ctx.configs_known && i < r->ctx.n_configs; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddNumberToObject(c, "bConfigurationValue", r->ctx.config_value[i]);
		cJSON_AddNumberToObject(c, "max_power_ma", r->ctx.config_max_power_a[i] * 1e3);
		cJSON_AddNullToObject(c, "self_powered"); /* the record does not say */
		cJSON_AddItemToArray(rep->configs, c);
	}

	/* the expectations judged during the stream, then the rules */
	first = rep->n_results;
	rc = stream(r, rep, &t_end, err);
	if (rc == BN_ERR_DATA || rc == BN_ERR_IO || rc == BN_ERR_NOMEM)
		goto out; /* a broken capture: bad input, no verdicts */
	bn_checks_end(r->checks, t_end, rep);
	if (rc == BN_OK) {
		rep->status = BN_RUN_COMPLETED;
	} else {
		rep->status = BN_RUN_ABORTED;
		rep->exit_code = bn_exit_of_err(rc, o->stop_flag ? (int)*o->stop_flag : 0);
		snprintf(rep->reason, sizeof(rep->reason), "interrupted at t=%.3f s of the capture",
			 bn_time_to_s(t_end));
		for (int i = first; i < rep->n_results; i++)
			if (rep->results[i].verdict != BN_VERDICT_SKIPPED) {
				rep->results[i].verdict = BN_VERDICT_ERROR;
				snprintf(rep->results[i].reason, sizeof(rep->results[i].reason),
					 "the replay ended early: %.200s", rep->reason);
			}
	}
	if (rc == BN_OK && r->evrec.status[0] && strcmp(r->evrec.status, "completed"))
		partial_record(r, rep, first);
	for (int i = first; o->progress && i < rep->n_results; i++)
		if (rep->results[i].verdict != BN_VERDICT_SKIPPED)
			bn_result_print(o->progress, &rep->results[i]);
	rep->sim_s = bn_time_to_s(t_end);
	rc = BN_OK;
out:
	if (hash.started) {
		pthread_join(hash.th, NULL);
		if (cap_file && hash.rc == BN_OK)
			snprintf(cap_file->sha256, sizeof(cap_file->sha256), "%s", hash.hex);
	}
	rep->wall_s = bn_mono_s() - w0;
	bn_checks_free(r->checks);
	bn_ring_free(&r->ring);
	free(r->rx);
	bn_srr_close(r->srr);
	if (r->have_evrec)
		bn_evrec_free(&r->evrec);
	if (r->have_lim)
		bn_limits_free(&r->lim);
	free(r);
	return rc;
}
