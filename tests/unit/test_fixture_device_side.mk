# Fixture device-side networks against the strict fake libftdi1, as
# test_ftdi_fixture (FTDI_WRAP there; expanded when the test links).
TEST_LDFLAGS_test_fixture_device_side = $(foreach f,$(FTDI_WRAP),-Wl,--wrap=$(f))
TEST_SRC_test_fixture_device_side := tests/unit/fake/ftdi_fake.c
$(BUILD)/tests/test_fixture_device_side: tests/unit/fake/ftdi_fake.c tests/unit/fake/ftdi_fake.h
