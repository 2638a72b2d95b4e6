/* bcbench merge: the shards of one suite run joined into one suite.json
 * (report/merge.c); exit by the merged suite's exit code. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/common.h"
#include "core/file.h"
#include "core/json.h"
#include "report/merge.h"
#include "report/suite_doc.h"

const char bn_cli_merge_usage[] =
	"Usage: bcbench merge [-o FILE] [--partial] SHARD.json...\n"
	"Join the suite.json of each shard of one suite run (bcbench suite --shard K/N)\n"
	"into one suite.json, as if the suite had run whole: the entries of all, sorted\n"
	"by index, totals and exit code recomputed, \"shard\" null and \"merged_from\"\n"
	"naming the files. Each entry's \"dir\" and report path are rewritten relative\n"
	"to FILE; each report must be there with the sha256 its record names. The files\n"
	"must be of one run of one suite (equal suite sha256, filter, limits and shard\n"
	"count); an entry index in two files is an error. So is a shard missing, or\n"
	"fewer entries than the suite has, unless --partial. FILE is written\n"
	"atomically; one line of totals is printed.\n"
	"\n"
	"  -o, --out FILE   the merged suite.json (default ./suite.json)\n"
	"  -p, --partial    merge even when shards or entries are missing\n"
	"  -h, --help       this help\n"
	"\n"
	"Exit codes (bcbench help has the table): the merged suite's, the most urgent\n"
	"of its entries not as expected (interrupted > 2 > 6 > 3 > 1 > 5 > 4), 0 when\n"
	"every entry is as expected, 7 when there is none; else 2 bad usage or input\n"
	"(a file missing, not a suite record, shards that do not fit, an entry's report\n"
	"missing or changed), 6 the merged file cannot be written.\n";

static int mkdir_parent(const char *path, struct bn_err *err)
{
	char dir[1024];
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return BN_OK;
	if ((size_t)(slash - path) >= sizeof(dir))
		return bn_err_set(err, BN_ERR_ARG, "%s: path too long", path);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return bn_mkdir_p(dir, err);
}

static int total(const cJSON *doc, const char *key)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "totals");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* With --partial: say which shards are not there. */
static void note_missing(const cJSON *doc)
{
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(doc, "merged_from"), *m;
	int count = 0;

	cJSON_ArrayForEach(m, from) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(m, "shard"), "count");

		if (cJSON_IsNumber(c))
			count = c->valueint;
	}
	for (int k = 1; k <= count; k++) {
		bool have = false;

		cJSON_ArrayForEach(m, from) {
			const cJSON *i = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(m, "shard"), "index");

			have = have || (cJSON_IsNumber(i) && i->valueint == k);
		}
		if (!have)
			fprintf(stderr, "bcbench merge: note: shard %d/%d is not in the merge "
				"(--partial)\n", k, count);
	}
}

int bn_cli_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "partial", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bn_merge_opts mo = { .partial = false, .out_path = "suite.json" };
	struct bn_err err = { 0 };
	cJSON **docs = NULL, *merged = NULL;
	const char **paths;
	char *text = NULL;
	int c, n, rc = 2, exit_code;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:ph", opts, NULL)) != -1) {
		switch (c) {
		case 'o': mo.out_path = optarg; break;
		case 'p': mo.partial = true; break;
		case 'h': fputs(bn_cli_merge_usage, stdout); return 0;
		default: fputs(bn_cli_merge_usage, stderr); return 2;
		}
	}
	n = argc - optind;
	if (n < 1) {
		fprintf(stderr, "bcbench merge: expected one or more SHARD.json files\n%s",
			bn_cli_merge_usage);
		return 2;
	}
	if (!mo.out_path[0]) {
		fprintf(stderr, "bcbench merge: --out: empty file name\n");
		return 2;
	}
	paths = (const char **)(argv + optind);
	docs = calloc((size_t)n, sizeof(*docs));
	if (!docs) {
		fprintf(stderr, "bcbench merge: out of memory\n");
		return 2;
	}
	/* The records are small (reports are named, not held); each report
	 * is checked against its sha256 one file at a time, so a merged
	 * record never names a report that is gone or changed. */
	for (int i = 0; i < n; i++)
		if (bn_json_load(paths[i], &docs[i], &err) < 0 ||
		    bn_suite_doc_check(docs[i], paths[i], &err) < 0 ||
		    bn_suite_doc_verify_reports(docs[i], paths[i], &err) < 0)
			goto fail;
	if (bn_suite_merge(docs, paths, n, &mo, &merged, &err) < 0)
		goto fail;
	text = bn_json_print(merged);
	if (!text) {
		bn_err_set(&err, BN_ERR_NOMEM, "%s: cannot render the merged record", mo.out_path);
		goto fail;
	}
	if (mkdir_parent(mo.out_path, &err) < 0 ||
	    bn_file_write_atomic(mo.out_path, text, strlen(text), &err) < 0)
		goto fail;
	if (mo.partial)
		note_missing(merged);
	exit_code = cJSON_GetObjectItemCaseSensitive(merged, "exit_code")->valueint;
	printf("merge: %d file%s -> %s: %d entries: %d pass, %d xfail, %d fail, %d xpass, "
	       "%d error; %d unexpected (exit %d)\n", n, n == 1 ? "" : "s", mo.out_path,
	       total(merged, "entries"), total(merged, "pass"), total(merged, "xfail"),
	       total(merged, "fail"), total(merged, "xpass"), total(merged, "error"),
	       total(merged, "unexpected"), exit_code);
	rc = exit_code;
	goto out;
fail:
	fprintf(stderr, "bcbench merge: %s\n", err.msg);
	rc = bn_cli_exit_of(err.code);
out:
	free(text);
	cJSON_Delete(merged);
	for (int i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	return rc;
}
