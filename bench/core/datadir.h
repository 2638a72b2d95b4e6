/* Where bcbench's data (profiles/, scripts/, fixtures/) and firmware
 * (NAME.so) are, found from the running binary's own path rather than a
 * prefix compiled in: the same binary works from its source tree
 * (<tree>/build/bcbench, <tree>/build/san/bcbench), installed under any
 * PREFIX (PREFIX/bin/bcbench beside PREFIX/share/bcbench), or staged
 * under DESTDIR, and `make install PREFIX=...` has nothing to rebuild. */
#ifndef BN_CORE_DATADIR_H
#define BN_CORE_DATADIR_H

#include <stddef.h>

#define BN_DATADIR_LEN 1024
/* The candidates tried, "A, B, C" (each up to BN_DATADIR_LEN). */
#define BN_DATADIR_TRIED_LEN (4 * BN_DATADIR_LEN + 16)

/* The directory the running binary is in (/proc/self/exe's). BN_ERR_IO
 * when the kernel does not say (no /proc). */
int bn_exe_dir(char *out, size_t len);

/* The data dir beside the binary: the first of BIN/../share/bcbench
 * (installed), BIN, BIN/.. and BIN/../.. (a source tree, an unpacked
 * copy) that holds a profiles/ directory. BN_OK with out set; else
 * BN_ERR_IO and out "". tried gets the candidates in order either way. */
int bn_datadir_beside_exe(char *out, size_t len, char *tried, size_t tried_len);

/* The firmware dir beside the binary: BIN/../lib/bcbench/firmware
 * (installed), else BIN/fw (a build tree: build/fw, build/san/fw). As
 * bn_datadir_beside_exe. */
int bn_fwdir_beside_exe(char *out, size_t len, char *tried, size_t tried_len);

/* The hardware binary (docs/design.md, "Two binaries"): the first of
 * BIN/../lib/bcbench/bcbench-hw (installed) and BIN/bcbench-hw (a build
 * tree) that is an executable file. As bn_datadir_beside_exe. */
#define BN_HWBIN_NAME "bcbench-hw"
int bn_hwbin_beside_exe(char *out, size_t len, char *tried, size_t tried_len);

/* How a user changes the data dir, for the end of a "cannot open"
 * message. */
#define BN_DATADIR_HOW "give --datadir DIR, set BCBENCH_DATADIR=DIR, or put datadir = DIR in bench.conf"
#define BN_FWDIR_HOW "give --fwdir DIR, set BCBENCH_FWDIR=DIR, or put fwdir DIR in the suite"

#endif
