/* Runs a parsed scenario on the simulated bench and fills a report.
 *
 * Everything the scenario names is resolved and loaded first (limits,
 * port, charger, host, dut, firmware); any error there is bad input
 * (BN_ERR_DATA / BN_ERR_IO, "FILE:LINE:COL: error: ...") and the bench is
 * never touched. Once the bench runs, the function returns BN_OK and the
 * report says how the run ended (completed, aborted, error) and why; the
 * bench is left in its safe state on every path. With out_dir, the run's
 * capture (capture.sr, srzip) and its sidecar (events.json) are finished
 * on every path too: an interrupted run leaves readable files. */
#ifndef BN_SCENARIO_RUNNER_H
#define BN_SCENARIO_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "checks/check.h"
#include "core/conditions.h"
#include "core/err.h"
#include "core/limits.h"
#include "hil/backend.h"
#include "hil/console.h"
#include "hil/guard.h"
#include "hil/sigrok_cap.h"
#include "hil/usb_dev.h"
#include "report/report.h"
#include "scenario/scenario.h"

/* Where a run is, for a process watching it (bcbench run's isolation:
 * the run goes on in a child, the parent reads this from shared memory).
 * The runner stores to it with relaxed atomics; a reader sees the
 * counters move while the bench advances, and stop when the firmware
 * hangs inside a call or the process dies. */
struct bn_run_beacon {
	uint64_t beats;          /* bumped for every sample taken and step begun */
	int64_t sim_t_us;        /* bench time of the last sample */
	int32_t line;            /* scenario line of the step running, 0 before */
	int32_t started;         /* 1 once the bench runs (on_started called) */
	int32_t finished;        /* 1 once the caller has its outcome (the report
				  * written, or bad input said): set by the caller */
	int32_t finishing;       /* 1 while the record is finished (the capture
				  * zipped): no beats then, and none missed */
	int32_t lost;            /* enum bn_lost (cli/isolate.h): a process the run
				  * belongs to is gone, the run must stop */
	int32_t in_fw_call;      /* 1 while the firmware runs (sim/world.h): a
				  * hang then is the device's, else the bench's */
};

struct bn_run_opts {
	const char *scenario_path;
	const char *datadir;        /* where profiles/ live */
	const char *limits_path;    /* from bench.conf; NULL: datadir default */
	const char *limits_override;/* --limits: wins over the scenario's and the conf's */
	const char *firmware_override; /* --firmware: wins over the scenario's and the dut's */
	const char *conf_path;      /* for the report; may be NULL */
	/* Where report.json will go: capture.sr and events.json are written
	 * there (created if needed). NULL: no capture files. */
	const char *out_dir;
	/* A capture device through libsigrok: its frames, not the model's,
	 * are judged, and the scenario runs in real time. NULL: the
	 * simulated bench's samples. */
	const struct bn_sigrok_cap_opts *capture_dev;
	/* The bench's instruments, opened by the caller (bcbench: from
	 * bench.conf). A NULL one is the simulated backend on the run's
	 * world. The runner drives them and puts them in their safe state on
	 * every path; the caller closes them. */
	struct bn_fixture *fixture;
	struct bn_load *load;
	struct bn_supply *supply;
	const struct bn_guard *guard;   /* hard limits; NULL: none */
	/* The real device's telemetry console (bench.conf console): what
	 * the device reports there, not the simulated firmware, is what
	 * dut.* expectations and the detection rules judge, and the scenario
	 * runs in real time. The caller opens and closes it. NULL: the
	 * simulated firmware's telemetry. */
	struct bn_console *console;
	/* Waits take real time: a real bench (bcbench sets it whenever
	 * bench.conf names real hardware). A capture device or a console
	 * implies it. false: virtual time, as fast as the model runs (also
	 * the tests' fake hardware). */
	bool real_time;
	/* A run on a real bench (bcbench sets it whenever bench.conf names a
	 * real instrument): no simulated sample or event reaches a verdict.
	 * The samples are the capture device's, else the real supply's and
	 * load's polled readings (hil/poll_cap.h), else none; the events are
	 * what the real parts did (the fixture's switching, the load's
	 * setpoints, the console, scenario marks); what a simulated part or
	 * nothing provides makes the rules that need it inconclusive, saying
	 * why. Implies real_time. false: the model's samples and events (the
	 * sim bench, and the tests' fake hardware bound by world_hook). */
	bool real_bench;
	/* On a real bench, the bench PC as the device's USB host (bench.conf
	 * dut_usb, hil/usb_host.h): the runner watches the device enumerate
	 * in sysfs (CONNECT, dated when seen, with the window back to when a
	 * connect became possible), judges the configurations it really
	 * advertises, makes the host profile's configuration choice and the
	 * scenario's suspend and resume through sysfs (CONFIG, SUSPEND,
	 * RESUME with their windows), and sees it go (DISCONNECT). NULL: no
	 * USB host, and a real bench refuses suspend and resume steps. */
	const struct bn_usb_spec *dut_usb;
	const char *sysfs_root;     /* NULL: "/sys" */
	/* Called once the simulated world exists, before the first step:
	 * fake hardware in the tests drives it (the FTDI fake turns decoded
	 * switch states into plug and VBUS). Called again with NULL just
	 * before the world is freed, so the hook drops what it bound to it. */
	void (*world_hook)(void *user, struct bn_world *w);
	void *world_hook_user;
	/* The matrix a suite runs over: each wins over the scenario's own
	 * statement (NAME or FILE as in the scenario). NULL: the scenario's. */
	const char *port_override;
	const char *charger_override;
	const char *host_override;
	const char *dut_override;
	/* Called once everything is loaded and the report says what runs,
	 * just before the bench is first driven (a provisional report can be
	 * written then, for a crash to leave something behind). */
	void (*on_started)(void *user, const struct bn_report *rep);
	void *on_started_user;
	struct bn_run_beacon *beacon; /* NULL: none */
	FILE *progress;             /* one line per step result; NULL: silent */
	volatile const sig_atomic_t *stop_flag;
	int livelock_wakes;         /* 0: default */
	bool checks_no_hold;        /* feed the checks sample by sample (tests of bn_rule.hold) */
	/* bench.conf meas_CH: the simulated bench's measurement conditions,
	 * or a capture device's stated accuracy (bits of meas_set); a
	 * scenario's own measure line wins for the sim. */
	unsigned meas_set;
	struct bn_meas meas[BN_CH_COUNT];
	enum bn_acceptance acceptance;  /* the decision rule */
	/* --conditions: measurement and handling as data (core/conditions.h);
	 * NULL: none. Its measure wins over bench.conf's (a scenario's own
	 * measure line wins over both); its handling wins over the scenario's. */
	const struct bn_conditions *conditions;
	const char *conditions_path;    /* for the report */
	/* --force: run even when the capture is estimated not to fit in
	 * out_dir's free space (otherwise refused as BN_ERR_DATA). */
	bool force;
	/* bench.conf supply_mode = follow: a real supply plays the charger
	 * profile in a quasi-static loop (hil/supply_follow.h) instead of
	 * sitting at its open-circuit voltage; needs real_time or
	 * real_bench. The report's result bench.supply_follow states the
	 * loop's rate and what it cannot reproduce. */
	bool supply_follow;
	/* --no-capture: the run judges as always (the rules see every
	 * sample) but writes no capture.sr; events.json then names no
	 * capture and the report says why (its capture.not_written). A
	 * scenario's `capture off` does the same. */
	bool no_capture;
	/* The capture writer's compression threads beside the run's own
	 * (bn_srw_opts.threads): 0 compresses in the run's thread. */
	int capture_threads;
	/* capture.sr closed without an fsync (bn_srw_opts.no_sync): the
	 * caller syncs the output later (a suite's entry: the suite, once) */
	bool defer_sync;
	/* The limits a caller parsed already (a suite, once, before it forks
	 * its entries): used when the run resolves the same path, instead of
	 * parsing it again; borrowed, never freed by the run. NULL: none. */
	const struct bn_limits *limits_parsed;
};

int bn_run_scenario(const struct bn_run_opts *o, struct bn_report *rep, struct bn_err *err);

/* The limits file a run is judged against when its scenario names none:
 * --limits (as given), else bench.conf's limits (from the working
 * directory, else the data dir), else DATADIR/profiles/limits/bc12.json.
 * What a suite parses once for its entries (bn_run_opts.limits_parsed). */
void bn_run_limits_path(const char *limits_override, const char *conf_limits, const char *datadir,
			char *path, size_t len);

/* What a run of a scenario will need, known before it runs. */
struct bn_run_estimate {
	double dur_s;        /* the bench time it runs */
	double rate_hz;
	int n_ch;            /* captured channels */
	double disk_bytes;   /* the capture's peak on disk (spool and zip), with slack
			      * for report.json and events.json */
	double window_bytes; /* the memory of the expectations' sample window */
};
/* Room for report.json, events.json and the file system's rounding. */
#define BN_RUN_ESTIMATE_SLACK (1024.0 * 1024.0)
/* The sample window a run may hold in memory (expect avg(ibus, 45min) at
 * 100 kHz would be 5 GiB). */
#define BN_RUN_MAX_WINDOW_BYTES (512.0 * 1024 * 1024)
/* Pure: from the parsed scenario, the stream's rate and channels, and the
 * time a move spends away from the port (s). */
int bn_run_estimate(const struct bn_scenario *scn, double rate_hz, unsigned chan_mask,
		    double move_s, struct bn_run_estimate *e);
/* A capture rate above what its source can sample (max_hz; source names
 * it in the message) is bad input: BN_ERR_DATA "FILE:LINE:COL: error:
 * capture rate R Hz is above the maximum of SOURCE, M Hz" at loc (the
 * capture statement; line 0: the file's first line). Pure. */
int bn_run_rate_check(const char *path, const struct bn_scn_loc *loc, double rate_hz,
		      double max_hz, const char *source, struct bn_err *err);

#endif
