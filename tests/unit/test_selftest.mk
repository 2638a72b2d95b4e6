# The selftest on the FTDI backend, against the same fake libftdi1.
TEST_LDFLAGS_test_selftest := $(foreach f,$(FTDI_WRAP),-Wl,--wrap=$(f))
TEST_SRC_test_selftest := tests/unit/fake/ftdi_fake.c
$(BUILD)/tests/test_selftest: tests/unit/fake/ftdi_fake.c tests/unit/fake/ftdi_fake.h
