/* The instruments bench.conf names, opened for a run: the fixture, the
 * load and the supply (a "sim" one is left for the runner to open on its
 * world), and the hard limits that guard them. */
#ifndef BN_HIL_BENCH_HW_H
#define BN_HIL_BENCH_HW_H

#include <stdbool.h>

#include "core/conf.h"
#include "core/err.h"
#include "hil/backend.h"
#include "hil/guard.h"

struct bn_bench_hw {
	struct bn_fixture fixture;   /* .ops NULL: the simulated one */
	struct bn_load load;
	struct bn_supply supply;
	struct bn_guard guard;
	char fixture_file[1200];     /* resolved path, "" when none */
	char lock_name[128];         /* the bench's name for its lock */
};

/* Open every real instrument the conf names. On error nothing is left
 * open and err names the conf key and the instrument. */
int bn_bench_hw_open(struct bn_bench_hw *hw, const struct bn_conf *conf, const char *datadir,
		     struct bn_err *err);
/* Safe state, then close, every instrument (each tried). */
void bn_bench_hw_close(struct bn_bench_hw *hw);
/* Open the bench and close it again: its safe state, and proof it is still
 * there (after a run's process died; between a suite's entries). As
 * bn_bench_hw_open's result. */
int bn_bench_hw_safe(const struct bn_conf *conf, const char *datadir, struct bn_err *err);
/* The name of the bench for its lock file: the fixture file's stem,
 * else "bench". */
void bn_bench_lock_name(const struct bn_conf *conf, char *buf, size_t len);

#endif
