# bcbench: see README.md. `make demo`, `make check`, `make check SAN=1`.
VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=

PKGS := libsigrok libftdi1 libserialport libusb-1.0 libcjson libzip cmocka glib-2.0 nettle

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
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS_ALL := -std=gnu11 $(OPT) -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
	-Ibench -I$(BUILD)/gen $(PKG_CFLAGS) -DBN_VERSION='"$(VERSION)"' -DBN_DATADIR='"$(PREFIX)/share/bcbench"' -MMD -MP $(SANFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -ldl -lm $(LDLIBS)
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS)

LIB_SRC := $(filter-out bench/firmware/ref_fw_so.c,$(sort $(wildcard bench/*/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ := $(BUILD)/obj/bench/main.o
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FW_SRC := $(sort $(wildcard tests/firmware/*.c))
FW_SO := $(FW_SRC:tests/firmware/%.c=$(BUILD)/fw/%.so)

all: $(BUILD)/bcbench $(FW_SO) $(BUILD)/fw/reference.so

# Install missing Debian packages only when pkg-config lacks something.
deps:
	@pkg-config --exists $(PKGS) || scripts/install-deps.sh
	@command -v sigrok-cli >/dev/null && command -v xmllint >/dev/null && command -v chromium >/dev/null && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null || scripts/install-deps.sh

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

$(BUILD)/bcbench: $(MAIN_OBJ) $(BUILD)/libbcbench.a
	@echo '  LD      $@'
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

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
# fills up, ...), plain C, none of the library.
FAULT_SRC := $(sort $(wildcard tests/fault/*.c))
FAULT_SO := $(FAULT_SRC:tests/fault/%.c=$(BUILD)/fault/%.so)
$(BUILD)/fault/%.so: tests/fault/%.c
	@mkdir -p $(dir $@)
	@echo '  FAULT   $@'
	$(Q)$(CC) $(filter-out $(SANFLAGS),$(CFLAGS_ALL)) -fPIC -shared -o $@ $< -ldl

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
	@set -e; fails=0; for t in $(UNIT_BIN); do \
		echo "== $$t"; BN_FWDIR=$(BUILD)/fw BN_EMUDIR=$(BUILD)/emu $$t || fails=$$((fails+1)); done; \
	echo "== fuzz corpora"; $(MAKE) --no-print-directory fuzz-replay || fails=$$((fails+1)); \
	echo "== integration"; BN_CHECK_SAN=$(SAN) BCBENCH=$(BUILD)/bcbench FWDIR=$(BUILD)/fw EMUDIR=$(BUILD)/emu sh tests/integration/run.sh || fails=$$((fails+1)); \
	if [ $$fails -ne 0 ]; then echo "make check: $$fails test program(s) failed"; exit 1; fi; \
	echo "make check: all tests passed"

units: $(UNIT_BIN) $(EMU_BIN) $(FAULT_SO)

demo: deps
	$(MAKE) --no-print-directory all
	sh scripts/demo.sh $(BUILD)/bcbench $(BUILD)/fw

bench: all $(BENCH_BIN)
	sh scripts/bench.sh $(BUILD)/bcbench && sh scripts/bench-capture.sh $(BUILD)/bcbench $(BUILD)/bench/sr_peer && \
		sh scripts/bench-suite.sh $(BUILD)/bcbench $(BUILD)/fw && sh scripts/bench-conditions.sh $(BUILD)/bcbench $(BUILD)/fw && \
		sh scripts/bench-suite-rss.sh $(BUILD)/bcbench $(BUILD)/fw && \
		sh scripts/bench-html.sh $(BUILD)/bcbench $(BUILD)/bench/sr_peer

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bcbench $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/bcbench $(DESTDIR)$(PREFIX)/bin/bcbench
	cp -r profiles scripts fixtures $(DESTDIR)$(PREFIX)/share/bcbench/
	install -m 644 docs/bcbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/bcbench.1

format:
	clang-format -i bench/*/*.c bench/*/*.h bench/*.c tests/unit/*.c

clean:
	rm -rf build reports/*/

.PHONY: FORCE all deps check units demo bench install clean format fuzz fuzzers fuzz-replay

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)
