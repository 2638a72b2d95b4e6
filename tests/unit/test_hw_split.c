/* The two binaries (docs/design.md, "Two binaries"): which bench.conf
 * keys name hardware (what makes bcbench start bcbench-hw), where
 * bcbench-hw is looked for, and the stand-ins bcbench has in place of the
 * hardware modules (hil/absent.c, linked here as in bcbench): each one
 * that can fail says the hardware libraries are missing, exit 6, and
 * opens nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/common.h"
#include "core/conf.h"
#include "core/datadir.h"
#include "hil/backend.h"
#include "hil/devices.h"
#include "hil/hw_present.h"
#include "hil/serial.h"
#include "hil/sigrok_cap.h"
#include "hil/usb_dev.h"

static void test_hw_split__conf_keys_that_name_hardware(void **state)
{
	struct bn_conf c;

	(void)state;
	bn_conf_defaults(&c);
	assert_null(bn_conf_hardware_key(&c));
	assert_false(bn_conf_has_hardware(&c));
#define ONE(field, value, key)                                   \
	do {                                                     \
		bn_conf_defaults(&c);                            \
		snprintf(c.field, sizeof(c.field), "%s", value); \
		assert_string_equal(bn_conf_hardware_key(&c), key); \
		assert_true(bn_conf_has_hardware(&c));           \
	} while (0)
	ONE(fixture, "ftdi:0403:6014", "fixture");
	ONE(load, "scpi:/dev/ttyUSB0", "load");
	ONE(supply, "scpi:/dev/ttyUSB1@115200", "supply");
	ONE(capture_driver, "demo", "capture");
	ONE(dut_usb, "18d1:4ee1", "dut_usb");
	ONE(console, "/dev/ttyACM0", "console");
#undef ONE
	/* several: the first in bench.conf's documented order is named */
	bn_conf_defaults(&c);
	snprintf(c.console, sizeof(c.console), "/dev/ttyACM0");
	snprintf(c.load, sizeof(c.load), "scpi:/dev/ttyUSB0");
	assert_string_equal(bn_conf_hardware_key(&c), "load");
}

static void test_hw_split__hwbin_installed_then_build_tree(void **state)
{
	char exe[PATH_MAX], bin[PATH_MAX], up[PATH_MAX], want[3 * PATH_MAX];
	char got[BN_DATADIR_LEN], tried[BN_DATADIR_TRIED_LEN];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int rc;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(bin, sizeof(bin), "%s", dirname(exe));
	snprintf(exe, sizeof(exe), "%s", bin);
	snprintf(up, sizeof(up), "%s", dirname(exe));
	rc = bn_hwbin_beside_exe(got, sizeof(got), tried, sizeof(tried));
	snprintf(want, sizeof(want), "%s/lib/bcbench/bcbench-hw, %s/bcbench-hw", up, bin);
	assert_string_equal(tried, want);
	if (rc == BN_OK) {
		assert_int_equal(access(got, X_OK), 0);
	} else {
		assert_int_equal(rc, BN_ERR_IO);
		assert_string_equal(got, "");
	}
}

/* err holds the stand-ins' message and rc is BN_ERR_ENV, exit 6; err
 * is cleared for the next call */
static void said_absent(int rc, struct bn_err *err)
{
	assert_int_equal(rc, BN_ERR_ENV);
	assert_int_equal(bn_cli_exit_of(rc), 6);
	assert_non_null(strstr(err->msg, "built without the hardware libraries"));
	assert_non_null(strstr(err->msg, "bcbench-hw"));
	*err = (struct bn_err){ 0 };
}

static void test_hw_split__standins_say_the_libraries_are_missing(void **state)
{
	struct bn_err err = { 0 };
	struct bn_serial *s = (struct bn_serial *)&err;
	struct bn_sigrok_cap *cap = (struct bn_sigrok_cap *)&err;
	struct bn_sigrok_cap_opts o = { .driver = "demo" };
	struct bn_sigrok_limits lim;
	struct bn_usb_spec spec = { .vid = 0x18d1, .pid = 0x4ee1 };
	struct bn_usb_desc desc;
	struct bn_fixture fx = { 0 };
	struct bn_backend_open bo = { .datadir = "." };

	(void)state;
	assert_false(bn_hw_present);
	said_absent(bn_serial_open("/dev/ttyUSB0", 9600, &s, &err), &err);
	assert_null(s);
	said_absent(bn_sigrok_cap_open(&o, &cap, &err), &err);
	assert_null(cap);
	said_absent(bn_sigrok_dev_limits(&o, &lim, &err), &err);
	said_absent(bn_usb_read(&spec, &desc, NULL, &err), &err);
	said_absent(bn_usb_set_config_at(&spec, 1, 2, 1, &err), &err);
	assert_null(bn_devices_json());
	said_absent(bn_serial_parse_spec("load", "PORT[@BAUD]", "/dev/ttyUSB0", NULL, 0, NULL, &err),
		    &err);
	/* through the backend table: the name is known, opening says why it
	 * cannot, and nothing is left open */
	said_absent(bn_fixture_open(&fx, "ftdi:0403:6014", &bo, &err), &err);
	assert_null(fx.ops);
	assert_null(fx.priv);
	bn_fixture_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hw_split__conf_keys_that_name_hardware),
		cmocka_unit_test(test_hw_split__hwbin_installed_then_build_tree),
		cmocka_unit_test(test_hw_split__standins_say_the_libraries_are_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
