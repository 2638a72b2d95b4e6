#include "reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "core/file.h"
#include "core/json.h"

static char dir_path[256];

static void remove_dir(void)
{
	char path[300];

	for (int k = 0; k < 64; k++) {
		snprintf(path, sizeof(path), "%s/r%d.json", dir_path, k);
		unlink(path);
	}
	rmdir(dir_path);
}

const char *bn_fuzz_reports_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (dir_path[0])
		return dir_path;
	snprintf(dir_path, sizeof(dir_path), "%s/bn-fuzz-reports-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir_path)) {
		dir_path[0] = '\0';
		return NULL;
	}
	atexit(remove_dir);
	return dir_path;
}

int bn_fuzz_docs_and_reports(const uint8_t *data, size_t size, cJSON **docs, int n_docs,
			     int max_files)
{
	const char *dir = bn_fuzz_reports_dir();
	size_t off = 0;
	int n = 0, k = 0;
	char path[300];

	for (int i = 0; i < n_docs; i++)
		docs[i] = NULL;
	for (;;) {
		const uint8_t *nul = off < size ? memchr(data + off, 0, size - off) : NULL;
		size_t len = nul ? (size_t)(nul - (data + off)) : size - off;

		if (n < n_docs) {
			docs[n++] = cJSON_ParseWithLength((const char *)data + off, len);
		} else if (dir && k < max_files) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/r%d.json", dir, k++);
			f = fopen(path, "wb");
			if (f) {
				(void)!fwrite(data + off, 1, len, f);
				fclose(f);
			}
		}
		if (!nul)
			break;
		off += len + 1;
	}
	for (; dir && k < max_files; k++) {
		snprintf(path, sizeof(path), "%s/r%d.json", dir, k);
		unlink(path);
	}
	return n;
}

void bn_fuzz_fix_report_hashes(cJSON *doc, const char *dir)
{
	cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries"), *e;

	cJSON_ArrayForEach(e, entries)
	{
		cJSON *rep = cJSON_GetObjectItemCaseSensitive(e, "report");
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(rep, "path");
		struct bn_err err = { 0 };
		char path[600], hex[65];

		if (!cJSON_IsString(p) || strchr(p->valuestring, '/'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, p->valuestring);
		if (bn_file_sha256(path, hex, &err) == 0)
			bn_json_set(rep, "sha256", cJSON_CreateString(hex));
	}
}
