/* Writes a sigrok session file (srzip, format version 2) of analog
 * channels in the layout libsigrok's own srzip output and loader use:
 * "version", "metadata" (ini), and raw float32 "analog-1-<index>-<chunk>"
 * members, deflated.
 *
 * Why not libsigrok's srzip output: 0.5.2 rewrites the whole zip for
 * every packet (about 1.5 M samples/s at best, see docs/capture-files.md).
 *
 * Compressed as it goes: frames fill a chunk (chunk_samples frames); a
 * full chunk is deflated (libdeflate) channel by channel and appended to
 * the zip at once (capture/zipw.h), so no raw copy of the run exists. The
 * zip grows in a hidden spool directory beside the output and is renamed
 * into place at close, so a reader never sees a half-written capture.sr;
 * the spool is removed on every path. The chunk being filled lives in a
 * shared mapping of a spool file, so a process that dies mid-run loses
 * nothing: bn_srw_salvage finishes its capture.
 *
 * Bounds, for chunk C frames and N channels (4 bytes a sample):
 *  - disk beside the capture: the pending file, 4 KiB growing by doubling
 *    up to C x N x 4 bytes (2 C x N x 4 with threads: the chunk being
 *    compressed and the one being filled): 2.5 MiB at N = 5 and the
 *    default C with threads, 1.25 MiB without;
 *  - memory: that mapping, a column and an output buffer of C x 4 bytes
 *    for the caller's thread (C x 4 per channel and per thread with
 *    threads), a libdeflate compressor per compressing thread, and 48
 *    bytes plus the name (about 16) per member for the central directory
 *    (N per chunk: 0.006 % of the raw data at the default C);
 *  - the zip: the compressed data, never more than the raw data (a chunk
 *    that deflate would grow is stored), plus about 120 bytes a member.
 * Buffers start small and grow with the frames: a 10-frame run maps 4 KiB.
 *
 * One fsync, at close: the finished zip before its rename (and its
 * directory after it). Nothing is synced during the run.
 *
 * Big-endian hosts: frames are kept native in the mapping and swapped to
 * little-endian as a chunk is compressed (the file is little-endian). */
#ifndef BN_CAPTURE_SRZIP_WRITE_H
#define BN_CAPTURE_SRZIP_WRITE_H

#include <stdbool.h>
#include <stddef.h>
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
	int compression_level;             /* 0: default (BN_SRW_DEFAULT_LEVEL); 1-9 deflate
					    * (libdeflate's levels); -1: stored */
	long chunk_samples;                /* frames per chunk (samples per member); 0: the
					    * default, BN_SRW_DEFAULT_CHUNK */
	/* Threads that may compress chunks beside the caller's: 0 compresses
	 * in the caller's thread (a suite entry at -j N, which must not take
	 * a core from its neighbours); N > 0 on the cores the run may use. */
	int threads;
	/* Close renames the finished capture into place without an fsync of
	 * it or of its directory: the caller makes the directory durable
	 * later, at once (a suite syncs its output before suite.json). */
	bool no_sync;
};

/* Deflate level 1: see docs/capture-files.md for the figures (level 6
 * costs more time than it saves bytes on bench captures). */
#define BN_SRW_DEFAULT_LEVEL 1
/* 65,536 frames: 256 KiB a member, enough for deflate's 32 KiB window
 * many times over; small next to the capture (the pending file) */
#define BN_SRW_DEFAULT_CHUNK 65536L

struct bn_srw;

/* Checks the options (BN_ERR_ARG) and creates the spool beside path
 * (BN_ERR_ENV naming the directory and errno if it cannot: it does not
 * exist, is read-only, the disk is full).
 * A file already at path is not touched until close. Compression threads
 * (opts.threads) start with the first full chunk, not here. */
int bn_srw_open(const char *path, const struct bn_srw_opts *o, struct bn_srw **out,
		struct bn_err *err);
/* One frame: n_ch values, in the order of opts.names. Stored as float32.
 * An I/O error is sticky: it is returned here and again by close. */
int bn_srw_frame(struct bn_srw *w, const double *v);
int64_t bn_srw_frames(const struct bn_srw *w);
/* The sticky write error of the capture, if any, into err ("PATH: error:
 * writing the capture: No space left on device (in FILE)"): BN_ERR_ENV (or
 * BN_ERR_NOMEM); BN_OK when all is well. For a caller that must stop as
 * soon as the capture is lost. */
int bn_srw_error(const struct bn_srw *w, struct bn_err *err);
/* Finish the file (even with zero frames: one empty member per channel)
 * and free w, on success or not. BN_ERR_ENV with the path and the errno
 * text on a write error (a full disk, the file size limit);
 * then a file that was at path before is left as it was. */
int bn_srw_close(struct bn_srw *w, struct bn_err *err);
/* Drop the capture and the spool, free w. A file that was at path before
 * open is left as it was. */
void bn_srw_discard(struct bn_srw *w);

/* The disk a capture of dur_s at rate_hz of n_ch channels needs at its
 * peak (the end of the run, when the zip and the pending file coexist),
 * in bytes: the zip stored uncompressed at worst (noise does not deflate)
 * with its headers, and the pending file (up to two chunks). Pure. */
double bn_srw_estimate_bytes(double rate_hz, int n_ch, double dur_s);

/* Finish the capture of a writer that died before close (a firmware that
 * crashed the run's process, a watchdog's SIGKILL): every frame it had
 * written, in the zip already or still in the pending mapping, which
 * outlives the process. The zip is cut back to its last complete member,
 * the pending chunks compressed (the writer's level and chunking), path
 * written as close would, and the spool removed. *frames: how many were
 * kept. BN_ERR_NA when path has no spool beside it (or its writer had
 * finished); BN_ERR_DATA for a spool bcbench did not write. */
int bn_srw_salvage(const char *path, int64_t *frames, struct bn_err *err);

/* rate_hz as libsigrok 0.5.2 writes it in the metadata (what its
 * sr_samplerate_string gives, "1 MHz", "44.1 kHz"), or "N Hz" when
 * libsigrok's parser would not read that back as rate_hz; into buf.
 * Returns its length. Without libsigrok. */
int bn_srw_samplerate_string(uint64_t rate_hz, char *buf, size_t len);

#endif
