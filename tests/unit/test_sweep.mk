# bcbench with the fake libftdi1 in its process (tests/unit/fake/
# ftdi_fake_cli.c; the --wrap seam of test_ftdi_fixture.mk, clocks
# included: the fixture's sleeps are skipped), for the real-bench sweep
# of tests/integration/curve.sh.
FAKEFTDI_CLI_OBJ := $(BUILD)/obj/tests/unit/fake/ftdi_fake.o $(BUILD)/obj/tests/unit/fake/ftdi_fake_cli.o
$(FAKEFTDI_CLI_OBJ): CFLAGS_ALL += -Itests/unit
$(BUILD)/tests/bcbench-fakeftdi: $(MAIN_OBJ) $(FAKEFTDI_CLI_OBJ) $(BUILD)/libbcbench.a
	@mkdir -p $(dir $@)
	@echo '  LD      $@'
	$(Q)$(CC) $(LDFLAGS_ALL) $(foreach f,$(FTDI_WRAP),-Wl,--wrap=$(f)) -o $@ $^ $(LDLIBS_ALL)
units: $(BUILD)/tests/bcbench-fakeftdi
-include $(FAKEFTDI_CLI_OBJ:.o=.d)
