#!/usr/bin/env bash
# Analyzer speed: samples aggregated and written as `top` per second.
#
#   tests/bench/analyze.sh BUILD_DIR [SECONDS]
#
# Profiles `deepstack S 2` (~36-frame stacks) with a cpu-clock sample every
# 100 us of CPU, for S = SECONDS (default 5) and 2 x SECONDS, then times
# `pprof-analyze top` on each run's logs (median of 5). Prints both rates of
# samples per second of wall time (reading, symbolising, aggregating,
# printing), and the marginal rate between the two runs, which leaves out
# what does not grow with the samples: the program's start and the first
# symbolisation of each address (the issue's target: 5 million/s), and
# the peak memory (RSS) of `top` on each run: it should not follow the
# samples, since identical samples are read as one with a count.
# Reported, not gated.
set -euo pipefail

build=${1:?usage: analyze.sh BUILD_DIR [SECONDS]}
seconds=${2:-5}
build=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '[sample cpu-clock]\nperiod = 100us\n' > "$work/fast.ini"

# peak_kib CMD...: runs CMD (output discarded) and prints its peak RSS in KiB.
peak_kib() {
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}

# measure S: prints "SAMPLES MICROSECONDS PEAK_KIB" for a run of deepstack S.
measure() {
	local dir=$work/data.$1 samples
	PPROF_CONFIG=$work/fast.ini PPROF_OUTPUT=$dir LD_PRELOAD=$build/libpprof.so \
		"$build/workloads/deepstack" "$1" 2 > /dev/null
	samples=$("$build/pprof-analyze" threads "$dir" |
		awk '$1 ~ /^[0-9]+$/ { s += $4 } END { print s + 0 }')
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$build/pprof-analyze" top "$dir" > /dev/null
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
	done | sort -n | awk -v n="$samples" -v k="$(peak_kib "$build/pprof-analyze" top "$dir")" \
		'{ v[NR] = $1 } END { print n, v[3], k }'
}

small=$(measure "$seconds")
large=$(measure "$(awk -v s="$seconds" 'BEGIN { print 2 * s }')")
awk -v a="$small" -v b="$large" 'BEGIN {
	split(a, x, " "); split(b, y, " ")
	printf "analyze: top on %d samples in %.1f ms (%.2f million/s), on %d in %.1f ms (%.2f million/s)\n",
		x[1], x[2] / 1000, x[1] / x[2], y[1], y[2] / 1000, y[1] / y[2]
	if (y[2] > x[2])
		printf "analyze: marginal rate %.2f million samples/s (target >= 5)\n",
			(y[1] - x[1]) / (y[2] - x[2])
	else
		print "analyze: marginal rate not measurable (the larger run was not slower)"
	printf "analyze: peak memory of top: %.1f MiB for %d samples, %.1f MiB for %d\n",
		x[3] / 1024, x[1], y[3] / 1024, y[1]
}'
