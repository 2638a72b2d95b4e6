/* See fuzz.h. The two file-scope values below are per-process caches a
 * harness cannot avoid: libFuzzer calls the entry point millions of times
 * and gives it no context to hold them in. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/log.h"

static int input_fd = -1;
static struct bn_limits limits;
static int limits_loaded;

void bn_fuzz_quiet(void)
{
	/* Below BN_LOG_ERR: nothing passes. */
	bn_log_set_level(BN_LOG_ERR - 1);
}

const char *bn_fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	size_t off = 0;

	if (input_fd < 0) {
		input_fd = memfd_create("bn-fuzz-input", 0);
		if (input_fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", input_fd);
	}
	if (ftruncate(input_fd, 0) < 0)
		return NULL;
	while (off < size) {
		ssize_t n = pwrite(input_fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			return NULL;
		off += (size_t)n;
	}
	return path;
}

char *bn_fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return NULL;
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

const char *bn_fuzz_root(void)
{
	const char *r = getenv("BN_FUZZ_ROOT");

	return r && *r ? r : ".";
}

const struct bn_limits *bn_fuzz_limits(void)
{
	char path[1024];
	struct bn_err err = { 0 };

	if (limits_loaded)
		return &limits;
	snprintf(path, sizeof(path), "%s/profiles/limits/bc12.json", bn_fuzz_root());
	if (bn_limits_load(path, &limits, &err) < 0) {
		fprintf(stderr, "fuzz: %s (run from the source tree or set BN_FUZZ_ROOT)\n",
			err.msg);
		exit(2);
	}
	limits_loaded = 1;
	return &limits;
}
