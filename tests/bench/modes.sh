#!/usr/bin/env bash
# The two sampling modes side by side: overhead and cost per sample of the
# sigtrap and the signal mode, with 1, 2, 16 and 128 threads.
#
#   tests/bench/modes.sh BUILD_DIR [ROUNDS [SECONDS]]
#
# For each thread count N, ROUNDS (default 5, at least 3) rounds of three
# runs of `deepstack S N` in rotating order: unprofiled (A), PPROF_MODE=sigtrap
# (T), PPROF_MODE=signal (G). S = SECONDS (default 2) / N, so every run does
# the same total work. CPU time is user + sys from wait4 (cputime.c). Per
# mode and N: the median CPU ratio to A over the rounds, the median samples,
# and the median extra CPU per sample, (mode - A) / samples. Reported, not
# gated: the exit status is 0 unless something failed to run.
set -euo pipefail

build=${1:?usage: modes.sh BUILD_DIR [ROUNDS [SECONDS]]}
rounds=${2:-5}
total=${3:-2}
. "$(dirname "$0")/lib.sh"
bench_setup modes.sh "$build" "$rounds" 3

# run_one MODE N ROUND: CPU microseconds of one run (MODE: none, sigtrap, signal).
run_one() {
	local mode=$1 n=$2 r=$3 secs line
	secs=$(awk -v t="$total" -v n="$n" 'BEGIN { printf "%.6f", t / n }')
	if [ "$mode" = none ]; then
		line=$("$cputime" env "$workload" "$secs" "$n")
	else
		line=$("$cputime" env PPROF_MODE="$mode" PPROF_OUTPUT="$work/$mode.$n.$r" \
			LD_PRELOAD="$preload" "$workload" "$secs" "$n")
	fi
	set -- $line
	echo $(($1 + $2))
}

# samples DIR: the samples pprof-analyze counts in a run.
samples() {
	"$analyze" threads "$1" | awk '$1 ~ /^[0-9]+$/ { s += $4 } END { print s + 0 }'
}

echo "modes: deepstack, $total s of work split over N threads, $rounds rounds per N"
printf '%8s %8s %10s %10s %10s %14s\n' threads mode "cpu (ms)" "ratio" samples "ns/sample"
for n in 1 2 16 128; do
	res=$work/res.$n
	: > "$res"
	for ((r = 1; r <= rounds; r++)); do
		declare -A cpu=()
		# Rotate the order so that drift in the machine's speed hits all three.
		case $((r % 3)) in
		0) order="none sigtrap signal" ;;
		1) order="sigtrap signal none" ;;
		2) order="signal none sigtrap" ;;
		esac
		for m in $order; do
			cpu[$m]=$(run_one "$m" "$n" "$r")
		done
		for m in sigtrap signal; do
			s=$(samples "$work/$m.$n.$r")
			[ "$s" -gt 0 ] || { echo "modes.sh: $m run with $n threads took no samples" >&2; exit 1; }
			echo "$m ${cpu[none]} ${cpu[$m]} $s" >> "$res"
		done
	done
	printf '%8d %8s %10.1f %10s %10s %14s\n' "$n" none \
		"$(awk '$1 == "sigtrap" { print $2 / 1000 }' "$res" | median)" - - -
	for m in sigtrap signal; do
		printf '%8d %8s %10.1f %10.4f %10d %14.0f\n' "$n" "$m" \
			"$(awk -v m="$m" '$1 == m { print $3 / 1000 }' "$res" | median)" \
			"$(awk -v m="$m" '$1 == m { print $3 / $2 }' "$res" | median)" \
			"$(awk -v m="$m" '$1 == m { print $4 }' "$res" | median)" \
			"$(awk -v m="$m" '$1 == m { print ($3 - $2) * 1000 / $4 }' "$res" | median)"
	done
done
echo "(ratio: profiled CPU / unprofiled CPU, median over rounds; ns/sample: the extra"
echo " CPU per sample, median over rounds; noisy when the ratio is near 1)"
