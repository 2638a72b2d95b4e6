/* srzip writer: chunks compressed as they fill, appended to a zip of our
 * own (capture/zipw.h).
 *
 * The layout is what libsigrok 0.5.2 writes (src/output/srzip.c) and
 * loads (src/session_file.c, src/session_driver.c) for a device with
 * analog channels only:
 *   version                "2"
 *   metadata               [global] sigrok version=...
 *                          [device 1] samplerate=1 MHz, total probes=0,
 *                          total analog=N,
 *                          analog1=VBUS ... analogN=ID, bcbench units=V;A;...
 *   analog-1-<i>-<k>       raw little-endian float32, channel i (1-based),
 *                          chunk k (1-based, consecutive: the loader
 *                          stops at the first missing one)
 * "total probes=0" and no capturefile: with capturefile set, the session
 * driver looks for logic-1 first and ends the feed when it is missing.
 * "bcbench units" starts with neither "probe" nor "analog", the prefixes
 * the loader owns, so libsigrok ignores it.
 *
 * The spool directory DIR/.NAME.XXXXXX holds:
 *   NAME.part  the zip so far: version, metadata, then the members of
 *              every chunk compressed so far, chunk by chunk (channels
 *              1..N); written with pwrite, so it outlives the process
 *   pending    a header (struct srw_pending) and the frames not yet in
 *              NAME.part, frame-major float32, in n_slots slots of one
 *              chunk each: chunk k lives in slot k % n_slots. Mapped
 *              shared, grown as frames arrive.
 * At close the last partial chunk is compressed, the central directory
 * written, NAME.part fsynced and renamed to PATH, the spool removed. */
#define _GNU_SOURCE /* mremap */
#define BN_LOG_MODULE "capture"
#include "capture/srzip_write.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <libdeflate.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/sizestr.h"
#include "capture/zipw.h"
#include "core/file.h"
#include "core/log.h"

#define SRW_MAX_CHUNK (1L << 28) /* 1 GiB members at most */
#define SRW_NAME_MAX 63		 /* struct bn_srr_chan.name */
#define SRW_UNIT_MAX 7		 /* struct bn_srr_chan.unit */
#define SRW_RATE_MAX 1e12
#define SRW_MAX_THREADS 64
#define SRW_PENDING_MAGIC "BNSRWPD2"
#define SRW_PENDING_HDR 64   /* bytes before the slots: keeps them aligned */
#define SRW_PENDING_MIN 4096 /* the pending file's first size, then doubled */
/* what the metadata's [global] "sigrok version" says: the libsigrok
 * release whose srzip layout this is (not a library this code loads) */
#define SRW_SIGROK_VERSION "0.5.2"
/* local and central headers of one member, with its name, at most */
#define SRW_MEMBER_OVERHEAD 200

/* The head of spool/pending. The writer stores frames, then frames with
 * release order; zip_bytes and zip_frames move after the members of a
 * chunk are all in NAME.part. A salvage trusts exactly these. */
struct srw_pending {
	char magic[8];
	uint32_t n_ch;
	uint32_t n_slots;
	int64_t chunk;	    /* frames per chunk (and per slot) */
	int32_t level;	    /* -1 stored, else deflate level */
	uint32_t reserved;
	int64_t zip_bytes;  /* NAME.part holds complete members up to here */
	int64_t zip_frames; /* frames whose members are all in NAME.part */
	int64_t frames;	    /* frames written */
};

/* One member to make: channel ch of the chunk in slot src (n frames). */
struct srw_job {
	const float *src;
	long n;
	int ch;
	int method;
	uint32_t crc;
	size_t csize;
	unsigned char *out; /* the member's data, capacity out_cap */
	size_t out_cap;
	int err; /* 0 or ENOMEM */
};

/* A compressor and a column buffer: one per thread that compresses. */
struct srw_cmp {
	struct libdeflate_compressor *c;
	float *col;
	size_t col_cap; /* floats */
};

struct srw_pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t th[SRW_MAX_THREADS];
	int n_th;
	struct srw_job *jobs; /* the batch in flight: one chunk */
	int n_jobs, next, n_done;
	bool quit;
	int n_ch, level;
};

struct bn_srw {
	char *path;	 /* the capture */
	char *spool_dir; /* DIR/.NAME.XXXXXX, NULL once removed */
	char *zip_path;	 /* spool_dir/NAME.part */
	char *pend_path; /* spool_dir/pending */
	int zip_fd, pend_fd;
	struct bn_zipw *zip;
	int n_ch;
	char names[BN_SRW_MAX_CH][SRW_NAME_MAX + 1];
	char units[BN_SRW_MAX_CH][SRW_UNIT_MAX + 1];
	uint64_t rate;
	int level; /* -1 stored, else deflate level */
	bool no_sync; /* opts.no_sync */
	long chunk;
	int n_slots;
	int threads; /* for the pool, when it starts */
	int64_t frames;
	int64_t chunk_k; /* the chunk being filled, 0-based */
	long fill;	 /* its frames so far */
	long cap;	 /* frames its slot has room for in the mapping now */
	float *cur;	 /* its slot in the mapping */
	struct srw_pending *pend; /* the mapping of pending (or malloc'ed) */
	size_t pend_len;
	bool pend_private; /* no shared mapping: no salvage */
	struct srw_cmp cmp; /* the caller's */
	struct srw_job jobs[BN_SRW_MAX_CH];
	struct srw_pool *pool; /* NULL: compress in the caller's thread */
	bool in_flight;	       /* pool: jobs[] hold chunk chunk_k - 1 */
	int io_err; /* sticky: BN_OK or BN_ERR_ENV (BN_ERR_NOMEM) */
	int io_errno;
	const char *io_file; /* zip_path or pend_path */
};

/* ---- a frame into its slot ---- */

/* With a compressing thread, the thread reads each slot the caller
 * filled, so the slot's cache lines end up in the thread's core; two
 * chunks later the caller writes that slot again and every line must be
 * taken back from the other core first. Measured on a 2-vCPU machine
 * (10 kHz x 5 channels, 10 simulated minutes): the caller's run took
 * 0.46 s instead of 0.27 s, and the same run with the thread reading
 * nothing of the slot 0.27 s. Stores that bypass the cache (MOVNTI, in
 * every x86-64 CPU) leave no line to take back: 0.31 s. Without a thread
 * the caller compresses its own chunks, from its cache: plain stores. */
static inline void frame_put(float *b, const double *v, int n_ch)
{
	for (int c = 0; c < n_ch; c++)
		b[c] = (float)v[c];
}

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
static inline void frame_put_streaming(float *b, const double *v, int n_ch)
{
	for (int c = 0; c < n_ch; c++) {
		float f = (float)v[c];
		int bits;

		memcpy(&bits, &f, sizeof(bits));
		/* asm: clang compiles __builtin_ia32_movnti to a plain store */
		__asm__("movnti %1, %0" : "=m"(b[c]) : "r"(bits));
	}
}

/* streaming stores are weakly ordered: all of them out before another
 * thread is told the slot is full */
static inline void streaming_fence(void)
{
	__asm__ __volatile__("sfence" ::: "memory");
}
#else
#define frame_put_streaming frame_put

static inline void streaming_fence(void)
{
}
#endif

/* ---- samplerates as libsigrok writes them ---- */

/* sr_samplerate_string (sr_si_string_u64 with "Hz"): "1 MHz", "1.5 kHz",
 * "100 Hz": the quotient by the largest SI prefix that leaves it below
 * 1000, then the remainder's digits without trailing zeros. */
static void si_string(uint64_t x, char *buf, size_t len)
{
	static const char prefix[] = "\0kMGTPE";
	uint64_t div = 1, quot;
	char fract[32] = "";
	int i = 0;

	while ((quot = x / div) >= 1000 && i < 6) {
		div *= 1000;
		i++;
	}
	if (i) {
		int n = snprintf(fract, sizeof(fract), ".%0*llu", i * 3,
				 (unsigned long long)(x % div));

		while (n > 0 && (fract[n - 1] == '0' || fract[n - 1] == '.'))
			fract[--n] = '\0';
	}
	snprintf(buf, len, "%llu%s %.1s%s", (unsigned long long)quot, fract, prefix + i, "Hz");
}

int bn_srw_samplerate_string(uint64_t rate_hz, char *buf, size_t len)
{
	uint64_t back;
	bool overflow;

	si_string(rate_hz, buf, len);
	/* libsigrok's loader adds the fraction in double: a few renderings
	 * come back one Hz off, and those are written in plain Hz instead */
	if (bn_sizestr_parse(buf, &back, &overflow) != BN_OK || overflow || back != rate_hz)
		snprintf(buf, len, "%llu Hz", (unsigned long long)rate_hz);
	return (int)strlen(buf);
}

/* ---- errors ---- */

static void set_io_err(struct bn_srw *w, const char *file, int e)
{
	if (w->io_err != BN_OK)
		return;
	w->io_err = e == ENOMEM ? BN_ERR_NOMEM : bn_err_from_write_errno(e);
	w->io_errno = e;
	w->io_file = file;
}

int bn_srw_error(const struct bn_srw *w, struct bn_err *err)
{
	char why[160];

	if (!w || w->io_err == BN_OK)
		return BN_OK;
	return bn_err_set(err, w->io_err, "%s: error: writing the capture: %s (in %s)", w->path,
			  bn_errno_text(w->io_errno, why, sizeof(why)),
			  w->io_file ? w->io_file : "the spool");
}

/* ---- compressing a member ---- */

static void cmp_free(struct srw_cmp *c)
{
	if (c->c)
		libdeflate_free_compressor(c->c);
	free(c->col);
	memset(c, 0, sizeof(*c));
}

/* Channel ch of n frame-major frames at src into j->out: deflated when
 * that is smaller, else stored. The CRC is of the little-endian bytes. */
static void compress_job(struct srw_cmp *c, int level, int n_ch, struct srw_job *j)
{
	size_t bytes = (size_t)j->n * sizeof(float);
	float *col;

	j->err = 0;
	if (j->out_cap < bytes || !j->out) {
		free(j->out);
		j->out = malloc(bytes ? bytes : 1);
		j->out_cap = j->out ? bytes : 0;
	}
	if (c->col_cap < (size_t)j->n || !c->col) {
		free(c->col);
		c->col = malloc(bytes ? bytes : 1);
		c->col_cap = c->col ? (size_t)j->n : 0;
	}
	if (level >= 0 && !c->c)
		c->c = libdeflate_alloc_compressor(level);
	if (!j->out || !c->col || (level >= 0 && !c->c)) {
		j->err = ENOMEM;
		return;
	}
	col = c->col;
	for (long i = 0; i < j->n; i++)
		col[i] = j->src[(size_t)i * (size_t)n_ch + (size_t)j->ch];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (long i = 0; i < j->n; i++) {
		uint32_t u;

		memcpy(&u, &col[i], 4);
		u = __builtin_bswap32(u);
		memcpy(&col[i], &u, 4);
	}
#endif
	j->crc = (uint32_t)libdeflate_crc32(0, col, bytes);
	/* an output buffer the size of the input: noise that deflate would
	 * grow does not fit, and goes stored (0 from libdeflate) */
	j->csize = level >= 0 && bytes ? libdeflate_deflate_compress(c->c, col, bytes, j->out, bytes)
				       : 0;
	j->method = j->csize ? BN_ZIPW_DEFLATE : BN_ZIPW_STORE;
	if (!j->csize) {
		memcpy(j->out, col, bytes);
		j->csize = bytes;
	}
}

static int add_job_member(struct bn_zipw *z, int64_t chunk_k, const struct srw_job *j)
{
	char name[48];

	if (j->err)
		return j->err;
	snprintf(name, sizeof(name), "analog-1-%d-%lld", j->ch + 1, (long long)chunk_k + 1);
	return bn_zipw_add(z, name, j->method, j->crc, (uint64_t)j->n * sizeof(float), j->out,
			   j->csize);
}

static float *slot_at(struct srw_pending *p, long chunk, int n_ch, int slot)
{
	return (float *)((char *)p + SRW_PENDING_HDR) + (size_t)slot * (size_t)chunk * (size_t)n_ch;
}

/* ---- the pool: chunk k compressed while the caller fills k + 1 ---- */

static void *pool_main(void *arg)
{
	struct srw_pool *p = arg;
	struct srw_cmp c = { 0 };

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct srw_job *j;

		while (!p->quit && p->next >= p->n_jobs)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->quit)
			break;
		j = &p->jobs[p->next++];
		pthread_mutex_unlock(&p->mu);
		compress_job(&c, p->level, p->n_ch, j);
		pthread_mutex_lock(&p->mu);
		if (++p->n_done == p->n_jobs)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	cmp_free(&c);
	return NULL;
}

static void pool_stop(struct srw_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->n_th; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p);
}

/* Threads start lazily, with the first full chunk: a short run never
 * pays for them. NULL when none could start (the caller compresses). */
static struct srw_pool *pool_start(int n_th, int n_ch, int level)
{
	struct srw_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->n_ch = n_ch;
	p->level = level;
	for (int i = 0; i < n_th; i++) {
		if (pthread_create(&p->th[i], NULL, pool_main, p) != 0)
			break;
		p->n_th++;
	}
	if (!p->n_th) {
		pool_stop(p);
		return NULL;
	}
	return p;
}

static void pool_submit(struct srw_pool *p, struct srw_job *jobs, int n)
{
	pthread_mutex_lock(&p->mu);
	p->jobs = jobs;
	p->n_jobs = n;
	p->next = 0;
	p->n_done = 0;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
}

static void pool_wait(struct srw_pool *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->n_done < p->n_jobs)
		pthread_cond_wait(&p->done, &p->mu);
	p->n_jobs = 0;
	pthread_mutex_unlock(&p->mu);
}

/* ---- the pending file ---- */

static void pending_unmap(struct bn_srw *w)
{
	if (w->pend && w->pend_private)
		free(w->pend);
	else if (w->pend)
		munmap(w->pend, w->pend_len);
	w->pend = NULL;
}

/* Room for len bytes of pending. Blocks are reserved before the mapping
 * covers them: a page of a sparse file that cannot be allocated (a full
 * disk) would be a SIGBUS mid-run, blamed on the firmware. */
static int pending_grow(struct bn_srw *w, size_t len)
{
	size_t old;
	void *map;
	int e;

	if (len <= w->pend_len)
		return 0;
	if (w->pend_private) {
		map = realloc(w->pend, len);
		if (!map)
			return ENOMEM;
		memset((char *)map + w->pend_len, 0, len - w->pend_len);
		w->pend = map;
		w->pend_len = len;
		return 0;
	}
	e = posix_fallocate(w->pend_fd, (off_t)w->pend_len, (off_t)(len - w->pend_len));
	if (e)
		return e;
	/* The mapping grown in place of a new one: the pages already written
	 * keep their page-table entries (a new mapping faults each again). */
	map = mremap(w->pend, w->pend_len, len, MREMAP_MAYMOVE);
	if (map == MAP_FAILED)
		return errno;
	/* The new pages' faults taken in one call, not one trap a page (a
	 * few microseconds each in a virtual machine, hundreds a chunk); a
	 * kernel before 5.14 refuses it, and the pages fault as written. */
	old = w->pend_len & ~(size_t)4095;
	madvise((char *)map + old, len - old, MADV_POPULATE_WRITE);
	w->pend = map;
	w->pend_len = len;
	return 0;
}

/* Frames slot s has room for in the mapping. */
static long slot_room(const struct bn_srw *w, int s)
{
	size_t frame = (size_t)w->n_ch * sizeof(float);
	size_t start = SRW_PENDING_HDR + (size_t)s * (size_t)w->chunk * frame;
	size_t n = w->pend_len > start ? (w->pend_len - start) / frame : 0;

	return n < (size_t)w->chunk ? (long)n : w->chunk;
}

static int pending_create(struct bn_srw *w, struct bn_err *err)
{
	char why[160];
	void *map = MAP_FAILED;
	int e = 0;

	w->pend_fd = open(w->pend_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (w->pend_fd < 0 || (e = posix_fallocate(w->pend_fd, 0, SRW_PENDING_MIN)) != 0)
		return bn_err_set(err, bn_err_from_write_errno(e ? e : errno),
				  "%s: error: cannot create the spool file %s: %s", w->path,
				  w->pend_path, bn_errno_text(e ? e : errno, why, sizeof(why)));
	map = mmap(NULL, SRW_PENDING_MIN, PROT_READ | PROT_WRITE, MAP_SHARED, w->pend_fd, 0);
	if (map == MAP_FAILED) {
		bn_warn("%s: the spool %s cannot be mapped (%s): the frames not yet compressed "
			"are kept in memory, and a crash of this run would lose the capture",
			w->path, w->pend_path, bn_errno_text(errno, why, sizeof(why)));
		/* a file system without shared mappings: a plain buffer, and
		 * no salvage. pending stays, empty, so that after a crash the
		 * salvage still finds the spool (bn_file_leftover looks for
		 * it) and removes it as one with nothing to salvage; unlinked,
		 * the spool and NAME.part would leak hidden beside path. */
		if (ftruncate(w->pend_fd, 0) < 0) {
			/* still findable, holding zeros: salvage says nothing to do */
		}
		map = calloc(1, SRW_PENDING_MIN);
		w->pend_private = true;
		if (!map)
			return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", w->path);
	}
	w->pend = map;
	w->pend_len = SRW_PENDING_MIN;
	/* the magic last, in bn_srw_open: see pending_seal */
	w->pend->n_ch = (uint32_t)w->n_ch;
	w->pend->n_slots = (uint32_t)w->n_slots;
	w->pend->chunk = w->chunk;
	w->pend->level = w->level;
	w->cap = slot_room(w, 0);
	w->cur = slot_at(w->pend, w->chunk, w->n_ch, 0);
	return BN_OK;
}

/* The header whole (zip_bytes after version and metadata): only now the
 * magic, so a salvage finds either no magic (the writer died opening it:
 * nothing to salvage) or a header it can trust. */
static void pending_seal(struct bn_srw *w)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(w->pend->magic, SRW_PENDING_MAGIC, 8);
}

/* ---- the spool ---- */

static void spool_remove(struct bn_srw *w)
{
	pool_stop(w->pool);
	w->pool = NULL;
	pending_unmap(w);
	if (w->pend_fd >= 0)
		close(w->pend_fd);
	if (w->zip_fd >= 0)
		close(w->zip_fd);
	w->pend_fd = w->zip_fd = -1;
	bn_zipw_free(w->zip);
	w->zip = NULL;
	if (w->pend_path)
		unlink(w->pend_path);
	if (w->zip_path)
		unlink(w->zip_path);
	if (w->spool_dir)
		rmdir(w->spool_dir);
	g_free(w->pend_path);
	g_free(w->zip_path);
	g_free(w->spool_dir);
	w->pend_path = w->zip_path = w->spool_dir = NULL;
	w->io_file = NULL;
}

static void srw_free(struct bn_srw *w)
{
	spool_remove(w);
	cmp_free(&w->cmp);
	for (int c = 0; c < BN_SRW_MAX_CH; c++)
		free(w->jobs[c].out);
	g_free(w->path);
	free(w);
}

static char *metadata_text(const struct bn_srw *w, gsize *len)
{
	GKeyFile *kf = g_key_file_new();
	GString *units = g_string_new(NULL);
	char key[32], rate[48], *text;

	g_key_file_set_string(kf, "global", "sigrok version", SRW_SIGROK_VERSION);
	bn_srw_samplerate_string(w->rate, rate, sizeof(rate));
	g_key_file_set_string(kf, "device 1", "samplerate", rate);
	/* before "total analog": the loader numbers analog channels after
	 * the logic ones it has counted so far */
	g_key_file_set_integer(kf, "device 1", "total probes", 0);
	g_key_file_set_integer(kf, "device 1", "total analog", w->n_ch);
	for (int c = 0; c < w->n_ch; c++) {
		snprintf(key, sizeof(key), "analog%d", c + 1);
		g_key_file_set_string(kf, "device 1", key, w->names[c]);
		g_string_append_printf(units, "%s%s", c ? ";" : "", w->units[c]);
	}
	/* units of analog1..analogN, in that order: "V;A;V;V;V" */
	g_key_file_set_string(kf, "device 1", "bcbench units", units->str);
	g_string_free(units, TRUE);
	text = g_key_file_to_data(kf, len, NULL);
	g_key_file_free(kf);
	return text;
}

/* "version" and "metadata", stored: a few hundred bytes. */
static int zip_start(struct bn_srw *w, struct bn_err *err)
{
	gsize meta_len = 0;
	char *meta = metadata_text(w, &meta_len), why[160];
	int e;

	if (!meta)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", w->path);
	w->zip = bn_zipw_new(w->zip_fd, 0);
	e = w->zip ? bn_zipw_add(w->zip, "version", BN_ZIPW_STORE,
				 (uint32_t)libdeflate_crc32(0, "2", 1), 1, "2", 1)
		   : ENOMEM;
	if (!e)
		e = bn_zipw_add(w->zip, "metadata", BN_ZIPW_STORE,
				(uint32_t)libdeflate_crc32(0, meta, meta_len), meta_len, meta,
				meta_len);
	g_free(meta);
	if (e)
		return bn_err_set(err, e == ENOMEM ? BN_ERR_NOMEM : bn_err_from_write_errno(e),
				  "%s: error: writing the capture: %s (in %s)", w->path,
				  bn_errno_text(e, why, sizeof(why)), w->zip_path);
	w->pend->zip_bytes = (int64_t)bn_zipw_bytes(w->zip);
	return BN_OK;
}

/* ---- open ---- */

static int check_opts(const char *path, const struct bn_srw_opts *o, uint64_t *rate,
		      struct bn_err *err)
{
	double r;

	if (!isfinite(o->rate_hz) || o->rate_hz < 1 || o->rate_hz > SRW_RATE_MAX)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: samplerate %g Hz (expected 1 Hz to 1 THz)", path,
				  o->rate_hz);
	r = nearbyint(o->rate_hz);
	if (fabs(r - o->rate_hz) > 1e-9 * o->rate_hz)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: samplerate %.6f Hz is not a whole number of Hz "
				  "(sigrok files store an integer samplerate)",
				  path, o->rate_hz);
	*rate = (uint64_t)r;
	if (o->n_ch < 1 || o->n_ch > BN_SRW_MAX_CH)
		return bn_err_set(err, BN_ERR_ARG, "%s: error: %d channels (expected 1 to %d)",
				  path, o->n_ch, BN_SRW_MAX_CH);
	for (int c = 0; c < o->n_ch; c++) {
		const char *n = o->names[c], *u = o->units[c];

		if (!n || !*n)
			return bn_err_set(err, BN_ERR_ARG, "%s: error: channel %d has no name",
					  path, c + 1);
		if (strlen(n) > SRW_NAME_MAX)
			return bn_err_set(err, BN_ERR_ARG,
					  "%s: error: channel name \"%.20s...\" is longer than %d "
					  "characters",
					  path, n, SRW_NAME_MAX);
		for (int d = 0; d < c; d++)
			if (!strcasecmp(n, o->names[d]))
				return bn_err_set(err, BN_ERR_ARG,
						  "%s: error: channel name \"%s\" is used twice "
						  "(channels %d and %d)",
						  path, n, d + 1, c + 1);
		if (u && (strlen(u) > SRW_UNIT_MAX || strpbrk(u, ";\\\n\r")))
			return bn_err_set(err, BN_ERR_ARG,
					  "%s: error: unit \"%s\" of channel %s (expected at most "
					  "%d characters, no ';' or '\\')",
					  path, u, n, SRW_UNIT_MAX);
	}
	if (o->compression_level < -1 || o->compression_level > 9)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: compression level %d (expected -1 stored, 0 "
				  "default, 1 to 9 deflate)",
				  path, o->compression_level);
	if (o->chunk_samples < 0 || o->chunk_samples > SRW_MAX_CHUNK)
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: chunk_samples %ld (expected 0 for the default, or 1 "
				  "to %ld)",
				  path, o->chunk_samples, SRW_MAX_CHUNK);
	/* two slots of a chunk must fit in a size_t (a 32-bit host's 4 GiB) */
	if ((uint64_t)(o->chunk_samples ? o->chunk_samples : BN_SRW_DEFAULT_CHUNK) *
		    (uint64_t)o->n_ch * sizeof(float) * 2 >
	    (uint64_t)(SIZE_MAX - SRW_PENDING_HDR))
		return bn_err_set(err, BN_ERR_ARG,
				  "%s: error: chunk_samples %ld of %d channels: the pending "
				  "file would not fit in this host's address space",
				  path, o->chunk_samples, o->n_ch);
	if (o->threads < 0 || o->threads > SRW_MAX_THREADS)
		return bn_err_set(err, BN_ERR_ARG, "%s: error: threads %d (expected 0 to %d)",
				  path, o->threads, SRW_MAX_THREADS);
	return BN_OK;
}

int bn_srw_open(const char *path, const struct bn_srw_opts *o, struct bn_srw **out,
		struct bn_err *err)
{
	struct bn_srw *w;
	struct stat st;
	uint64_t rate = 0;
	char *dir, *base, why[160];
	int rc, th;

	if (out)
		*out = NULL;
	if (!path || !*path || !o || !out)
		return bn_err_set(err, BN_ERR_ARG,
				  "srzip: error: bn_srw_open needs a path, "
				  "options and an output pointer");
	rc = check_opts(path, o, &rate, err);
	if (rc)
		return rc;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return bn_err_set(err, BN_ERR_ENV, "%s: error: is a directory", path);

	w = calloc(1, sizeof(*w));
	if (!w)
		return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", path);
	w->zip_fd = w->pend_fd = -1;
	w->rate = rate;
	w->n_ch = o->n_ch;
	for (int c = 0; c < o->n_ch; c++) {
		snprintf(w->names[c], sizeof(w->names[c]), "%s", o->names[c]);
		snprintf(w->units[c], sizeof(w->units[c]), "%s", o->units[c] ? o->units[c] : "");
	}
	w->level = o->compression_level == 0 ? BN_SRW_DEFAULT_LEVEL : o->compression_level;
	w->chunk = o->chunk_samples ? o->chunk_samples : BN_SRW_DEFAULT_CHUNK;
	/* more threads than channels would have nothing to do */
	th = o->threads < o->n_ch ? o->threads : o->n_ch;
	w->n_slots = th > 0 ? 2 : 1;
	w->path = g_strdup(path);
	dir = g_path_get_dirname(path);
	base = g_path_get_basename(path);
	w->spool_dir = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
	if (!mkdtemp(w->spool_dir)) {
		int e = errno;

		g_free(w->spool_dir);
		w->spool_dir = NULL;
		srw_free(w);
		rc = bn_err_set(err, bn_err_from_write_errno(e),
				"%s: error: cannot create the spool directory in %s: %s", path, dir,
				bn_errno_text(e, why, sizeof(why)));
		g_free(dir);
		g_free(base);
		return rc;
	}
	g_free(dir);
	w->zip_path = g_strdup_printf("%s/%s.part", w->spool_dir, base);
	w->pend_path = g_strdup_printf("%s/pending", w->spool_dir);
	g_free(base);
	/* 0666 less the umask, as any new file (and libzip's) */
	w->zip_fd = open(w->zip_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (w->zip_fd < 0) {
		int e = errno;

		rc = bn_err_set(err, bn_err_from_write_errno(e),
				"%s: error: cannot create the spool file %s: %s", path, w->zip_path,
				bn_errno_text(e, why, sizeof(why)));
		srw_free(w);
		return rc;
	}
	rc = pending_create(w, err);
	if (!rc)
		rc = zip_start(w, err);
	if (rc) {
		srw_free(w);
		return rc;
	}
	pending_seal(w);
	/* the pool starts with the first full chunk: a short run never
	 * starts a thread */
	w->threads = th;
	w->no_sync = o->no_sync;
	*out = w;
	return BN_OK;
}

/* ---- frames ---- */

/* The members of the chunk in jobs[] are in the zip: a salvage may now
 * reuse its slot. Unless publish is false: the last, partial (or empty)
 * chunk at close stays pending, as zip_frames counts whole chunks only;
 * a death in the rest of close (the central directory, the fsync, the
 * rename) then salvages it from its slot, which nothing overwrites. */
static int chunk_written(struct bn_srw *w, int64_t chunk_k, int n, bool publish)
{
	for (int c = 0; c < n; c++) {
		int e = add_job_member(w->zip, chunk_k, &w->jobs[c]);

		if (e) {
			set_io_err(w, w->jobs[c].err ? NULL : w->zip_path, e);
			return w->io_err;
		}
	}
	if (!publish)
		return BN_OK;
	__atomic_store_n(&w->pend->zip_bytes, (int64_t)bn_zipw_bytes(w->zip), __ATOMIC_RELEASE);
	__atomic_store_n(&w->pend->zip_frames, (chunk_k + 1) * w->chunk, __ATOMIC_RELEASE);
	return BN_OK;
}

static void jobs_set(struct bn_srw *w, int slot, long n)
{
	for (int c = 0; c < w->n_ch; c++) {
		w->jobs[c].src = slot_at(w->pend, w->chunk, w->n_ch, slot);
		w->jobs[c].n = n;
		w->jobs[c].ch = c;
	}
}

/* The chunk being filled is full (or the last, partial, at close):
 * compress it here, or hand it to the pool after the previous one is
 * in the zip. */
static int chunk_full(struct bn_srw *w, bool last)
{
	int slot = (int)(w->chunk_k % w->n_slots);

	if (w->n_slots > 1 && !w->pool && !last) {
		/* both slots before a thread reads one: no remapping after */
		int e = pending_grow(w, SRW_PENDING_HDR + 2 * (size_t)w->chunk * (size_t)w->n_ch *
							    sizeof(float));

		if (e) {
			set_io_err(w, w->pend_path, e);
			return w->io_err;
		}
		w->pool = pool_start(w->threads, w->n_ch, w->level);
	}
	if (w->in_flight) {
		pool_wait(w->pool);
		w->in_flight = false;
		if (chunk_written(w, w->chunk_k - 1, w->n_ch, true))
			return w->io_err;
	}
	if (last && w->fill == 0 && w->frames > 0)
		return BN_OK; /* nothing after the last full chunk */
	jobs_set(w, slot, w->fill);
	if (w->pool && !last) {
		streaming_fence();
		pool_submit(w->pool, w->jobs, w->n_ch);
		w->in_flight = true;
	} else {
		for (int c = 0; c < w->n_ch; c++)
			compress_job(&w->cmp, w->level, w->n_ch, &w->jobs[c]);
		if (chunk_written(w, w->chunk_k, w->n_ch, w->fill == w->chunk))
			return w->io_err;
	}
	if (last)
		return BN_OK;
	w->chunk_k++;
	w->fill = 0;
	slot = (int)(w->chunk_k % w->n_slots);
	w->cap = slot_room(w, slot);
	w->cur = slot_at(w->pend, w->chunk, w->n_ch, slot);
	return BN_OK;
}

/* The slot has no room left in the mapping: grow it (doubling, up to a
 * chunk) or, when it holds a whole chunk, compress that. */
static int slot_full(struct bn_srw *w)
{
	size_t frame = (size_t)w->n_ch * sizeof(float), want;
	int slot = (int)(w->chunk_k % w->n_slots), e;

	if (w->fill >= w->chunk)
		return chunk_full(w, false);
	want = w->pend_len * 2;
	if (want > SRW_PENDING_HDR + ((size_t)slot + 1) * (size_t)w->chunk * frame)
		want = SRW_PENDING_HDR + ((size_t)slot + 1) * (size_t)w->chunk * frame;
	e = pending_grow(w, want);
	if (e) {
		set_io_err(w, w->pend_path, e);
		return w->io_err;
	}
	w->cap = slot_room(w, slot);
	w->cur = slot_at(w->pend, w->chunk, w->n_ch, slot);
	return BN_OK;
}

int bn_srw_frame(struct bn_srw *w, const double *v)
{
	float *b;

	if (!w || !v)
		return BN_ERR_ARG;
	if (w->io_err != BN_OK)
		return w->io_err;
	if (w->fill == w->cap && slot_full(w) != BN_OK)
		return w->io_err;
	b = w->cur + (size_t)w->fill * (size_t)w->n_ch;
	if (w->pool)
		frame_put_streaming(b, v, w->n_ch);
	else
		frame_put(b, v, w->n_ch);
	w->fill++;
	w->frames++;
	/* after the values: a salvage never reads a frame half written
	 * (streaming stores are not ordered by it, but a salvage runs only
	 * once the writer is dead, when they have all reached the file) */
	__atomic_store_n(&w->pend->frames, w->frames, __ATOMIC_RELEASE);
	return BN_OK;
}

int64_t bn_srw_frames(const struct bn_srw *w)
{
	return w ? w->frames : 0;
}

/* ---- close ---- */

/* NAME.part finished: synced, renamed over path, the directory synced
 * (unless no_sync: the caller syncs later). */
static int zip_commit(struct bn_srw *w, struct bn_err *err)
{
	char why[160], *dir;
	int e = bn_zipw_finish(w->zip);

	if (!e && !w->no_sync && fsync(w->zip_fd) < 0)
		e = errno;
	if (!e && rename(w->zip_path, w->path) < 0)
		e = errno;
	if (e)
		return bn_err_set(err, e == ENOMEM ? BN_ERR_NOMEM : bn_err_from_write_errno(e),
				  "%s: error: writing the capture: %s (in %s)", w->path,
				  bn_errno_text(e, why, sizeof(why)), w->zip_path);
	g_free(w->zip_path);
	w->zip_path = NULL;
	if (w->no_sync)
		return BN_OK;
	/* the rename itself durable too (a directory's fsync; best effort:
	 * some file systems refuse it, the capture is whole either way) */
	dir = g_path_get_dirname(w->path);
	(void)bn_fsync_dir(dir);
	g_free(dir);
	return BN_OK;
}

int bn_srw_close(struct bn_srw *w, struct bn_err *err)
{
	int rc = BN_OK;

	if (!w)
		return bn_err_set(err, BN_ERR_ARG, "srzip: error: bn_srw_close(NULL)");
	if (w->io_err == BN_OK && (w->fill > 0 || w->frames == 0 || w->in_flight))
		chunk_full(w, true);
	if (w->in_flight) {
		pool_wait(w->pool);
		w->in_flight = false;
	}
	if (w->io_err != BN_OK)
		rc = bn_srw_error(w, err);
	else
		rc = zip_commit(w, err);
	srw_free(w);
	return rc;
}

void bn_srw_discard(struct bn_srw *w)
{
	if (!w)
		return;
	if (w->in_flight)
		pool_wait(w->pool);
	srw_free(w);
}

double bn_srw_estimate_bytes(double rate_hz, int n_ch, double dur_s)
{
	double frames, samples, members, slot_frames;

	if (!(rate_hz > 0) || n_ch < 1 || !(dur_s >= 0))
		return 0;
	frames = ceil(rate_hz * dur_s);
	samples = frames * n_ch;
	members = n_ch * fmax(1.0, ceil(frames / BN_SRW_DEFAULT_CHUNK));
	/* pending frames: up to two slots of a chunk (with threads), no
	 * more than the run has */
	slot_frames = fmin(frames, 2.0 * BN_SRW_DEFAULT_CHUNK);
	/* the zip stored at worst (noise does not deflate) with a local and
	 * a central header per member, version and metadata; the pending
	 * file beside it until close */
	return samples * 4.0 + members * SRW_MEMBER_OVERHEAD + 4096.0 + SRW_PENDING_HDR +
	       fmax(slot_frames * n_ch * 4.0, SRW_PENDING_MIN - SRW_PENDING_HDR);
}

/* ---- salvage: the capture of a writer that died ---- */

static int salvage_fail(const char *path, const char *spool_dir, struct bn_err *err)
{
	return bn_err_set(err, BN_ERR_DATA, "%s: error: the spool %s is not one bcbench wrote", path,
			  spool_dir);
}

/* A salvage failed (a full disk while it compressed the tail, a spool it
 * cannot read): the spool stays as it was for a salvage after the cause
 * is fixed. Its pending header is only read, and NAME.part is cut back to
 * zip_bytes each time, so a second salvage starts from the same state. */
static void spool_keep(struct bn_srw *w, int rc, struct bn_err *err)
{
	if (err && err->code == rc && w->spool_dir) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len,
			 "; the spool %s is kept: salvage again once the cause is fixed",
			 w->spool_dir);
	}
	g_free(w->pend_path);
	g_free(w->zip_path);
	g_free(w->spool_dir);
	w->pend_path = w->zip_path = w->spool_dir = NULL;
}

/* The members of the chunks pending still holds, from the slots. */
static int salvage_tail(struct bn_srw *w, const struct srw_pending *h, struct bn_err *err)
{
	char why[160];
	int e = 0;

	if (h->frames == 0) {
		w->fill = 0;
		w->chunk_k = 0;
		jobs_set(w, 0, 0);
		for (int c = 0; c < w->n_ch && !e; c++) {
			compress_job(&w->cmp, w->level, w->n_ch, &w->jobs[c]);
			e = add_job_member(w->zip, 0, &w->jobs[c]);
		}
	}
	for (int64_t k = h->zip_frames / h->chunk; !e && k * h->chunk < h->frames; k++) {
		int64_t left = h->frames - k * h->chunk;

		jobs_set(w, (int)(k % h->n_slots), (long)(left < h->chunk ? left : h->chunk));
		for (int c = 0; c < w->n_ch && !e; c++) {
			compress_job(&w->cmp, w->level, w->n_ch, &w->jobs[c]);
			e = add_job_member(w->zip, k, &w->jobs[c]);
		}
	}
	if (e)
		return bn_err_set(err, e == ENOMEM ? BN_ERR_NOMEM : bn_err_from_write_errno(e),
				  "%s: error: salvaging the capture: %s (in %s)", w->path,
				  bn_errno_text(e, why, sizeof(why)), w->zip_path);
	return BN_OK;
}

int bn_srw_salvage(const char *path, int64_t *frames, struct bn_err *err)
{
	struct bn_srw *w = calloc(1, sizeof(*w));
	/* the newest spool directory of path's writers: DIR/.NAME.XXXXXX */
	char *found = bn_file_leftover(path, ".", "pending"), *base;
	struct srw_pending h;
	struct stat st;
	int rc = BN_OK;

	if (frames)
		*frames = 0;
	if (!w) {
		free(found);
		return bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", path);
	}
	w->zip_fd = w->pend_fd = -1;
	if (!found) {
		free(w);
		return bn_err_set(err, BN_ERR_NA, "%s: no capture spool to salvage beside it", path);
	}
	w->path = g_strdup(path);
	w->spool_dir = g_strdup(found);
	free(found);
	base = g_path_get_basename(path);
	w->zip_path = g_strdup_printf("%s/%s.part", w->spool_dir, base);
	w->pend_path = g_strdup_printf("%s/pending", w->spool_dir);
	g_free(base);
	w->pend_fd = open(w->pend_path, O_RDONLY | O_CLOEXEC);
	memset(&h, 0, sizeof(h));
	if (w->pend_fd >= 0 && fstat(w->pend_fd, &st) == 0 &&
	    (st.st_size == 0 || (pread(w->pend_fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
				 !memcmp(h.magic, "\0\0\0\0\0\0\0\0", 8)))) {
		/* died in bn_srw_open before the header was sealed, or a
		 * writer without a shared mapping died: no frames to save */
		rc = bn_err_set(err, BN_ERR_NA,
				"%s: nothing to salvage: its writer kept no frames in the spool %s "
				"(it died opening the capture, or had no shared mapping); the "
				"spool is removed",
				path, w->spool_dir);
		goto out;
	}
	if (w->pend_fd < 0 || pread(w->pend_fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    fstat(w->pend_fd, &st) < 0 || memcmp(h.magic, SRW_PENDING_MAGIC, 8) || h.n_ch < 1 ||
	    h.n_ch > BN_SRW_MAX_CH || h.n_slots < 1 || h.n_slots > 2 || h.chunk < 1 ||
	    h.chunk > SRW_MAX_CHUNK || h.level < -1 || h.level > 9 || h.zip_frames < 0 ||
	    h.zip_frames % h.chunk || h.frames < h.zip_frames ||
	    h.frames - h.zip_frames > h.chunk * (int64_t)h.n_slots || h.zip_bytes < 0) {
		rc = salvage_fail(path, w->spool_dir, err);
		goto out;
	}
	w->n_ch = (int)h.n_ch;
	w->chunk = (long)h.chunk;
	w->n_slots = (int)h.n_slots;
	w->level = h.level;
	w->frames = h.frames;
	/* the slots the frames are in must be in the file */
	{
		int64_t last = h.frames > h.zip_frames ? (h.frames - 1) / h.chunk : 0;
		int64_t first = h.zip_frames / h.chunk;
		/* 64-bit sums: the header's chunk may be 2^28 frames of 16
		 * channels, past a 32-bit size_t; such a file is refused there */
		uint64_t need = SRW_PENDING_HDR;

		for (int64_t k = first; k <= last && h.frames > h.zip_frames; k++) {
			int64_t n = h.frames - k * h.chunk < h.chunk ? h.frames - k * h.chunk : h.chunk;
			uint64_t end = SRW_PENDING_HDR +
				       ((uint64_t)(k % h.n_slots) * (uint64_t)h.chunk + (uint64_t)n) *
					       h.n_ch * sizeof(float);

			need = end > need ? end : need;
		}
		if ((uint64_t)st.st_size < need || (uint64_t)st.st_size > SIZE_MAX) {
			rc = salvage_fail(path, w->spool_dir, err);
			goto out;
		}
	}
	w->pend_len = (size_t)st.st_size;
	w->pend = mmap(NULL, w->pend_len, PROT_READ, MAP_SHARED, w->pend_fd, 0);
	if (w->pend == MAP_FAILED) {
		w->pend = NULL;
		rc = bn_err_set(err, BN_ERR_IO, "%s: error: cannot map the spool file %s: %s", path,
				w->pend_path, strerror(errno));
		goto out;
	}
	w->zip_fd = open(w->zip_path, O_RDWR | O_CLOEXEC);
	if (w->zip_fd < 0 && errno == ENOENT && access(path, F_OK) == 0) {
		/* died after the rename at close: the capture is whole */
		rc = bn_err_set(err, BN_ERR_NA, "%s: the capture was finished; its spool is removed",
				path);
		goto out;
	}
	w->zip = w->zip_fd >= 0 ? bn_zipw_recover(w->zip_fd, (uint64_t)h.zip_bytes) : NULL;
	if (!w->zip || bn_zipw_count(w->zip) < 2) {
		rc = salvage_fail(path, w->spool_dir, err);
		goto out;
	}
	rc = salvage_tail(w, &h, err);
	if (rc == BN_OK)
		rc = zip_commit(w, err);
	if (rc == BN_OK && frames)
		*frames = h.frames;
out:
	if (rc != BN_OK && rc != BN_ERR_NA)
		spool_keep(w, rc, err);
	srw_free(w);
	return rc;
}
