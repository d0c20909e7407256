# gopsim build, test and benchmark entry points. `make run` and `make test`
# do all set-up on a fresh machine (Go modules are fetched as needed).

GO       ?= go
FUZZTIME ?= 10s
# How long the fuzzer may minimize a new interesting input (Go's default,
# 60s, is six short passes: see fuzz-short).
FUZZMINIMIZE ?= 1s
# How many executions the repeat of a fuzz pass that hit Go's deadline race
# runs (fuzz-short): about as long as FUZZTIME on the slowest target
# (FuzzSimFlags, about 900 a second here).
FUZZCOUNT ?= 5000x
BIN      := bin/gopsim
PKGS     := ./...

# Every apt-get below waits up to 10 minutes for a dpkg lock that another
# process holds (another install, unattended upgrades) instead of failing.
APT_LOCK := -o DPkg::Lock::Timeout=600

.PHONY: all build run test vet fmt fmt-check unit fuzz fuzz-short bench bench-apps validate deps clean
.PHONY: tracer tracer-gen tracer-build tracer-bench tracer-mpich mpi-deps

all: build

deps:
	$(GO) mod download

# A static binary (no cgo: nothing in gopsim needs it; the ibverbs backend
# has its own build, ibverbs-build): no dynamic loader at start, 1.5 MB
# less resident memory per run.
build: deps
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/gopsim

# Build, then simulate the embedded default example and print the result.
run: build
	./$(BIN) sim

# Everything CI runs: formatting, vet, all tests with -race, a short
# fuzzing pass per fuzz target.
test: deps tracer tracer-mpich otf2-deps calibrate-deps ibverbs-build chromium-deps fmt-check vet unit fuzz-short
	@echo "make test: all checks passed"

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# TestEmulatedLink times an emulated link to 5 %: it runs alone, after
# the other tests, not among the race-detected test binaries that fill
# both CPUs (there it missed by 6 % in four attempts in a row).
unit:
	$(GO) test -race -count=1 -skip '^TestEmulatedLink$$' $(PKGS)
	$(GO) test -tags invariants -count=1 ./sim
	$(GO) test -count=1 -run '^TestEmulatedLink$$' ./bench

# A short pass over every fuzz target (FUZZTIME each); `make fuzz
# FUZZTIME=10m` for a real session. Go's fuzzing coordinator ends a run with
# "context deadline exceeded" and no failing input when its time runs out
# while a worker is still minimizing a new interesting input, which Go
# allows 60 s by default: FuzzArchiveDefs sat at 0 execs/s for 42 s of a
# 60 s run doing so, and failed CI's 10 s pass that way. FUZZMINIMIZE bounds
# the minimizing. The deadline itself races the coordinator's own stop
# (golang/go#75804, fixed in Go 1.27: a duration -fuzztime ends with that
# error now and then, whatever the target): FuzzReadMapping ended so twice
# in a row in one CI run on go1.26.8. A run that ends so without a failing
# input is repeated with a count of executions (FUZZCOUNT), which sets no
# deadline to race. A real failure writes its input and fails at once.
fuzz-short fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	    if ! out=$$($(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg 2>&1); then \
	      echo "$$out"; \
	      if echo "$$out" | grep -q 'context deadline exceeded' && ! echo "$$out" | grep -q 'Failing input'; then \
	        echo "fuzz $$pkg $$t: coordinator deadline without a finding (golang/go#75804); running it again for $(FUZZCOUNT) executions"; \
	        $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZCOUNT) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
	      else \
	        exit 1; \
	      fi; \
	    else \
	      echo "$$out" | tail -2; \
	    fi; \
	  done; \
	done

# Benchmarks of the engine and the codecs; the figures go to
# docs/performance.md by hand, with the command and the machine.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 $(PKGS) | tee bench.out
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/gopsim
	$(GO) run ./internal/benchtable -runs 5 -gopsim $(BIN) -doc docs/performance.md

# Only the end-to-end rows of traced applications (LAMMPS, sweep3d:
# issue 20), the others kept as docs/performance.md has them.
bench-apps:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/gopsim
	$(GO) run ./internal/benchtable -runs 3 -gopsim $(BIN) -doc docs/performance.md -rows 'LAMMPS|sweep3d'

# Longer checks than make test: long fuzzing.
validate: test
	$(MAKE) fuzz FUZZTIME=2m

clean:
	rm -rf bin bench.out

# ---- the MPI tracer (trace/pmpi) and the MPI examples (examples/mpi) ----

MPICC    ?= mpicc
MPIF90   ?= mpif90
TRACER   := bin/libgopsim-pmpi.so
PMPI_SRC := trace/pmpi/gopsim_pmpi.c trace/pmpi/wrappers_gen.c
PMPI_HDR := trace/pmpi/gopsim_pmpi.h trace/pmpi/funcs_gen.h
MPI_EX   := bin/examples/mpi
MPI_EX_C := $(patsubst examples/mpi/%.c,$(MPI_EX)/%,$(wildcard examples/mpi/*.c))
MPI_EX_F := $(patsubst examples/mpi/%.f90,$(MPI_EX)/%,$(wildcard examples/mpi/*.f90))
PMPI_CFLAGS ?= -O2 -g -Wall -Wextra -Werror

# Open MPI and gfortran from the distribution when they are missing: only
# as root with apt-get; otherwise say what to install.
mpi-deps:
	@if command -v $(MPICC) >/dev/null 2>&1 && $(MPIF90) --version >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "mpi-deps: installing openmpi-bin libopenmpi-dev gfortran with apt-get"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq openmpi-bin libopenmpi-dev gfortran >/dev/null; \
	else \
	  echo "mpi-deps: $(MPICC), $(MPIF90) (with its Fortran compiler) or mpirun is missing and cannot be installed here (needs root and apt-get)." >&2; \
	  echo "mpi-deps: install an MPI with its Fortran compiler (Debian: apt-get install openmpi-bin libopenmpi-dev gfortran)," >&2; \
	  echo "mpi-deps: or name yours: make MPICC=... MPIF90=..." >&2; \
	  exit 1; \
	fi
	@# MPICH beside Open MPI (mpicc.mpich, mpif90.mpich, mpirun.mpich) for
	@# TestMPICH: the tracer must work with both. Open MPI stays the default
	@# mpicc (Debian's alternatives rank it first).
	@if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpirun.mpich >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "mpi-deps: installing mpich libmpich-dev with apt-get"; \
	  { DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq mpich libmpich-dev >/dev/null 2>&1 || \
	    { DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	      DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq mpich libmpich-dev >/dev/null; }; } || \
	  echo "mpi-deps: warning: installing MPICH failed; TestMPICH will skip (or fail under CI)" >&2; \
	else \
	  echo "mpi-deps: MPICH is missing: TestMPICH skips (Debian: apt-get install mpich libmpich-dev)" >&2; \
	fi
	@# LAMMPS (lmp, built with Open MPI) for trace/lammps_test.go and the
	@# HPC Challenge (hpcc) for trace/hpcc_test.go: installed when missing,
	@# as root with apt-get, which waits up to 10 minutes for another
	@# process's dpkg lock ($(APT_LOCK)); without them those tests skip
	@# (fail under CI), so a failed installation is a warning here.
	@for pkg in lammps:lmp hpcc:hpcc; do \
	  p=$${pkg%%:*}; bin=$${pkg#*:}; \
	  if command -v $$bin >/dev/null 2>&1; then \
	    :; \
	  elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "mpi-deps: installing $$p with apt-get"; \
	    { DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq $$p >/dev/null 2>&1 || \
	      { DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	        DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq $$p >/dev/null; }; } || \
	    echo "mpi-deps: warning: installing $$p failed; the tests that run $$bin will skip (or fail under CI)" >&2; \
	  else \
	    echo "mpi-deps: $$bin is missing: the tests that run it skip (Debian: apt-get install $$p)" >&2; \
	  fi; \
	done

# The tracer library and the example programs. The wrappers are generated
# from trace/pmpi/gen/spec.go first (the generator rewrites only files
# whose content changes, so make rebuilds only what it must).
tracer: mpi-deps tracer-gen
	@$(MAKE) --no-print-directory tracer-build

tracer-build: $(TRACER) $(MPI_EX_C) $(MPI_EX_F)
	@:

tracer-gen:
	$(GO) run ./trace/pmpi/gen -dir trace

# Outputs are written under a temporary name and renamed, so that tests
# building concurrently never run a half-written file.
$(TRACER): $(PMPI_SRC) $(PMPI_HDR)
	@mkdir -p $(dir $@)
	$(MPICC) $(PMPI_CFLAGS) -fPIC -shared -o $@.$$$$.tmp $(PMPI_SRC) -ldl && mv -f $@.$$$$.tmp $@

$(MPI_EX)/%: examples/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -Wall -o $@.$$$$.tmp $< && mv -f $@.$$$$.tmp $@

$(MPI_EX)/%: examples/mpi/%.f90
	@mkdir -p $(dir $@)
	$(MPIF90) -O2 -o $@.$$$$.tmp $< && mv -f $@.$$$$.tmp $@

# The tracer's cost per call: the micro-benchmark without and with the
# tracer preloaded (one rank; see trace/pmpi/bench/bench.c).
tracer-bench: tracer bin/tracer-bench
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 sh trace/pmpi/bench/run.sh bin/tracer-bench $(TRACER)

bin/tracer-bench: trace/pmpi/bench/bench.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -Wall -o $@ $<

# The same for MPICH, beside Open MPI: a tracer works only with the MPI
# whose mpi.h it was built with (at MPI_Init it says so and ends the
# program otherwise), so MPICH programs need their own.
# `make tracer-mpich` builds into bin/mpich/ what `make tracer` and `make
# calibrate-deps` build into bin/: the tracer, the examples
# (bin/mpich/examples/mpi/) and gopsim-prtt, gopsim-pack and
# gopsim-warmup, with the same rules and MPICH's compilers (about 10 s,
# then only what changed). make test runs it, so that every C file builds
# warning-free with MPICH's mpi.h too. Without MPICH it says so and builds
# nothing, unless $CI is set: then it fails.
MPICH_CC  ?= mpicc.mpich
MPICH_F90 ?= mpif90.mpich
MPICH_BIN := bin/mpich

tracer-mpich: mpi-deps tracer-gen
	@if command -v $(MPICH_CC) >/dev/null 2>&1 && $(MPICH_F90) --version >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory MPICC=$(MPICH_CC) MPIF90=$(MPICH_F90) \
	    TRACER=$(MPICH_BIN)/$(notdir $(TRACER)) MPI_EX=$(MPICH_BIN)/examples/mpi \
	    PRTT=$(MPICH_BIN)/$(notdir $(PRTT)) PACK=$(MPICH_BIN)/$(notdir $(PACK)) \
	    WARMUP=$(MPICH_BIN)/$(notdir $(WARMUP)) tracer-build calibrate-build; \
	elif [ -n "$$CI" ]; then \
	  echo "tracer-mpich: $(MPICH_CC) or $(MPICH_F90) is missing; CI is set, so MPICH must be installed (make mpi-deps as root)" >&2; exit 1; \
	else \
	  echo "tracer-mpich: $(MPICH_CC) or $(MPICH_F90) is missing: nothing built (Debian: apt-get install mpich libmpich-dev)" >&2; \
	fi

# ---- protobuf schemas (proto/) and their generated Go code ----

# The generated code is checked in; `make proto` regenerates it after a
# schema change. protoc comes from the distribution (protobuf-compiler),
# protoc-gen-go at the version pinned here (the same as go.mod's
# google.golang.org/protobuf), built into bin/.
PROTOC               ?= protoc
PROTOC_GEN_GO_VERSION := v1.36.12

.PHONY: proto
proto:
	@if ! command -v $(PROTOC) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "proto: installing protobuf-compiler with apt-get"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq protobuf-compiler >/dev/null; \
	  else \
	    echo "proto: $(PROTOC) is missing (Debian: apt-get install protobuf-compiler)" >&2; exit 1; \
	  fi; \
	fi
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	$(PROTOC) --plugin=protoc-gen-go=$(CURDIR)/bin/protoc-gen-go -I proto \
	  --go_out=. --go_opt=module=github.com/gopsim/gopsim proto/*.proto

# ---- docs/accuracy.md: measured against simulated times ----

# Runs every MPI example, LAMMPS (examples/lammps) and HPCC (examples/hpcc)
# at 2 ranks without and with the tracer, each right after calibrating this
# machine with `gopsim calibrate --backend mpi`, validates every trace
# against its simulation with the calibrated parameters (as `gopsim
# validate --params`), and prints the tables of docs/accuracy.md on stdout
# (about 10 minutes, on an idle machine; not part of make test).
# ACCURACY_FLAGS passes flags, e.g. ACCURACY_FLAGS="-reps 3 -only LAMMPS",
# -recalibrate=false to calibrate once, or -params FILE to skip calibrating.
ACCURACY_FLAGS ?=

.PHONY: accuracy
accuracy: build tracer calibrate-deps
	$(GO) run ./internal/accuracy $(ACCURACY_FLAGS)

# ---- OTF2 traces: otf2-print (OTF2's reference printer) ----

# gopsim reads OTF2 archives natively (trace/otf2); the tests compare its
# reader with otf2-print's. Installs Debian's otf2-tools when it is
# missing, only as root with apt-get; otherwise says what to install. The
# tests need it under CI=true.
.PHONY: otf2-deps
otf2-deps:
	@if command -v otf2-print >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "otf2-deps: installing otf2-tools with apt-get"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq otf2-tools >/dev/null; \
	else \
	  echo "otf2-deps: otf2-print is missing and cannot be installed here (needs root and apt-get)." >&2; \
	  echo "otf2-deps: install OTF2's tools (Debian: apt-get install otf2-tools; or Score-P's OTF2) and put otf2-print on PATH." >&2; \
	  exit 1; \
	fi

# ---- calibration backends: gopsim-prtt (mpi) and libibverbs (ibverbs) ----

# `gopsim calibrate --backend mpi` runs bin/gopsim-prtt (bench/mpi/prtt.c)
# under mpirun and finds it next to bin/gopsim (or give --prtt-bin);
# `gopsim calibrate models --measure-pack --pack-backend mpi` runs
# bin/gopsim-pack (bench/mpi/pack.c) likewise (--pack-bin), and the mpi
# backend's one-time cost probe bin/gopsim-warmup (bench/mpi/warmup.c,
# --warmup-bin). Built with the default mpicc, the one whose mpirun runs
# them; `make tracer-mpich` builds MPICH's in bin/mpich/ (give them with
# --prtt-bin and --pack-bin; calibrate takes gopsim-warmup from beside
# --prtt-bin's program unless --warmup-bin names another).
PRTT        ?= bin/gopsim-prtt
PACK        ?= bin/gopsim-pack
WARMUP      ?= bin/gopsim-warmup
PRTT_CFLAGS ?= -O2 -g -Wall -Wextra -Werror

.PHONY: calibrate-deps calibrate-build ibverbs-deps ibverbs-build
calibrate-deps: mpi-deps
	@$(MAKE) --no-print-directory calibrate-build

calibrate-build: $(PRTT) $(PACK) $(WARMUP)
	@:

$(PRTT): bench/mpi/prtt.c bench/mpi/util.h
	@mkdir -p $(dir $@)
	$(MPICC) $(PRTT_CFLAGS) -o $@.$$$$.tmp $< && mv -f $@.$$$$.tmp $@

$(PACK): bench/mpi/pack.c bench/mpi/util.h
	@mkdir -p $(dir $@)
	$(MPICC) $(PRTT_CFLAGS) -o $@.$$$$.tmp $< && mv -f $@.$$$$.tmp $@

$(WARMUP): bench/mpi/warmup.c bench/mpi/util.h
	@mkdir -p $(dir $@)
	$(MPICC) $(PRTT_CFLAGS) -o $@.$$$$.tmp $< && mv -f $@.$$$$.tmp $@

# libibverbs' headers (and library) for the ibverbs backend, which is cgo
# behind the ibverbs build tag: installed from the distribution when
# missing, only as root with apt-get; otherwise says what to install.
ibverbs-deps:
	@if echo '#include <infiniband/verbs.h>' | $(CC) -E -x c - >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "ibverbs-deps: installing libibverbs-dev with apt-get"; \
	  { DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq libibverbs-dev >/dev/null 2>&1 || \
	    { DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	      DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq libibverbs-dev >/dev/null; }; }; \
	else \
	  echo "ibverbs-deps: <infiniband/verbs.h> is missing and cannot be installed here (needs root and apt-get)." >&2; \
	  echo "ibverbs-deps: install libibverbs' headers (Debian: apt-get install libibverbs-dev; RHEL: rdma-core-devel)." >&2; \
	  exit 1; \
	fi

# The ibverbs backend is vetted, compiled and its tests run with -tags
# ibverbs (they skip without an RDMA device, as on CI); the default build
# needs no cgo.
ibverbs-build: ibverbs-deps
	$(GO) vet -tags ibverbs ./bench
	$(GO) build -tags ibverbs ./...
	$(GO) test -tags ibverbs -count=1 -run 'IBVerbs' ./bench

# ---- headless Chromium for the report tests (report/chromium_test.go) ----

# The report test opens the HTML report in Debian's chromium. Installed
# when missing, only as root with apt-get; otherwise says what to install
# (the test skips without it, and fails under CI=true).
.PHONY: chromium-deps
chromium-deps:
	@if command -v chromium >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "chromium-deps: installing chromium with apt-get"; \
	  { DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq chromium >/dev/null 2>&1 || \
	    { DEBIAN_FRONTEND=noninteractive apt-get update $(APT_LOCK) -qq && \
	      DEBIAN_FRONTEND=noninteractive apt-get install $(APT_LOCK) -y -qq chromium >/dev/null; }; }; \
	else \
	  echo "chromium-deps: chromium is missing and cannot be installed here (needs root and apt-get)." >&2; \
	  echo "chromium-deps: install it (Debian: apt-get install chromium); without it the report's browser test skips (fails under CI=true)." >&2; \
	  exit 1; \
	fi
