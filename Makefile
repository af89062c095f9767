# libpprof: one non-recursive Makefile. Everything it makes goes under build/.
#
#   make            build/libpprof.so and build/pprof-analyze
#   make demo       install missing Debian packages, build, profile a workload, report
#   make test       install missing Debian packages, build, run every test (and make fuzz for 30 s)
#   make bench      overhead, per-sample cost and symbolisation speed (timing lives here, not in test)
#   make asan       the same build with AddressSanitizer, under build/asan/
#   make test-asan  the integration tests against the AddressSanitizer build
#   make fuzz       libFuzzer on the log reader and the configuration parser, FUZZ_TIME s each
#   make install    PREFIX=/usr/local DESTDIR=
#   make clean

VARIANT ?= release
ifeq ($(VARIANT),release)
OUT := build
else
OUT := build/$(VARIANT)
endif
OBJ := $(OUT)/obj

CC ?= gcc
PREFIX ?= /usr/local
DESTDIR ?=

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wvla
ifeq ($(CI),true)
WARN += -Werror
endif

OPT := -O2 -g
ifeq ($(VARIANT),asan)
OPT := -O1 -g -fsanitize=address -fno-omit-frame-pointer
endif
# The fuzz targets' variant: clang's libFuzzer with ASan and UBSan, every
# UBSan finding fatal. Objects get the coverage instrumentation; only the
# targets link libFuzzer's main (FUZZ_LINK).
FUZZ_CC ?= clang-14
ifeq ($(VARIANT),fuzz)
override CC := $(FUZZ_CC)
OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif

CPPFLAGS_ALL := -Iinclude -D_GNU_SOURCE
CFLAGS_ALL := -std=gnu11 $(OPT) $(WARN) -MMD -MP $(CFLAGS)
LDFLAGS_ALL := $(filter -fsanitize=%,$(OPT)) $(LDFLAGS)

# --- Debian packages the build and the tests need --------------------------
DEB_PKGS := gcc g++ make pkg-config binutils gdb strace python3 e2fsprogs mount \
	libunwind-dev libinih-dev libxxhash-dev \
	libcriterion-dev libdw-dev libelf-dev libiberty-dev libpfm4-dev zlib1g-dev libc6-dbg \
	protobuf-c-compiler libprotobuf-c-dev golang-go golang-github-google-pprof-dev \
	chromium clang-14 libclang-rt-14-dev \
	libc6-arm64-cross binutils-aarch64-linux-gnu openmpi-bin libopenmpi-dev
# (an aarch64 libc and its objdump, for tests/analyze/test_plt.c; Open MPI's
# mpirun and mpicc for tests/it/test_it_mpi.c)
# npm installs speedscope for the tests; nodesource's nodejs has its own npm
# (and conflicts with Debian's).
DEB_PKGS += $(if $(shell command -v npm),,npm)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# --- libpprof.so -------------------------------------------------------------
# Everything that runs in the signal handler is under preload/sigsafe/
# (check-sigsafe checks that folder).
SIGSAFE_SRCS := $(wildcard preload/sigsafe/*.c)
SIGSAFE_OBJS := $(SIGSAFE_SRCS:%.c=$(OBJ)/%.o)
PRELOAD_SRCS := $(wildcard preload/*.c) $(SIGSAFE_SRCS)
PRELOAD_OBJS := $(PRELOAD_SRCS:%.c=$(OBJ)/%.o)
PRELOAD_CFLAGS := -Ipreload -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-fno-omit-frame-pointer
# The dynamic linker binds the first definition it finds in load order, and
# a preload's dependencies load before those of the program's libraries: a
# library the preload needs could take the place of one the program meant.
# So it needs none but libc. libunwind (which also defines the C++
# unwinder's _Unwind_* functions) is dlopen'd privately (preload/unwlib.c;
# it_output's cthrow case), and inih is linked in from Debian's libinih.a
# (PIC) and hidden by the version script (it_output's vendini case).
PRELOAD_LIBS := -l:libinih.a -ldl -pthread

# --- pprof-analyze -----------------------------------------------------------
ANALYZE_SRCS := $(wildcard analyze/*.c)
ANALYZE_OBJS := $(ANALYZE_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/gen/profile.pb-c.o
# openguard.o defines open() for libdw (analyze/openguard.h): the program's only.
ANALYZE_LIB_OBJS := $(filter-out $(OBJ)/analyze/main.o $(OBJ)/analyze/openguard.o,\
	$(ANALYZE_OBJS))
ANALYZE_LIBS := -ldw -lelf -lz -lprotobuf-c -liberty

# --- tests -------------------------------------------------------------------
# Programs the tests run that do not depend on the variant (Go pprof,
# speedscope) are made once, in the release build directory.
TOOLS := build
# Unit tests mirror the code (tests/analyze/test_X.c tests analyze/X.c, and
# so on), integration tests are tests/it/, the helpers they share tests/lib/.
TEST_SRCS := $(wildcard tests/lib/*.c tests/it/*.c tests/analyze/*.c \
	tests/preload/*.c tests/preload/sigsafe/*.c)
TEST_OBJS := $(TEST_SRCS:%.c=$(OBJ)/%.o)
# The log writer and the record writers are linked into the tests for the
# round-trip tests, and the preload's modules that have unit tests of their own.
TEST_PRELOAD_OBJS := $(OBJ)/preload/sigsafe/logfile.o $(OBJ)/preload/sigsafe/fd.o \
	$(OBJ)/preload/sigsafe/share.o $(OBJ)/preload/sigsafe/records.o $(OBJ)/preload/warn.o \
	$(OBJ)/preload/config.o $(OBJ)/preload/evname.o $(OBJ)/preload/strdist.o \
	$(OBJ)/preload/outdir.o $(OBJ)/preload/sigsafe/sampsig.o \
	$(OBJ)/preload/sigsafe/stacks.o $(OBJ)/preload/respath.o \
	$(OBJ)/preload/sigsafe/unwmask.o $(OBJ)/preload/identity.o \
	$(OBJ)/preload/sigsafe/pause.o $(OBJ)/preload/sigsafe/threads.o \
	$(OBJ)/preload/jitmap.o
WORKLOAD_SRCS := $(filter-out tests/workloads/lib%.c,$(wildcard tests/workloads/*.c))
WORKLOAD_CXX_SRCS := $(filter-out tests/workloads/lib%.cc,$(wildcard tests/workloads/*.cc))
WORKLOAD_LIB_SRCS := $(wildcard tests/workloads/lib*.c tests/workloads/lib*.cc)
WORKLOADS := $(WORKLOAD_SRCS:tests/workloads/%.c=$(OUT)/workloads/%) \
	$(WORKLOAD_CXX_SRCS:tests/workloads/%.cc=$(OUT)/workloads/%)
WORKLOAD_LIBS := $(patsubst tests/workloads/%.cc,$(OUT)/workloads/%.so,\
	$(WORKLOAD_LIB_SRCS:tests/workloads/%.c=$(OUT)/workloads/%.so))
# Workloads are built like an ordinary user's program: optimised, with
# symbols, and without frame pointers in what they call from libc.
WORKLOAD_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -pthread -MMD -MP
# A workload linked with a workload library finds it beside itself.
WORKLOAD_LIB_LINK := -L$(OUT)/workloads -Wl,-rpath,'$$ORIGIN'

.PHONY: all demo test check unit-tests bench asan install clean deps bench-deps \
	check-sigsafe tests-build test-asan fuzz fuzz-build
.DEFAULT_GOAL := all

all: $(OUT)/libpprof.so $(OUT)/pprof-analyze

$(OBJ)/preload/%.o: preload/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(PRELOAD_CFLAGS) -c $< -o $@

# The embedded default configuration is config/default.ini itself (.incbin).
$(OBJ)/preload/config.o: config/default.ini
$(OBJ)/preload/config.o: PRELOAD_CFLAGS += \
	-DPP_CONFIG_DEFAULT_INI='"$(abspath config/default.ini)"'

# The embedded default's events, resolved with libpfm4 at build time so that
# a process running the default never loads libpfm4 (preload/evname.c).
GEN := $(OUT)/gen
# Both build-time generators are built from the parser's sources and run.
CONFIG_PARSER_SRCS := preload/config.c preload/evname.c preload/strdist.c
CONFIG_PARSER_DEPS := $(CONFIG_PARSER_SRCS) preload/config.h preload/evname.h \
	config/default.ini
BUILD_CONFIG_TOOL = $(CC) $(CPPFLAGS_ALL) -Ipreload \
	-DPP_CONFIG_DEFAULT_INI='"$(abspath config/default.ini)"' \
	-std=gnu11 -O2 $(WARN) -o $@ $< $(CONFIG_PARSER_SRCS) -linih -ldl
$(GEN)/evname_gen: tools/evname_gen.c $(CONFIG_PARSER_DEPS)
	@mkdir -p $(@D)
	$(BUILD_CONFIG_TOOL) -DPP_EVNAME_GENERATOR
$(GEN)/evname_builtin.h: $(GEN)/evname_gen
	$< > $@.tmp && mv $@.tmp $@
$(OBJ)/preload/evname.o: $(GEN)/evname_builtin.h
$(OBJ)/preload/evname.o: PRELOAD_CFLAGS += -I$(GEN)

# The embedded default parsed at build time, by the library's own parser and
# event table, so that a process running the default parses no text.
$(GEN)/config_gen: tools/config_gen.c $(CONFIG_PARSER_DEPS) $(GEN)/evname_builtin.h
	$(BUILD_CONFIG_TOOL) -I$(GEN)
$(GEN)/config_default.h: $(GEN)/config_gen
	$< > $@.tmp && mv $@.tmp $@
$(OBJ)/preload/config.o: $(GEN)/config_default.h
$(OBJ)/preload/config.o: PRELOAD_CFLAGS += -I$(GEN) -DPP_CONFIG_BUILT_DEFAULT

$(OBJ)/analyze/%.o: analyze/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

# The flame graph's script is analyze/flamegraph.js itself (.incbin).
$(OBJ)/analyze/report_flamegraph.o: analyze/flamegraph.js
$(OBJ)/analyze/report_flamegraph.o: CPPFLAGS_ALL += \
	-DPA_FLAMEGRAPH_JS='"$(abspath analyze/flamegraph.js)"'

$(OBJ)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -Ianalyze -Ipreload -Itests/lib \
		-DPP_TEST_BUILD_DIR='"$(abspath $(OUT))"' \
		-DPP_TEST_TOOLS_DIR='"$(abspath $(TOOLS))"' \
		-DPP_TEST_SOURCE_DIR='"$(abspath .)"' \
		$(TEST_ASAN_CPPFLAGS) \
		$(CFLAGS_ALL) -c $< -o $@

# `pprof` output: C for profile.proto (Debian's copy of Go pprof's), made by
# protoc-c at build time. The real Go pprof, built offline from Debian's
# sources, checks that output in the tests (test_it_formats.c).
PROFILE_PROTO := /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto

$(GEN)/profile.pb-c.c $(GEN)/profile.pb-c.h &: $(PROFILE_PROTO)
	@mkdir -p $(GEN)
	protoc-c --c_out=$(GEN) --proto_path=$(dir $(PROFILE_PROTO)) profile.proto

$(OBJ)/gen/profile.pb-c.o: $(GEN)/profile.pb-c.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -I$(GEN) $(CFLAGS_ALL) -c $< -o $@

$(OBJ)/analyze/report_pprof.o: $(GEN)/profile.pb-c.h
$(OBJ)/analyze/report_pprof.o: CPPFLAGS_ALL += -I$(GEN)
# Its tests decode the output with the same generated unpacker (tst_pprof_decode).
PPROF_DECODERS := $(OBJ)/tests/analyze/test_report_pprof.o $(OBJ)/tests/analyze/test_wall.o \
	$(OBJ)/tests/analyze/test_wall_collapse.o \
	$(OBJ)/tests/lib/tst_pprof.o
$(PPROF_DECODERS): $(GEN)/profile.pb-c.h
$(PPROF_DECODERS): CPPFLAGS_ALL += -I$(GEN)

$(TOOLS)/go-pprof:
	GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off \
		GOCACHE=$(abspath $(TOOLS))/gocache go build -o $@ github.com/google/pprof

$(OUT)/libpprof.so: $(PRELOAD_OBJS) preload/libpprof.map
	$(CC) -shared -o $@ $(PRELOAD_OBJS) $(LDFLAGS_ALL) \
		-Wl,--version-script=preload/libpprof.map -Wl,-z,now $(PRELOAD_LIBS)

$(OUT)/pprof-analyze: $(ANALYZE_OBJS)
	$(CC) -o $@ $^ $(LDFLAGS_ALL) $(ANALYZE_LIBS)

$(OUT)/tests/run-tests: $(TEST_OBJS) $(ANALYZE_LIB_OBJS) $(TEST_PRELOAD_OBJS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS_ALL) -lcriterion $(ANALYZE_LIBS) -linih -ldl -lm -pthread

$(OUT)/workloads/lib%.so: tests/workloads/lib%.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -fPIC -shared -o $@ $<

$(OUT)/workloads/lib%.so: tests/workloads/lib%.cc
	@mkdir -p $(@D)
	$(CXX) -std=gnu++17 -O2 -g -Wall -Wextra -pthread -MMD -MP -fPIC -shared -o $@ $<

# Images without a build-id (a vDSO that has none), for the analyzer's tests.
$(OUT)/workloads/libnoida.so $(OUT)/workloads/libnoidb.so: WORKLOAD_CFLAGS += -Wl,--build-id=none

# cthrow, a C program, links libcxxcall.so, a C++ library: the C++ runtime
# comes only as that library's dependency.
$(OUT)/workloads/cthrow: tests/workloads/cthrow.c $(OUT)/workloads/libcxxcall.so
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -lcxxcall $(WORKLOAD_LIB_LINK)

# vendini links libiniuser.so, which links libvendini.so, which defines its
# own ini_parse (it_output checks the profiler's inih does not take its place).
$(OUT)/workloads/libiniuser.so: tests/workloads/libiniuser.c $(OUT)/workloads/libvendini.so
	$(CC) $(WORKLOAD_CFLAGS) -fPIC -shared -o $@ $< -lvendini $(WORKLOAD_LIB_LINK)
$(OUT)/workloads/vendini: tests/workloads/vendini.c $(OUT)/workloads/libiniuser.so
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -liniuser $(WORKLOAD_LIB_LINK)

# pltcalls links libpltcallee.so; its -now and -ibt copies are the other
# x86-64 PLT layouts (-z now; IBT's .plt.sec) for tests/analyze/test_plt.c.
$(OUT)/workloads/pltcalls: tests/workloads/pltcalls.c $(OUT)/workloads/libpltcallee.so
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -lpltcallee $(WORKLOAD_LIB_LINK)
$(OUT)/workloads/pltcalls-now: tests/workloads/pltcalls.c $(OUT)/workloads/libpltcallee.so
	$(CC) $(WORKLOAD_CFLAGS) -Wl,-z,now -o $@ $< -lpltcallee $(WORKLOAD_LIB_LINK)
$(OUT)/workloads/pltcalls-ibt: tests/workloads/pltcalls.c $(OUT)/workloads/libpltcallee.so
	$(CC) $(WORKLOAD_CFLAGS) -fcf-protection -Wl,-z,ibtplt -o $@ $< -lpltcallee \
		$(WORKLOAD_LIB_LINK)
WORKLOADS += $(OUT)/workloads/pltcalls-now $(OUT)/workloads/pltcalls-ibt

# oddthreads links libearly.so, whose constructor starts a thread before ours.
$(OUT)/workloads/oddthreads: tests/workloads/oddthreads.c $(OUT)/workloads/libearly.so
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -learly $(WORKLOAD_LIB_LINK)

# walllife links libearly.so too (a thread older than the profiler waits) and
# calls include/pprof/control.h.
$(OUT)/workloads/walllife: WORKLOAD_CFLAGS += -Iinclude
$(OUT)/workloads/walllife: tests/workloads/walllife.c $(OUT)/workloads/libearly.so
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -learly $(WORKLOAD_LIB_LINK)

# slowinit links libslowinit.so, whose constructor burns CPU before ours runs.
$(OUT)/workloads/slowinit: tests/workloads/slowinit.c $(OUT)/workloads/libslowinit.so
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -lslowinit $(WORKLOAD_LIB_LINK)

# staticprog is static, as a Go or musl program is: the preload cannot enter it.
$(OUT)/workloads/staticprog: tests/workloads/staticprog.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -static -o $@ $<

# unblocker is static: LD_PRELOAD has no effect on it, as on a setuid or a
# Go program a profiled program execs (execloop's last way).
$(OUT)/workloads/unblocker: tests/workloads/unblocker.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -static -o $@ $<

$(OUT)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -ldl -lm

# A program built with include/pprof/control.h, as a user builds one.
$(OUT)/workloads/pausing: WORKLOAD_CFLAGS += -Iinclude
$(OUT)/workloads/pauseflood: WORKLOAD_CFLAGS += -Iinclude

# waitedge twice: its callers of blocking calls without frame pointers,
# and with them (test_it_wall_edges.c: the blocked thread's stack).
$(OUT)/workloads/waitedge: WORKLOAD_CFLAGS += -fomit-frame-pointer
$(OUT)/workloads/waitedge-fp: tests/workloads/waitedge.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -fno-omit-frame-pointer -o $@ $< -ldl -lm
WORKLOADS += $(OUT)/workloads/waitedge-fp

# inlines built by clang too: clang writes no .debug_aranges, from which
# libdw finds a unit (test_it_symbols.c: lines and inline frames without it).
$(OUT)/workloads/inlines-clang: tests/workloads/inlines.c
	@mkdir -p $(@D)
	clang-14 $(filter-out -MMD -MP,$(WORKLOAD_CFLAGS)) -o $@ $<
WORKLOADS += $(OUT)/workloads/inlines-clang

# inlines without a build-id: a binary rebuilt after the run is told by the
# size and time of its file as mapped (test_it_symbols.c).
$(OUT)/workloads/inlines-noid: tests/workloads/inlines.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -Wl,--build-id=none -o $@ $<
WORKLOADS += $(OUT)/workloads/inlines-noid

# C++ workloads (exceptions): built like a C++ user's program.
$(OUT)/workloads/%: tests/workloads/%.cc
	@mkdir -p $(@D)
	$(CXX) -std=gnu++17 -O2 -g -Wall -Wextra -pthread -MMD -MP -o $@ $<

# speedscope (npm), into which the tests load our speedscope JSON in headless
# Chromium (test_it_formats.c). Pinned: the test reads its page's DOM.
SPEEDSCOPE_VERSION := 1.25.0
SPEEDSCOPE_HTML := $(TOOLS)/speedscope/node_modules/speedscope/dist/release/index.html
$(SPEEDSCOPE_HTML):
	@mkdir -p $(TOOLS)/speedscope
	npm install --prefix $(abspath $(TOOLS))/speedscope --no-audit --no-fund \
		speedscope@$(SPEEDSCOPE_VERSION)
	touch $@

# The MPI workload (tests/workloads/mpi/) is built with Open MPI's mpicc
# where it is installed (make test installs it); test_it_mpi.c says it
# cannot run where it is not.
MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
WORKLOADS += $(OUT)/workloads/mpi-imbalance
endif
$(OUT)/workloads/mpi-%: tests/workloads/mpi/%.c tests/workloads/wl.h
	@mkdir -p $(@D)
	$(MPICC) $(WORKLOAD_CFLAGS) -o $@ $<

# The bench programs are built (not run) too, so that make test catches a
# bench that no longer links.
tests-build: all $(OUT)/tests/run-tests $(WORKLOADS) $(WORKLOAD_LIBS) $(TOOLS)/go-pprof \
	$(SPEEDSCOPE_HTML) $(OUT)/bench/sigcost $(OUT)/bench/symspeed $(OUT)/bench/maskcost \
	$(OUT)/bench/rankgen

# Every function that runs in the signal handler is in preload/sigsafe/, and
# may call only the folder's own functions and what
# preload/sigsafe/sigsafe.allow lists (async-signal-safe libc, raw syscalls,
# libunwind's local unwinding). nm -u shows what the objects import. Every
# function the folder defines says so in its name, _sigsafe, but for the
# libc names it interposes (libpprof.map) and the header-only library
# functions sigsafe.allow lists; nm shows those the compiler kept
# (.part, .cold, ... copies under their function's name).
check-sigsafe: $(SIGSAFE_OBJS)
	@bad=$$(comm -23 <(nm -u $(SIGSAFE_OBJS) | awk 'NF==2 {print $$2}' | \
		sed 's/@.*//' | sort -u) \
		<( (nm --defined-only $(SIGSAFE_OBJS) | awk 'NF==3 {print $$3}'; \
		grep -v '^#' preload/sigsafe/sigsafe.allow) | sort -u)); \
	if [ -n "$$bad" ]; then \
		echo "check-sigsafe: not on preload/sigsafe/sigsafe.allow:" $$bad >&2; exit 1; fi; \
	bad=$$(comm -23 <(nm --defined-only $(SIGSAFE_OBJS) | \
		awk 'NF==3 && $$2 ~ /^[TtWw]$$/ {sub(/\..*/, "", $$3); print $$3}' | \
		grep -v '_sigsafe$$' | sort -u) \
		<( (sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z_0-9]*\);.*/\1/p' \
		preload/libpprof.map; grep -v '^#' preload/sigsafe/sigsafe.allow) | sort -u)); \
	if [ -n "$$bad" ]; then \
		echo "check-sigsafe: functions in preload/sigsafe/ without the _sigsafe suffix:" \
			$$bad >&2; exit 1; fi; \
	echo "check-sigsafe: preload/sigsafe/ imports only allowed symbols, and names its functions _sigsafe"
check-sigsafe: SHELL := /bin/bash

# $(call pkgs_install,PACKAGES): apt-get install those not installed yet.
define pkgs_install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "make: installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi
endef

deps:
	$(call pkgs_install,$(DEB_PKGS))

# What make bench runs beside libpprof (tests/bench/compare.sh, startup.sh,
# make.sh: perf). time and git: tests/bench/analyze.sh's timings and its
# copy of the project (make.sh's too)
BENCH_PKGS := linux-perf libgoogle-perftools4 time git

bench-deps: deps
	$(call pkgs_install,$(BENCH_PKGS))

# Every test, then the integration tests again with the profiler in the
# signal mode (tst_it.c adds PPROF_MODE=signal to every program it runs).
test: deps
	@$(MAKE) --no-print-directory tests-build
	@$(MAKE) --no-print-directory check-sigsafe
	$(OUT)/tests/run-tests --jobs 2 --timeout 300
	PPROF_TEST_MODE=signal $(OUT)/tests/run-tests --jobs 2 --timeout 300 \
		--filter 'it_*'
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=30

check: test

DEMO_DATA := $(OUT)/demo-data
demo: deps
	@$(MAKE) --no-print-directory all $(OUT)/workloads/demo $(OUT)/workloads/libburn.so
	@rm -rf $(DEMO_DATA)
	PPROF_OUTPUT=$(DEMO_DATA) LD_PRELOAD=$(abspath $(OUT))/libpprof.so \
		$(OUT)/workloads/demo
	$(OUT)/pprof-analyze top --limit 15 $(DEMO_DATA)
	$(OUT)/pprof-analyze threads $(DEMO_DATA)

$(OUT)/bench/sigcost: tests/bench/sigcost.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -lunwind

$(OUT)/bench/maskcost: tests/bench/maskcost.c
	@mkdir -p $(@D)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $<

# The logs of an MPI run of many ranks, written with the profiler's own
# writers (tests/bench/ranks.sh times the analyzer on them).
$(OUT)/bench/rankgen: tests/bench/rankgen.c $(OBJ)/preload-tested.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -Ipreload $(CFLAGS_ALL) -o $@ $^ $(LDFLAGS_ALL) -linih -ldl

# Symbolisation speed: 20,000 libc addresses with lines (libc6-dbg's).
# The analyzer's objects come from its archive: the linker takes what it needs.
$(OUT)/bench/symspeed: tests/bench/symspeed.c $(OBJ)/analyze.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_ALL) -Ianalyze $(CFLAGS_ALL) -o $@ $^ $(LDFLAGS_ALL) -ldw -lelf -lz -liberty -ldl

bench: bench-deps
	@$(MAKE) --no-print-directory all $(OUT)/workloads/deepstack \
		$(OUT)/workloads/demo $(OUT)/workloads/libburn.so \
		$(OUT)/workloads/widethreads $(OUT)/bench/sigcost $(OUT)/bench/symspeed \
		$(OUT)/bench/maskcost $(OUT)/workloads/bornblocked $(OUT)/workloads/wideleaf \
		$(OUT)/workloads/idlers $(OUT)/bench/rankgen
	tests/bench/overhead.sh $(OUT)
	tests/bench/logsize.sh $(OUT)
	$(OUT)/bench/sigcost
	tests/bench/modes.sh $(OUT)
	tests/bench/rate.sh $(OUT)
	tests/bench/analyze.sh $(OUT)
	tests/bench/exit.sh $(OUT)
	tests/bench/ranks.sh $(OUT)
	$(OUT)/bench/symspeed
	tests/bench/masks.sh $(OUT)
	tests/bench/unwind.sh $(OUT)
	tests/bench/compare.sh $(OUT)
	tests/bench/startup.sh $(OUT)
	tests/bench/make.sh $(OUT)
	tests/bench/wall.sh $(OUT)

asan:
	@$(MAKE) --no-print-directory VARIANT=asan all

# The integration tests, in both modes as make test runs them, against
# build/asan/: its libpprof.so (preloaded after libasan.so: DESIGN.md,
# Library quirks), its pprof-analyze, and the analyzer's reader in the test
# binary, all with AddressSanitizer; LeakSanitizer at the exit of each
# program the tests run (tst_it.c says why not the test binary's). Reports
# go to files, not to the programs' stderr (which tests compare with runs
# without the profiler); any error among them fails the run. A failed
# allocation returns NULL, as the workloads that test ENOMEM expect. Not
# part of make test: it takes about as long as the integration tests.
ifeq ($(VARIANT),asan)
TEST_ASAN_CPPFLAGS := -DPP_TEST_PRELOAD_FIRST='"$(shell $(CC) -print-file-name=libasan.so)"'
endif
ASAN_REPORTS := build/asan/reports
test-asan: deps
	@$(MAKE) --no-print-directory VARIANT=asan tests-build
	@rm -rf $(ASAN_REPORTS) && mkdir -p $(ASAN_REPORTS)
	@status=0; for mode in sigtrap signal; do \
		echo "test-asan: the integration tests, PPROF_TEST_MODE=$$mode"; \
		PPROF_TEST_MODE=$$mode \
		ASAN_OPTIONS=log_path=$(abspath $(ASAN_REPORTS))/asan:allocator_may_return_null=1:detect_leaks=1 \
			build/asan/tests/run-tests --jobs 2 --timeout 300 --filter 'it_*' \
			--json=build/asan/test-asan-$$mode.json || status=1; \
		awk '/"name":/ { name = $$2; gsub(/[",]/, "", name) } \
			/"status": "SKIPPED"/ { skip = 1; next } \
			skip && !/The test was skipped/ { sub(/^ *"messages": \[ *"/, ""); \
				sub(/" *\] *$$/, ""); print "test-asan: skipped " name ": " $$0 } \
			{ skip = 0 }' build/asan/test-asan-$$mode.json; \
	done; \
	bad=$$(grep -l -E 'ERROR: [A-Za-z]+Sanitizer|CHECK failed' $(ASAN_REPORTS)/* 2>/dev/null); \
	for f in $$bad; do echo "== $$f"; cat $$f; done; \
	if [ -n "$$bad" ]; then echo "test-asan: sanitizer errors above ($(ASAN_REPORTS)/)"; status=1; fi; \
	exit $$status

# --- fuzzing ------------------------------------------------------------------
# One libFuzzer target per tests/fuzz/fuzz_*.c, built into build/fuzz/
# (VARIANT=fuzz), each run for FUZZ_TIME seconds from its seeds (made from
# real runs by tests/fuzz/seeds.sh) and the corpus it grew before
# (build/fuzz/corpus/). A crash, a leak or a UBSan finding fails the run and
# leaves its reproducer in build/fuzz/crashes/; tests/fuzz/run.sh says where.
FUZZ_TIME ?= 600
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LINK := -fsanitize=fuzzer,address,undefined
FUZZ_MAX_LEN_reader := 65536
FUZZ_MAX_LEN_config := 16384

# Each target links the modules it tests from an archive, which gives it
# those they need and no more (the reader: grow.o, ...), whatever they come
# to need: the analyzer's modules, and the preload's that the tests link.
$(OBJ)/analyze.a: $(ANALYZE_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^
$(OBJ)/preload-tested.a: $(TEST_PRELOAD_OBJS)
	rm -f $@ && ar rcs $@ $^

$(OUT)/fuzz-reader: $(OBJ)/tests/fuzz/fuzz_reader.o $(OBJ)/analyze.a
	$(CC) -o $@ $^ $(FUZZ_LINK) $(ANALYZE_LIBS) -pthread

$(OUT)/fuzz-config: $(OBJ)/tests/fuzz/fuzz_config.o $(OBJ)/preload-tested.a
	$(CC) -o $@ $^ $(FUZZ_LINK) -linih -ldl

# For every unknown event name, pp_strdist runs against each of the
# thousands of names libpfm4 knows: with coverage instrumentation it took
# 90% of fuzz-config's time. It keeps ASan and UBSan.
ifeq ($(VARIANT),fuzz)
$(OBJ)/preload/strdist.o: CFLAGS_ALL += -fno-sanitize=fuzzer-no-link
endif

# A build tool, not under test: no instrumentation.
$(OUT)/mkseeds: tests/fuzz/mkseeds.c include/pprof/format.h
	$(CC) $(CPPFLAGS_ALL) -std=gnu11 -O2 -g $(WARN) -o $@ $<

# The seeds: logs of release-built workloads (make fuzz builds them first).
$(OUT)/seeds/.made: tests/fuzz/seeds.sh $(OUT)/mkseeds $(TOOLS)/libpprof.so \
		$(wildcard config/*.ini)
	tests/fuzz/seeds.sh $(TOOLS) $(OUT)
	touch $@

fuzz-build: $(FUZZ_TARGETS:%=$(OUT)/fuzz-%) $(OUT)/seeds/.made

fuzz-run-%: fuzz-build
	tests/fuzz/run.sh $(OUT) $* $(FUZZ_TIME) $(FUZZ_MAX_LEN_$*)

fuzz: deps
	@$(MAKE) --no-print-directory all $(WORKLOADS) $(WORKLOAD_LIBS)
	@$(MAKE) --no-print-directory VARIANT=fuzz fuzz-build
	@$(MAKE) --no-print-directory VARIANT=fuzz $(FUZZ_TARGETS:%=fuzz-run-%)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/pprof
	install -m 0644 $(OUT)/libpprof.so $(DESTDIR)$(PREFIX)/lib/libpprof.so
	install -m 0644 include/pprof/control.h $(DESTDIR)$(PREFIX)/include/pprof/control.h
	install -m 0755 $(OUT)/pprof-analyze $(DESTDIR)$(PREFIX)/bin/pprof-analyze

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
