/* srzip writer: float32 spool files per channel, zipped at close.
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
 * the loader owns, so libsigrok ignores it. */
#include "capture/srzip_write.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <libsigrok/libsigrok.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "core/file.h"

#define SRW_BUF_SAMPLES 65536	   /* per channel, between write()s */
#define SRW_DEFAULT_CHUNK 1048576L /* samples per member */
#define SRW_MAX_CHUNK (1L << 28)   /* 1 GiB members at most */
#define SRW_DEFAULT_LEVEL 1
#define SRW_NAME_MAX 63 /* struct bn_srr_chan.name */
#define SRW_UNIT_MAX 7	/* struct bn_srr_chan.unit */
#define SRW_RATE_MAX 1e12
#define SRW_PENDING_MAGIC "BNSRWPD1"
#define SRW_PENDING_HDR 64 /* bytes before the samples: keeps them aligned */
/* zip headers and data descriptor of one member, with its name, at most */
#define SRW_MEMBER_OVERHEAD 200

/* The head of spool_dir/pending: the frame buffer lives in this file,
 * mapped shared, so what a process that dies mid-run had buffered is
 * still in the page cache for bn_srw_salvage. */
struct srw_pending {
	char magic[8];
	uint32_t n_ch;
	uint32_t buf_samples;
	int64_t buf_first; /* frames before this are in the chN.f32 files */
	int64_t frames;	   /* the buffer holds buf_first .. frames - 1 */
};

struct bn_srw {
	char *path;		    /* the capture */
	char *spool_dir;	    /* DIR/.NAME.XXXXXX, NULL once removed */
	char *spool[BN_SRW_MAX_CH]; /* spool_dir/chN.f32 */
	int fd[BN_SRW_MAX_CH];
	int n_ch;
	char names[BN_SRW_MAX_CH][SRW_NAME_MAX + 1];
	char units[BN_SRW_MAX_CH][SRW_UNIT_MAX + 1];
	uint64_t rate;
	int level; /* -1 stored, else deflate level */
	long chunk;
	int64_t frames;
	long buf_n; /* samples buffered per channel */
	float *buf; /* channel c at buf + c * SRW_BUF_SAMPLES, in the mapping */
	struct srw_pending *pend; /* the mapping of spool_dir/pending; NULL: none */
	size_t pend_len;
	bool pend_private; /* no shared mapping: pend is malloc'ed */
	char *pend_path, *meta_path;
	int io_err; /* sticky: BN_OK or BN_ERR_ENV (BN_ERR_NOMEM) */
	int io_errno;
	int io_ch; /* whose spool file failed */
};

/* ---- the spool ---- */

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void set_io_err(struct bn_srw *w, int ch, int e)
{
	if (w->io_err != BN_OK)
		return;
	w->io_err = bn_err_from_write_errno(e);
	w->io_errno = e;
	w->io_ch = ch;
}

static int spool_flush(struct bn_srw *w)
{
	size_t len = (size_t)w->buf_n * sizeof(float);

	for (int c = 0; c < w->n_ch && w->io_err == BN_OK; c++) {
		const float *src = w->buf + (size_t)c * SRW_BUF_SAMPLES;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		/* the file is little-endian; swapped in a copy, so the mapped
		 * buffer stays whole for a salvage until buf_first moves on */
		uint32_t *u = malloc(len ? len : 1);

		if (!u) {
			set_io_err(w, c, ENOMEM);
			break;
		}
		memcpy(u, src, len);
		for (long i = 0; i < w->buf_n; i++)
			u[i] = __builtin_bswap32(u[i]);
		if (write_all(w->fd[c], u, len) < 0)
			set_io_err(w, c, errno);
		free(u);
#else
		if (write_all(w->fd[c], src, len) < 0)
			set_io_err(w, c, errno);
#endif
	}
	w->buf_n = 0;
	if (w->io_err == BN_OK)
		__atomic_store_n(&w->pend->buf_first, w->frames, __ATOMIC_RELEASE);
	return w->io_err;
}

static void spool_close_fds(struct bn_srw *w)
{
	for (int c = 0; c < w->n_ch; c++) {
		if (w->fd[c] < 0)
			continue;
		if (close(w->fd[c]) < 0)
			set_io_err(w, c, errno);
		w->fd[c] = -1;
	}
}

static void spool_remove(struct bn_srw *w)
{
	spool_close_fds(w);
	if (w->pend && w->pend_private)
		free(w->pend);
	else if (w->pend)
		munmap(w->pend, w->pend_len);
	w->pend = NULL;
	w->buf = NULL;
	if (w->pend_path)
		unlink(w->pend_path);
	if (w->meta_path)
		unlink(w->meta_path);
	g_free(w->pend_path);
	g_free(w->meta_path);
	w->pend_path = w->meta_path = NULL;
	for (int c = 0; c < w->n_ch; c++) {
		if (w->spool[c])
			unlink(w->spool[c]);
		g_free(w->spool[c]);
		w->spool[c] = NULL;
	}
	if (w->spool_dir)
		rmdir(w->spool_dir);
	g_free(w->spool_dir);
	w->spool_dir = NULL;
}

static void srw_free(struct bn_srw *w)
{
	spool_remove(w);
	g_free(w->path);
	free(w);
}

static char *metadata_text(const struct bn_srw *w, gsize *len);

/* ---- open ---- */

/* spool_dir/metadata (the member as it will be zipped) and spool_dir/
 * pending (the frame buffer, mapped shared): with the chN.f32 files they
 * are all bn_srw_salvage needs to finish the capture of a dead writer. */
static int pending_create(struct bn_srw *w, struct bn_err *err)
{
	gsize meta_len = 0;
	char *meta = metadata_text(w, &meta_len);
	GError *gerr = NULL;
	char why[160];
	int fd, rc = BN_OK;
	void *map = NULL;

	w->meta_path = g_strdup_printf("%s/metadata", w->spool_dir);
	w->pend_path = g_strdup_printf("%s/pending", w->spool_dir);
	if (!meta || !g_file_set_contents(w->meta_path, meta, (gssize)meta_len, &gerr)) {
		rc = bn_err_set(err, meta ? BN_ERR_ENV : BN_ERR_NOMEM,
				"%s: error: cannot write the spool file %s: %s", w->path, w->meta_path,
				gerr ? gerr->message : "out of memory");
		g_free(meta);
		if (gerr)
			g_error_free(gerr);
		return rc;
	}
	g_free(meta);
	w->pend_len = SRW_PENDING_HDR + (size_t)w->n_ch * SRW_BUF_SAMPLES * sizeof(float);
	fd = open(w->pend_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	/* Blocks reserved now: a page of a sparse file that cannot be
	 * allocated later (a full disk) would be a SIGBUS mid-run, blamed on
	 * the firmware, instead of this error. */
	if (fd < 0 || (errno = posix_fallocate(fd, 0, (off_t)w->pend_len)) != 0)
		rc = bn_err_set(err, bn_err_from_write_errno(errno),
				"%s: error: cannot create the spool file %s: %s", w->path,
				w->pend_path, bn_errno_text(errno, why, sizeof(why)));
	else if ((map = mmap(NULL, w->pend_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
		 MAP_FAILED) {
		/* a file system without shared mappings: a plain buffer, and
		 * no salvage (no pending file for it to find) */
		unlink(w->pend_path);
		map = calloc(1, w->pend_len);
		w->pend_private = true;
		if (!map)
			rc = bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", w->path);
	}
	if (fd >= 0)
		close(fd);
	if (rc)
		return rc;
	w->pend = map;
	memcpy(w->pend->magic, SRW_PENDING_MAGIC, 8);
	w->pend->n_ch = (uint32_t)w->n_ch;
	w->pend->buf_samples = SRW_BUF_SAMPLES;
	w->buf = (float *)((char *)map + SRW_PENDING_HDR);
	return BN_OK;
}

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
	return BN_OK;
}

int bn_srw_open(const char *path, const struct bn_srw_opts *o, struct bn_srw **out,
		struct bn_err *err)
{
	struct bn_srw *w;
	struct stat st;
	uint64_t rate = 0;
	char *dir, *base, why[160];
	int rc;

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
	for (int c = 0; c < BN_SRW_MAX_CH; c++)
		w->fd[c] = -1;
	w->rate = rate;
	w->n_ch = o->n_ch;
	for (int c = 0; c < o->n_ch; c++) {
		snprintf(w->names[c], sizeof(w->names[c]), "%s", o->names[c]);
		snprintf(w->units[c], sizeof(w->units[c]), "%s", o->units[c] ? o->units[c] : "");
	}
	w->level = o->compression_level == 0 ? SRW_DEFAULT_LEVEL : o->compression_level;
	w->chunk = o->chunk_samples ? o->chunk_samples : SRW_DEFAULT_CHUNK;
	w->path = g_strdup(path);
	dir = g_path_get_dirname(path);
	base = g_path_get_basename(path);
	w->spool_dir = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
	g_free(base);
	if (!mkdtemp(w->spool_dir)) {
		int e = errno;

		g_free(w->spool_dir);
		w->spool_dir = NULL;
		srw_free(w);
		rc = bn_err_set(err, bn_err_from_write_errno(e),
				"%s: error: cannot create the spool directory in %s: %s", path, dir,
				bn_errno_text(e, why, sizeof(why)));
		g_free(dir);
		return rc;
	}
	g_free(dir);
	for (int c = 0; c < w->n_ch; c++) {
		w->spool[c] = g_strdup_printf("%s/ch%d.f32", w->spool_dir, c + 1);
		w->fd[c] = open(w->spool[c], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (w->fd[c] < 0) {
			int e = errno;

			rc = bn_err_set(err, bn_err_from_write_errno(e),
					"%s: error: cannot create the spool file %s: %s", path,
					w->spool[c], bn_errno_text(e, why, sizeof(why)));
			srw_free(w);
			return rc;
		}
	}
	rc = pending_create(w, err);
	if (rc) {
		srw_free(w);
		return rc;
	}
	*out = w;
	return BN_OK;
}

/* ---- frames ---- */

int bn_srw_frame(struct bn_srw *w, const double *v)
{
	float *b;

	if (!w || !v)
		return BN_ERR_ARG;
	if (w->io_err != BN_OK)
		return w->io_err;
	b = w->buf + w->buf_n;
	for (int c = 0; c < w->n_ch; c++)
		b[(size_t)c * SRW_BUF_SAMPLES] = (float)v[c];
	w->frames++;
	/* after the values: a salvage never reads a frame half written */
	__atomic_store_n(&w->pend->frames, w->frames, __ATOMIC_RELEASE);
	if (++w->buf_n == SRW_BUF_SAMPLES)
		return spool_flush(w);
	return BN_OK;
}

int64_t bn_srw_frames(const struct bn_srw *w)
{
	return w ? w->frames : 0;
}

/* ---- close: the zip ---- */

static char *metadata_text(const struct bn_srw *w, gsize *len)
{
	GKeyFile *kf = g_key_file_new();
	GString *units = g_string_new(NULL);
	char key[32], *rate, *text;
	uint64_t back = 0;

	g_key_file_set_string(kf, "global", "sigrok version", SR_PACKAGE_VERSION_STRING);
	/* sr_samplerate_string is what libsigrok writes; fall back to plain
	 * Hz should its rendering ever not parse back to the same rate. */
	rate = sr_samplerate_string(w->rate);
	if (!rate || sr_parse_sizestring(rate, &back) != SR_OK || back != w->rate) {
		g_free(rate);
		rate = g_strdup_printf("%" G_GUINT64_FORMAT " Hz", w->rate);
	}
	g_key_file_set_string(kf, "device 1", "samplerate", rate);
	g_free(rate);
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

/* Add a member; compression as configured. Returns its index or -1. */
static zip_int64_t add_member(zip_t *za, int level, const char *name, zip_source_t *src)
{
	zip_int64_t idx;

	if (!src)
		return -1;
	idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8);
	if (idx < 0) {
		zip_source_free(src);
		return -1;
	}
	if (level < 0)
		zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
	else
		zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE,
					 (zip_uint32_t)level);
	return idx;
}

static int write_zip(struct bn_srw *w, const char *meta, size_t meta_len, struct bn_err *err)
{
	zip_t *za;
	zip_error_t ze;
	char name[48];
	int zcode = 0, rc;
	int64_t n_chunks = w->frames ? (w->frames + w->chunk - 1) / w->chunk : 1;
	struct stat st;

	if (stat(w->path, &st) == 0 && S_ISDIR(st.st_mode))
		return bn_err_set(err, BN_ERR_ENV, "%s: error: cannot create: is a directory",
				  w->path);
	za = zip_open(w->path, ZIP_CREATE | ZIP_TRUNCATE, &zcode);
	if (!za) {
		zip_error_init_with_code(&ze, zcode);
		rc = bn_err_set(err, BN_ERR_ENV, "%s: error: cannot create: %s", w->path,
				zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return rc;
	}
	if (add_member(za, w->level, "version", zip_source_buffer(za, "2", 1, 0)) < 0 ||
	    add_member(za, w->level, "metadata", zip_source_buffer(za, meta, meta_len, 0)) < 0)
		goto fail;
	for (int c = 0; c < w->n_ch; c++) {
		for (int64_t k = 0; k < n_chunks; k++) {
			int64_t first = k * w->chunk;
			int64_t n = w->frames - first < w->chunk ? w->frames - first : w->chunk;
			zip_source_t *src;

			snprintf(name, sizeof(name), "analog-1-%d-%" PRId64, c + 1, k + 1);
			/* zip_source_file_create takes length 0 as "to the end" */
			if (n == 0)
				src = zip_source_buffer(za, NULL, 0, 0);
			else
				src = zip_source_file_create(w->spool[c], (zip_uint64_t)first * 4,
							     (zip_int64_t)n * 4, NULL);
			if (add_member(za, w->level, name, src) < 0)
				goto fail;
		}
	}
	/* Writes PATH.XXXXXX beside the target and renames it into place. */
	if (zip_close(za) < 0)
		goto fail;
	return BN_OK;

fail:
	/* the spool is ours and the target is an output: whatever failed
	 * here (a full disk, the file size limit) is the environment's */
	{
		zip_error_t *ze2 = zip_get_error(za);
		int se = zip_error_code_system(ze2);
		char why[200];

		if (zip_error_system_type(ze2) == ZIP_ET_SYS && se)
			bn_errno_text(se, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s", zip_strerror(za));
		rc = bn_err_set(err, zip_error_code_zip(ze2) == ZIP_ER_MEMORY ? BN_ERR_NOMEM : BN_ERR_ENV,
				"%s: error: writing the capture: %s", w->path, why);
	}
	zip_discard(za);
	return rc;
}

int bn_srw_close(struct bn_srw *w, struct bn_err *err)
{
	int rc;

	if (!w)
		return bn_err_set(err, BN_ERR_ARG, "srzip: error: bn_srw_close(NULL)");
	if (w->io_err == BN_OK && w->buf_n > 0)
		spool_flush(w);
	spool_close_fds(w);
	if (w->io_err != BN_OK)
		rc = bn_srw_error(w, err);
	else {
		gsize meta_len = 0;
		char *meta = metadata_text(w, &meta_len);

		rc = meta ? write_zip(w, meta, meta_len, err)
			  : bn_err_set(err, BN_ERR_NOMEM, "%s: error: out of memory", w->path);
		g_free(meta);
	}
	srw_free(w);
	return rc;
}

int bn_srw_error(const struct bn_srw *w, struct bn_err *err)
{
	char why[160];

	if (!w || w->io_err == BN_OK)
		return BN_OK;
	return bn_err_set(err, w->io_err, "%s: error: writing the spool file %s: %s", w->path,
			  w->spool[w->io_ch] ? w->spool[w->io_ch] : "(removed)",
			  bn_errno_text(w->io_errno, why, sizeof(why)));
}

double bn_srw_estimate_bytes(double rate_hz, int n_ch, double dur_s)
{
	double frames, samples, members;

	if (!(rate_hz > 0) || n_ch < 1 || !(dur_s >= 0))
		return 0;
	frames = ceil(rate_hz * dur_s);
	samples = frames * n_ch;
	members = n_ch * fmax(1.0, ceil(frames / SRW_DEFAULT_CHUNK));
	/* the spool (float32 per channel), the mapped frame buffer and
	 * metadata, and at close the zip beside them: stored at worst (noise
	 * does not deflate), with a local and a central header per member */
	return samples * 4.0 + SRW_PENDING_HDR + (double)n_ch * SRW_BUF_SAMPLES * 4.0 + 4096.0 +
	       samples * 4.0 + members * SRW_MEMBER_OVERHEAD + 4096.0;
}

void bn_srw_discard(struct bn_srw *w)
{
	if (w)
		srw_free(w);
}

/* ---- salvage: the capture of a writer that died ---- */

static int salvage_spool(struct bn_srw *w, const char *spool_dir, struct bn_err *err)
{
	struct srw_pending h;
	struct stat st;
	size_t buf_bytes;
	int64_t n_buf;
	float *tail = NULL;
	int fd, rc = BN_OK;

	fd = open(w->pend_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || fstat(fd, &st) < 0 ||
	    memcmp(h.magic, SRW_PENDING_MAGIC, 8) || h.n_ch < 1 || h.n_ch > BN_SRW_MAX_CH ||
	    h.buf_samples < 1 || h.buf_samples > SRW_BUF_SAMPLES * 16 || h.buf_first < 0 ||
	    h.frames < h.buf_first || h.frames - h.buf_first > (int64_t)h.buf_samples ||
	    (size_t)st.st_size < SRW_PENDING_HDR + (size_t)h.n_ch * h.buf_samples * sizeof(float)) {
		if (fd >= 0)
			close(fd);
		return bn_err_set(err, BN_ERR_DATA, "%s: error: the spool %s is not one bcbench wrote",
				  w->path, spool_dir);
	}
	w->n_ch = (int)h.n_ch;
	w->frames = h.frames;
	n_buf = h.frames - h.buf_first;
	buf_bytes = (size_t)n_buf * sizeof(float);
	tail = malloc(buf_bytes ? buf_bytes : 1);
	for (int c = 0; c < w->n_ch && rc == BN_OK; c++) {
		off_t keep = (off_t)h.buf_first * 4;
		int cfd;

		cfd = open(w->spool[c], O_RDWR | O_CLOEXEC);
		/* a flush the writer died in may have reached some channels: the
		 * buffer still holds those frames, so cut back to buf_first */
		if (!tail || cfd < 0 || fstat(cfd, &st) < 0 || st.st_size < keep ||
		    ftruncate(cfd, keep) < 0 ||
		    pread(fd, tail, buf_bytes,
			  SRW_PENDING_HDR + (off_t)c * h.buf_samples * (off_t)sizeof(float)) !=
			    (ssize_t)buf_bytes ||
		    pwrite(cfd, tail, buf_bytes, keep) != (ssize_t)buf_bytes)
			rc = bn_err_set(err, errno ? bn_err_from_write_errno(errno) : BN_ERR_IO,
					"%s: error: salvaging the spool file %s: %s",
					w->path, w->spool[c], errno ? strerror(errno) : "short");
		if (cfd >= 0)
			close(cfd);
	}
	free(tail);
	close(fd);
	return rc;
}

int bn_srw_salvage(const char *path, int64_t *frames, struct bn_err *err)
{
	struct bn_srw w = { .level = SRW_DEFAULT_LEVEL, .chunk = SRW_DEFAULT_CHUNK };
	/* the newest spool directory of path's writers: DIR/.NAME.XXXXXX */
	char *found = bn_file_leftover(path, ".", "pending"), *spool_dir = g_strdup(found);
	char *meta = NULL;
	gsize meta_len = 0;
	int rc;

	free(found);
	if (frames)
		*frames = 0;
	if (!spool_dir)
		return bn_err_set(err, BN_ERR_NA, "%s: no capture spool to salvage beside it", path);
	/* every channel a spool can have, so the removal below takes them
	 * all whatever the header says (or when it is unreadable) */
	for (int c = 0; c < BN_SRW_MAX_CH; c++) {
		w.fd[c] = -1;
		w.spool[c] = g_strdup_printf("%s/ch%d.f32", spool_dir, c + 1);
	}
	w.path = g_strdup(path);
	w.spool_dir = spool_dir;
	w.pend_path = g_strdup_printf("%s/pending", spool_dir);
	w.meta_path = g_strdup_printf("%s/metadata", spool_dir);
	errno = 0;
	rc = salvage_spool(&w, spool_dir, err);
	if (rc == BN_OK && !g_file_get_contents(w.meta_path, &meta, &meta_len, NULL))
		rc = bn_err_set(err, BN_ERR_IO, "%s: error: cannot read the spool file %s", path,
				w.meta_path);
	if (rc == BN_OK)
		rc = write_zip(&w, meta, meta_len, err);
	if (rc == BN_OK && frames)
		*frames = w.frames;
	g_free(meta);
	w.n_ch = BN_SRW_MAX_CH;
	spool_remove(&w);
	g_free(w.path);
	return rc;
}
