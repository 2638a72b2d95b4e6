# A real run with the bench PC as the device's USB host (the runner's
# wiring of hil/usb_host.c) against the fake kernel on a sysfs tree; the
# device enumerates when a test fixture applies VBUS to it.
TEST_LDFLAGS_test_run_usb_host := -pthread
TEST_SRC_test_run_usb_host := tests/unit/fake/sysfs_kernel.c
$(BUILD)/tests/test_run_usb_host: tests/unit/fake/sysfs_kernel.c tests/unit/fake/sysfs_kernel.h
