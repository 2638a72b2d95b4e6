#include "cli/hw_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/datadir.h"
#include "core/exit.h"
#include "core/err.h"
#include "hil/hw_present.h"

/* Set for bcbench-hw by the bcbench that starts it: a "bcbench-hw" that
 * is itself without the hardware (a copy of bcbench by that name) says
 * so instead of starting itself again, forever. */
#define HANDED_ENV "BN_HW_HANDED"

/* The command line as the kernel holds it (the args area that
 * /proc/self/cmdline shows): getopt_long permutes argv's pointers, never
 * the strings, so this is the line bcbench was started with. NULL-ended
 * array into *argv_out and its one buffer into *buf_out (free both). */
static int own_cmdline(char ***argv_out, char **buf_out)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), **argv;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC), argc = 0;
	ssize_t got;

	if (fd < 0 || !buf) {
		int e = fd < 0 ? errno : ENOMEM;

		if (fd >= 0)
			close(fd);
		free(buf);
		return -e;
	}
	while ((got = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)got;
		if (n + 1 == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				close(fd);
				free(buf);
				return -ENOMEM;
			}
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	if (got < 0 || n == 0) {
		free(buf);
		return got < 0 ? -errno : -EIO;
	}
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		argc++;
	argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv) {
		free(buf);
		return -ENOMEM;
	}
	argc = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	*argv_out = argv;
	*buf_out = buf;
	return 0;
}

int bn_cli_hw_exec(const char *who, const struct bn_conf *conf, bool always)
{
	const char *force = getenv(BN_HW_ENV), *key = conf ? bn_conf_hardware_key(conf) : NULL;
	char path[BN_DATADIR_LEN], tried[BN_DATADIR_TRIED_LEN], why[160], *buf = NULL, **argv = NULL;
	char need[BN_DATADIR_LEN + 64];
	int rc;

	if (bn_hw_present) {
		unsetenv(HANDED_ENV);
		return 0;
	}
	if (force && !strcmp(force, "never"))
		return 0;
	if (!always && !key && !(force && !strcmp(force, "always")))
		return 0;
	if (key)
		snprintf(need, sizeof(need), "%.900s names hardware (%s)",
			 conf->path[0] ? conf->path : "bench.conf", key);
	else
		snprintf(need, sizeof(need), "%s", always ? "the command talks to hardware" : BN_HW_ENV "=always");
	if (getenv(HANDED_ENV)) {
		fprintf(stderr,
			"%s: %s, but %s, started as bcbench-hw, is bcbench without the hardware "
			"libraries: reinstall bcbench\n",
			who, need, getenv(HANDED_ENV));
		return BN_EXIT_ENVIRONMENT;
	}
	if (bn_hwbin_beside_exe(path, sizeof(path), tried, sizeof(tried)) < 0) {
		fprintf(stderr,
			"%s: %s, which needs the hardware binary " BN_HWBIN_NAME
			" (with libsigrok, libftdi1, libserialport, libusb); not found, looked in: "
			"%s\n",
			who, need, tried);
		return BN_EXIT_ENVIRONMENT;
	}
	rc = own_cmdline(&argv, &buf);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: cannot read the command line to hand to %s "
			"(/proc/self/cmdline): %s\n", who, need, path, bn_errno_text(-rc, why, sizeof(why)));
		return BN_EXIT_ENVIRONMENT;
	}
	if (setenv(HANDED_ENV, path, 1) == 0) {
		/* what this process printed so far stays before bcbench-hw's */
		fflush(NULL);
		execv(path, argv);
	}
	rc = errno;
	unsetenv(HANDED_ENV);
	fprintf(stderr, "%s: %s: cannot start %s: %s\n", who, need, path,
		bn_errno_text(rc, why, sizeof(why)));
	free(argv);
	free(buf);
	return BN_EXIT_ENVIRONMENT;
}
