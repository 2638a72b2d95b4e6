/* A scenario: the parsed form of a .scn file (docs/scenario-language.md).
 *
 * The language, one statement per line, '#' starts a comment, tokens are
 * separated by blanks, strings are in double quotes, quantities carry
 * their unit with no space ("500mA", "4.75V", "250ms", "45min", "1kHz").
 *
 * Set-up statements (each at most once, before the first action):
 *   name "TEXT"
 *   port NAME|FILE.json          bare names: profiles/ports/NAME.json
 *   charger NAME|FILE.json       profiles/chargers/
 *   host NAME|FILE.json          profiles/hosts/
 *   dut NAME|FILE.json           profiles/duts/
 *   firmware NAME|FILE.so        overrides the dut's firmware
 *   limits FILE.json             default profiles/limits/bc12.json
 *   battery VOLTAGE              initial battery open-circuit voltage
 *   capture CH... at RATE        channels vbus ibus dp dm id; default all at 10kHz
 *   capture off                  judge as always, write no capture.sr
 *   data_delay TIME              VBUS-to-data-line contact delay for attaches
 *   bounce N TIME                N contact bounces of TIME each on data contact
 *   measure CH "SPEC"            how the simulated bench measures CH (core/meas.h),
 *                                at most once per channel; wins over bench.conf
 *   measure seed N               the seed of the measurement noise (default 1)
 * Actions, run in order:
 *   vbus on|off                  plug with VBUS on / remove VBUS (data lines stay)
 *   plug                         attach: VBUS, then the data lines after data_delay
 *   unplug                       detach everything
 *   move PORT [charger C] [host H] [data_delay TIME] [bounce N TIME]
 *                                unplug, then plug into another port (charger,
 *                                host): re-detection within one run
 *   wait TIME
 *   load CURRENT|off             the electronic load on VBUS
 *   suspend | resume             the host suspends / resumes the bus
 *   mark "TEXT"
 *   expect dut.KEY OP VALUE      on telemetry; VALUE a number, a quantity or a word
 *   expect STAT(CH, TIME) OP QUANTITY
 *                                STAT avg|min|max over the last TIME of the capture
 *   check ID...                  compliance checks to judge over the capture
 * OP is one of == != < <= > >=. */
#ifndef BN_SCENARIO_SCENARIO_H
#define BN_SCENARIO_SCENARIO_H

#include <stdbool.h>

#include "core/channel.h"
#include "core/err.h"
#include "core/meas.h"
#include "core/time.h"
#include "core/units.h"

#define BN_SCN_PATH_LEN 512
#define BN_SCN_MAX_CHECKS 16
/* Bounds on what a scenario may ask for (docs/scenario-language.md,
 * "Limits"): memory and time are bounded before anything runs, each
 * overstep an error naming FILE:LINE:COL. */
#define BN_SCN_MAX_BYTES (1024 * 1024)   /* a scenario file */
#define BN_SCN_MAX_STEPS 10000           /* actions; about 2 KB each */
#define BN_SCN_MAX_TOKENS 64             /* tokens on one line */
#define BN_SCN_MAX_TIME_S (7 * 86400.0)  /* one wait or window, and all waits together */

enum bn_step_kind {
	BN_STEP_VBUS,
	BN_STEP_PLUG,
	BN_STEP_UNPLUG,
	BN_STEP_WAIT,
	BN_STEP_LOAD,
	BN_STEP_SUSPEND,
	BN_STEP_RESUME,
	BN_STEP_MARK,
	BN_STEP_EXPECT,
	BN_STEP_CHECK,
	BN_STEP_MOVE,
};

enum bn_cmp_op { BN_OP_EQ, BN_OP_NE, BN_OP_LT, BN_OP_LE, BN_OP_GT, BN_OP_GE };

enum bn_expect_kind { BN_EXPECT_TELEMETRY, BN_EXPECT_STAT };
enum bn_stat { BN_STAT_AVG, BN_STAT_MIN, BN_STAT_MAX };

struct bn_expect {
	enum bn_expect_kind kind;
	char key[48];            /* TELEMETRY: after "dut." */
	enum bn_stat stat;       /* STAT */
	enum bn_chan chan;       /* STAT */
	bn_time_us window_us;    /* STAT */
	enum bn_cmp_op op;
	bool is_word;            /* VALUE was a bare word, e.g. "dcp" */
	char word[48];
	double value;            /* SI units when dim != NONE */
	enum bn_dim dim;
	char text[200];          /* the statement as written, for the report */
};

/* move: unplug, then plug into another port (and charger, host), with its
 * own contact timing. Names or files as in the set-up statements; "" :
 * the run's own. */
struct bn_move {
	char port[128], charger[128], host[128];
	bn_time_us data_delay_us;  /* -1: the run's */
	int bounce_n;              /* -1: the run's */
	bn_time_us bounce_us;
};

struct bn_step {
	enum bn_step_kind kind;
	int line, col;
	bool on;                 /* VBUS */
	bn_time_us dur_us;       /* WAIT */
	bool load_off;           /* LOAD */
	double load_a;           /* LOAD */
	char mark[128];          /* MARK */
	struct bn_expect expect; /* EXPECT */
	int n_checks;            /* CHECK */
	char checks[BN_SCN_MAX_CHECKS][48];
	struct bn_move move;     /* MOVE */
};

/* Where each set-up statement was written (line 0: not written). */
struct bn_scn_loc {
	int line, col;
};

struct bn_scenario {
	char path[BN_SCN_PATH_LEN];
	char sha256[65];  /* of the file's bytes (bn_scenario_parse_file); "" from text */
	char name[160];
	char port[BN_SCN_PATH_LEN];
	char charger[BN_SCN_PATH_LEN];
	char host[BN_SCN_PATH_LEN];
	char dut[BN_SCN_PATH_LEN];
	char firmware[BN_SCN_PATH_LEN];
	char limits[BN_SCN_PATH_LEN];
	struct bn_scn_loc port_loc, charger_loc, host_loc, dut_loc, firmware_loc, limits_loc;
	struct bn_scn_loc capture_loc;
	bool has_battery_v;
	double battery_v;
	unsigned capture_mask;     /* bits of enum bn_chan; default BN_CH_ALL */
	double capture_rate_hz;    /* default 10 kHz */
	/* `capture off` (at capture_loc): the rules judge every sample of the
	 * default channels as always, but no capture.sr is written. */
	bool capture_off;
	bn_time_us data_delay_us;  /* -1: the dut's default */
	int bounce_n;
	bn_time_us bounce_us;
	/* measure: per channel, where written (line 0: not written) */
	struct bn_meas meas[BN_CH_COUNT];
	struct bn_scn_loc meas_loc[BN_CH_COUNT];
	bool has_meas_seed;
	unsigned long long meas_seed;
	int n_steps;
	struct bn_step *steps;     /* malloc'ed */
};

/* Parse a file. Errors: BN_ERR_IO (cannot read, naming the file) or
 * BN_ERR_DATA with "FILE:LINE:COL: error: WHAT (expected ...)". Nothing
 * is resolved or opened beyond the scenario itself. */
int bn_scenario_parse_file(const char *path, struct bn_scenario *out, struct bn_err *err);
/* Parse text; name stands for the file in messages. */
int bn_scenario_parse_text(const char *name, const char *text, struct bn_scenario *out,
			   struct bn_err *err);
void bn_scenario_free(struct bn_scenario *scn);
/* How long the scenario runs on the bench, known before it runs: its
 * waits, plus move_us for each move (the time away from the port, which
 * the limits set). */
bn_time_us bn_scenario_duration_us(const struct bn_scenario *scn, bn_time_us move_us);

const char *bn_cmp_op_str(enum bn_cmp_op op);
const char *bn_stat_name(enum bn_stat st);

#endif
