# Makefile — a thin wrapper so the README's quick start is two commands on a
# fresh Debian machine. The build itself is meson's (meson.build).
#   make demo   install what is missing, build, run the headline demo
#   make test   install what is missing, build, run every test (what CI runs)
#   make check  build, run the quick tier: every suite's cheapest cases (under a minute)
#   make install  install lbtorus, liblbtorus, its headers, lbtorus.pc and data
#                 (PREFIX from `meson setup --prefix`, /usr/local by default)
#   make test-sanitize  the whole suite under AddressSanitizer + UBSan (build-sanitize)
#   make fuzz     every fuzz target for FUZZ_SECONDS (default 600) each (needs clang)
BUILD ?= build
PACKAGES = gcc meson ninja-build pkg-config libsimde-dev libcriterion-dev gnuplot-nox libpng-dev libopenmpi-dev openmpi-bin \
  python3-matplotlib python3-numpy python3-pytest
JOBS ?= 2
# wait up to 10 minutes for another apt-get's dpkg lock instead of failing at once; retry downloads
APT_WAIT = -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3

SAN_BUILD ?= build-sanitize
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS = npy spec jsonl parsers specs
# clang with OpenMP and libFuzzer: the fuzz targets can be built
HAVE_FUZZ = echo 'int main(void){return 0;}' | clang -fopenmp -fsanitize=fuzzer-no-link -x c - -o /dev/null 2>/dev/null

.PHONY: all deps build demo test check bench install clean test-sanitize fuzz fuzz-build fuzz-smoke

all: build

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get $(APT_WAIT) update -qq && DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAIT) install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages:$$missing -- run: sudo apt-get install$$missing" >&2; exit 2; \
	  fi; \
	fi

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=release

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	./$(BUILD)/lbtorus demo

# (the quick tier's variants repeat cases of their suites: left out here)
test: build
	@meson test -C $(BUILD) --num-processes $(JOBS) --print-errorlogs --no-suite subset; rc=$$?; \
	python3 -c 'import json,sys; r=[json.loads(l)["result"] for l in open(sys.argv[1])]; \
	print("tests: %d passed, %d failed" % (r.count("OK"), len(r) - r.count("OK") - r.count("SKIP")))' \
	  $(BUILD)/meson-logs/testlog.json; [ $$rc = 0 ] || { tools/failed_logs.py $(BUILD); exit $$rc; }; \
	$(MAKE) --no-print-directory fuzz-smoke

# The edit-test loop: the quick tier (tests/meson.build, docs/development.md).
check: build
	meson test -C $(BUILD) --num-processes $(JOBS) --print-errorlogs --suite quick

# Each fuzz target over its committed corpus plus a short fresh run
# ($$LBTORUS_FUZZ_SECONDS, default 10 s), when clang is installed.
fuzz-smoke:
	@if $(HAVE_FUZZ); then \
	  $(MAKE) --no-print-directory fuzz-build && \
	  meson test -C $(FUZZ_BUILD) --no-rebuild --suite fuzz --print-errorlogs; \
	else echo "fuzz targets skipped: clang (with libomp) is not installed"; fi

# (the fuzz targets read inputs, no kernel: no emulated AVX-512 target, whose
# lm.c takes clang's sanitizers many minutes)
fuzz-build:
	@$(HAVE_FUZZ) || { echo "the fuzz targets need clang: sudo apt-get install clang" >&2; exit 2; }
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true \
	  -Db_sanitize=address,undefined -Dbuildtype=debugoptimized -Dsimd_emulation=false >/dev/null
	ninja -C $(FUZZ_BUILD) -j$(JOBS) $(FUZZ_TARGETS:%=fuzz/fuzz_%)

# Long runs: new inputs and crash-* files go to $(FUZZ_BUILD)/fuzz/work/TARGET.
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  fuzz/run.sh $(FUZZ_BUILD)/fuzz/fuzz_$$t fuzz/corpus/$$t $(FUZZ_BUILD)/fuzz/work/$$t $(FUZZ_SECONDS) || exit 1; \
	done

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer; the
# first report stops the test that made it. Without MPI: Open MPI's own
# allocations at exit are reported by LeakSanitizer; the cut-torus code
# paths still run here on one process (tests/test_comm.c). Without the
# emulated AVX-512 target: SIMDe's portable int8 adds wrap through signed
# overflow in C, which UBSan reports where the instruction simply wraps.
# With float-cast-overflow, which GCC's "undefined" leaves out: a double
# out of an integer type's range converted to it (native AVX-512 gave
# another value than the reference's conversion, 2026-11-27).
test-sanitize: deps
	@[ -f $(SAN_BUILD)/build.ninja ] || meson setup $(SAN_BUILD) -Db_sanitize=address,undefined \
	  -Dc_args=-fsanitize=float-cast-overflow -Dbuildtype=debugoptimized -Dmpi=disabled -Dsimd_emulation=false >/dev/null
	ninja -C $(SAN_BUILD) -j$(JOBS)
	@UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=halt_on_error=1 \
	  meson test -C $(SAN_BUILD) --num-processes $(JOBS) --print-errorlogs --no-suite subset || \
	  { tools/failed_logs.py $(SAN_BUILD); exit 1; }

bench: build
	meson test -C $(BUILD) --benchmark --verbose

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD)
