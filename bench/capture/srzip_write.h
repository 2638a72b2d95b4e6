/* Writes a sigrok session file (srzip, format version 2) of analog
 * channels directly with libzip, in the layout libsigrok's own srzip
 * output and loader use: "version", "metadata" (ini), and raw float32
 * "analog-1-<index>-<chunk>" members.
 *
 * Why not libsigrok's srzip output: 0.5.2 rewrites the whole zip for
 * every packet (about 1.5 M samples/s at best, see docs/capture-files.md).
 *
 * Memory stays bounded for any capture length: samples are spooled to one
 * temporary file per channel (in a hidden directory beside the output)
 * and the chunks are zipped from those files at close. The zip itself is
 * written to a temporary file and renamed into place, so a reader never
 * sees a half-written capture.sr; the spool is removed on every path. The
 * frame buffer is a shared mapping of a spool file, so a process that
 * dies mid-run loses nothing: bn_srw_salvage finishes its capture. */
#ifndef BN_CAPTURE_SRZIP_WRITE_H
#define BN_CAPTURE_SRZIP_WRITE_H

#include <stdint.h>

#include "core/err.h"

#define BN_SRW_MAX_CH 16

struct bn_srw_opts {
	double rate_hz;                    /* whole Hz, 1 Hz .. 1 THz (sigrok stores an integer) */
	int n_ch;                          /* 1 .. BN_SRW_MAX_CH */
	const char *names[BN_SRW_MAX_CH];  /* "VBUS", ... as shown in PulseView; 1-63 chars,
					    * unique ignoring case */
	const char *units[BN_SRW_MAX_CH];  /* "V", "A" or NULL: kept in the metadata key
					    * "bcbench units"; <= 7 chars, no ';' or '\' */
	int compression_level;             /* 0: default (1, fast deflate); 1-9 deflate; -1: stored */
	long chunk_samples;                /* samples per member; 0: default 1,048,576 */
	/* Threads that may compress chunks beside the caller's: 0 compresses
	 * in the caller's thread (a suite entry at -j N, which must not take
	 * a core from its neighbours); N > 0 on the cores the run may use. */
	int threads;
};

struct bn_srw;

/* Checks the options (BN_ERR_ARG) and creates the spool beside path
 * (BN_ERR_ENV naming the directory and errno if it cannot: it does not
 * exist, is read-only, the disk is full).
 * A file already at path is not touched until close. */
int bn_srw_open(const char *path, const struct bn_srw_opts *o, struct bn_srw **out,
		struct bn_err *err);
/* One frame: n_ch values, in the order of opts.names. Stored as float32.
 * An I/O error is sticky: it is returned here and again by close. */
int bn_srw_frame(struct bn_srw *w, const double *v);
int64_t bn_srw_frames(const struct bn_srw *w);
/* The sticky write error of the spool, if any, into err ("PATH: error:
 * writing the spool file FILE: No space left on device"): BN_ERR_ENV (or
 * BN_ERR_NOMEM); BN_OK when all is well. For a caller that must stop as
 * soon as the capture is lost. */
int bn_srw_error(const struct bn_srw *w, struct bn_err *err);
/* Finish the file (even with zero frames: one empty member per channel)
 * and free w, on success or not. BN_ERR_ENV with the path and the errno
 * text on a spool or zip write error (a full disk, the file size limit);
 * then a file that was at path before is left as it was. */
int bn_srw_close(struct bn_srw *w, struct bn_err *err);
/* Drop the capture and the spool, free w. A file that was at path before
 * open is left as it was. */
void bn_srw_discard(struct bn_srw *w);

/* Finish the capture of a writer that died before close (a firmware that
 * crashed the run's process, a watchdog's SIGKILL): every frame it had
 * written, flushed or still in its buffer, which lives in a shared
 * mapping of the spool and so outlives the process. Writes path as close
 * would (default chunking and compression) and removes the spool.
 * *frames: how many were kept. BN_ERR_NA when path has no spool beside
 * it; BN_ERR_DATA for a spool bcbench did not write. */
/* The disk a capture of dur_s at rate_hz of n_ch channels needs at its
 * peak (the close, when the spool and the zip coexist), in bytes: the
 * float32 spool, the frame buffer, and the zip stored uncompressed at
 * worst. Pure. */
double bn_srw_estimate_bytes(double rate_hz, int n_ch, double dur_s);

int bn_srw_salvage(const char *path, int64_t *frames, struct bn_err *err);

#endif
