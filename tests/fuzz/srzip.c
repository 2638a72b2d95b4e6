/* The srzip reader (bench/capture/srzip_read.c) on any bytes: open, every
 * analog channel selected, the whole capture read in small steps, both
 * ways (frames and columns) by turns. */
#include "lib/fuzz.h"

#include "capture/srzip_read.h"

#define STEP 97 /* frames per read: odd, so reads straddle chunk ends */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static float frames[STEP * BN_SRR_MAX_CH], cols[BN_SRR_MAX_CH][STEP];
	float *colp[BN_SRR_MAX_CH];
	struct bn_err err = { 0 };
	const struct bn_srr_info *info;
	struct bn_srr *r = NULL;
	int sel[BN_SRR_MAX_CH], n = 0;
	const char *path;

	bn_fuzz_quiet();
	path = bn_fuzz_file(data, size);
	if (!path || bn_srr_open(path, &r, &err) < 0)
		return 0;
	info = bn_srr_info(r);
	for (int i = 0; i < info->n_ch && n < BN_SRR_MAX_CH; i++) {
		if (info->ch[i].analog)
			sel[n++] = i;
		(void)bn_srr_find(r, info->ch[i].name);
	}
	for (int k = 0; k < n; k++)
		colp[k] = cols[k];
	if (n > 0 && bn_srr_select(r, n, sel, &err) == 0) {
		for (int turn = 0;; turn++) {
			long got = turn & 1 ? bn_srr_read_cols(r, colp, STEP, &err)
					    : bn_srr_read(r, frames, STEP, &err);

			if (got <= 0)
				break;
		}
	}
	bn_srr_close(r);
	return 0;
}
