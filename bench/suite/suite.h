/* A suite file (scripts/suites/NAME.suite): scenarios, the matrix each runs
 * over, and what each entry is expected to do. The scenario language's
 * lexer, one statement per line, '#' comments:
 *
 *   suite    "NAME"               at most once, before the first scenario
 *   watchdog TIME                 per entry: no progress this long = hung
 *   fwdir    DIR                  where firmware NAMEs are (NAME.so)
 *   limits   FILE.json            judge every entry against this file
 *   scenario FILE.scn             starts a block; the lines below belong to it
 *     port     NAME|FILE ...      axes: each value multiplies the block's
 *     charger  NAME|FILE ...      entries (the scenario's own when absent);
 *     host     NAME|FILE ...      a second line of the same axis adds values
 *     dut      NAME|FILE ...
 *     conditions NAME|FILE ...    measurement and handling (profiles/conditions/)
 *     firmware NAME|FILE.so [xfail RULE... | xerror]
 *                                 one firmware per line, with what it must
 *                                 do: fail exactly these rules, or end in
 *                                 error (crash, hang, livelock)
 *     xfail    RULE...            every entry of the block must fail these
 *
 * A block's entries are the product of its axes, in the order written.
 * RULE is a rule id (bc12.det.port_type) or expect.LN, an expectation
 * on scenario line N. Errors are "FILE:LINE:COL: error: ..." (BN_ERR_DATA).
 * Files are looked up as written, then beside the suite file, then under
 * the data dir (bare profile names: profiles/KIND/NAME.json). */
#ifndef BN_SUITE_SUITE_H
#define BN_SUITE_SUITE_H

#include <stdbool.h>

#include "core/err.h"
#include "core/time.h"

#define BN_SUITE_PATH_LEN 512
#define BN_SUITE_MAX_RULES 16

enum bn_suite_expect { BN_SUITE_EXPECT_PASS, BN_SUITE_EXPECT_FAIL, BN_SUITE_EXPECT_ERROR };

enum bn_suite_axis {
	BN_AXIS_PORT,
	BN_AXIS_CHARGER,
	BN_AXIS_HOST,
	BN_AXIS_DUT,
	BN_AXIS_CONDITIONS,
	BN_AXIS_FIRMWARE,     /* last: the innermost, with its expectation */
	BN_AXIS_COUNT
};

const char *bn_suite_axis_name(enum bn_suite_axis a);

struct bn_suite_entry {
	int index;                      /* in the expanded suite, from 0 */
	int line;                       /* the suite line of its firmware (or scenario) */
	char id[200];                   /* stem/axis values..., unique */
	char scenario[BN_SUITE_PATH_LEN]; /* resolved path */
	/* The axis values as written ("" : the scenario's own), and resolved
	 * (a file path; firmware: "reference" or a .so path). */
	char param[BN_AXIS_COUNT][128];
	char param_path[BN_AXIS_COUNT][BN_SUITE_PATH_LEN];
	enum bn_suite_expect expect;
	int n_rules;
	char rules[BN_SUITE_MAX_RULES][48];
	double cost;                    /* estimated work: samples the run takes */
};

struct bn_suite {
	char path[BN_SUITE_PATH_LEN];
	char name[160];
	char limits[BN_SUITE_PATH_LEN]; /* resolved, "" if none */
	char fwdir[BN_SUITE_PATH_LEN];  /* as used */
	double watchdog_s;              /* 0: not set */
	int n_entries;
	struct bn_suite_entry *entries;
};

struct bn_suite_opts {
	const char *datadir;   /* profiles/ */
	const char *fwdir;     /* wins over the file's fwdir; NULL: the file's, else fwdir_default */
	const char *fwdir_from;    /* who gave fwdir, for messages: NULL "--fwdir" */
	const char *fwdir_default; /* the one beside the binary; NULL: build/fw */
};

int bn_suite_parse_file(const char *path, const struct bn_suite_opts *o, struct bn_suite *out,
			struct bn_err *err);
int bn_suite_parse_text(const char *name, const char *text, const struct bn_suite_opts *o,
			struct bn_suite *out, struct bn_err *err);
void bn_suite_free(struct bn_suite *s);

/* "K/N" -> 1 <= K <= N. */
int bn_suite_parse_shard(const char *arg, int *k, int *n, struct bn_err *err);

/* Which entries this run takes: those whose id matches one of the
 * comma-separated glob patterns (NULL: all), then shard K of N: the
 * matching entries sorted longest first (cost, then index) and dealt
 * round-robin, so every shard gets a fair share of the long ones. The
 * picked indexes go to pick[] in the order to run them (longest first);
 * returns how many, and *n_matching the count before sharding. */
int bn_suite_select(const struct bn_suite *s, const char *filter, int shard_k, int shard_n,
		    int *pick, int *n_matching);

#endif
