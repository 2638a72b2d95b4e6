/* bcbench replay (bench/scenario/replay.c over srzip_read.c) on any bytes
 * as the capture, with no sidecar: the events inferred from the samples,
 * judged as from an SDP port with the phone profile, into a report that
 * is then freed. */
#include "lib/fuzz.h"

#include "scenario/replay.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bn_replay_opts o = { 0 };
	struct bn_report rep;
	struct bn_err err = { 0 };

	bn_fuzz_quiet();
	o.capture_path = bn_fuzz_file(data, size);
	if (!o.capture_path)
		return 0;
	o.datadir = bn_fuzz_root();
	o.port = "sdp";
	o.dut = "phone";
	bn_report_init(&rep);
	bn_replay(&o, &rep, &err);
	bn_report_free(&rep);
	return 0;
}
