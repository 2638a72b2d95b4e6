/* bcbench curve import: a charger profile from a capture (curve/import.h). */
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/common.h"
#include "core/exit.h"
#include "core/file.h"
#include "core/log.h"
#include "core/units.h"
#include "curve/import.h"

const char bn_cli_curve_import_usage[] =
	"Usage: bcbench curve import CAPTURE.sr [--out PROFILE.json] [--events FILE | --no-events]\n"
	"                            [--map MAP] [--bin CURRENT] [--min-samples N] [--settle TIME]\n"
	"                            [--to CURRENT] [--rated CURRENT] [--cable OHMS] [--no-monotone]\n"
	"                            [--residual-factor K] [--series-tol VOLTAGE] [--name NAME]\n"
	"                            [--uncertainty vbus=SPEC]\n"
	"                            [--limits FILE] [--conf FILE] [--datadir DIR] [-q]\n"
	"Derive a charger profile (bcbench-charger/2) from a capture with VBUS and IBUS: the\n"
	"static V-I curve from the samples where the current is steady, binned over the\n"
	"current (mean VBUS, n and u per bin), non-increasing; the knee (the largest current\n"
	"with VBUS >= VCHG min); the shutdowns and recoveries it sees; the current ranges it\n"
	"did not cover; and, where VBUS is off the curve, the captured VBUS(t) as vbus_t.\n"
	"The port's current is IBUS plus the e-load's setpoints when the record has load\n"
	"events. The capture measures at the receptacle: the curve is the receptacle's with\n"
	"cable 0, unless --cable is given.\n"
	"\n"
	"  -o, --out FILE          the profile (default <out>/curve-<name>.json); a long vbus_t\n"
	"                          goes beside it as <stem>.vbus_t.csv\n"
	"  -e, --events FILE       the capture's events.json (default: the one beside it)\n"
	"      --no-events         ignore any sidecar: the current is IBUS alone\n"
	"  -m, --map MAP           channel map, e.g. VBUS=CH1,IBUS=CH2:shunt=0.1\n"
	"      --bin CURRENT       bin width over the current (default 25mA)\n"
	"      --min-samples N     steady samples a bin needs to be a point (default 20)\n"
	"      --settle TIME       the current must be held this long first (default 20ms)\n"
	"      --to CURRENT        list uncovered ranges up to here (default --rated, else the\n"
	"                          largest current drawn)\n"
	"      --rated CURRENT     the charger's rating, written as rated\n"
	"      --cable OHMS        round-trip cable resistance: the curve becomes the charger's\n"
	"                          output (VBUS + R*I) and cable R\n"
	"      --no-monotone       keep the bin means as measured (a charger that raises its\n"
	"                          output with the load, e.g. cable compensation)\n"
	"      --residual-factor K VBUS off the fit by more than K x the bin's spread plus the\n"
	"                          series tolerance is what the curve cannot explain (default 4)\n"
	"      --series-tol V      vbus_t's decimation tolerance (default 5mV; at least 3 sigma\n"
	"                          of the VBUS noise)\n"
	"      --name NAME         the profile's name (default the capture's)\n"
	"      --uncertainty vbus=SPEC\n"
	"                          the VBUS instrument's accuracy, e.g.\n"
	"                          vbus=offset=10mV,gain=0.5%,bits=12,range=0V..25V: its offset,\n"
	"                          gain and step enter each point's u (default: the record's;\n"
	"                          else u is the mean's statistical part only, and says so)\n"
	"  -l, --limits FILE, -c, --conf FILE, -d, --datadir DIR, -q: as for run\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 written, 2 bad input (no VBUS or\n"
	"IBUS, too short, nothing steady), 6 the profile cannot be written, 128+N\n"
	"interrupted by signal N (130 SIGINT, 143 SIGTERM).\n";

static int qty(const char *opt, const char *arg, enum bn_dim dim, double *out)
{
	char why[160];

	if (bn_quantity_parse(arg, dim, out, why, sizeof(why)) < 0 || !(*out >= 0)) {
		fprintf(stderr, "bcbench curve import: %s: %s\n", opt, why);
		return 2;
	}
	return 0;
}

/* reports/dcp/capture.sr -> "dcp"; x/long.sr -> "long". */
static void stem_of(const char *path, char *out, size_t len)
{
	char buf[1024], *b, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	b = basename(buf);
	snprintf(out, len, "%s", b);
	dot = strrchr(out, '.');
	if (dot && dot != out)
		*dot = '\0';
	if (!strcmp(out, "capture")) {
		snprintf(buf, sizeof(buf), "%s", path);
		b = basename(dirname(buf));
		if (strcmp(b, ".") && strcmp(b, "/"))
			snprintf(out, len, "%s", b);
	}
}

int bn_cli_curve_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "events", required_argument, NULL, 'e' },
		{ "no-events", no_argument, NULL, 'n' },
		{ "map", required_argument, NULL, 'm' },
		{ "bin", required_argument, NULL, 'b' },
		{ "min-samples", required_argument, NULL, 'N' },
		{ "settle", required_argument, NULL, 's' },
		{ "to", required_argument, NULL, 't' },
		{ "rated", required_argument, NULL, 'r' },
		{ "cable", required_argument, NULL, 'C' },
		{ "no-monotone", no_argument, NULL, 'M' },
		{ "residual-factor", required_argument, NULL, 'k' },
		{ "series-tol", required_argument, NULL, 'T' },
		{ "name", required_argument, NULL, 'a' },
		{ "uncertainty", required_argument, NULL, 'U' },
		{ "limits", required_argument, NULL, 'l' },
		{ "conf", required_argument, NULL, 'c' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bn_import_opts o;
	struct bn_import r;
	struct bn_conf conf;
	struct bn_err err = { 0 };
	const char *conf_path = NULL, *datadir = NULL, *out = NULL;
	char datadir_buf[1200], out_buf[1400], stem[256], beside[1100], lim_buf[1300];
	int quiet = 0, no_events = 0, c, rc;
	char *end;

	bn_import_opts_default(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:e:m:l:c:d:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'e': o.events_path = optarg; break;
		case 'n': no_events = 1; break;
		case 'm': o.map = optarg; break;
		case 'b':
			if (qty("--bin", optarg, BN_DIM_A, &o.bin_a))
				return 2;
			break;
		case 'N':
			o.min_samples = (int)strtol(optarg, &end, 10);
			if (*end || o.min_samples < 1) {
				fprintf(stderr, "bcbench curve import: --min-samples: expected a whole "
						"number >= 1, got \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (qty("--settle", optarg, BN_DIM_S, &o.settle_s))
				return 2;
			break;
		case 't':
			if (qty("--to", optarg, BN_DIM_A, &o.to_a))
				return 2;
			break;
		case 'r':
			if (qty("--rated", optarg, BN_DIM_A, &o.rated_a))
				return 2;
			break;
		case 'C':
			if (qty("--cable", optarg, BN_DIM_OHM, &o.cable_ohm))
				return 2;
			break;
		case 'M': o.monotone = false; break;
		case 'k':
			o.resid_factor = strtod(optarg, &end);
			if (*end || !(o.resid_factor > 0)) {
				fprintf(stderr, "bcbench curve import: --residual-factor: expected a "
						"number > 0, got \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'T':
			if (qty("--series-tol", optarg, BN_DIM_V, &o.series_tol_v))
				return 2;
			break;
		case 'a': o.name = optarg; break;
		case 'U': {
			struct bn_meas meas[BN_CH_COUNT];
			unsigned given = 0;

			if (bn_cli_parse_uncertainty("curve import", "--uncertainty", optarg, &given,
						     meas))
				return 2;
			if (given & ~(1u << BN_CH_VBUS)) {
				fprintf(stderr, "bcbench curve import: --uncertainty: only vbus enters "
						"the curve's u (got \"%s\")\n", optarg);
				return 2;
			}
			o.vbus_meas = meas[BN_CH_VBUS];
			o.vbus_meas_given = true;
			break;
		}
		case 'l': o.limits_path = optarg; break;
		case 'c': conf_path = optarg; break;
		case 'd': datadir = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(bn_cli_curve_import_usage, stdout); return 0;
		default: fputs(bn_cli_curve_import_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench curve import: expected one capture CAPTURE.sr\n%s",
			bn_cli_curve_import_usage);
		return 2;
	}
	if (!(o.bin_a > 0)) {
		fprintf(stderr, "bcbench curve import: --bin: expected a current > 0\n");
		return 2;
	}
	o.capture_path = argv[optind];
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN);
	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	datadir = bn_cli_datadir(datadir, &conf, conf_path, datadir_buf, sizeof(datadir_buf));
	if (!o.limits_path) {
		if (conf.limits[0]) {
			o.limits_path = conf.limits;
		} else {
			snprintf(lim_buf, sizeof(lim_buf), "%s/profiles/limits/bc12.json", datadir);
			o.limits_path = lim_buf;
		}
	}
	if (no_events && o.events_path) {
		fprintf(stderr, "bcbench curve import: --events and --no-events: give one\n");
		return 2;
	}
	if (access(o.capture_path, R_OK) != 0) {
		fprintf(stderr, "bcbench curve import: %s: cannot read the capture\n", o.capture_path);
		return 2;
	}
	/* The record beside the capture is the capture's own (replay does the same). */
	if (!o.events_path && !no_events) {
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s", o.capture_path);
		snprintf(beside, sizeof(beside), "%s/events.json", dirname(buf));
		if (access(beside, R_OK) == 0) {
			o.events_path = beside;
			if (!quiet)
				fprintf(stderr, "bcbench curve import: note: with the events beside the "
						"capture, %s (--no-events to use IBUS alone)\n",
					beside);
		}
	}
	stem_of(o.capture_path, stem, sizeof(stem));
	if (!o.name)
		o.name = stem;
	if (!out) {
		snprintf(out_buf, sizeof(out_buf), "%s/curve-%s.json", conf.out, stem);
		out = out_buf;
	}
	bn_cli_catch_signals();
	o.stop_flag = bn_cli_stop_flag();
	rc = bn_curve_import(&o, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "bcbench curve import: %s\n", err.msg);
		return bn_cli_exit_of(rc);
	}
	{
		char dir[1400];
		struct bn_err e2 = { 0 };

		snprintf(dir, sizeof(dir), "%s", out);
		if (bn_mkdir_p(dirname(dir), &e2) < 0) {
			fprintf(stderr, "bcbench curve import: %s\n", e2.msg);
			bn_import_free(&r);
			return bn_cli_exit_of(e2.code);
		}
	}
	rc = bn_import_write(out, &r, &o, &err);
	if (rc < 0) {
		fprintf(stderr, "bcbench curve import: %s\n", err.msg);
		bn_import_free(&r);
		/* the profile is an output: an I/O error writing it is the
		 * environment's, never the input's */
		return rc == BN_ERR_IO ? BN_EXIT_ENVIRONMENT : bn_cli_exit_of(rc);
	}
	if (!quiet) {
		int n_sd = 0;

		for (int k = 0; k < r.n_collapses; k++)
			n_sd += r.col[k].shutdown;
		printf("%s: %d points from %.3f A to %.3f A (%s), knee %.3f A at %.3f V%s, %d "
		       "uncovered range%s, %d shutdown%s, vbus_t %ld points\n",
		       out, r.n_points, r.pt[0].i_a, r.pt[r.n_points - 1].i_a,
		       r.used_load ? "IBUS + e-load" : "IBUS", r.knee_a, r.knee_v,
		       r.knee_reached ? "" : " (not reached)", r.n_uncovered,
		       r.n_uncovered == 1 ? "" : "s", n_sd, n_sd == 1 ? "" : "s", r.series.n);
	}
	bn_import_free(&r);
	return 0;
}
