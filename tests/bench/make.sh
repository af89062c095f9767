#!/usr/bin/env bash
# Profiling a build: `make -j2 -B all` of a copy of this project (hundreds
# of short processes: make, sh, gcc, cc1, as, ld), unprofiled, under
# libpprof in both modes, and under `perf record -g` at the same rate
# (issue 15 item 2).
#
#   tests/bench/make.sh BUILD_DIR [ROUNDS]
#
# The copy (git clone of this tree's HEAD, or its files when it is no git
# checkout) is built once unprofiled first; then ROUNDS (default 7, at
# least 3) rounds each run every setup once, in an order that rotates from
# round to round:
#
#   none     unprofiled
#   sigtrap  LD_PRELOAD=libpprof.so, PPROF_MODE=sigtrap, the default
#            configuration (cpu-clock, one sample per ms of user CPU)
#   signal   the same with PPROF_MODE=signal
#   perf-g   perf record -g -e cpu-clock:u -c 1000000 (the same rate; perf
#            follows every child): frame pointers, which Debian's gcc, cc1,
#            as and ld are built without, so that most of its stacks stop
#            after a frame or two (the depth column shows it)
#   perf-dwarf  the same with --call-graph dwarf: stacks unwound from a
#            copy of each sample's stack, whole but for the deepest (the
#            copy holds 8 KiB of it)
#
# CPU time is user + sys of the whole process tree (wait4 of make, which
# reaps its children; perf's own process included). Per setup, medians:
# CPU ratio to the unprofiled run of the same round (target: at or below
# perf -g's), output bytes (the whole output directory, or perf.data;
# target: 2 MB at most), processes (process logs at the root, and process
# directories of older versions), samples and bytes a sample.
# `make bench` installs perf and git. Reported, not gated.
set -euo pipefail

build=${1:?usage: make.sh BUILD_DIR [ROUNDS]}
rounds=${2:-7}
. "$(dirname "$0")/lib.sh"
bench_setup make.sh "$build" "$rounds" 3
command -v perf >/dev/null || { echo "make.sh: perf is not installed (make bench installs it)" >&2; exit 1; }
root=$(cd "$here/../.." && pwd)
src=$work/src
git clone -q "$root" "$src" 2>/dev/null || { rm -rf "$src"; cp -r "$root/." "$src"; }
rm -rf "$src/build"
unset MAKEFLAGS MFLAGS MAKELEVEL
make -C "$src" -j2 all > /dev/null 2>&1
setups="none sigtrap signal perf-g perf-dwarf"

# run_one SETUP DIR: CPU microseconds of one build, its output in DIR.
run_one() {
	local setup=$1 dir=$2 line
	rm -rf "$dir"
	mkdir -p "$dir"
	case $setup in
	none) line=$("$cputime" make -C "$src" -j2 -B all 2>/dev/null) ;;
	sigtrap | signal) line=$("$cputime" env PPROF_MODE="$setup" PPROF_OUTPUT="$dir/out" \
			LD_PRELOAD="$preload" make -C "$src" -j2 -B all 2>/dev/null) ;;
	perf-g) line=$("$cputime" perf record -q -g -e cpu-clock:u -c 1000000 \
			-o "$dir/perf.data" -- make -C "$src" -j2 -B all 2>/dev/null) ;;
	perf-dwarf) line=$("$cputime" perf record -q --call-graph dwarf -e cpu-clock:u -c 1000000 \
			-o "$dir/perf.data" -- make -C "$src" -j2 -B all 2>/dev/null) ;;
	esac
	cpu_us "$line"
}

# counts SETUP DIR: "BYTES PROCESSES SAMPLES FRAMES" of one build's output.
counts() {
	local setup=$1 dir=$2
	case $setup in
	perf-*) echo "$(stat -c %s "$dir/perf.data")" 0 "$(perf_frames "$dir/perf.data")" ;;
	*)
		echo "$(du -sb "$dir/out" | cut -f1)" \
			"$(find "$dir/out" -mindepth 1 -maxdepth 1 \( -type d -o -type f -name '*.log' \
				! -name '*.thread-*.log' ! -name '*.wall.log' \) | wc -l)" \
			"$(pprof_frames "$dir/out")" ;;
	esac
}

res=$work/res
: > "$res"
echo "make: make -j2 -B all of a copy of this project, $rounds rounds in rotating order," \
	"CPU of the whole process tree; medians"
for ((r = 0; r < rounds; r++)); do
	order=($(rotated "$r" $setups))
	declare -A cpu=()
	for s in "${order[@]}"; do
		cpu[$s]=$(run_one "$s" "$work/$s")
		[ "$s" = none ] || echo "$s ${cpu[$s]} $(counts "$s" "$work/$s")" > "$work/$s.row"
		rm -rf "${work:?}/$s"
	done
	for s in $setups; do
		[ "$s" = none ] && continue
		set -- $(cat "$work/$s.row")
		echo "$s ${cpu[none]} $2 $3 $4 $5 $6" >> "$res"
	done
done

# med SETUP EXPR: the median of EXPR over SETUP's rows ("SETUP NONE_US US BYTES PROCS SAMPLES FRAMES").
med() {
	awk -v s="$1" "\$1 == s { print $2 }" "$res" | median
}

printf '%-10s %9s %9s %12s %10s %9s %10s %8s\n' setup "cpu (s)" ratio "output (B)" processes samples "bytes/smp" depth
printf '%-10s %9.2f\n' none "$(med sigtrap '$2 / 1e6')"
for s in sigtrap signal perf-g perf-dwarf; do
	procs=$(med "$s" '$5')
	[ "${s#perf-}" = "$s" ] || procs=-
	printf '%-10s %9.2f %9.4f %12.0f %10s %9.0f %10.1f %8.1f\n' "$s" "$(med "$s" '$3 / 1e6')" \
		"$(med "$s" '$3 / $2')" "$(med "$s" '$4')" "$procs" "$(med "$s" '$6')" \
		"$(med "$s" '$6 ? $4 / $6 : 0')" "$(med "$s" '$6 ? $7 / $6 : 0')"
done
echo "targets: libpprof's ratio at or below perf -g's; its output at most 2,000,000 bytes"
echo "(ratio: CPU of the setup's build / CPU of the unprofiled build in the same round;"
echo " output: the whole output directory, apparent bytes, or perf.data; depth: frames a sample)"
