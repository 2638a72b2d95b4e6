/* Logging: one macro set, a module prefix per file (define BN_LOG_MODULE
 * before including). Everything goes to stderr; only the CLI and the report
 * writers print to stdout. The level is process-wide and set once by the
 * CLI (-v/-q) before any work starts. */
#ifndef BN_CORE_LOG_H
#define BN_CORE_LOG_H

enum bn_log_level { BN_LOG_ERR = 0, BN_LOG_WARN, BN_LOG_INFO, BN_LOG_DBG };

void bn_log_set_level(int level);
int bn_log_get_level(void);
void bn_log_msg(int level, const char *module, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifndef BN_LOG_MODULE
#define BN_LOG_MODULE "bcbench"
#endif
#define bn_err_log(...) bn_log_msg(BN_LOG_ERR, BN_LOG_MODULE, __VA_ARGS__)
#define bn_warn(...) bn_log_msg(BN_LOG_WARN, BN_LOG_MODULE, __VA_ARGS__)
#define bn_info(...) bn_log_msg(BN_LOG_INFO, BN_LOG_MODULE, __VA_ARGS__)
#define bn_dbg(...) bn_log_msg(BN_LOG_DBG, BN_LOG_MODULE, __VA_ARGS__)

#endif
