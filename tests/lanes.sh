# lanes JOBS OUTDIR CMD NAME...: run `CMD NAME` for each NAME, JOBS at a
# time, each one's output kept in OUTDIR/<n>.log and printed whole, in the
# given order, once all have ended (two tests' lines never interleave).
# Prints each one's wall time; sets lanes_failed to how many exited non-zero.
# Sourced by tests/check.sh and tests/integration/run.sh.
lanes() {
	_jobs=$1 _dir=$2 _cmd=$3
	shift 3
	mkdir -p "$_dir"
	_n=0
	for _name in "$@"; do
		_n=$((_n + 1))
		printf '%s\t%s\n' "$_n" "$_name"
	done | xargs -P "$_jobs" -L 1 sh -c '
		s=$(date +%s.%N)
		'"$_cmd"' "$2" >"'"$_dir"'/$1.log" 2>&1
		echo $? >"'"$_dir"'/$1.rc"
		e=$(date +%s.%N)
		echo "$s $e" | awk "{ printf \"%.1f\", \$2 - \$1 }" >"'"$_dir"'/$1.time"' lane
	lanes_failed=0
	_n=0
	for _name in "$@"; do
		_n=$((_n + 1))
		echo "== $_name ($(cat "$_dir/$_n.time" 2>/dev/null) s)"
		cat "$_dir/$_n.log" 2>/dev/null
		[ "$(cat "$_dir/$_n.rc" 2>/dev/null)" = 0 ] || lanes_failed=$((lanes_failed + 1))
	done
}
