/* A plain main for the fuzz harnesses, so make check runs every corpus
 * and regression input through them with any compiler (no libFuzzer):
 * each argument is a file or a directory of files, each file one input.
 * Exits 1 when an argument cannot be read; a fault in a parser shows as
 * a crash or a sanitizer report, as under libFuzzer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;
	int rc = -1;

	if (!f)
		goto out;
	if (fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
		goto out;
	/* One byte more than the file, so an empty input is not malloc(0). */
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "replay: %s: cannot read\n", path);
	free(buf);
	if (f)
		fclose(f);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir in name order (so a failure repeats the same way). */
static int run_dir(const char *dir, int *n_run)
{
	struct dirent *de;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "replay: %s: cannot open\n", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));

			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (rc == 0 && run_file(path) < 0)
			rc = -1;
		else if (rc == 0)
			(*n_run)++;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int n_run = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &n_run) < 0)
				rc = 1;
		} else if (run_file(argv[i]) < 0) {
			rc = 1;
		} else {
			n_run++;
		}
	}
	printf("%s: %d inputs replayed\n", argv[0], n_run);
	return rc;
}
