#include "core/err.h"

#include "core/exit.h"
#include "core/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

int bn_err_set(struct bn_err *err, int code, const char *fmt, ...)
{
	char raw[BN_ERR_MSG_LEN];
	va_list ap;

	if (!err || err->code != BN_OK)
		return code;
	err->code = code;
	va_start(ap, fmt);
	bn_str_vfmt(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* A message is one line for a person: it quotes names, telemetry
	 * and file contents, so its control characters are shown escaped
	 * wherever it is printed or recorded. */
	bn_term_esc(raw, err->msg, sizeof(err->msg));
	return code;
}

void bn_err_clear(struct bn_err *err)
{
	err->code = BN_OK;
	err->msg[0] = '\0';
}

const char *bn_strerror(int code)
{
	switch (code) {
	case BN_OK: return "ok";
	case BN_ERR_ARG: return "bad argument";
	case BN_ERR_IO: return "input/output error";
	case BN_ERR_TIMEOUT: return "timed out";
	case BN_ERR_DATA: return "bad data";
	case BN_ERR_NA: return "not supported";
	case BN_ERR_NOMEM: return "out of memory";
	case BN_ERR_FAULT: return "bench fault";
	case BN_ERR_INTR: return "interrupted";
	case BN_ERR_BUG: return "internal error";
	case BN_ERR_ENV: return "output cannot be written";
	case BN_ERR_DUT: return "the device under test broke the run";
	}
	return "unknown error";
}

int bn_err_exit_code(int code)
{
	return bn_exit_of_err(code, 0);
}

const char *bn_errno_text(int e, char *buf, size_t len)
{
	struct rlimit rl;

	if (!buf || !len)
		return "";
	if (e == EFBIG && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "%s: the file size limit (ulimit -f) is %llu bytes", strerror(e),
			 (unsigned long long)rl.rlim_cur);
	else if (e == EFBIG)
		snprintf(buf, len, "%s: a file size limit of the file system", strerror(e));
	else
		snprintf(buf, len, "%s", strerror(e));
	return buf;
}

int bn_err_from_write_errno(int e)
{
	return e == ENOMEM ? BN_ERR_NOMEM : BN_ERR_ENV;
}
