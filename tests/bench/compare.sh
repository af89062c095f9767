#!/usr/bin/env bash
# libpprof beside perf and gperftools, in one run: what each costs and what
# each gives, on the same program at the same rates.
#
#   tests/bench/compare.sh BUILD_DIR [ROUNDS [SECONDS]]
#
# The program is deepstack (two threads ~30 frames deep, SECONDS of work
# each, default 2) built here with frame pointers, so that every profiler
# unwinds the same binary (perf -g needs them). At 1 kHz and at 10 kHz per
# thread, ROUNDS (default 7, at least 3) rounds run each setup once, in an
# order that rotates from round to round:
#
#   none        unprofiled
#   perf        perf record -e cpu-clock:u -c PERIOD (no call graph: the kernel's floor)
#   perf-g      the same with -g (frame pointers)
#   perf-dwarf  the same with --call-graph dwarf
#   gperftools  LD_PRELOAD=libprofiler.so.0, CPUPROFILE_FREQUENCY=RATE
#   sigtrap     LD_PRELOAD=libpprof.so, PPROF_MODE=sigtrap, cpu-clock period 1/RATE
#   signal      the same with PPROF_MODE=signal
#
# CPU time is user + sys of the whole process tree (wait4 of the command,
# which reaps its children: perf's own CPU is counted). Columns, medians
# over the rounds: CPU ratio to unprofiled (pair by pair in a round),
# samples per second of the program's CPU, the extra CPU per sample (µs),
# mean stack depth (frames per sample as the tool's own report shows them),
# bytes on disk per sample (the whole output), and IRQ-work interrupts per
# sample (lib.sh's irq_work, counted around the run: the signal mode's
# signals each cost one, the kernel's O_ASYNC delivery; a sigtrap signal
# none). The numbers are reported, not gated. `make bench` installs perf and gperftools.
set -euo pipefail

build=${1:?usage: compare.sh BUILD_DIR [ROUNDS [SECONDS]]}
rounds=${2:-7}
seconds=${3:-2}
. "$(dirname "$0")/lib.sh"
bench_setup compare.sh "$build" "$rounds" 3

gperf=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -1 || true)
command -v perf >/dev/null || { echo "compare.sh: perf is not installed (make bench installs it)" >&2; exit 1; }
[ -n "$gperf" ] || { echo "compare.sh: gperftools' libprofiler.so.0 is not installed (make bench installs it)" >&2; exit 1; }

prog=$work/deepstack-fp
${CC:-cc} -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread -o "$prog" \
	"$here/../workloads/deepstack.c" -ldl -lm

setups="none perf perf-g perf-dwarf gperftools sigtrap signal"

# run_one SETUP RATE DIR: CPU microseconds of one run, its output in DIR;
# the IRQ-work interrupts taken meanwhile in DIR.irqwork.
run_one() {
	local setup=$1 rate=$2 dir=$3 period line iw
	period=$((1000000000 / rate))
	mkdir -p "$dir"
	printf '[sample cpu-clock]\nevent = cpu-clock\nperiod = %d\n' "$period" > "$dir.ini"
	iw=$(irq_work)
	case $setup in
	none) line=$("$cputime" env "$prog" "$seconds") ;;
	perf) line=$("$cputime" perf record -q -e cpu-clock:u -c "$period" \
			-o "$dir/perf.data" -- "$prog" "$seconds" 2>/dev/null) ;;
	perf-g) line=$("$cputime" perf record -q -e cpu-clock:u -c "$period" -g \
			-o "$dir/perf.data" -- "$prog" "$seconds" 2>/dev/null) ;;
	perf-dwarf) line=$("$cputime" perf record -q -e cpu-clock:u -c "$period" \
			--call-graph dwarf -o "$dir/perf.data" -- "$prog" "$seconds" 2>/dev/null) ;;
	gperftools) line=$("$cputime" env LD_PRELOAD="$gperf" CPUPROFILE="$dir/cpu.prof" \
			CPUPROFILE_FREQUENCY="$rate" "$prog" "$seconds" 2>/dev/null) ;;
	sigtrap | signal) line=$("$cputime" env PPROF_MODE="$setup" PPROF_CONFIG="$dir.ini" \
			PPROF_OUTPUT="$dir" LD_PRELOAD="$preload" "$prog" "$seconds") ;;
	esac
	echo $(($(irq_work) - iw)) > "$dir.irqwork"
	cpu_us "$line"
}

# counts SETUP DIR: "SAMPLES FRAMES" of one run's output, as the tool reads it.
counts() {
	local setup=$1 dir=$2
	case $setup in
	perf | perf-g | perf-dwarf) perf_frames "$dir/perf.data" ;;
	gperftools)
		# The legacy CPU profile: 64-bit words, a 5-word header, then
		# {count, depth, pc...} until {0, 1, 0}.
		python3 - "$dir/cpu.prof" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
w = lambda i: struct.unpack_from('<Q', b, 8 * i)[0]
i, n, f = 5, 0, 0
while 8 * (i + 3) <= len(b):
    c, d = w(i), w(i + 1)
    if c == 0 and d == 1 and w(i + 2) == 0:
        break
    n += c
    f += c * d
    i += 2 + d
print(n, f)
EOF
		;;
	sigtrap | signal) pprof_frames "$dir" ;;
	esac
}

echo "compare: deepstack (frame pointers) $seconds s of work in each of 2 threads, $rounds rounds, CPU of the whole process tree"
for rate in 1000 10000; do
	res=$work/res.$rate
	: > "$res"
	for ((r = 0; r < rounds; r++)); do
		order=($(rotated "$r" $setups))
		declare -A cpu=()
		for s in "${order[@]}"; do
			cpu[$s]=$(run_one "$s" "$rate" "$work/$s.$rate.$r")
		done
		for s in $setups; do
			[ "$s" = none ] && continue
			dir=$work/$s.$rate.$r
			set -- $(counts "$s" "$dir")
			[ "$1" -gt 0 ] || { echo "compare.sh: $s at $rate Hz took no samples" >&2; exit 1; }
			bytes=$(du -sb "$dir" | cut -f1)
			echo "$s ${cpu[none]} ${cpu[$s]} $1 $2 $bytes $(cat "$dir.irqwork")" >> "$res"
			rm -rf "$dir"
		done
	done
	echo
	echo "at $rate Hz per thread:"
	printf '%-11s %9s %9s %10s %10s %8s %10s %10s\n' setup "cpu (ms)" ratio "samples/s" "µs/sample" depth "bytes/smp" "irqwk/smp"
	printf '%-11s %9.1f\n' none "$(awk '$1 == "perf" { print $2 / 1000 }' "$res" | median)"
	for s in $setups; do
		[ "$s" = none ] && continue
		printf '%-11s %9.1f %9.4f %10.0f %10.1f %8.1f %10.0f %10.2f\n' "$s" \
			"$(awk -v s="$s" '$1 == s { print $3 / 1000 }' "$res" | median)" \
			"$(awk -v s="$s" '$1 == s { print $3 / $2 }' "$res" | median)" \
			"$(awk -v s="$s" '$1 == s { print $4 * 1e6 / $2 }' "$res" | median)" \
			"$(awk -v s="$s" '$1 == s { print ($3 - $2) / $4 }' "$res" | median)" \
			"$(awk -v s="$s" '$1 == s { print $5 / $4 }' "$res" | median)" \
			"$(awk -v s="$s" '$1 == s { print $6 / $4 }' "$res" | median)" \
			"$(awk -v s="$s" '$1 == s { print $7 / $4 }' "$res" | median)"
	done
done
echo
echo "(ratio: setup's CPU / unprofiled CPU in the same round; samples/s: per second of the"
echo " unprofiled program's CPU; µs/sample: extra CPU per sample; depth: frames per sample"
echo " as perf script, the profile's own stacks, or pprof-analyze folded show them;"
echo " irqwk/smp: IRQ-work interrupts on any CPU during the run, per sample)"
