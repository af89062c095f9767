#!/usr/bin/env bash
# Analyzer speed: samples aggregated and written as `top` per second.
#
#   tests/bench/analyze.sh BUILD_DIR [SECONDS]
#
# Profiles `deepstack SECONDS 2` (default 5; ~36-frame stacks) with a
# cpu-clock sample every 100 us of CPU, then runs `pprof-analyze top` on
# the logs 5 times and prints the median time and samples per second. The
# time covers everything `top` does: reading the logs, symbolising each
# distinct address once, aggregating, printing. Reported, not gated.
set -euo pipefail

build=${1:?usage: analyze.sh BUILD_DIR [SECONDS]}
seconds=${2:-5}
build=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '[sample cpu-clock]\nperiod = 100us\n' > "$work/fast.ini"
PPROF_CONFIG=$work/fast.ini PPROF_OUTPUT=$work/data LD_PRELOAD=$build/libpprof.so \
	"$build/workloads/deepstack" "$seconds" 2 > /dev/null
samples=$("$build/pprof-analyze" threads "$work/data" |
	awk '$1 ~ /^[0-9]+$/ { s += $4 } END { print s + 0 }')
bytes=$(du -sb "$work/data" | awk '{ print $1 }')
for i in 1 2 3 4 5; do
	s=$(date +%s%N)
	"$build/pprof-analyze" top "$work/data" > /dev/null
	e=$(date +%s%N)
	echo $(((e - s) / 1000))
done | sort -n | awk -v n="$samples" -v b="$bytes" '{ v[NR] = $1 } END {
	m = v[3]
	printf "analyze: %d samples (%.1f MB of logs), top in %.1f ms (median of 5): %.2f million samples/s (target >= 5)\n",
		n, b / 1e6, m / 1000, n / (m / 1e6) / 1e6 }'
