/* A run with the real device's telemetry console (bench.conf console):
 * what the device says on a pseudo-terminal, not the simulated firmware,
 * is what dut.* expectations and the detection rule judge. A device that
 * reports the wrong port fails both although the simulated firmware
 * detects the right one; a console that goes away mid-run is a bench
 * fault with the bench left safe. The run is in real time (well under a
 * second here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/harness.h"
#include "hil/console.h"
#include "report/report.h"
#include "scenario/runner.h"

#define SCN                                                          \
	"name \"console: DCP\"\n"                                    \
	"port dcp\n"                                                 \
	"charger dcp-1a\n"                                           \
	"capture vbus ibus dp dm at 10kHz\n"                         \
	"vbus on\n"                                                  \
	"wait 600ms\n"                                               \
	"expect dut.port == dcp\n"                                   \
	"expect dut.state == charging\n"                             \
	"check bc12.det\n"                                           \
	"vbus off\n"                                                 \
	"wait 50ms\n"

/* The device: after a while (the run has started: what came before is
 * dropped), its detection result; then it waits to be let go, or hangs
 * up at once when told to vanish. */
static void device(int master, int go, const char *port, bool vanish)
{
	char line[128], c;

	(void)!write(master, "bc12 port=SDP stale=1\n", 22); /* from before the run */
	usleep(250 * 1000);
	if (vanish)
		_exit(0);
	snprintf(line, sizeof(line), "boot log line\r\nbc12 state=primary\nbc12 port=%s state=charging ilim_ma=1500\r\n", port);
	(void)!write(master, line, strlen(line));
	(void)read(go, &c, 1);
	_exit(0);
}

struct crun {
	struct bn_report rep;
	struct bn_err err;
	int rc;
};

static void run_with_device(const char *port, bool vanish, struct crun *cr)
{
	char name[256], scn[] = "/tmp/bcbench-con-XXXXXX";
	int master, slave, go[2], fd, st;
	struct bn_console *con;
	struct bn_run_opts o;
	pid_t pid;

	fd = mkstemp(scn);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, SCN, strlen(SCN)), (ssize_t)strlen(SCN));
	close(fd);
	assert_int_equal(openpty(&master, &slave, name, NULL, NULL), 0);
	assert_int_equal(bn_console_open(name, &con, &cr->err), BN_OK);
	close(slave);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		device(master, go[0], port, vanish);
	}
	close(go[0]);
	close(master);
	usleep(100 * 1000); /* the stale line is there before the run */
	o = (struct bn_run_opts){
		.scenario_path = scn,
		.datadir = bn_test_srcdir(),
		.console = con,
	};
	bn_report_init(&cr->rep);
	cr->rc = bn_run_scenario(&o, &cr->rep, &cr->err);
	close(go[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	bn_console_close(con);
	unlink(scn);
}

/* By the expectation's text or the rule's id prefix. */
static const struct bn_result *result(const struct bn_report *rep, const char *what)
{
	char expect[128];

	snprintf(expect, sizeof(expect), "expect %s", what);
	for (int i = 0; i < rep->n_results; i++)
		if (!strncmp(rep->results[i].id, what, strlen(what)) ||
		    !strcmp(rep->results[i].text, expect))
			return &rep->results[i];
	fail_msg("no result \"%s\"", what);
	return NULL;
}

static void test_run_console__device_reports_dcp(void **state)
{
	struct crun *cr = calloc(1, sizeof(*cr));

	(void)state;
	run_with_device("DCP", false, cr);
	assert_int_equal(cr->rc, BN_OK);
	assert_int_equal(cr->rep.status, BN_RUN_COMPLETED);
	assert_int_equal(result(&cr->rep, "dut.port == dcp")->verdict, BN_VERDICT_PASS);
	assert_int_equal(result(&cr->rep, "dut.state == charging")->verdict, BN_VERDICT_PASS);
	assert_int_equal(result(&cr->rep, "bc12.det.port_type")->verdict, BN_VERDICT_PASS);
	/* real time: the 650 ms scenario took at least that long */
	assert_true(cr->rep.wall_s >= 0.6);
	bn_report_free(&cr->rep);
	free(cr);
}

/* The simulated firmware detects DCP; the device says SDP: the device
 * is what is judged. */
static void test_run_console__device_reports_wrong_port(void **state)
{
	struct crun *cr = calloc(1, sizeof(*cr));
	const struct bn_result *r;

	(void)state;
	run_with_device("SDP", false, cr);
	assert_int_equal(cr->rep.status, BN_RUN_COMPLETED);
	r = result(&cr->rep, "dut.port == dcp");
	assert_int_equal(r->verdict, BN_VERDICT_FAIL);
	assert_string_equal(r->measured_str, "sdp");
	assert_int_equal(result(&cr->rep, "bc12.det.port_type")->verdict, BN_VERDICT_FAIL);
	assert_int_equal(bn_report_exit_code(&cr->rep), 1);
	bn_report_free(&cr->rep);
	free(cr);
}

static void test_run_console__device_vanishes(void **state)
{
	struct crun *cr = calloc(1, sizeof(*cr));

	(void)state;
	run_with_device("DCP", true, cr);
	assert_int_equal(cr->rc, BN_OK);
	assert_int_equal(cr->rep.status, BN_RUN_ERROR);
	/* a console lost is the bench's fault (5), to retry */
	assert_int_equal(bn_report_exit_code(&cr->rep), 5);
	assert_non_null(strstr(cr->rep.reason, "device console lost"));
	bn_report_free(&cr->rep);
	free(cr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_console__device_reports_dcp),
		cmocka_unit_test(test_run_console__device_reports_wrong_port),
		cmocka_unit_test(test_run_console__device_vanishes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
