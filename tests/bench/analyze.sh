#!/usr/bin/env bash
# Analyzer speed: samples aggregated and written as `top` per second, then
# every exporter on two big runs (below, "Reports on big runs").
#
#   [ANALYZE_OTHER=OTHER/pprof-analyze] [ANALYZE_RUNS=N] [ANALYZE_BIG=0] \
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

# --- Reports on big runs (issue 15) ------------------------------------------
# Two runs: (a) `make -j2 -B` of a copy of this project profiled with this
# build's libpprof.so (hundreds of short processes, each mapping cc1, as,
# libc...); (b) `deepstack 14.7 2` at one sample per 100 us of CPU (about
# 244,000 samples in one process). Each report is run ANALYZE_RUNS times
# (default 5; the machine is shared: medians), alternating with
# ANALYZE_OTHER (another pprof-analyze, e.g. main's) when set, and prints
# the median wall time and peak RSS of each, and their ratios.
# ANALYZE_BIG=0 skips this part; ANALYZE_DATA=DIR keeps both runs in DIR
# (DIR/make, DIR/deep) and uses them again when they are there.
[ "${ANALYZE_BIG:-1}" = 0 ] && exit 0
runs=${ANALYZE_RUNS:-5}
analyze=$build/pprof-analyze
other=${ANALYZE_OTHER:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

data=${ANALYZE_DATA:-$work}
mkdir -p "$data"
data=$(cd "$data" && pwd)
# The make run: a clean copy, built once unprofiled, then again profiled.
if [ ! -d "$data/make" ]; then
	git clone -q "$root" "$work/src" 2>/dev/null || cp -r "$root/." "$work/src"
	rm -rf "$work/src/build"
	unset MAKEFLAGS MFLAGS MAKELEVEL
	make -C "$work/src" -j2 all > /dev/null 2>&1
	(cd "$work/src" && PPROF_OUTPUT=$data/make LD_PRELOAD=$build/libpprof.so \
		make -j2 -B all > /dev/null 2>&1)
fi
[ -d "$data/deep" ] ||
	PPROF_CONFIG=$work/fast.ini PPROF_OUTPUT=$data/deep LD_PRELOAD=$build/libpprof.so \
		"$build/workloads/deepstack" 14.7 2 > /dev/null
echo "analyze: make -j2 -B: $("$build/pprof-analyze" processes "$data/make" 2>/dev/null |
	awk '$1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }')" \
	"processes; deepstack: $("$build/pprof-analyze" threads "$data/deep" 2>/dev/null |
	awk '$1 ~ /^[0-9]+$/ { s += $4 } END { print s + 0 }') samples"

# Where reports write: /dev/null, unless it is not a device (some sandboxes
# make it a regular file, which then stores every byte: `script` writes
# 650 MB here), then /dev/zero, which discards writes as well.
sink=/dev/null
[ -c /dev/null ] || { [ -c /dev/zero ] && sink=/dev/zero; }

# timed BIN ARGS...: "SECONDS KIB" of one run (output to the sink).
timed() {
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$sink" 2> /dev/null || true
	tail -1 "$work/time"
}

# median: the median of the numbers on stdin.
median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_report RUN ARGS...: times `pprof-analyze ARGS RUN` (and ANALYZE_OTHER's).
bench_report() {
	local dir=$1 i new="" old=""
	shift
	for ((i = 0; i < runs; i++)); do
		new+=$(timed "$analyze" "$@" "$data/$dir")$'\n'
		[ -n "$other" ] && old+=$(timed "$other" "$@" "$data/$dir")$'\n'
	done
	local nt nm ot om
	nt=$(printf '%s' "$new" | awk 'NF { print $1 }' | median)
	nm=$(printf '%s' "$new" | awk 'NF { print $2 }' | median)
	if [ -n "$other" ]; then
		ot=$(printf '%s' "$old" | awk 'NF { print $1 }' | median)
		om=$(printf '%s' "$old" | awk 'NF { print $2 }' | median)
		awk -v d="$dir" -v c="${*//$work\//}" -v nt="$nt" -v nm="$nm" -v ot="$ot" -v om="$om" 'BEGIN {
			printf "analyze: %-5s %-28s %6.2f s %6.1f MiB   other %6.2f s %6.1f MiB   time x%.2f memory x%.2f\n",
				d, c, nt, nm / 1024, ot, om / 1024, (ot > 0 ? nt / ot : 0), (om > 0 ? nm / om : 0) }'
	else
		awk -v d="$dir" -v c="${*//$work\//}" -v nt="$nt" -v nm="$nm" 'BEGIN {
			printf "analyze: %-5s %-28s %6.2f s %6.1f MiB\n", d, c, nt, nm / 1024 }'
	fi
}

echo "analyze: medians of $runs runs${other:+, alternating with $other}" \
	"(targets: make pprof and top --inlines < 0.5 s; deep speedscope and script < 0.3 s, < 32 MiB)"
for args in "top" "top --inlines" "pprof -o $work/out.pb.gz" "speedscope -o $work/out.json" \
	"script"; do
	# shellcheck disable=SC2086
	bench_report make $args
done
for args in "top" "top --inlines" "tree" "folded" "flamegraph -o $work/out.svg" \
	"pprof -o $work/out.pb.gz" "speedscope -o $work/out.json" "script"; do
	# shellcheck disable=SC2086
	bench_report deep $args
done
