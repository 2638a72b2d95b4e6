# bcbench: see README.md. `make demo`, `make check`, `make check SAN=1`.
VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=

PKGS := libsigrok libftdi1 libserialport libusb-1.0 libcjson libzip cmocka glib-2.0 nettle libdeflate

ifeq ($(SAN),1)
BUILD ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= cc
# V=1 shows the full commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif
OPT ?= -O2 -g
# The hardware libraries: only bcbench-hw links them (docs/design.md, "Two
# binaries"). bcbench links the rest, cmocka aside (the tests' only need).
HW_PKGS := libsigrok libftdi1 libserialport libusb-1.0
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CORE_PKG_LIBS := $(shell pkg-config --libs $(filter-out $(HW_PKGS) cmocka,$(PKGS)) 2>/dev/null)
CFLAGS_ALL := -std=gnu11 $(OPT) -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
	-Ibench -I$(BUILD)/gen $(PKG_CFLAGS) -DBN_VERSION='"$(VERSION)"' -MMD -MP $(SANFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -ldl -lm $(LDLIBS)
LDLIBS_CORE := $(CORE_PKG_LIBS) -ldl -lm $(LDLIBS)
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS)

# The files that call a hardware library (and hil/hw_present.c, which says
# so): bcbench links hil/absent.c's stand-ins instead (NOHW_SRC), so a
# call into them from anywhere else fails to link bcbench, and
# scripts/check-layers.sh lets no other file include a hardware library's
# header. bcbench-hw and the tests link everything.
HW_SRC := bench/hil/devices.c bench/hil/ftdi_fixture.c bench/hil/hw_present.c bench/hil/serial.c \
	bench/hil/sigrok_cap.c bench/hil/sigrok_feed.c bench/hil/usb_dev.c
NOHW_SRC := bench/hil/absent.c
LIB_SRC := $(filter-out bench/firmware/ref_fw_so.c $(NOHW_SRC),$(sort $(wildcard bench/*/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CORE_OBJ := $(filter-out $(HW_SRC:%.c=$(BUILD)/obj/%.o),$(LIB_OBJ)) $(NOHW_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ := $(BUILD)/obj/bench/main.o
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FW_SRC := $(sort $(wildcard tests/firmware/*.c))
FW_SO := $(FW_SRC:tests/firmware/%.c=$(BUILD)/fw/%.so)

all: $(BUILD)/bcbench $(BUILD)/bcbench-hw $(FW_SO) $(BUILD)/fw/reference.so

# Install missing Debian packages only when pkg-config lacks something.
deps:
	@pkg-config --exists $(PKGS) || scripts/install-deps.sh
	@command -v sigrok-cli >/dev/null && command -v xmllint >/dev/null && command -v chromium >/dev/null && \
		command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && command -v rsync >/dev/null && \
		[ -x build/npm/node_modules/.bin/gitlab-ci-local ] && \
		/usr/bin/python3 -c 'import jsonschema, yaml, labgrid, pytest' 2>/dev/null || scripts/install-deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC      $<'
	$(Q)$(CC) $(CFLAGS_ALL) -fPIC -c $< -o $@

# The source's git describe, compiled into every record (report.json
# "tool.commit"); rewritten only when it changes, so a build stays
# incremental. Outside a git checkout: "unknown".
GIT_DESCRIBE := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define BN_GIT_DESCRIBE "%s"\n' '$(GIT_DESCRIBE)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/bench/report/report.o: $(BUILD)/gen/version.h
FORCE:

$(BUILD)/libbcbench.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@echo '  AR      $@'
	$(Q)rm -f $@ && ar rcs $@ $^

# bcbench: no hardware object, no hardware library (--as-needed: nor a
# library nothing calls). bcbench-hw: the same main with all of them;
# bcbench starts it for a command that needs hardware (cli/hw_exec.h).
# -z now: every symbol bound at start, once, in the suite's process:
# lazily, each forked entry would bind again the ones the suite never
# called (a copy-on-write fault on its GOT and a symbol lookup each), and
# the GOT can then be read-only (full RELRO).
BIN_LDFLAGS := -Wl,-z,now -Wl,-z,relro
$(BUILD)/bcbench: $(MAIN_OBJ) $(CORE_OBJ)
	@echo '  LD      $@'
	$(Q)$(CC) $(LDFLAGS_ALL) $(BIN_LDFLAGS) -Wl,--as-needed -o $@ $^ $(LDLIBS_CORE)

$(BUILD)/bcbench-hw: $(MAIN_OBJ) $(BUILD)/libbcbench.a
	@echo '  LD      $@'
	$(Q)$(CC) $(LDFLAGS_ALL) $(BIN_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

TEST_LIB_SRC := $(sort $(wildcard tests/unit/lib/*.c))
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libbcbench.a $(TEST_LIB_SRC) $(wildcard tests/unit/lib/*.h)
	@mkdir -p $(dir $@)
	@echo '  TEST    $@'
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/unit $(LDFLAGS_ALL) $(TEST_LDFLAGS_$*) -o $@ $< $(TEST_LIB_SRC) $(TEST_SRC_$*) $(BUILD)/libbcbench.a $(LDLIBS_ALL)

# A test's own link flags and extra sources (a link seam such as
# -Wl,--wrap=ftdi_new and the fake behind it) live beside it in
# tests/unit/NAME.mk as TEST_LDFLAGS_NAME and TEST_SRC_NAME.
-include $(sort $(wildcard tests/unit/*.mk))
include tests/twin/twin.mk
-include $(sort $(wildcard tests/fakeusb/*.mk))

# Programs the tests talk to (tests/emu/*.c: an instrument emulator on a
# pseudo-terminal, ...), plain C, none of the library.
EMU_SRC := $(sort $(wildcard tests/emu/*.c))
EMU_BIN := $(EMU_SRC:tests/emu/%.c=$(BUILD)/emu/%)
$(BUILD)/emu/%: tests/emu/%.c
	@mkdir -p $(dir $@)
	@echo '  EMU     $@'
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< -lutil -lm

# Firmware under test built as shared objects (faulty variants, the
# reference as a .so to prove loading by path).
# Variants link the reference firmware's code and change its tunables.
REF_FW_SRC := bench/firmware/ref_fw.c bench/firmware/ref_ramp.c
VARIANT_SRC := tests/firmware/lib/variant.c
$(BUILD)/fw/%.so: tests/firmware/%.c $(REF_FW_SRC) $(VARIANT_SRC) tests/firmware/lib/variant.h bench/firmware/bcfw.h bench/firmware/ref_fw.h bench/firmware/ref_ramp.h
	@mkdir -p $(dir $@)
	@echo '  FW      $@'
	$(Q)$(CC) $(CFLAGS_ALL) -fPIC -shared -fvisibility=hidden -o $@ $< $(REF_FW_SRC) $(VARIANT_SRC)

$(BUILD)/fw/reference.so: bench/firmware/ref_fw.c bench/firmware/ref_ramp.c bench/firmware/ref_fw_so.c bench/firmware/bcfw.h
	@mkdir -p $(dir $@)
	@echo '  FW      $@'
	$(Q)$(CC) $(CFLAGS_ALL) -fPIC -shared -fvisibility=hidden -o $@ bench/firmware/ref_fw.c bench/firmware/ref_ramp.c bench/firmware/ref_fw_so.c

# Fault seams the fault matrix preloads (tests/fault/*.c: a disk that
# fills up, ...), plain C, none of the library. Without
# _FILE_OFFSET_BITS: a seam defines both pwrite and pwrite64 (whichever
# the program calls), which that macro would make one symbol.
FAULT_SRC := $(sort $(wildcard tests/fault/*.c))
FAULT_SO := $(FAULT_SRC:tests/fault/%.c=$(BUILD)/fault/%.so)
$(BUILD)/fault/%.so: tests/fault/%.c
	@mkdir -p $(dir $@)
	@echo '  FAULT   $@'
	$(Q)$(CC) $(filter-out $(SANFLAGS) -D_FILE_OFFSET_BITS=64,$(CFLAGS_ALL)) -fPIC -shared -o $@ $< -ldl

# Benchmark programs (tests/bench/*.c, plain main, no cmocka), run by
# scripts/bench.sh.
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
$(BUILD)/bench/%: tests/bench/%.c $(BUILD)/libbcbench.a
	@mkdir -p $(dir $@)
	@echo '  BENCH   $@'
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libbcbench.a $(LDLIBS_ALL)

# Fuzz harnesses (tests/fuzz/NAME.c, one parser each; tests/fuzz/README.md).
# make check replays each one's corpus and regression inputs through a plain
# main (any compiler, SAN=1 too); make fuzz builds them with clang and
# libFuzzer (build/fuzz) and fuzzes each for FUZZ_S seconds.
FUZZ_SRC := $(filter-out tests/fuzz/replay_main.c,$(sort $(wildcard tests/fuzz/*.c)))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ_LIB_SRC := $(sort $(wildcard tests/fuzz/lib/*.c))
FUZZ_DEPS := $(FUZZ_LIB_SRC) $(wildcard tests/fuzz/lib/*.h) $(BUILD)/libbcbench.a
FUZZ_REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz-replay/%)
$(BUILD)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	@echo '  FUZZ    $@'
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/fuzz $(LDFLAGS_ALL) -o $@ $< tests/fuzz/replay_main.c $(FUZZ_LIB_SRC) $(BUILD)/libbcbench.a $(LDLIBS_ALL)

fuzz-replay: $(FUZZ_REPLAY_BIN)
	@set -e; for n in $(FUZZ_NAMES); do \
		d=tests/fuzz/corpus/$$n; r=tests/fuzz/regress/$$n; [ -d $$r ] || r=; \
		BN_FUZZ_ROOT=. $(BUILD)/fuzz-replay/$$n $$d $$r; done

FUZZ_S ?= 60
FUZZ_SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
$(BUILD)/fuzzer/%: tests/fuzz/%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	@echo '  FUZZER  $@'
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/fuzz $(LDFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_SRC) $(BUILD)/libbcbench.a $(LDLIBS_ALL)

fuzzers: $(FUZZ_NAMES:%=$(BUILD)/fuzzer/%)

# FUZZ=NAME... fuzzes only those; FUZZ_ARGS go to every libFuzzer run.
fuzz: deps
	@dpkg-query -W -f='$${Status}' libclang-rt-14-dev 2>/dev/null | grep -q 'ok installed' || scripts/install-deps.sh
	$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang SAN= SANFLAGS='$(FUZZ_SANFLAGS)' fuzzers
	FUZZ_S=$(FUZZ_S) sh tests/fuzz/run.sh build/fuzz $(or $(FUZZ),$(FUZZ_NAMES))

check: deps
	$(MAKE) --no-print-directory all units $(BUILD)/fw/reference.so $(FUZZ_REPLAY_BIN)
	@BN_CHECK_SAN=$(SAN) MAKE="$(MAKE)" sh tests/check.sh $(BUILD) $(UNIT_BIN)

units: $(UNIT_BIN) $(EMU_BIN) $(FAULT_SO)

# No #include in bench/ goes up a floor (docs/design.md, "The floors").
.PHONY: layers
layers:
	sh scripts/check-layers.sh

demo: deps
	$(MAKE) --no-print-directory all
	sh scripts/demo.sh $(BUILD)/bcbench $(BUILD)/fw

bench: all $(BENCH_BIN)
	sh scripts/bench.sh $(BUILD)/bcbench && sh scripts/bench-startup.sh $(BUILD)/bcbench $(BUILD)/bcbench-hw && \
		sh scripts/bench-capture.sh $(BUILD)/bcbench $(BUILD)/bench/sr_peer && \
		sh scripts/bench-suite.sh $(BUILD)/bcbench $(BUILD)/fw && sh scripts/bench-conditions.sh $(BUILD)/bcbench $(BUILD)/fw && \
		sh scripts/bench-suite-rss.sh $(BUILD)/bcbench $(BUILD)/fw && sh scripts/bench-run-capture.sh $(BUILD)/bcbench $(BUILD)/fw && \
		sh scripts/bench-html.sh $(BUILD)/bcbench $(BUILD)/bench/sr_peer

# make install [PREFIX=/usr/local] [DESTDIR=]: nothing built depends on
# PREFIX (the binary finds its data and firmware beside itself,
# bench/core/datadir.h; bcfw.pc, which names PREFIX, is written as it is
# installed), so a changed PREFIX has nothing to rebuild. Every file
# installed is listed, relative to PREFIX, in the manifest
# share/bcbench/installed-files that `make uninstall` removes; installing
# again over an older install adds to its list.
BINDIR := $(PREFIX)/bin
DATADIR_INST := $(PREFIX)/share/bcbench
FWDIR_INST := $(PREFIX)/lib/bcbench/firmware
# bcbench-hw is no command of its own: bcbench starts it from here
# (core/datadir.h, bn_hwbin_beside_exe).
HWBIN_INST := $(PREFIX)/lib/bcbench/bcbench-hw
MAN1DIR := $(PREFIX)/share/man/man1
INCDIR := $(PREFIX)/include/bcfw
PCDIR := $(PREFIX)/share/pkgconfig
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
# udev reads /usr/lib/udev/rules.d (a package's rules) and
# /usr/local/lib/udev/rules.d (udev(7)); /etc/udev/rules.d is the admin's.
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
MANIFEST := $(DATADIR_INST)/installed-files
INST_DATA := $(sort $(shell find profiles fixtures scripts/scenarios scripts/suites -type f 2>/dev/null))

# INSTALL_FILE MODE SRC DEST(under PREFIX's tree, without DESTDIR)
define INSTALL_FILE
install -D -m $(1) $(2) $(DESTDIR)$(3) && echo '$(3)' >> $(DESTDIR)$(MANIFEST).tmp
endef

install: all
	@mkdir -p $(DESTDIR)$(DATADIR_INST) && { cat $(DESTDIR)$(MANIFEST) 2>/dev/null || true; } > $(DESTDIR)$(MANIFEST).tmp
	@echo '  INSTALL $(DESTDIR)$(PREFIX)'
	$(Q)$(call INSTALL_FILE,755,$(BUILD)/bcbench,$(BINDIR)/bcbench)
	$(Q)$(call INSTALL_FILE,755,$(BUILD)/bcbench-hw,$(HWBIN_INST))
	$(Q)$(foreach f,$(INST_DATA),$(call INSTALL_FILE,644,$(f),$(DATADIR_INST)/$(f)) &&) true
	$(Q)$(foreach f,$(FW_SO) $(BUILD)/fw/reference.so,$(call INSTALL_FILE,644,$(f),$(FWDIR_INST)/$(notdir $(f))) &&) true
	$(Q)$(call INSTALL_FILE,644,docs/bcbench.1,$(MAN1DIR)/bcbench.1)
	$(Q)$(call INSTALL_FILE,644,bench/firmware/bcfw.h,$(INCDIR)/bcfw.h)
	$(Q)install -d $(DESTDIR)$(PCDIR) && sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		bench/firmware/bcfw.pc.in > $(DESTDIR)$(PCDIR)/bcfw.pc && chmod 644 $(DESTDIR)$(PCDIR)/bcfw.pc && \
		echo '$(PCDIR)/bcfw.pc' >> $(DESTDIR)$(MANIFEST).tmp
	$(Q)$(call INSTALL_FILE,644,scripts/bash-completion/bcbench,$(BASHCOMPDIR)/bcbench)
	$(Q)$(call INSTALL_FILE,644,fixtures/udev/60-bcbench.rules,$(UDEVRULESDIR)/60-bcbench.rules)
	$(Q)echo '$(MANIFEST)' >> $(DESTDIR)$(MANIFEST).tmp && sort -u $(DESTDIR)$(MANIFEST).tmp > $(DESTDIR)$(MANIFEST) && rm -f $(DESTDIR)$(MANIFEST).tmp

# Removes the files the manifest lists (what install put there, even from
# an older tree), then the directories that are bcbench's own once empty.
uninstall:
	@test -f $(DESTDIR)$(MANIFEST) || { echo "make uninstall: no $(DESTDIR)$(MANIFEST): nothing installed under PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"; exit 1; }
	@echo "  REMOVE  $(DESTDIR)$(PREFIX) ($$(wc -l < $(DESTDIR)$(MANIFEST)) files)"
	$(Q)sed 's|^|$(DESTDIR)|' $(DESTDIR)$(MANIFEST) | xargs rm -f
	$(Q)for d in $(DATADIR_INST) $(PREFIX)/lib/bcbench $(INCDIR); do \
		[ -d $(DESTDIR)$$d ] && find $(DESTDIR)$$d -depth -type d -empty -delete; done; true

format:
	clang-format -i bench/*/*.c bench/*/*.h bench/*.c tests/unit/*.c

clean:
	rm -rf build reports/*/

.PHONY: FORCE all deps check units demo bench install uninstall clean format fuzz fuzzers fuzz-replay

-include $(LIB_OBJ:.o=.d) $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)
