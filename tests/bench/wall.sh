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
#   other, 200,000 waits), CPU-only, with [sample wall] at 10 ms, and
#   CPU-only in the signal mode, interleaved: the median extra CPU time per
#   wait over CPU-only, in µs.
# - why: wallctx (tests/bench/wallctx.c) with no perf event, an inherited
#   cpu-clock, plus a switch event per thread (as [sample wall] does it with
#   rings = thread, the default), and plus an inherited switch event per CPU
#   instead (rings = cpu): CPU µs per wait; the last two again beside
#   two busy loops (one per core here), where the threads switch with the
#   loops too and the difference is widest.
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
declare -A extra=()
# Interleaved rounds: CPU-only (sigtrap), [sample wall] at 10 ms, and the
# signal mode's CPU-only (its per-thread events, as the wall event's).
for r in $(seq 1 "$rounds"); do
	a=$(cpu_us "$(run cpu "$work/out" "$pingpong" $n)")
	b=$(cpu_us "$(run wall-10ms "$work/out" "$pingpong" $n)")
	c=$(cpu_us "$(PPROF_MODE=signal run cpu "$work/out" "$pingpong" $n)")
	extra[wall]+="$(awk -v a="$a" -v b="$b" -v n=$n 'BEGIN { printf "%.3f", (b - a) / (2 * n) }') "
	extra[signal]+="$(awk -v a="$a" -v b="$c" -v n=$n 'BEGIN { printf "%.3f", (b - a) / (2 * n) }') "
done
med() { tr ' ' '\n' | grep . | median; }
echo "wall.sh: pingpong $n: extra CPU per wait over CPU-only (sigtrap), median of" \
	"$rounds: [sample wall] at 10 ms $(echo "${extra[wall]}" | med) us;" \
	"CPU-only in the signal mode $(echo "${extra[signal]}" | med) us"

# Why: wallctx's modes, interleaved (tests/bench/wallctx.c).
wallctx=$work/wallctx
${CC:-cc} -O2 -pthread -o "$wallctx" "$here/wallctx.c"
declare -A ctx=()
for r in $(seq 1 "$rounds"); do
	for m in $(rotated "$r" 0 1 2 3); do
		ctx[$m]+="$("$wallctx" "$m" 15000 | cut -d' ' -f1) "
	done
done
echo "wall.sh: wallctx 15000, CPU us per wait, median of $rounds: no event" \
	"$(echo "${ctx[0]}" | med); inherited cpu-clock $(echo "${ctx[1]}" | med);" \
	"+ a switch event per thread $(echo "${ctx[2]}" | med);" \
	"+ an inherited switch event per CPU $(echo "${ctx[3]}" | med)"
declare -A busy=()
loops=()
for i in 1 2; do
	sh -c 'while :; do :; done' &
	loops+=($!)
done
trap 'kill "${loops[@]}" 2>/dev/null || true' EXIT
for r in $(seq 1 "$rounds"); do
	for m in $(rotated "$r" 2 3); do
		busy[$m]+="$("$wallctx" "$m" 15000 | cut -d' ' -f1) "
	done
done
kill "${loops[@]}" 2>/dev/null || true
trap - EXIT
echo "wall.sh: the same beside two busy loops: + a switch event per thread" \
	"$(echo "${busy[2]}" | med); + an inherited switch event per CPU $(echo "${busy[3]}" | med)"
