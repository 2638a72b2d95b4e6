# The FTDI fixture backend against the strict fake libftdi1 (a link seam:
# LD_PRELOAD shims clash with ASan). clock_gettime and clock_nanosleep
# are wrapped too: the fake's clock is real time plus the sleeps it skipped.
FTDI_WRAP := ftdi_new ftdi_free ftdi_set_interface ftdi_usb_open_desc_index ftdi_usb_close \
	ftdi_usb_reset ftdi_tcioflush ftdi_tciflush ftdi_set_latency_timer ftdi_set_bitmode ftdi_write_data \
	ftdi_read_data ftdi_read_pins ftdi_get_error_string clock_nanosleep clock_gettime
TEST_LDFLAGS_test_ftdi_fixture := $(foreach f,$(FTDI_WRAP),-Wl,--wrap=$(f))
TEST_SRC_test_ftdi_fixture := tests/unit/fake/ftdi_fake.c
$(BUILD)/tests/test_ftdi_fixture: tests/unit/fake/ftdi_fake.c tests/unit/fake/ftdi_fake.h
