#!/usr/bin/env bash
# The analyzer on MPI runs of many ranks: build/bench/rankgen writes the
# logs of RANKS ranks (32 a host) x 3 threads with the profiler's own
# writers, 1,000 samples in each rank's main thread and 100 in each other;
# then `processes`, `ranks` and `top` run on each, and the wall time and
# peak memory (RSS) of each are printed; then `ranks` on the same ranks
# with a wall.log each ([sample wall]: rankgen ... wall), as "ranks+wall".
# Reported, not gated.
#
#   tests/bench/ranks.sh BUILD_DIR [RANKS...]   (default 256 1024 2048)
set -euo pipefail

build=${1:?usage: ranks.sh BUILD_DIR [RANKS...]}
shift
build=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- 256 1024 2048

# run CMD...: prints "SECONDS PEAK_KIB" of CMD (its output discarded), as
# GNU time measures them (a Python parent's RSS would count in a fork child's
# peak before it execs).
run() {
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" > /dev/null
	cat "$work/time"
}

printf '%8s %10s %10s %12s\n' RANKS REPORT SECONDS PEAK_KIB
for ranks in "$@"; do
	"$build/bench/rankgen" "$work/run.$ranks" "$ranks" 3 1000
	for report in processes ranks top; do
		read -r s kib < <(run "$build/pprof-analyze" "$report" "$work/run.$ranks")
		printf '%8s %10s %10s %12s\n' "$ranks" "$report" "$s" "$kib"
	done
	rm -rf "$work/run.$ranks"
	"$build/bench/rankgen" "$work/run.$ranks" "$ranks" 3 1000 wall
	read -r s kib < <(run "$build/pprof-analyze" ranks "$work/run.$ranks")
	printf '%8s %10s %10s %12s\n' "$ranks" ranks+wall "$s" "$kib"
	rm -rf "$work/run.$ranks"
done
