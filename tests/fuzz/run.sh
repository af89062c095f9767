#!/bin/sh
# Runs one fuzz target (make fuzz) and says what it did:
#
#   tests/fuzz/run.sh OUT TARGET SECONDS MAX_LEN
#
# runs OUT/fuzz-TARGET for SECONDS on OUT/corpus/TARGET (grown across runs)
# and OUT/seeds/TARGET, with tests/fuzz/TARGET.dict; its output goes to
# OUT/fuzz-TARGET.log. Prints the executions and the coverage (libFuzzer's
# cov: edges, ft: features) at the start and at the end. A crash, a leak, a
# UBSan finding, an input slower than 10 s or above 2 GiB fails it: then
# prints the report and the reproducer's path, and exits 1.
set -u

out=$1
target=$2
seconds=$3
max_len=$4
log=$out/fuzz-$target.log
crashes=$out/crashes/$target

mkdir -p "$out/corpus/$target" "$crashes"
"$out/fuzz-$target" -max_total_time="$seconds" -max_len="$max_len" \
	-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-dict="tests/fuzz/$target.dict" -artifact_prefix="$crashes/" \
	"$out/corpus/$target" "$out/seeds/$target" >"$log" 2>&1
status=$?

# "#N INITED cov: C ft: F corp: ..." and "#N DONE cov: C ft: F ..."
field() { # LINE NAME: the value after "NAME:" in LINE
	echo "$1" | sed -n "s/.* $2: *\([^ ]*\).*/\1/p"
}
inited=$(grep -m1 'INITED' "$log")
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ -n "$inited" ]; then
	echo "fuzz-$target: ${runs:-?} executions in $seconds s;" \
		"cov $(field "$inited" cov) -> $(field "$last" cov)," \
		"ft $(field "$inited" ft) -> $(field "$last" ft);" \
		"corpus $(field "$inited" corp) -> $(field "$last" corp) (log: $log)"
else
	echo "fuzz-$target: stopped while reading its corpus, after ${runs:-?} inputs (log: $log)"
fi
if [ "$status" -ne 0 ]; then
	repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	grep -v -E '^#[0-9]+' "$log" | tail -n 40 >&2
	echo "fuzz-$target: FAILED (exit status $status); reproducer: ${repro:-none written}" >&2
	[ -n "$repro" ] && echo "fuzz-$target: rerun it with: $out/fuzz-$target $repro" >&2
	exit 1
fi
