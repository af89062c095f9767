#!/usr/bin/env bash
# What the wall-clock event ([sample wall], issue 16) costs, beside the CPU
# event alone.
#
#   tests/bench/wall.sh BUILD_DIR [ROUNDS]
#
# - idle threads: `idlers COUNT 2 100` (COUNT threads sleeping 100 ms at a
#   time for 2 s, the main thread burning) for COUNT 1, 16 and 1,000, with
#   the default configuration (cpu-clock) and with [sample wall] at a
#   period of 1 ms and of 10 ms: the median CPU time of the whole process
#   over ROUNDS (default 3) rounds, and the wall event's helper's own CPU
#   per second of wall time (the note `top --event wall` closes its header
#   with).
# - per switch: `pingpong 100000` (two threads blocking in read() for each
#   other, 200,000 waits), CPU-only and with [sample wall] at 10 ms: the
#   median extra CPU time per wait (the switch records, their drain and the
#   looks), in µs.
# Reported, not gated.
set -euo pipefail

build=${1:?usage: wall.sh BUILD_DIR [ROUNDS]}
rounds=${2:-3}
. "$(dirname "$0")/lib.sh"
bench_setup wall.sh "$build" "$rounds" 1
idlers=$build/workloads/idlers
[ -x "$idlers" ] || { echo "wall.sh: $idlers is not built (make $idlers)" >&2; exit 1; }
pingpong=$work/pingpong
${CC:-cc} -O2 -pthread -o "$pingpong" "$here/pingpong.c"
for p in 1ms 10ms; do
	printf '[sample cpu-clock]\n[sample wall]\nperiod = %s\n' "$p" > "$work/wall-$p.ini"
done

# run SETUP OUT PROGRAM...: cputime line of PROGRAM profiled as SETUP (cpu, wall-1ms, wall-10ms).
run() {
	local setup=$1 out=$2
	shift 2
	rm -rf "$out"
	if [ "$setup" = cpu ]; then
		"$cputime" env PPROF_OUTPUT="$out" LD_PRELOAD="$preload" "$@"
	else
		"$cputime" env PPROF_CONFIG="$work/$setup.ini" PPROF_OUTPUT="$out" \
			LD_PRELOAD="$preload" "$@"
	fi
}

# helper_ms OUT: the helper's ms of CPU per second of wall time in run OUT.
helper_ms() {
	"$analyze" top --event wall "$1" 2>/dev/null |
		sed -n 's/^# wall: the profiler.s helper used \([0-9.]*\) ms.*/\1/p' | head -1
}

echo "wall.sh: idlers COUNT 2 100, median of $rounds (CPU ms of the process; helper ms/s)"
printf '%8s %12s %22s %22s\n' threads cpu-only "wall 1ms" "wall 10ms"
for count in 1 16 1000; do
	declare -A cpu=() helper=()
	for r in $(seq 1 "$rounds"); do
		for setup in $(rotated "$r" cpu wall-1ms wall-10ms); do
			line=$(run "$setup" "$work/out" "$idlers" "$count" 2 100)
			cpu[$setup]+="$(($(cpu_us "$line") / 1000)) "
			[ "$setup" = cpu ] || helper[$setup]+="$(helper_ms "$work/out") "
		done
	done
	med() { tr ' ' '\n' | grep . | median; }
	printf '%8s %12s %13s (%5s/s) %13s (%5s/s)\n' "$count" \
		"$(echo "${cpu[cpu]}" | med)" \
		"$(echo "${cpu[wall-1ms]}" | med)" "$(echo "${helper[wall-1ms]}" | med)" \
		"$(echo "${cpu[wall-10ms]}" | med)" "$(echo "${helper[wall-10ms]}" | med)"
	unset cpu helper
done

n=100000
extra=""
for r in $(seq 1 "$rounds"); do
	a=$(cpu_us "$(run cpu "$work/out" "$pingpong" $n)")
	b=$(cpu_us "$(run wall-10ms "$work/out" "$pingpong" $n)")
	extra+="$(awk -v a="$a" -v b="$b" -v n=$n 'BEGIN { printf "%.3f", (b - a) / (2 * n) }')"$'\n'
done
echo "wall.sh: pingpong $n: extra CPU per wait with [sample wall] at 10 ms, median of" \
	"$rounds: $(echo "$extra" | grep . | median) us"
