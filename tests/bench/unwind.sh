#!/usr/bin/env bash
# Per-sample cost in a short process whose stacks rarely repeat (a
# compiler: libunwind misses its caches at nearly every sample) against a
# long-running one whose stacks repeat (deepstack), issue 15.
#
#   tests/bench/unwind.sh BUILD_DIR [ROUNDS [OTHER_LIBPPROF]]
#
# ROUNDS (default 11, at least 3) rounds each run every setup once, in an
# order that rotates from round to round: unprofiled; the kernel's share
# alone, with tests/bench/sigprobe.c (built on the spot) as the preload:
# `timer` (the same cpu-clock event, no signal) and `trap` (plus a SIGTRAP
# to an empty handler); this build's libpprof.so in the sigtrap and the
# signal mode (and OTHER_LIBPPROF's, say main's, in both modes, when
# given). Two programs:
#
#   cc1      `cc -c preload/maps.c` of this tree (the driver, cc1 and as)
#            at a period of 250 us (~1,200 samples; the default period's
#            ~300 leave the per-sample cost in the noise of a shared
#            machine)
#   deep     `deepstack 1 1` (one thread) at a period of 100 us (~10,000
#            samples), where the per-sample cost stands out of the noise
#
# CPU time is user + sys of the process tree (wait4). Per program and
# setup, medians: CPU ms, samples (sigprobe's: overflows), extra CPU per
# sample (median CPU minus the unprofiled median, over the median samples;
# libpprof's own part is its figure minus trap's) and, with OTHER, the
# median of the per-round CPU ratio this/other. Then the rt_sigprocmask
# calls per sample of `wideleaf` (a leaf that misses libunwind's cache at
# every sample; it counts its own with a tracepoint counter, when the
# machine lets it). Reported, not gated.
set -euo pipefail

build=${1:?usage: unwind.sh BUILD_DIR [ROUNDS [OTHER_LIBPPROF]]}
rounds=${2:-11}
other=${3:-}
. "$(dirname "$0")/lib.sh"
bench_setup unwind.sh "$build" "$rounds" 3
root=$(cd "$here/../.." && pwd)
wideleaf=$build/workloads/wideleaf
for f in "$wideleaf" ${other:+"$other"}; do
	[ -e "$f" ] || { echo "unwind.sh: $f is not built" >&2; exit 1; }
done
${CC:-cc} -O2 -shared -fPIC -o "$work/sigprobe.so" "$here/sigprobe.c"
setups="none timer trap sigtrap signal"
declare -A lib=([sigtrap]=$preload [signal]=$preload)
if [ -n "$other" ]; then
	other=$(cd "$(dirname "$other")" && pwd)/$(basename "$other")
	setups+=" other-sigtrap other-signal"
	lib[other-sigtrap]=$other
	lib[other-signal]=$other
fi
printf '[sample cpu-clock]\nperiod = 100us\n' > "$work/100us.ini"
printf '[sample cpu-clock]\nperiod = 250us\n' > "$work/250us.ini"

# run_one PROGRAM SETUP: "CPU_US SAMPLES" of one run.
run_one() {
	local prog=$1 setup=$2 out=$work/out line samples=0
	local -a cmd env=(env)
	case $prog in
	cc1) cmd=(cc -Iinclude -Ipreload -D_GNU_SOURCE -std=gnu11 -O2 -g -fPIC
		  -c preload/maps.c -o "$work/maps.o")
	     env+=(PPROF_CONFIG="$work/250us.ini" SIGPROBE_PERIOD=250000) ;;
	deep) cmd=("$workload" 1 1)
	      env+=(PPROF_CONFIG="$work/100us.ini" SIGPROBE_PERIOD=100000) ;;
	esac
	rm -rf "$out"
	case $setup in
	none) env=(env) ;;
	timer | trap) env+=(SIGPROBE="$setup" SIGPROBE_OUT="$out" LD_PRELOAD="$work/sigprobe.so") ;;
	*) env+=(PPROF_MODE="${setup#other-}" PPROF_OUTPUT="$out" LD_PRELOAD="${lib[$setup]}") ;;
	esac
	line=$(cd "$root" && "$cputime" "${env[@]}" "${cmd[@]}" 2>/dev/null)
	case $setup in
	none) ;;
	timer | trap) samples=$(awk '{ s += $1 } END { print s + 0 }' "$out") ;;
	*) samples=$("$analyze" threads "$out" 2>/dev/null |
		awk '!/^#/ && NR > 1 { s += $4 } END { print s + 0 }') ;;
	esac
	echo "$(cpu_us "$line") $samples"
}

res=$work/res
: > "$res"
for prog in cc1 deep; do
	for ((r = 0; r < rounds; r++)); do
		for s in $(rotated "$r" $setups); do
			echo "$prog $r $s $(run_one "$prog" "$s")" >> "$res"
		done
	done
done

# med PROG SETUP FIELD: the median of a field (4: CPU us, 5: samples).
med() {
	awk -v p="$1" -v s="$2" -v f="$3" '$1 == p && $3 == s { print $f }' "$res" | median
}

echo "unwind: $rounds rounds in rotating order, CPU of the process tree; medians"
for prog in cc1 deep; do
	none=$(med "$prog" none 4)
	printf '  %-4s %-14s %9.1f ms\n' "$prog" none "$(echo "$none" | awk '{ print $1 / 1000 }')"
	for s in $setups; do
		[ "$s" = none ] && continue
		cpu=$(med "$prog" "$s" 4)
		n=$(med "$prog" "$s" 5)
		ratio=""
		if [ -n "$other" ] && { [ "$s" = sigtrap ] || [ "$s" = signal ]; }; then
			ratio=$(awk -v p="$prog" -v s="$s" -v o="other-$s" '
				$1 == p && $3 == s { a[$2] = $4 } $1 == p && $3 == o { b[$2] = $4 }
				END { for (r in a) if (b[r] > 0) print a[r] / b[r] }' "$res" | median)
			ratio=$(printf '  this/other %.4f' "$ratio")
		fi
		printf '  %-4s %-14s %9.1f ms %7.0f samples %7.1f us/sample%s\n' "$prog" "$s" \
			"$(echo "$cpu" | awk '{ print $1 / 1000 }')" "$n" \
			"$(awk -v c="$cpu" -v z="$none" -v n="$n" 'BEGIN { print (n > 0 ? (c - z) / n : 0) }')" \
			"$ratio"
	done
done

echo "wideleaf 0.4 (a leaf that misses libunwind's cache at every sample): rt_sigprocmask calls per sample"
for s in $setups; do
	case $s in none | timer | trap) continue ;; esac
	rm -rf "$work/out"
	line=$(PPROF_MODE="${s#other-}" PPROF_OUTPUT="$work/out" LD_PRELOAD="${lib[$s]}" \
		"$wideleaf" 0.4 | grep '^rt_sigprocmask')
	n=$("$analyze" threads "$work/out" 2>/dev/null | awk '!/^#/ && NR > 1 { s += $4 } END { print s + 0 }')
	case $line in
	"rt_sigprocmask ?"*) printf '  %-14s not counted: %s\n' "$s" "${line#rt_sigprocmask ? }" ;;
	*) printf '  %-14s %s calls, %s samples, %.2f a sample\n' "$s" "${line#rt_sigprocmask }" "$n" \
		"$(awk -v c="${line#rt_sigprocmask }" -v n="$n" 'BEGIN { print (n > 0 ? c / n : 0) }')" ;;
	esac
done
