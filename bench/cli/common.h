/* What the commands share: bench.conf and the data dir found the same
 * way, the signal flag, the bench lock taken the same way. */
#ifndef BN_CLI_COMMON_H
#define BN_CLI_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "checks/check.h"
#include "core/conditions.h"
#include "core/conf.h"
#include "hil/lock.h"
#include "hil/sigrok_cap.h"

/* Defaults, then conf_path (or ./bench.conf when it exists and conf_path
 * is NULL). *conf_path is set to the file read, NULL when none. On error
 * prints "bcbench: FILE:LINE: error: ..." and returns exit code 2. */
int bn_cli_conf(const char **conf_path, struct bn_conf *conf);

/* The data dir: --datadir, else $BCBENCH_DATADIR, else the conf's datadir
 * key (relative to the conf's folder), else the one beside the binary
 * (core/datadir.h). Never the working directory or the conf's folder by
 * itself. Returns opt, the environment's, the conf's or a string in buf;
 * NULL after printing why (a given dir that is not one, none found): the
 * caller exits 2. conf_path only names the conf in the message. */
const char *bn_cli_datadir(const char *opt, const struct bn_conf *conf, const char *conf_path,
			   char *buf, size_t len);
/* The firmware dir: --fwdir, else $BCBENCH_FWDIR, else the one beside the
 * binary; NULL when none (a suite file's fwdir may still name one). */
const char *bn_cli_fwdir(const char *opt, char *buf, size_t len);

/* SIGINT, SIGTERM and SIGHUP set the flag (the signal number); the loops
 * read it between events. SIGPIPE is ignored. */
void bn_cli_catch_signals(void);
volatile sig_atomic_t *bn_cli_stop_flag(void);
/* The exit code of error code rc (core/exit.h, bn_exit_of_err), an
 * interrupt's by the signal that stopped this process. */
int bn_cli_exit_of(int rc);
/* "SIGINT", "SIGSEGV", ...: the stop flag's value, or how a process
 * died, in words; NULL for a signal without a name here. */
const char *bn_cli_signal_name(int sig);

/* The bench lock when bench.conf asks for it (lock = yes, or auto with
 * any real instrument), before any instrument is touched. who names the
 * command for the holder line. A lock a parent shares (a suite's entries)
 * is taken over, not queued for. 0, or the exit code after printing why;
 * bn_cli_lock_err leaves the reason in err instead. */
int bn_cli_lock_err(const struct bn_conf *conf, const char *who, double wait_s, bool quiet,
		    struct bn_lock *lock, struct bn_err *err);
int bn_cli_lock(const struct bn_conf *conf, const char *who, double wait_s, bool quiet,
		struct bn_lock *lock);

/* The capture device bench.conf names (capture, capture_map,
 * capture_rate; rate 0 when the conf gives none). A bad map is
 * BN_ERR_DATA "FILE:LINE: error: capture_map ...". o->driver points into
 * conf. */
int bn_cli_capture_opts(const struct bn_conf *conf, struct bn_sigrok_cap_opts *o,
			struct bn_err *err);

/* OPT SECONDS, more than 0: 0 on success, else prints and returns 2. */
int bn_cli_parse_seconds(const char *cmd, const char *opt, const char *arg, double *s);

/* "--wait SECONDS": 0 on success, else prints and returns 2. */
int bn_cli_parse_wait(const char *cmd, const char *arg, double *wait_s);
/* --conditions NAME|FILE: a bare name is profiles/conditions/NAME.json
 * under datadir; the path used goes to path. Prints the error itself:
 * non-zero. */
int bn_cli_conditions(const char *cmd, const char *spec, const char *datadir,
		      struct bn_conditions *c, char *path, size_t len);
/* --acceptance guarded|simple; prints the error itself: non-zero. */
int bn_cli_parse_acceptance(const char *cmd, const char *arg, enum bn_acceptance *a);
/* --uncertainty CH=SPEC (core/meas.h) into meas[ch], bit ch of *given;
 * prints the error itself: non-zero. */
int bn_cli_parse_uncertainty(const char *cmd, const char *opt, const char *arg, unsigned *given,
			     struct bn_meas meas[BN_CH_COUNT]);

/* A --json document on stdout, then freed: rc, or 6 (environment) when
 * it cannot be rendered (out of memory; the message names cmd). */
int bn_cli_print_json(const char *cmd, cJSON *doc, int rc);

#endif
