/* The process exit codes, one table for every command (README.md, "Exit
 * codes"; docs/bcbench.1, EXIT STATUS), and the cause string each has in
 * a record (report.json status.cause, suite.json entries, JUnit types).
 * A CI job acts on the code: it retries only BN_EXIT_BENCH_FAULT. */
#ifndef BN_CORE_EXIT_H
#define BN_CORE_EXIT_H

enum bn_exit {
	BN_EXIT_OK = 0,               /* "ok": everything as expected */
	BN_EXIT_FAILED = 1,           /* "rule-failed": the device failed a rule; an
				       * entry failed unexpectedly or xpassed; diff
				       * found a regression */
	BN_EXIT_BAD_INPUT = 2,        /* "bad-input": usage, scenario, suite, profile,
				       * limits, config, fixture, capture, report file */
	BN_EXIT_DUT_BROKE = 3,        /* "device-broke-run": firmware crash, hang in a
				       * firmware call, livelock, early exit */
	BN_EXIT_NOT_DEMONSTRATED = 4, /* "not-demonstrated": only with --require-verdicts */
	BN_EXIT_BENCH_FAULT = 5,      /* "bench-fault": instrument, fixture or console
				       * lost, stalled or unreachable; lock busy past
				       * --wait. Transient: the only code to retry. */
	BN_EXIT_ENVIRONMENT = 6,      /* "environment": a retry would repeat it: disk
				       * full, file size limit, read-only or
				       * unwritable output, permission denied, a
				       * library that cannot be loaded */
	BN_EXIT_NOTHING_TO_RUN = 7,   /* "nothing-to-run": an empty suite, a --filter
				       * or --shard that selects nothing */
};

/* 128+N for signal N ("interrupted"): SIGHUP 129, SIGINT 130, SIGTERM 143. */
#define BN_EXIT_INTERRUPTED(signo) (128 + (signo))
#define BN_EXIT_SIGNAL_MIN 129
#define BN_EXIT_SIGNAL_MAX (128 + 64)

#define BN_CAUSE_OK "ok"
#define BN_CAUSE_FAILED "rule-failed"
#define BN_CAUSE_BAD_INPUT "bad-input"
#define BN_CAUSE_DUT_BROKE "device-broke-run"
#define BN_CAUSE_NOT_DEMONSTRATED "not-demonstrated"
#define BN_CAUSE_BENCH_FAULT "bench-fault"
#define BN_CAUSE_ENVIRONMENT "environment"
#define BN_CAUSE_NOTHING_TO_RUN "nothing-to-run"
#define BN_CAUSE_INTERRUPTED "interrupted"

/* The cause string of an exit code ("bench-fault" for 5, "interrupted"
 * for 129..192); NULL for a code outside the table. */
const char *bn_exit_cause(int code);
/* The exit code of a cause string; for "interrupted", signo's
 * (BN_EXIT_INTERRUPTED(signo), SIGINT's when signo is 0). -1 when cause
 * is not one of the table's. */
int bn_exit_from_cause(const char *cause, int signo);
/* The more urgent of two exit codes, for a suite's entries and a merge of
 * shards: interrupted > 2 > 6 > 3 > 1 > 5 > 4 > 7 > 0. A deterministic
 * failure outranks a bench that also flaked, so a CI does not retry it. A
 * code outside the table ranks as an environment fault. */
int bn_exit_most_urgent(int a, int b);
/* The exit code of an error code (core/err.h): BN_OK 0; ARG, DATA, IO
 * (reading an input), NA: 2; DUT: 3; FAULT, TIMEOUT: 5; ENV, NOMEM, BUG: 6;
 * INTR: 128+signo (SIGINT's when signo is 0). */
int bn_exit_of_err(int err_code, int signo);

#endif
