/* bcbench diff: two reports, or two suite records, compared
 * (report/diff.c); exit 1 on a regression. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/json.h"
#include "report/diff.h"

#define DIFF_DEFAULT_MARGIN_DROP_PCT 10.0

const char bn_cli_diff_usage[] =
	"Usage: bcbench diff BASE NEW [--margin-drop PERCENT] [-q]\n"
	"Compare two records of runs: two report.json (bcbench run, replay) or two\n"
	"suite.json (bcbench suite, merge; each entry's report is read from the path\n"
	"its suite.json names, one at a time, and must match its sha256). Every result\n"
	"is a row keyed by entry and rule id (a report is one entry, named by its\n"
	"scenario); the changes from BASE\n"
	"to NEW are printed in sections, one line per row with its verdicts, measured\n"
	"values and limit. Regressions:\n"
	"  new failures      fails in NEW (not as a warning) and did not in BASE\n"
	"  new errors        error in NEW; or an entry's run no longer completes\n"
	"  new inconclusive  pass or fail in BASE, inconclusive in NEW\n"
	"  gone              a result or an entry of BASE missing from NEW\n"
	"  margins shrunk    passes in both, with a margin down by more than PERCENT\n"
	"                    of the limit's span (max - min; |bound| of a one-sided\n"
	"                    limit; limits with neither are not compared)\n"
	"  now unexpected    suites: an entry as expected in BASE is not in NEW\n"
	"Not regressions: fixed (fail -> pass, runs again, as expected again), added,\n"
	"other changes (e.g. pass -> skipped, a new warning).\n"
	"\n"
	"  -m, --margin-drop PERCENT  the margin drop that counts, in percent of the\n"
	"                             limit's span: 0 < PERCENT <= 100 (default 10)\n"
	"  -q, --quiet                print only the totals line\n"
	"  -h, --help                 this help\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 no regression, 1 a regression, 2\n"
	"bad usage or input (a file missing, not JSON, not a bcbench report or suite\n"
	"record, a report against a suite record, an entry's report missing or\n"
	"changed), 6 the output cannot be written.\n";

static int parse_pct(const char *arg, double *pct)
{
	char *end = NULL;
	double v = strtod(arg, &end);

	if (end == arg || (*end && strcmp(end, "%")) || !isfinite(v) || !(v > 0 && v <= 100)) {
		fprintf(stderr, "bcbench diff: --margin-drop \"%s\": expected a percentage, "
			"0 < PERCENT <= 100\n", arg);
		return -1;
	}
	*pct = v;
	return 0;
}

static int load(const char *path, cJSON **doc, enum bn_diff_kind *kind)
{
	struct bn_err err = { 0 };

	if (bn_json_load(path, doc, &err) < 0 || bn_diff_doc_kind(*doc, path, kind, &err) < 0) {
		fprintf(stderr, "bcbench diff: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int bn_cli_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "margin-drop", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const kind_names[] = { "a report", "a suite record" };
	double pct = DIFF_DEFAULT_MARGIN_DROP_PCT;
	bool quiet = false;
	cJSON *base = NULL, *new_doc = NULL;
	enum bn_diff_kind kb, kn;
	struct bn_diff_counts counts;
	struct bn_err err = { 0 };
	int c, rc = 2;

	optind = 1;
	while ((c = getopt_long(argc, argv, "m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_pct(optarg, &pct) < 0)
				return 2;
			break;
		case 'q': quiet = true; break;
		case 'h': fputs(bn_cli_diff_usage, stdout); return 0;
		default: fputs(bn_cli_diff_usage, stderr); return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "bcbench diff: expected two files, BASE and NEW\n%s",
			bn_cli_diff_usage);
		return 2;
	}
	if (load(argv[optind], &base, &kb) < 0 || load(argv[optind + 1], &new_doc, &kn) < 0)
		goto out;
	if (kb != kn) {
		fprintf(stderr,
			"bcbench diff: %s is %s and %s is %s: compare reports with reports, "
			"suite records with suite records\n",
			argv[optind], kind_names[kb], argv[optind + 1], kind_names[kn]);
		goto out;
	}
	if (bn_diff_docs(base, argv[optind], new_doc, argv[optind + 1], pct, quiet ? NULL : stdout,
			 &counts, &err) < 0) {
		fprintf(stderr, "bcbench diff: %s\n", err.msg);
		goto out;
	}
	bn_diff_print_totals(stdout, &counts);
	rc = counts.regressions ? 1 : 0;
out:
	cJSON_Delete(base);
	cJSON_Delete(new_doc);
	return rc;
}
