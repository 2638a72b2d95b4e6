#include "core/datadir.h"

#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"

int bn_exe_dir(char *out, size_t len)
{
	char exe[BN_DATADIR_LEN];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || (size_t)n >= sizeof(exe) - 1) {
		if (len)
			out[0] = '\0';
		return BN_ERR_IO;
	}
	exe[n] = '\0';
	snprintf(out, len, "%s", dirname(exe));
	return BN_OK;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_exe(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Parent of dir, textually ("/" stays "/"): the candidates read as
 * plain paths in messages, without "..". */
static void parent(const char *dir, char *out, size_t len)
{
	char buf[BN_DATADIR_LEN];

	snprintf(buf, sizeof(buf), "%s", dir);
	snprintf(out, len, "%s", dirname(buf));
}

/* The first of cand[] whose path + probe found_fn accepts. */
static int first_of(char cand[][BN_DATADIR_LEN], int n, const char *probe,
		    bool (*found_fn)(const char *),
		    char *out, size_t len, char *tried, size_t tried_len)
{
	char p[BN_DATADIR_LEN + 32];
	size_t used = 0;
	int found = -1;

	if (tried_len)
		tried[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (i && used + 2 < tried_len)
			used += (size_t)snprintf(tried + used, tried_len - used, ", ");
		if (used < tried_len)
			used += (size_t)snprintf(tried + used, tried_len - used, "%s", cand[i]);
		snprintf(p, sizeof(p), "%s%s", cand[i], probe);
		if (found < 0 && found_fn(p))
			found = i;
	}
	if (found < 0) {
		if (len)
			out[0] = '\0';
		return BN_ERR_IO;
	}
	snprintf(out, len, "%s", cand[found]);
	return BN_OK;
}

int bn_datadir_beside_exe(char *out, size_t len, char *tried, size_t tried_len)
{
	char cand[4][BN_DATADIR_LEN], up[BN_DATADIR_LEN], up2[BN_DATADIR_LEN];

	if (bn_exe_dir(cand[1], sizeof(cand[1])) < 0) {
		snprintf(tried, tried_len, "(the binary's directory: /proc/self/exe unreadable)");
		if (len)
			out[0] = '\0';
		return BN_ERR_IO;
	}
	parent(cand[1], up, sizeof(up));
	parent(up, up2, sizeof(up2));
	snprintf(cand[0], sizeof(cand[0]), "%.*s/share/bcbench", BN_DATADIR_LEN - 20,
		 strcmp(up, "/") ? up : "");
	snprintf(cand[2], sizeof(cand[2]), "%s", up);
	snprintf(cand[3], sizeof(cand[3]), "%s", up2);
	return first_of(cand, 4, "/profiles", is_dir, out, len, tried, tried_len);
}

/* PREFIX/lib/bcbench/NAME (installed: BIN/..), else BIN/BUILD_NAME (a
 * build tree), the first that found_fn accepts. */
static int lib_beside_exe(const char *name, const char *build_name, bool (*found_fn)(const char *),
			  char *out, size_t len, char *tried, size_t tried_len)
{
	char cand[2][BN_DATADIR_LEN], bin[BN_DATADIR_LEN], up[BN_DATADIR_LEN];

	if (bn_exe_dir(bin, sizeof(bin)) < 0) {
		snprintf(tried, tried_len, "(the binary's directory: /proc/self/exe unreadable)");
		if (len)
			out[0] = '\0';
		return BN_ERR_IO;
	}
	parent(bin, up, sizeof(up));
	snprintf(cand[0], sizeof(cand[0]), "%.*s/lib/bcbench/%s", BN_DATADIR_LEN - 40,
		 strcmp(up, "/") ? up : "", name);
	snprintf(cand[1], sizeof(cand[1]), "%.*s/%s", BN_DATADIR_LEN - 20, bin, build_name);
	return first_of(cand, 2, "", found_fn, out, len, tried, tried_len);
}

int bn_fwdir_beside_exe(char *out, size_t len, char *tried, size_t tried_len)
{
	return lib_beside_exe("firmware", "fw", is_dir, out, len, tried, tried_len);
}

int bn_hwbin_beside_exe(char *out, size_t len, char *tried, size_t tried_len)
{
	return lib_beside_exe(BN_HWBIN_NAME, BN_HWBIN_NAME, is_exe, out, len, tried, tried_len);
}
