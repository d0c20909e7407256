# gopsim build, test and benchmark entry points. `make run` and `make test`
# do all set-up on a fresh machine (Go modules are fetched as needed).

GO       ?= go
FUZZTIME ?= 10s
BIN      := bin/gopsim
PKGS     := ./...

.PHONY: all build run test vet fmt fmt-check unit fuzz fuzz-short bench validate deps clean

all: build

deps:
	$(GO) mod download

build: deps
	$(GO) build -o $(BIN) ./cmd/gopsim

# Build, then simulate the embedded default example and print the result.
run: build
	./$(BIN) sim

# Everything CI runs: formatting, vet, all tests with -race, a short
# fuzzing pass per fuzz target.
test: deps fmt-check vet unit fuzz-short
	@echo "make test: all checks passed"

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test -race -count=1 $(PKGS)
	$(GO) test -tags invariants -count=1 ./sim

# A short pass over every fuzz target (FUZZTIME each); `make fuzz
# FUZZTIME=10m` for a real session.
fuzz-short fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# Benchmarks of the engine and the codecs; the figures go to
# docs/performance.md by hand, with the command and the machine.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 $(PKGS) | tee bench.out

# Longer checks than make test: long fuzzing.
validate: test
	$(MAKE) fuzz FUZZTIME=2m

clean:
	rm -rf bin bench.out
