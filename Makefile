# Makefile — a thin wrapper so the README's quick start is two commands on a
# fresh Debian machine. The build itself is meson's (meson.build).
#   make demo   install what is missing, build, run the headline demo
#   make test   install what is missing, build, run every test
#   make install  install lbtorus, liblbtorus, its headers, lbtorus.pc and data
#                 (PREFIX from `meson setup --prefix`, /usr/local by default)
BUILD ?= build
PACKAGES = gcc meson ninja-build pkg-config libsimde-dev libcriterion-dev gnuplot-nox libpng-dev libopenmpi-dev openmpi-bin
JOBS ?= 2

.PHONY: all deps build demo test bench install clean

all: build

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
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

test: build
	@meson test -C $(BUILD) --num-processes $(JOBS) --print-errorlogs; rc=$$?; \
	python3 -c 'import json,sys; r=[json.loads(l)["result"] for l in open(sys.argv[1])]; \
	print("tests: %d passed, %d failed" % (r.count("OK"), len(r) - r.count("OK") - r.count("SKIP")))' \
	  $(BUILD)/meson-logs/testlog.json; exit $$rc

bench: build
	meson test -C $(BUILD) --benchmark --verbose

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD)
