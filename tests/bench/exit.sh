#!/usr/bin/env bash
# What a process's end costs when many of its threads still spin: exitspin
# THREADS (that many threads spinning until the end, main returns after
# 0.2 s), the wall time of the whole run, unprofiled and in each mode. The
# profiler writes every thread's END record at the end, and a thread whose
# sample is being taken (often preempted inside the handler, where threads
# outnumber CPUs) is waited for.
#
#   tests/bench/exit.sh BUILD_DIR [ROUNDS [THREADS]]
#
# ROUNDS (default 7, at least 3) rounds each run every setup once, in an
# order that rotates from round to round; medians. Reported, not gated.
set -euo pipefail

build=${1:?usage: exit.sh BUILD_DIR [ROUNDS [THREADS]]}
rounds=${2:-7}
threads=${3:-100}
. "$(dirname "$0")/lib.sh"
bench_setup exit.sh "$build" "$rounds" 3
exitspin=$work/exitspin
${CC:-cc} -O2 -pthread -o "$exitspin" "$here/exitspin.c"
setups="none sigtrap signal"

# wall_s SETUP: seconds of wall time of one run (cputime's third figure).
wall_s() {
	local dir=$work/exit.$1 line
	rm -rf "$dir"
	if [ "$1" = none ]; then
		line=$("$cputime" "$exitspin" "$threads")
	else
		line=$("$cputime" env PPROF_MODE="$1" PPROF_OUTPUT="$dir" LD_PRELOAD="$preload" \
			"$exitspin" "$threads")
	fi
	echo "$line" | awk '{ printf "%.3f\n", $3 / 1e6 }'
}

res=$work/res
: > "$res"
for ((r = 0; r < rounds; r++)); do
	for s in $(rotated "$r" $setups); do
		echo "$s $(wall_s "$s")" >> "$res"
	done
done
echo "exit: $threads spinning threads, main returns after 0.2 s; $rounds rounds, medians of wall time"
for s in $setups; do
	printf '%-8s %8.3f s\n' "$s" "$(awk -v s="$s" '$1 == s { print $2 }' "$res" | median)"
done
