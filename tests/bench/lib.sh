# Shared set-up of the bench scripts (sourced, not run): checks BUILD_DIR
# holds what they run, makes a scratch directory removed at exit, builds
# the cputime helper there.
#
#   bench_setup NAME BUILD_DIR COUNT MIN
#
# NAME names the script in messages; COUNT (pairs, rounds) must be at least
# MIN. Sets build, here, workload, preload, analyze, work, cputime.
bench_setup() {
	local name=$1 count=$3 min=$4
	build=$(cd "$2" && pwd)
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	workload=$build/workloads/deepstack
	preload=$build/libpprof.so
	analyze=$build/pprof-analyze
	for f in "$workload" "$preload" "$analyze"; do
		[ -e "$f" ] || { echo "$name: $f is not built (make all $workload)" >&2; exit 1; }
	done
	if [ "$count" -lt "$min" ]; then
		echo "$name: at least $min runs of each kind" >&2
		exit 2
	fi
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	cputime=$work/cputime
	${CC:-cc} -O2 -o "$cputime" "$here/cputime.c"
}

# median: the median of the numbers on stdin, one a line (interpolated).
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		p = 1 + 0.5 * (NR - 1); k = int(p)
		print (k < NR) ? v[k] + (p - k) * (v[k + 1] - v[k]) : v[NR] }'
}

# rotated R WORD...: the words rotated left by R (modulo their number), for
# rounds that run every setup once in an order that rotates.
rotated() {
	local r=$1
	shift
	local k=$((r % $#))
	echo "${@:k + 1}" "${@:1:k}"
}

# cpu_us "USER_US SYS_US WALL_US": the CPU microseconds of a cputime line.
cpu_us() {
	set -- $1
	echo $(($1 + $2))
}

# irq_work: the IRQ-work interrupts (the "IWI" row of /proc/interrupts)
# taken so far on every CPU, 0 where the kernel shows none. The kernel's
# way from a perf event's overflow to a descriptor's owner (O_ASYNC,
# F_SETOWN_EX: the signal mode) runs in one; a sigtrap event's signal does
# not. System-wide: what else runs meanwhile counts too (an idle machine
# here takes none in a second).
irq_work() {
	awk '$1 == "IWI:" { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i }
		END { print s + 0 }' /proc/interrupts 2>/dev/null || echo 0
}

# perf_frames PERF_DATA: "SAMPLES FRAMES" of a perf.data, as perf script
# shows them: one line per frame; with a call graph a blank line ends each
# sample, without one a line per sample and no blank lines.
perf_frames() {
	perf script -i "$1" -F ip 2>/dev/null | awk '
		NF == 0 { if (c) { n++; f += c }; c = 0; blank = 1; next }
		{ c++; lines++ }
		END { if (!blank) { n = lines; f = lines } else if (c) { n++; f += c }
		      print n + 0, f + 0 }'
}

# pprof_frames DIR: "SAMPLES FRAMES" of a libpprof run, as pprof-analyze
# folded shows them (a stack's frames, separated by ';', then its count),
# the estimate of the time before profiling left out (no sample taken).
pprof_frames() {
	"$analyze" folded "$1" 2>/dev/null | awk '/^\[before profiling\] [0-9]+$/ { next }
		{ c = $NF; n += c; f += c * (gsub(/;/, ";") + 1) }
		END { print n + 0, f + 0 }'
}
