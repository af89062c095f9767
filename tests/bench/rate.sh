#!/usr/bin/env bash
# The shortest sampling period, on a busy machine: does every program finish,
# unchanged? Runs /bin/true, the demo and a 64-thread program under the
# preload at PERIOD in both modes, beside a CPU hog on every CPU, and counts
# the runs that finished with the exit status and output of an unprofiled
# run.
#
#   tests/bench/rate.sh BUILD_DIR [RUNS [PERIOD]]
#
# RUNS (default 10, at least 1) runs of each program in each mode, each
# bounded by timeout(1) at 120 s; PERIOD defaults to 100us, the shortest
# cpu-clock period the configuration accepts. Per program and mode: runs
# that finished unchanged, the exit statuses seen, the median wall time,
# and the median of samples and throttled overflows per run. Reported, not
# gated: the exit status is 0 unless something failed to run.
set -euo pipefail

build=${1:?usage: rate.sh BUILD_DIR [RUNS [PERIOD]]}
runs=${2:-10}
period=${3:-100us}
. "$(dirname "$0")/lib.sh"
bench_setup rate.sh "$build" "$runs" 1
printf '[sample cpu-clock]\nperiod = %s\n' "$period" > "$work/rate.ini"

hogs=()
for ((c = 0; c < $(nproc); c++)); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null; rm -rf "$work"' EXIT

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		p = 1 + 0.5 * (NR - 1); k = int(p)
		print (k < NR) ? v[k] + (p - k) * (v[k + 1] - v[k]) : v[NR] }'
}

# counts DIR: "samples throttled" of a run, as pprof-analyze threads shows them.
counts() {
	"$analyze" threads "$1" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ { s += $4; t += $6 } END { print s + 0, t + 0 }'
}

echo "rate: period $period, $runs runs per program and mode, beside $(nproc) CPU hogs"
printf '%-22s %-8s %9s %-22s %9s %9s %10s\n' program mode unchanged "statuses" \
	"wall (s)" samples throttled
for prog in "/bin/true" "$build/workloads/demo 0.3" "$build/workloads/widethreads 64 0.02"; do
	# shellcheck disable=SC2086
	want=$(set +e; timeout 120 $prog 2>/dev/null; echo "status $?")
	for mode in sigtrap signal; do
		ok=0
		: > "$work/res"
		for ((i = 1; i <= runs; i++)); do
			out=$work/data.$mode.$i
			start=$(date +%s.%N)
			# shellcheck disable=SC2086
			got=$(set +e; env PPROF_CONFIG="$work/rate.ini" PPROF_MODE="$mode" \
				PPROF_OUTPUT="$out" LD_PRELOAD="$preload" timeout -s KILL 120 \
				$prog 2>"$work/err"; echo "status $?")
			end=$(date +%s.%N)
			[ "$got" = "$want" ] && ! grep -q '^libpprof:' "$work/err" && ok=$((ok + 1))
			echo "${got##*status } $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') \
$(counts "$out")" >> "$work/res"
			rm -rf "$out"
		done
		printf '%-22s %-8s %6d/%-2d %-22s %9.3f %9s %10s\n' "$(basename "${prog%% *}")" "$mode" \
			"$ok" "$runs" "$(awk '{ n[$1]++ } END { for (s in n) { printf "%s%s(%d)", sep, s, n[s]; sep = " " } }' "$work/res")" \
			"$(awk '{ print $2 }' "$work/res" | median)" \
			"$(awk '{ print $3 }' "$work/res" | median)" \
			"$(awk '{ print $4 }' "$work/res" | median)"
	done
done
echo "(unchanged: same exit status and stdout as unprofiled, and no libpprof: line;"
echo " statuses: exit status (runs), 137 = killed at the 120 s limit)"
