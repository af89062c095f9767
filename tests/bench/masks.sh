#!/usr/bin/env bash
# Masks and coverage: what the mask wrappers cost, and how well threads
# that run with every signal blocked are sampled (issue 14).
#
#   tests/bench/masks.sh BUILD_DIR [OTHER_LIBPPROF]
#
# 1. maskcost: ns per pthread_sigmask call, unprofiled and under the
#    preload in both modes.
# 2. bornblocked 1 2 (two workers born with every signal blocked, 1 s of
#    CPU each) and, when xz is installed, `xz -T2 -3` of 50 MB of
#    generated text (the same bytes every run): per thread, samples per ms
#    of its CPU time, in both modes (1.0 at the default period of 1 ms).
# With OTHER_LIBPPROF (another build's libpprof.so, say main's), every
# profiled run is made with it as well, side by side. Reported, not gated.
set -euo pipefail

build=${1:?usage: masks.sh BUILD_DIR [OTHER_LIBPPROF]}
other=${2:-}
. "$(dirname "$0")/lib.sh"
bench_setup masks.sh "$build" 1 1
maskcost=$build/bench/maskcost
born=$build/workloads/bornblocked
for f in "$maskcost" "$born" ${other:+"$other"}; do
	[ -e "$f" ] || { echo "masks.sh: $f is not built" >&2; exit 1; }
done
libs=("$preload")
[ -n "$other" ] && libs+=("$(cd "$(dirname "$other")" && pwd)/$(basename "$other")")

echo "pthread_sigmask cost (1,000,000 calls, median of 5 rounds):"
printf '  %-10s %s\n' none "$("$maskcost")"
for lib in "${libs[@]}"; do
	for mode in sigtrap signal; do
		printf '  %-10s %s  (%s)\n' "$mode" "$(PPROF_MODE=$mode \
			PPROF_OUTPUT="$work/cost" LD_PRELOAD="$lib" "$maskcost")" "$lib"
		rm -rf "$work/cost"
	done
done

# per_ms DIR: "tid name samples/ms" of every thread with 10 ms of CPU or more.
per_ms() {
	"$analyze" threads "$1" | awk '$1 ~ /^[0-9]+$/ && $9 + 0 >= 0.01 {
		printf "    tid %-8s %-12s %6d samples %7.3f s CPU %6.3f per ms\n",
			$2, $3, $4, $9, $4 / ($9 * 1000) }'
}

# coverage NAME CMD...: the per-thread samples per ms of CMD, each library and mode.
coverage() {
	local name=$1
	shift
	for lib in "${libs[@]}"; do
		for mode in sigtrap signal; do
			echo "  $name, $mode ($lib):"
			rm -rf "$work/cov"
			PPROF_MODE=$mode PPROF_OUTPUT="$work/cov" LD_PRELOAD="$lib" "$@" >/dev/null
			per_ms "$work/cov"
		done
	done
}

echo "samples per ms of each thread's CPU:"
coverage "bornblocked 1 2" "$born" 1 2
if command -v xz >/dev/null; then
	python3 - "$work/xz.in" <<'PY'
import random, sys
random.seed(14)
words = ["".join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(random.randint(2, 9)))
         for _ in range(5000)]
with open(sys.argv[1], "w") as f:
    n = 0
    while n < 50 * 1024 * 1024:
        line = " ".join(random.choice(words) for _ in range(12)) + "\n"
        f.write(line)
        n += len(line)
PY
	coverage "xz -T2 -3 (50 MB)" xz -T2 -3 -c -k "$work/xz.in"
else
	echo "  xz is not installed (apt-get install xz-utils): xz not measured"
fi
