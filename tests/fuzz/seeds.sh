#!/bin/sh
# The fuzz targets' seed corpora, from real runs (make fuzz):
#   OUT/seeds/reader/  one seed per process of a few profiled runs,
#                      named RUN-<exe>@<host>.<pid>
#                      (tests/fuzz/mkseeds.c): threads, dlopen/dlclose, fork,
#                      exec, counters, several events, both sampling modes,
#                      the wall event (wall.log: waits, a process killed
#                      while waiting, lost switch records),
#                      stacks written once (stack records, sample blocks)
#                      and whole (stacks = whole: whole-stack samples)
#   OUT/seeds/config/  every config/*.ini
#
#   tests/fuzz/seeds.sh BUILD OUT
#
# BUILD holds the release libpprof.so and workloads/; OUT/mkseeds is built.
# Fails when a run leaves no process that took samples (thread logs, or a
# wall log).
set -eu

build=$1
out=$2
runs=$out/seed-runs
rm -rf "$runs" "$out/seeds"
mkdir -p "$runs" "$out/seeds/reader" "$out/seeds/config"

# run NAME [VAR=VALUE...] -- PROGRAM ARGS...: profiles PROGRAM into runs/NAME.
# The program's own status does not matter (spawner's children abort on
# purpose); that it left logs does.
run() {
	name=$1
	shift
	vars=
	while [ "$1" != -- ]; do
		vars="$vars $1"
		shift
	done
	shift
	if [ ! -x "$1" ] || [ ! -e "$build/libpprof.so" ]; then
		echo "seeds.sh: $1 or $build/libpprof.so is not built (make fuzz builds them)" >&2
		exit 1
	fi
	# shellcheck disable=SC2086 # vars are VAR=VALUE words
	env $vars PPROF_OUTPUT="$runs/$name" LD_PRELOAD="$build/libpprof.so" \
		"$@" >/dev/null 2>&1 </dev/null || true
	# The logs of the processes that took samples: those with thread logs or
	# a wall log beside them.
	logs=
	for f in "$runs/$name"/*.log; do
		case $f in *.thread-*.log | *.wall.log) continue ;; esac
		if [ -e "${f%.log}.wall.log" ] || ls "${f%.log}".thread-*.log >/dev/null 2>&1; then
			logs="$logs $f"
		fi
	done
	if [ -z "$logs" ]; then
		echo "seeds.sh: $name left no process that took samples in $runs/$name" >&2
		exit 1
	fi
	# shellcheck disable=SC2086 # paths made here, without blanks
	"$out/mkseeds" "$out/seeds/reader/$name-" $logs
}

w=$build/workloads
run demo -- "$w/demo" 0.2
run signal PPROF_MODE=signal -- "$w/demo" 0.2
run software PPROF_CONFIG=config/software.ini -- "$w/evmix" "$runs/evmix.truth" 0.1 2000
run counters PPROF_CONFIG=config/counters.ini -- "$w/demo" 0.1
printf '[profile]\nstacks = whole\n' > "$runs/whole.ini"
run whole PPROF_CONFIG="$runs/whole.ini" -- "$w/demo" 0.1
run dlreuse -- "$w/dlreuse" 0.05 2
run forker -- "$w/forker" 0.1 --no-pids
run spawner -- "$w/spawner" 0.05
# wall.log: waits of every kind, a thread waiting when the process is
# killed (open waits, the last tick), and a switch rate that loses records.
printf '[sample cpu-clock]\n[sample wall]\nperiod = 1ms\n' > "$runs/wall.ini"
run wall PPROF_CONFIG="$runs/wall.ini" -- "$w/waiter" 3 5
run wallkill PPROF_CONFIG="$runs/wall.ini" -- "$w/waitedge" term 0.05
run walllost PPROF_CONFIG="$runs/wall.ini" -- "$w/waitedge" pingpong 20000

cp config/*.ini "$out/seeds/config/"
echo "seeds.sh: $(ls "$out/seeds/reader" | wc -l) reader seeds," \
	"$(ls "$out/seeds/config" | wc -l) config seeds"
