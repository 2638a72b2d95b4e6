/* Errors: negative codes plus one message that keeps the context of the
 * first failure (file:line, key, device). Functions return int, outputs
 * through pointers. */
#ifndef BN_CORE_ERR_H
#define BN_CORE_ERR_H

#include <stddef.h>

enum bn_err_code {
	BN_OK = 0,
	BN_ERR_ARG = -1,     /* bad argument or usage */
	BN_ERR_IO = -2,      /* file or device I/O failed */
	BN_ERR_TIMEOUT = -3, /* an instrument or the firmware did not answer */
	BN_ERR_DATA = -4,    /* bad input data: scenario, profile, limits, capture */
	BN_ERR_NA = -5,      /* not supported / not applicable */
	BN_ERR_NOMEM = -6,
	BN_ERR_FAULT = -7,   /* bench fault: an instrument, fixture or console lost,
			      * stalled or unreachable; the bench in use */
	BN_ERR_INTR = -8,    /* interrupted by a signal */
	BN_ERR_BUG = -9,     /* internal inconsistency */
	BN_ERR_ENV = -10,    /* environment fault: an output cannot be written (disk
			      * full, file size limit, read-only or unwritable directory) */
	BN_ERR_DUT = -11,    /* the device under test broke the run: its firmware
			      * refused to start, livelocked, crashed or hung */
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
/* The process exit code for an error code (core/exit.h, the table of
 * README.md): bn_exit_of_err(code, 0), for a caller that knows no signal
 * (BN_ERR_INTR: SIGINT's 130). */
int bn_err_exit_code(int code);
/* errno e as a reader needs it: strerror(e), and for EFBIG the limit that
 * was hit ("File too large: the file size limit (ulimit -f) is 4194304
 * bytes"). Writes into buf and returns it. */
const char *bn_errno_text(int e, char *buf, size_t len);
/* The error code for errno e of a failed write of an output: BN_ERR_ENV,
 * except ENOMEM (BN_ERR_NOMEM). */
int bn_err_from_write_errno(int e);

#endif
