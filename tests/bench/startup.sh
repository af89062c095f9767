#!/usr/bin/env bash
# What a process or a thread that does nothing costs under the profiler,
# in both modes (issue 15 item 2).
#
#   tests/bench/startup.sh BUILD_DIR [ROUNDS [RUNS]]
#
# - process start: `perf stat -r RUNS -e task-clock` (RUNS default 200) of
#   `env /bin/true`, unprofiled and with env setting LD_PRELOAD (and
#   PPROF_OUTPUT, PPROF_MODE) for /bin/true alone; per round the mean
#   task-clock of each profiled setup minus the unprofiled one (target:
#   +0.3 ms at most).
# - disk: what one profiled /bin/true that took no sample leaves: the
#   apparent bytes of every file at the output root (its log, the vDSO's
#   image, the shared module and event records), as a run of one process
#   has them (target: 16 KB at most); and per process in a run of 20
#   started together (du -sb of the root, the root's files shared).
# - thread start: threadstart 1000 (1,000 threads one after another, each
#   returning at once), the CPU time of the whole process, unprofiled and
#   in each mode; (profiled - unprofiled) / 1,000 in µs a thread.
# - of the process start, what is libunwind's own: unwload 200 (200 fresh
#   processes without the profiler, each loading libunwind as the
#   constructor does), the medians of its dlopen (with liblzma), its first
#   call and its first unw_backtrace, once per round.
#
# ROUNDS (default 7, at least 3) rounds each run every setup once, in an
# order that rotates from round to round; the table gives the medians, the
# target beside each. `make bench` installs perf. Reported, not gated.
set -euo pipefail

build=${1:?usage: startup.sh BUILD_DIR [ROUNDS [RUNS]]}
rounds=${2:-7}
runs=${3:-200}
. "$(dirname "$0")/lib.sh"
bench_setup startup.sh "$build" "$rounds" 3
command -v perf >/dev/null || { echo "startup.sh: perf is not installed (make bench installs it)" >&2; exit 1; }
threadstart=$work/threadstart
${CC:-cc} -O2 -pthread -o "$threadstart" "$here/threadstart.c"
unwload=$work/unwload
${CC:-cc} -O2 -o "$unwload" "$here/unwload.c" -ldl
modes="sigtrap signal"
setups="none $modes"

# profiled SETUP DIR: the env arguments that profile into DIR in mode SETUP (none: nothing).
profiled() {
	[ "$1" = none ] || echo "PPROF_MODE=$1 PPROF_OUTPUT=$2 LD_PRELOAD=$preload"
}

# start_ms SETUP: mean task-clock (ms) of RUNS runs of env /bin/true.
start_ms() {
	local dir=$work/start.$1
	rm -rf "$dir"
	# shellcheck disable=SC2046
	perf stat -x, -r "$runs" -e task-clock env $(profiled "$1" "$dir") /bin/true 2>&1 >/dev/null |
		awk -F, '$3 ~ /^task-clock/ { print $1 }'
}

# threads_us SETUP: CPU (µs, user + sys) of threadstart 1000.
threads_us() {
	local dir=$work/threads.$1 line
	rm -rf "$dir"
	# shellcheck disable=SC2046
	line=$("$cputime" env $(profiled "$1" "$dir") "$threadstart" 1000)
	cpu_us "$line"
}

# samples DIR: the samples of a run.
samples() {
	"$analyze" threads "$1" 2>/dev/null | awk '!/^#/ && NR > 1 { s += $4 } END { print s + 0 }'
}

# disk MODE COUNT: "ALONE SHARED SAMPLES" bytes left by COUNT /bin/true started together:
# every file at the root (a process's logs are files there, no directory),
# and the whole output divided by COUNT.
disk() {
	local dir=$work/disk.$1.$2
	rm -rf "$dir"
	# The shell unprofiled: env profiles each /bin/true alone.
	sh -c "for i in \$(seq $2); do env $(profiled "$1" "$dir") /bin/true & done; wait"
	echo $(($(find "$dir" -maxdepth 1 -type f -printf '%s\n' |
		awk '{ s += $1 } END { print s + 0 }'))) \
		$(($(du -sb "$dir" | cut -f1) / $2)) "$(samples "$dir")"
}

res=$work/res
: > "$res"
echo "startup: $rounds rounds in rotating order; process start: perf stat -r $runs of env /bin/true;" \
	"threads: 1,000 threads that return at once; medians"
# Where the logs go decides much of the start: making a file on an ext4
# without a journal skips every inode deleted in the last seconds, one by
# one (0.1-0.6 ms of CPU a file measured here); TMPDIR=/dev/shm for tmpfs.
echo "output under $work ($(df --output=fstype "$work" | tail -1))"
for ((r = 0; r < rounds; r++)); do
	order=($(rotated "$r" $setups))
	declare -A ms=() us=()
	for s in "${order[@]}"; do
		ms[$s]=$(start_ms "$s")
		us[$s]=$(threads_us "$s")
		[ "$s" = none ] && continue
		echo "disk1 $s $(disk "$s" 1)" >> "$res"
		echo "disk20 $s $(disk "$s" 20)" >> "$res"
	done
	for s in $modes; do
		echo "start $s ${ms[none]} ${ms[$s]}" >> "$res"
		echo "threads $s ${us[none]} ${us[$s]}" >> "$res"
	done
	echo "unwload all $("$unwload" 200)" >> "$res"
done

# med KIND SETUP EXPR: the median of EXPR over the rows of KIND and SETUP.
med() {
	awk -v k="$1" -v s="$2" "\$1 == k && \$2 == s { print $3 }" "$res" | median
}

printf '%-34s %12s %12s %14s\n' figure sigtrap signal target
printf '%-34s %12.3f %12.3f %14s\n' "process start, unprofiled (ms)" \
	"$(med start sigtrap '$3')" "$(med start signal '$3')" ""
printf '%-34s %+12.3f %+12.3f %14s\n' "process start, extra (ms)" \
	"$(med start sigtrap '$4 - $3')" "$(med start signal '$4 - $3')" "+0.3"
printf '%-34s %12.3f %12s %14s\n' "  of it libunwind's load (ms)" \
	"$(med unwload all '($3 + $4 + $5) / 1000')" "(both)" ""
printf '%-34s %12.3f %12.3f %12.3f\n' "  dlopen, first call, backtrace" \
	"$(med unwload all '$3 / 1000')" "$(med unwload all '$4 / 1000')" "$(med unwload all '$5 / 1000')"
printf '%-34s %12.1f %12.1f %14s\n' "disk, empty process alone (KB)" \
	"$(med disk1 sigtrap '$3 / 1000')" "$(med disk1 signal '$3 / 1000')" "<= 16"
printf '%-34s %12.1f %12.1f %14s\n' "disk, per process of 20 (KB)" \
	"$(med disk20 sigtrap '$4 / 1000')" "$(med disk20 signal '$4 / 1000')" "<= 16"
printf '%-34s %12.1f %12.1f %14s\n' "  samples in those runs (of 20)" \
	"$(med disk20 sigtrap '$5')" "$(med disk20 signal '$5')" "0"
printf '%-34s %12.1f %12.1f %14s\n' "thread start, unprofiled (µs)" \
	"$(med threads sigtrap '$3 / 1000')" "$(med threads signal '$3 / 1000')" ""
printf '%-34s %+12.1f %+12.1f %14s\n' "thread start, extra (µs a thread)" \
	"$(med threads sigtrap '($4 - $3) / 1000')" "$(med threads signal '($4 - $3) / 1000')" \
	"~0"
echo "(extra: the profiled run's CPU minus the unprofiled run's of the same round; libunwind's"
echo " load: unwload, in fresh processes without the profiler, ms of CPU; KB: 1,000"
echo " bytes, apparent sizes; a run of 20 /bin/true may take a sample or two, counted above)"
