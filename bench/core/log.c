#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/text.h"

/* The one mutable file-scope value: written by the CLI before any thread or
 * child exists, read everywhere after. */
static int log_level = BN_LOG_WARN;

void bn_log_set_level(int level)
{
	log_level = level;
}

int bn_log_get_level(void)
{
	return log_level;
}

void bn_log_msg(int level, const char *module, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	va_list ap;

	if (level > log_level)
		return;
	fprintf(stderr, "%s: %s: ", module, names[level < 0 ? 0 : level > 3 ? 3 : level]);
	/* one line a message: a name or telemetry in it cannot break the
	 * line or drive the terminal */
	va_start(ap, fmt);
	bn_term_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
