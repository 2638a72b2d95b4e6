# The fake libusb-1.0 of a Hantek 6022BE scope and its stand-alone sample
# source (tests/fakeusb/README.md). A program run with
# LD_LIBRARY_PATH=$(BUILD)/tests/fakeusb loads the fake instead of the
# system's libusb. Built without sanitizers: sigrok-cli loads it as well
# as bcbench, and an ASan bcbench takes an uninstrumented library.
FAKEUSB_DIR := $(BUILD)/tests/fakeusb
FAKEUSB_LIB_SRC := $(sort $(wildcard tests/fakeusb/fake_*.c))
FAKEUSB_CFLAGS := $(filter-out $(SANFLAGS) -MMD -MP,$(CFLAGS_ALL))

$(FAKEUSB_DIR)/libusb-1.0.so.0: $(FAKEUSB_LIB_SRC) $(wildcard tests/fakeusb/*.h) tests/fakeusb/exports.map
	@mkdir -p $(dir $@)
	@echo '  FAKEUSB $@'
	$(Q)$(CC) $(FAKEUSB_CFLAGS) -fPIC -shared -Wl,-soname,libusb-1.0.so.0 \
		-Wl,--version-script=tests/fakeusb/exports.map -Wl,-z,defs -o $@ $(FAKEUSB_LIB_SRC) -lpthread

$(FAKEUSB_DIR)/scope_feed: tests/fakeusb/scope_feed.c tests/fakeusb/scope_proto.h
	@mkdir -p $(dir $@)
	@echo '  FAKEUSB $@'
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< -lm

# Its own tests (cmocka), linked against it: run by tests/integration/fakeusb.sh.
$(FAKEUSB_DIR)/test_fakeusb: tests/fakeusb/test_fakeusb.c tests/fakeusb/scope_proto.h $(FAKEUSB_DIR)/libusb-1.0.so.0
	@mkdir -p $(dir $@)
	@echo '  FAKEUSB $@'
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< -L$(FAKEUSB_DIR) -l:libusb-1.0.so.0 \
		-Wl,-rpath,'$$ORIGIN' -lcmocka -lm

fakeusb: $(FAKEUSB_DIR)/libusb-1.0.so.0 $(FAKEUSB_DIR)/scope_feed $(FAKEUSB_DIR)/test_fakeusb
units: fakeusb
.PHONY: fakeusb
