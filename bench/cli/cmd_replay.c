/* bcbench replay: judge a capture again. */
#define BN_LOG_MODULE "bcbench"
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/conf.h"
#include "core/err.h"
#include "core/log.h"
#include "capture/events.h"
#include "scenario/replay.h"
#include "cli/cli.h"
#include "cli/run_output.h"
#include "cli/common.h"
#include "core/text.h"
#include "cli/provenance.h"
#include "report/report.h"
#include "report/report_html.h"

const char bn_cli_replay_usage[] =
	"Usage: bcbench replay FILE.sr [--events FILE | --no-events] [--events-from ORIGINS]\n"
	"                      [--port PORT] [--dut DECL] [--charger CHARGER] [--map MAP]\n"
	"                      [--limits FILE] [--uncertainty CH=SPEC]... [--perturb CH=SPEC]...\n"
	"                      [--acceptance guarded|simple] [--operator NAME]\n"
	"                      [--no-html] [--require-verdicts]\n"
	"                      [--out DIR] [--conf FILE] [--datadir DIR] [-v] [-q]\n"
	"Re-judge a capture with the checks a live run uses, and write DIR/report.json\n"
	"whose source is the file (with its SHA-256). Channels are found by name (VBUS,\n"
	"IBUS, DP, DM, ID) unless --map says otherwise. Replay needs VBUS, and IBUS or\n"
	"DP; any other missing channel makes the rules that need it inconclusive.\n"
	"\n"
	"  -e, --events FILE       the capture's sidecar (events.json from bcbench run):\n"
	"                          events with times, the port, the device's declaration,\n"
	"                          how each channel was measured. Default: events.json\n"
	"                          beside the capture, when there is one (a note says so)\n"
	"      --no-events         ignore any sidecar: attach and removal are inferred from\n"
	"                          VBUS crossing VOTG_SESS_VLD min, connect and disconnect\n"
	"                          from D+ crossing VLGC; what cannot be inferred is\n"
	"                          inconclusive, and nothing passes on an inferred event\n"
	"      --events-from LIST  use only events of these origins: fixture (VBUS, data\n"
	"                          contact, e-load, marks), host (connect, configuration,\n"
	"                          suspend), dut (the device's console); e.g. fixture,host\n"
	"                          for what a real bench knows without the device's help\n"
	"  -p, --port PORT         the port the capture was taken on (profile name or file);\n"
	"                          wins over the sidecar's\n"
	"  -u, --dut DECL          the device's declaration (name or file); wins over the\n"
	"                          sidecar's\n"	"      --charger CHARGER   the charger behind the port (profile name or file): its\n"
	"                          rating and cable, for the port rules (bc12.port.*);\n"
	"                          without it they know no charger\n"
	"  -m, --map MAP           channel map, e.g. VBUS=A0,IBUS=A1:shunt=0.1,DP=A2\n"
	"                          (IBUS from a shunt voltage: shunt=R, in ohms)\n"
	"      --uncertainty CH=SPEC\n"
	"                          the instrument's accuracy on channel CH, e.g.\n"
	"                          vbus=noise=10mV,offset=5mV,gain=0.5%,bits=12,range=0V..25V\n"
	"                          (repeat per channel). Default: the sidecar's record, else\n"
	"                          the noise is estimated from the samples and the report\n"
	"                          says the instrument's accuracy is unknown\n"
	"      --perturb CH=SPEC   degrade channel CH as it is read (the SPEC of\n"
	"                          --uncertainty: noise, offset, gain, bits/range; fixed\n"
	"                          seed) and judge with the combined uncertainty: do the\n"
	"                          verdicts hold on a worse instrument? (repeat per channel)\n"
	"      --acceptance RULE   guarded (default): pass or fail only beyond the\n"
	"                          measurement uncertainty U, else inconclusive; simple:\n"
	"                          the plain limit (U still reported)\n"
	"  -l, --limits FILE       judge against this limits file\n"
	"  -o, --out DIR           report directory (default <out>/replay-<name>)\n"
	"  -c, --conf FILE, -d, --datadir DIR, --operator NAME, --no-html,\n"
	"  --require-verdicts, -v, -q, -h: as for run\n"
	"\n"
	"Exit codes (bcbench help has the table): 0 passed, 1 failed, 2 bad input (a\n"
	"capture that is broken or lacks the minimum channels), 4 compliance not\n"
	"demonstrated (with --require-verdicts), 6 the report cannot be written,\n"
	"128+N interrupted by signal N (130 SIGINT, 143 SIGTERM).\n";


/* reports/dcp/capture.sr -> "dcp"; x/long.sr -> "long". */
static void capture_stem(const char *path, char *out, size_t len)
{
	char buf[1024], *base, *dir;

	bn_cli_file_stem(path, out, len);
	if (strcmp(out, "capture"))
		return;
	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	base = basename(dir);
	if (strcmp(base, ".") && strcmp(base, "/"))
		snprintf(out, len, "%s", base);
}

int bn_cli_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "events-from", required_argument, NULL, 'E' },
		{ "no-events", no_argument, NULL, 'n' },
		{ "uncertainty", required_argument, NULL, 'U' },
		{ "perturb", required_argument, NULL, 'R' },
		{ "acceptance", required_argument, NULL, 'A' },
		{ "port", required_argument, NULL, 'p' },
		{ "dut", required_argument, NULL, 'u' },
		{ "charger", required_argument, NULL, 'C' },
		{ "map", required_argument, NULL, 'm' },
		{ "limits", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "conf", required_argument, NULL, 'c' },
		{ "datadir", required_argument, NULL, 'd' },
		{ "operator", required_argument, NULL, 'O' },
		{ "no-html", no_argument, NULL, 'X' },
		{ "require-verdicts", no_argument, NULL, 'Q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bn_replay_opts ro = { 0 };
	struct bn_cli_record_opts rec = { 0 };
	const char *operator_opt = NULL;
	char operator_buf[64];
	const char *conf_path = NULL, *out_dir = NULL, *datadir = NULL;
	char datadir_buf[1200], out_buf[1200], stem[256],
		beside[1100];
	struct bn_conf conf;
	struct bn_err err = { 0 };
	struct bn_report rep;
	int verbose = 0, quiet = 0, no_events = 0, c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:p:u:m:l:o:c:d:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'e': ro.events_path = optarg; break;
		case 'n': no_events = 1; break;
		case 'U':
			if (bn_cli_parse_uncertainty("replay", "--uncertainty", optarg, &ro.meas_given, ro.meas))
				return 2;
			break;
		case 'R':
			if (bn_cli_parse_uncertainty("replay", "--perturb", optarg, &ro.perturb_set, ro.perturb))
				return 2;
			break;
		case 'A':
			if (bn_cli_parse_acceptance("replay", optarg, &ro.acceptance))
				return 2;
			break;
		case 'E':
			if (bn_origins_parse(optarg, &ro.origins, "--events-from", &err) < 0) {
				fprintf(stderr, "bcbench replay: %s\n", err.msg);
				return 2;
			}
			break;
		case 'p': ro.port = optarg; break;
		case 'u': ro.dut = optarg; break;
		case 'C': ro.charger = optarg; break;
		case 'm': ro.map = optarg; break;
		case 'l': ro.limits_path = optarg; break;
		case 'o': out_dir = optarg; break;
		case 'c': conf_path = optarg; break;
		case 'd': datadir = optarg; break;
		case 'O': operator_opt = optarg; break;
		case 'X': rec.no_html = true; break;
		case 'Q': rec.require_verdicts = true; break;
		case 'v': verbose++; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(bn_cli_replay_usage, stdout); return 0;
		default: fputs(bn_cli_replay_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bcbench replay: expected one capture FILE.sr\n%s", bn_cli_replay_usage);
		return 2;
	}
	ro.capture_path = argv[optind];
	{
		char why[1300];

		/* a run that wrote no capture has nothing to replay: say so */
		if (bn_cli_capture_not_written(ro.capture_path, why, sizeof(why))) {
			fprintf(stderr, "bcbench replay: %s: the run wrote no capture (%s); there are "
					"no samples to replay, its verdicts are in its report\n",
				ro.capture_path, why);
			return 2;
		}
	}
	bn_log_set_level(quiet ? BN_LOG_ERR : BN_LOG_WARN + verbose);
	if (bn_cli_conf(&conf_path, &conf))
		return 2;
	datadir = bn_cli_datadir(datadir, &conf, conf_path, datadir_buf, sizeof(datadir_buf));
	if (!datadir)
		return 2;
	ro.datadir = datadir;
	if (!ro.limits_path && conf.limits[0])
		ro.limits_path = conf.limits;
	capture_stem(ro.capture_path, stem, sizeof(stem));
	if (!out_dir) {
		snprintf(out_buf, sizeof(out_buf), "%s/replay-%s", conf.out, stem);
		out_dir = out_buf;
	}
	if (no_events && ro.events_path) {
		fprintf(stderr, "bcbench replay: --events and --no-events: give one\n");
		return 2;
	}
	/* The record beside the capture is the capture's own: read it unless
	 * told not to, and say so. */
	if (!ro.events_path && !no_events) {
		char buf[1024];

		snprintf(buf, sizeof(buf), "%s", ro.capture_path);
		snprintf(beside, sizeof(beside), "%s/events.json", dirname(buf));
		if (access(beside, R_OK) == 0) {
			ro.events_path = beside;
			if (!quiet)
				fprintf(stderr, "bcbench replay: note: judging with the events beside the "
						"capture, %s (--no-events to infer them from the samples)\n",
					beside);
		}
	}
	bn_cli_catch_signals();
	ro.progress = quiet ? NULL : stdout;
	ro.stop_flag = bn_cli_stop_flag();

	bn_report_init(&rep);
	bn_cli_provenance_begin(&rep, bn_cli_operator(operator_opt, operator_buf, sizeof(operator_buf)),
				NULL, NULL);
	snprintf(rep.bench_name, sizeof(rep.bench_name), "replay");
	if (!quiet)
		bn_term_printf(stdout, "bcbench %s: replay of %s\n", BN_VERSION, ro.capture_path);
	rc = bn_replay(&ro, &rep, &err);
	if (rc < 0) {
		fprintf(stderr, "%s\n", err.msg);
		bn_report_free(&rep);
		return bn_cli_exit_of(rc);
	}
	return bn_cli_write_record(&rep, out_dir, " of the capture", &rec);
}
