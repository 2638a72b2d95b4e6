/* Nearest names by edit distance, and the profiles a data dir holds. */
#include "core/datadir.h"
#include "core/suggest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORD 63

int bn_edit_distance(const char *a, const char *b)
{
	/* three rows of the dynamic programme: the swap looks two back */
	int r0[MAX_WORD + 2], r1[MAX_WORD + 2], r2[MAX_WORD + 2];
	int *pp = r0, *p = r1, *c = r2;
	size_t la = strlen(a), lb = strlen(b);

	if (la > MAX_WORD || lb > MAX_WORD)
		return MAX_WORD + 1;
	for (size_t j = 0; j <= lb; j++)
		p[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *t;

		c[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int best = p[j] + 1;

			if (c[j - 1] + 1 < best)
				best = c[j - 1] + 1;
			if (p[j - 1] + cost < best)
				best = p[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			c[j] = best;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

int bn_suggest_near(const char *word, const char *name)
{
	size_t len = strlen(word);
	int most = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	int d = bn_edit_distance(word, name);

	return d <= most && (size_t)d < len;
}

const char *bn_suggest_nearest(const char *word, const char *const *names, int n)
{
	const char *best = NULL;
	int best_d = 1 << 30;

	for (int i = 0; i < n; i++) {
		int d = bn_edit_distance(word, names[i]);

		if (d < best_d && bn_suggest_near(word, names[i])) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

void bn_suggest_text(const char *word, const char *const *names, int n, char *buf, size_t len)
{
	const char *near = bn_suggest_nearest(word, names, n);
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (!n) {
		snprintf(buf, len, "none");
		return;
	}
	for (int i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (near && used < len)
		snprintf(buf + used, len - used, "; did you mean %s?", near);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bn_profile_names(const char *datadir, const char *kind, char ***names, int *n)
{
	char dir[1024];
	DIR *d;
	struct dirent *de;
	size_t bytes = 0;
	int count = 0;
	char **out, *text;

	*names = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/profiles/%s", datadir ? datadir : ".", kind);
	d = opendir(dir);
	if (!d)
		return -1;
	/* two passes over the directory: the count, then the names */
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 5 && de->d_name[0] != '.' && !strcmp(de->d_name + l - 5, ".json")) {
			count++;
			bytes += l - 4;
		}
	}
	out = malloc((size_t)count * sizeof(*out) + bytes + 1);
	if (!out) {
		closedir(d);
		return -1;
	}
	text = (char *)(out + count);
	rewinddir(d);
	*n = 0;
	while ((de = readdir(d)) && *n < count) {
		size_t l = strlen(de->d_name);

		if (l > 5 && de->d_name[0] != '.' && !strcmp(de->d_name + l - 5, ".json") &&
		    (size_t)(text - (char *)(out + count)) + l - 4 <= bytes) {
			memcpy(text, de->d_name, l - 5);
			text[l - 5] = '\0';
			out[(*n)++] = text;
			text += l - 4;
		}
	}
	closedir(d);
	qsort(out, (size_t)*n, sizeof(*out), by_name);
	*names = out;
	return 0;
}

void bn_suggest_profile(const char *datadir, const char *kind, const char *word, char *buf,
			size_t len)
{
	char **names = NULL;
	int n = 0;
	char list[600];
	const char *dd = datadir ? datadir : ".";

	if (bn_profile_names(dd, kind, &names, &n) < 0) {
		snprintf(buf, len, " (%s/profiles/%s/ cannot be read; to use another data dir, %s)", dd,
			 kind, BN_DATADIR_HOW);
		return;
	}
	bn_suggest_text(word, (const char *const *)names, n, list, sizeof(list));
	snprintf(buf, len, " (available in %s/profiles/%s/: %s; another data dir: %s)", dd, kind,
		 list, BN_DATADIR_HOW);
	free(names);
}
