/* Errors: negative codes plus one message that keeps the context of the
 * first failure (file:line, key, device). Functions return int, outputs
 * through pointers. */
#ifndef BN_CORE_ERR_H
#define BN_CORE_ERR_H

enum bn_err_code {
	BN_OK = 0,
	BN_ERR_ARG = -1,     /* bad argument or usage */
	BN_ERR_IO = -2,      /* file or device I/O failed */
	BN_ERR_TIMEOUT = -3, /* an instrument or the firmware did not answer */
	BN_ERR_DATA = -4,    /* bad input data: scenario, profile, limits, capture */
	BN_ERR_NA = -5,      /* not supported / not applicable */
	BN_ERR_NOMEM = -6,
	BN_ERR_FAULT = -7,   /* bench fault: firmware crashed, livelocked, instrument lost */
	BN_ERR_INTR = -8,    /* interrupted by a signal */
	BN_ERR_BUG = -9,     /* internal inconsistency */
};

#define BN_ERR_MSG_LEN 768

struct bn_err {
	int code;
	char msg[BN_ERR_MSG_LEN];
};

/* Record an error. The first error wins: later calls keep the original
 * message, so the context of the root cause survives. Returns code. */
int bn_err_set(struct bn_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void bn_err_clear(struct bn_err *err);
const char *bn_strerror(int code);
/* The process exit code for an error code (the exit-code table of README.md). */
int bn_err_exit_code(int code);

#endif
