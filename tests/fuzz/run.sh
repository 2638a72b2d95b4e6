#!/bin/sh
# Fuzz each named harness for FUZZ_S seconds (default 60), one after
# another, on a scratch copy of its corpus (tests/fuzz/corpus/NAME) and
# its regression inputs (tests/fuzz/regress/NAME): the committed corpus
# is never written. Prints execs, time and exec/s per harness. The first
# crash, leak or sanitizer report stops the run and names its reproducer.
#   usage: tests/fuzz/run.sh BUILDDIR NAME...
# FUZZ_ARGS: more libFuzzer options for every run (e.g. -runs=10000000);
# FUZZ_MAX_LEN: the longest input, instead of the harness's default below;
# FUZZ_KEEP=1: go on from the scratch corpus an earlier run grew.
set -u
build=$1
shift
secs=${FUZZ_S:-60}
work=$build/work
mkdir -p "$work" "$build/crash"

# The longest input each parser is fed: room for the largest seed and
# some growth, small enough that execs stay fast.
max_len() {
	case $1 in
	usb_desc) echo 1024 ;;
	scpi_reply) echo 256 ;;
	scenario | suite | conf | port | host | dut | charger | conditions | instrument) echo 4096 ;;
	srzip | replay) echo 8192 ;;
	diff | merge) echo 65536 ;;
	*) echo 16384 ;;
	esac
}

# A small quarantine keeps the allocator's memory warm (twice the
# execs/s of the default 256 MB on small inputs) and still catches a use
# after free within an input; shorter allocation stacks, for speed too.
: "${ASAN_OPTIONS=quarantine_size_mb=16:malloc_context_size=10}"
export ASAN_OPTIONS

total=0
for n in "$@"; do
	bin=$build/fuzzer/$n
	scratch=$work/$n
	[ "${FUZZ_KEEP:-}" = 1 ] || rm -rf "$scratch"
	mkdir -p "$scratch"
	cp tests/fuzz/corpus/"$n"/* "$scratch"/ 2>/dev/null
	[ -d tests/fuzz/regress/"$n" ] && cp tests/fuzz/regress/"$n"/* "$scratch"/ 2>/dev/null
	log=$work/$n.log
	# shellcheck disable=SC2086
	BN_FUZZ_ROOT=. "$bin" -max_total_time="$secs" -max_len="${FUZZ_MAX_LEN:-$(max_len "$n")}" -timeout=10 \
		-artifact_prefix="$build/crash/$n-" -print_final_stats=1 ${FUZZ_ARGS:-} \
		"$scratch" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	t=$(( ${runs:-0} / (${rate:-0} > 0 ? ${rate:-1} : 1) ))
	printf '%-12s %10s execs %6s s %8s exec/s\n' "$n" "${runs:-?}" "$t" "${rate:-?}"
	if [ $rc -ne 0 ]; then
		echo "fuzz: $n failed (exit $rc); log $log" >&2
		grep -E '^==[0-9]+==ERROR|SUMMARY|^artifact_prefix|Test unit written to' "$log" >&2
		exit 1
	fi
	total=$((total + ${runs:-0}))
done
echo "fuzz: all harnesses ran clean ($total execs)"
