# The bench twin (tests/twin/): bcbench-twin, the simulated world behind
# emulated instruments, and bcbench-twin-host, build/bcbench's own objects
# with the libftdi1 calls of the FTDI fixture backend wrapped (a link seam,
# as tests/unit/test_ftdi_fixture.mk; LD_PRELOAD shims clash with ASan) and
# forwarded to the twin's chip. Everything else in the host is the real
# code. tests/integration/twin.sh runs them together.
TWIN_SRC := $(filter-out tests/twin/ftdi_remote.c,$(sort $(wildcard tests/twin/*.c)))
# The fake USB core (tests/unit/fake/sysfs_kernel.c) plays the bench PC's
# kernel as the device's USB host (twin_usbhost.c).
TWIN_OBJ := $(TWIN_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/tests/unit/fake/sysfs_kernel.o
$(TWIN_OBJ): CFLAGS_ALL += -Itests/unit
TWIN_HOST_OBJ := $(BUILD)/obj/tests/twin/ftdi_remote.o
TWIN_FTDI_WRAP := ftdi_new ftdi_free ftdi_set_interface ftdi_usb_open_desc_index ftdi_usb_close \
	ftdi_usb_reset ftdi_tcioflush ftdi_tciflush ftdi_set_latency_timer ftdi_set_bitmode ftdi_write_data \
	ftdi_read_data ftdi_read_pins ftdi_get_error_string
TWIN_BIN := $(BUILD)/tests/twin/bcbench-twin $(BUILD)/tests/twin/bcbench-twin-host

$(BUILD)/tests/twin/bcbench-twin: $(TWIN_OBJ) $(BUILD)/libbcbench.a
	@mkdir -p $(dir $@)
	@echo '  LD      $@'
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/tests/twin/bcbench-twin-host: $(MAIN_OBJ) $(TWIN_HOST_OBJ) $(BUILD)/libbcbench.a
	@mkdir -p $(dir $@)
	@echo '  LD      $@'
	$(Q)$(CC) $(LDFLAGS_ALL) $(foreach f,$(TWIN_FTDI_WRAP),-Wl,--wrap=$(f)) -o $@ $^ $(LDLIBS_ALL)

# --capture scope needs the fake libusb-1.0 of tests/fakeusb (fakeusb.mk).
twin: $(TWIN_BIN) $(BUILD)/tests/fakeusb/libusb-1.0.so.0
units: $(TWIN_BIN)
.PHONY: twin

-include $(TWIN_OBJ:.o=.d) $(TWIN_HOST_OBJ:.o=.d)
