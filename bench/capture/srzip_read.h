/* Reads a sigrok session file (srzip) as a time-aligned stream of frames,
 * one cursor per selected channel, so memory does not grow with the
 * capture's length: per channel, a buffer of its largest member (a member
 * of deflate or store up to 16 MiB is read raw and inflated whole by
 * libdeflate: the writer's are 4 MiB), or 1 MiB streamed through libzip
 * for a larger member or another method; plus one member's compressed
 * bytes. Without libsigrok: its samplerate parse is capture/sizestr.h.
 *
 * Why not sr_session_load: it delivers all of channel 1, then all of
 * channel 2, ... (docs/capture-files.md); aligned frames would need the whole
 * capture in memory.
 *
 * Files from other sigrok tools work: logic channels (the "logic-1-<chunk>"
 * members) are listed but not streamed; analog members may be split into
 * chunks of any size (numbered 1, 2, ... without gaps, as libsigrok's
 * loader needs). Every problem in the file is BN_ERR_DATA with a message
 * that names the file and what is wrong or missing (a missing or
 * unreadable file is BN_ERR_IO, a misuse of this API BN_ERR_ARG).
 *
 * Members are checked by their CRC: one inflated whole before any of its
 * frames is delivered; a streamed one when its last byte is read, so a
 * corrupt member longer than a read's worth (64 Ki samples) may have
 * delivered some of its frames before bn_srr_read fails. */
#ifndef BN_CAPTURE_SRZIP_READ_H
#define BN_CAPTURE_SRZIP_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

#define BN_SRR_MAX_CH 64

struct bn_srr_chan {
	char name[64];
	bool analog;
	int index;        /* the probe/analog index in the metadata (1-based) */
	char unit[8];     /* from "bcbench units" (one per analog channel, in ascending
			   * analogN order), "" when the file does not say */
	int64_t n_samples;/* analog: sum of its chunk sizes / 4 */
};

struct bn_srr_info {
	double rate_hz;   /* > 0; open fails on a missing or zero samplerate */
	int n_ch;         /* analog and logic, in metadata order */
	struct bn_srr_chan ch[BN_SRR_MAX_CH];
	int n_analog, n_logic;
	int unitsize;     /* logic bytes per sample, 0 without logic */
	int64_t n_frames; /* the shortest analog channel's length (0 without analog) */
};

struct bn_srr;

int bn_srr_open(const char *path, struct bn_srr **out, struct bn_err *err);
const struct bn_srr_info *bn_srr_info(const struct bn_srr *r);
/* The file's channels for a message: "A0, A1, D0 (logic)", or "no
 * channels". */
void bn_srr_list_channels(const struct bn_srr_info *in, char *buf, size_t len);
/* Find a channel by name (case-insensitive); -1 if absent. */
int bn_srr_find(const struct bn_srr *r, const char *name);
/* Choose the analog channels to stream (indexes into info.ch), in order.
 * Must be called before the first read; may be called again until then.
 * A logic channel is BN_ERR_ARG. */
int bn_srr_select(struct bn_srr *r, int n, const int ch_idx[], struct bn_err *err);
/* Up to max_frames frames of n selected floats each, interleaved, into
 * frames. Returns the count, 0 at the end (or for max_frames 0), < 0 on a
 * corrupt or truncated member, naming it; that error is sticky. Stops at
 * the shortest selected channel. */
long bn_srr_read(struct bn_srr *r, float *frames, long max_frames, struct bn_err *err);
/* The same into one array per selected channel (cols[k][0..]): no
 * interleaving, for a reader that takes the channels apart again. */
long bn_srr_read_cols(struct bn_srr *r, float *const cols[], long max_frames, struct bn_err *err);
void bn_srr_close(struct bn_srr *r);

#endif
