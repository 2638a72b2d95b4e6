/* Files: atomic writes (temp file in the same directory, fsync, rename),
 * whole-file reads, hashes, directories. */
#ifndef BN_CORE_FILE_H
#define BN_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"

/* Write data to path atomically: readers see the old file or the whole new
 * one, never a torn one. */
int bn_file_write_atomic(const char *path, const void *data, size_t len,
			 struct bn_err *err);
/* The same, atomic but not durable (no fsync of the file or its
 * directory). A run syncs only what durability needs: the final
 * report.json (the record of the verdict) and the completed capture (its
 * writer). Everything else is derived from them or written again on the
 * next run: the provisional report (replaced by the final one), events.json
 * (its sha256 is in the durable report, so a loss is seen), the page
 * (bcbench report html renders it again), JUnit. A suite's entry syncs
 * neither: its suite syncs its whole output once, before suite.json
 * names the records (cli/cmd_suite.c). A crashed process loses
 * none of these (the page cache outlives it); a power cut may lose one,
 * never tear it (the rename is atomic either way). */
int bn_file_write_atomic_nosync(const char *path, const void *data, size_t len,
				struct bn_err *err);
/* A file written as a stream and renamed into place at commit (the same
 * guarantee as bn_file_write_atomic, for data that does not fit in one
 * buffer). discard removes the temporary file. */
struct bn_afile {
	FILE *f;
	char path[1024];
	char tmp[1100];
	bool no_sync; /* set after open: commit without fsync (see _nosync above) */
};
int bn_afile_open(struct bn_afile *a, const char *path, struct bn_err *err);
int bn_afile_commit(struct bn_afile *a, struct bn_err *err);
void bn_afile_discard(struct bn_afile *a);
/* Read a whole file; *out is NUL-terminated and malloc'ed. */
/* fsync the directory dir, making a rename in it durable: 0, or -1 with
 * errno. A file system that cannot sync a directory (EINVAL, ENOTSUP)
 * counts as done: the rename stands. */
int bn_fsync_dir(const char *dir);
int bn_file_read(const char *path, char **out, size_t *len, struct bn_err *err);
/* SHA-256 of a file as 64 hex digits (nettle). */
int bn_file_sha256(const char *path, char hex[65], struct bn_err *err);
void bn_sha256_hex(const void *data, size_t len, char hex[65]);
/* What a writer of path that died left beside it: the newest entry
 * DIR/.NAME<tag>... that is a regular file (inside NULL) or a directory
 * holding the regular file inside. malloc'ed; NULL if none. */
char *bn_file_leftover(const char *path, const char *tag, const char *inside);
/* mkdir -p */
int bn_mkdir_p(const char *path, struct bn_err *err);

#endif
