# conftui: `make run` (the main job) and `make test` (everything) are the two commands a newcomer needs.
# Every target installs what it needs first (`make deps`: Debian and PyPI packages, idempotent).
SHELL := /bin/bash
.DEFAULT_GOAL := help
SWIFT ?= swift
VENV := .venv
PY := $(VENV)/bin/python
# Debian packages: the C libraries named by the design, plus the real peers and tools the tests drive.
#   pkg-config    finds the C libraries for SwiftPM
#   tmux          drives the TUI in end-to-end tests
#   chromium      the browser peer in interop tests (headless)
#   ffmpeg        converts the benchmark clips to Y4M
#   python3-venv  the virtualenv for aiortc (PyPI)
#   coturn        a real STUN/TURN server (`turnserver`) for the calls across the emulated internet (Tests/Network)
#   nftables      NAT, packet loss and UDP blocking in the emulated internet's routers (docs/emulated-network.md);
#   iproute2      its namespaces, veth pairs and bottlenecks (`ip`, `tc`)
#   nodejs        `node --check` parses the browser page's script in `make test` (page-check); the Swift build
#                 never reads that JavaScript, so without it a syntax error would first show in a browser.
#                 Asked for only when no `node` is on PATH, so an existing Node.js is used as it is.
#   fonts-dejavu-core  DejaVu Sans Mono, the font `make screenshots` draws the README's PNGs with (Tests/Screenshots)
#   janus         the real SFU (Janus VideoRoom) the tests and the bench join (Tests/Janus, Tests/testsupport/janus.py)
DEB_PACKAGES := libncursesw5-dev libvpx-dev libopus-dev libasound2-dev libssl-dev libsrtp2-dev \
	pkg-config tmux chromium ffmpeg python3-venv coturn nftables iproute2 fonts-dejavu-core janus $(if $(shell command -v node 2>/dev/null),,nodejs)
# Debian packages the benchmarks alone need: baselines measured beside conftui, never linked into it (like chromium):
#   libusrsctp-dev  usrsctp, the SCTP stack libwebrtc used for data channels, for the `sctp-core` step
#                   (Tests/Bench/usrsctp_pair.c); conftui has its own SCTP core (docs/building.md says why)
BENCH_DEB_PACKAGES := libusrsctp-dev
BIN_DEBUG = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
BIN_RELEASE = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)

.PHONY: help deps deb-deps bench-deb-deps py-deps build release conftui-release conftui-debug test unit-test interop-test page-check run serve bench screenshots fuzz fuzz-build fuzz-libfuzzer fuzz-long clean

help:
	@echo "make run    start conftui on its embedded default (installs and builds first)"
	@echo "make test   every test: unit, property, end-to-end and interop (installs and builds first)"
	@echo "make bench  benchmarks (release build; demo-cpu also the debug one), written to docs/benchmarks.md; BENCH=renderer,media for a subset"
	@echo "make screenshots  the README's PNGs of the demo (release build in tmux), written to docs/screenshots/"
	@echo "make deps | build | release | unit-test | interop-test | fuzz | clean"

deps: deb-deps py-deps

# Installs only what is missing, so a second run costs about a second.
deb-deps:
	@$(call install-debs,$(DEB_PACKAGES))

bench-deb-deps:
	@$(call install-debs,$(BENCH_DEB_PACKAGES))

define install-debs
	missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

py-deps: $(VENV)/.installed

$(VENV)/.installed: Tests/Interop/requirements.txt
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check -r Tests/Interop/requirements.txt
	@touch $@

build: deb-deps
	$(SWIFT) build

release: deb-deps
	$(SWIFT) build -c release

unit-test: build
	$(SWIFT) test

# End-to-end (the binary in tmux) and interop (aiortc, headless Chromium) tests, in pytest. They run the release
# binary, the one users get: rooms of five real-time participants on a 2-core machine leave no CPU to spare for a
# debug build's unoptimised Swift (the Swift suites above still test the debug build, assertions on).
conftui-release: deb-deps
	$(SWIFT) build -c release --product conftui

# The debug binary alone: `make bench` measures the demo in a debug build beside the release one (demo-cpu).
conftui-debug: deb-deps
	$(SWIFT) build --product conftui

interop-test: deps conftui-release
	SIGNALING=conftui CONFTUI_BIN=$(BIN_RELEASE)/conftui $(PY) -m pytest -q --durations=20 Tests/EndToEnd Tests/Interop Tests/Network Tests/Screenshots

test: deps page-check build
	$(SWIFT) test
	$(MAKE) --no-print-directory fuzz FUZZ_ITERATIONS=$(TEST_FUZZ_ITERATIONS)
	$(MAKE) --no-print-directory fuzz-libfuzzer
	$(MAKE) --no-print-directory interop-test

# The browser page's script is served as text and runs only in browsers: parse it (without running it) so that a
# syntax error fails here. The page's HTML and CSS reach the tests through the served page.
page-check: deb-deps
	node --check Sources/Signaling/BrowserPage/page.js
	bash Tests/repo_self_contained.sh

# The seeded fuzz tests at FUZZ_ITERATIONS inputs each (the ordinary suite runs fewer of the slow ones; STUN, RTP,
# RTCP and VP8 descriptors always get 100,000). `make test` runs them at 20,000 (under a minute on two cores instead
# of six; its libFuzzer pass covers the same targets guided by coverage) to keep the whole suite under 25 minutes;
# `make fuzz` alone at 100,000.
FUZZ_ITERATIONS ?= 100000
TEST_FUZZ_ITERATIONS ?= 20000
fuzz: build
	CONFTUI_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) $(SWIFT) test --filter 'seededFuzz|randomDatagramsOfEveryClass|OneHundredThousand'

# Coverage-guided fuzzing with libFuzzer (Sources/ConfTUIFuzz/README.md): one binary, instrumented with ASan and
# coverage, in its own build directory so the ordinary build is untouched; CONFTUI_FUZZ_TARGET picks the target.
FUZZ_TARGETS := signaling stun ice media dtls websocket json y4m turn sctp dcep peer-messages janus rooms
FUZZ_SCRATCH := .build/fuzz
FUZZER_LIB = $(firstword $(wildcard $(dir $(realpath $(shell command -v swiftc)))../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-$(shell uname -m).a))
FUZZ_BIN = $(FUZZ_SCRATCH)/debug/conftui-fuzz
# No swift-backtrace on a trap (it can hang holding the pipes open); libFuzzer reports the crash and saves the input.
FUZZ_ENV := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
FUZZ_OPTIONS := -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1
# The media and peer-messages targets keep one connected pair across inputs, whose buffers grow and shrink, so
# libFuzzer would take nearly every input for a leak suspect and rescan a 500 MB heap (1 exec/s): the loops below
# turn their per-input check off (-detect_leaks=0 for those two only).
NO_LEAK_CHECK := media peer-messages
# Seconds per target in `make test` (13 targets, two at a time: about a minute and a half after the build; `make fuzz-long`
# runs each for FUZZ_SECONDS).
FUZZ_QUICK_SECONDS ?= 10
FUZZ_SECONDS ?= 600

fuzz-build: deb-deps
	@[ -n "$(FUZZER_LIB)" ] || { echo "libclang_rt.fuzzer_no_main not found next to swiftc"; exit 1; }
	CONFTUI_FUZZER_LIB=$(FUZZER_LIB) $(SWIFT) build --scratch-path $(FUZZ_SCRATCH) --product conftui-fuzz \
	  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,trace-cmp,pc-table 2>&1 \
	  | grep -v "Cannot export local symbol"; exit $${PIPESTATUS[0]}

# Every target for FUZZ_QUICK_SECONDS from the repository's seed corpus, two at a time (libFuzzer runs on one core);
# new inputs go to a scratch directory that is emptied first, so each run starts from the same seeds. Any crash, leak
# or timeout fails the step.
fuzz-libfuzzer: fuzz-build
	@quick() { t=$$1; work=$(FUZZ_SCRATCH)/quick/$$t; rm -rf $$work; mkdir -p $$work $(FUZZ_SCRATCH)/crashes; \
	  CONFTUI_FUZZ_TARGET=$$t $(FUZZ_ENV) timeout $$(( $(FUZZ_QUICK_SECONDS) + 120 )) $(FUZZ_BIN) $(FUZZ_OPTIONS) $$(case " $(NO_LEAK_CHECK) " in *" $$t "*) echo -detect_leaks=0;; esac) \
	    -max_total_time=$(FUZZ_QUICK_SECONDS) -artifact_prefix=$(FUZZ_SCRATCH)/crashes/$$t- \
	    $$work Tests/Fuzz/corpus/$$t > $(FUZZ_SCRATCH)/quick/$$t.log 2>&1; rc=$$?; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_SCRATCH)/quick/$$t.log); \
	  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(FUZZ_SCRATCH)/quick/$$t.log); \
	  printf "fuzz %-13s %10s runs %7s exec/s\n" $$t "$$runs" "$$rate"; \
	  if [ $$rc != 0 ]; then tail -40 $(FUZZ_SCRATCH)/quick/$$t.log; echo "fuzz $$t failed (exit $$rc): input in $(FUZZ_SCRATCH)/crashes/"; return 1; fi; }; \
	status=0; set -- $(FUZZ_TARGETS); \
	while [ $$# -gt 0 ]; do \
	  quick $$1 & first=$$!; second=; \
	  if [ $$# -gt 1 ]; then quick $$2 & second=$$!; fi; \
	  wait $$first || status=1; if [ -n "$$second" ]; then wait $$second || status=1; fi; \
	  shift; if [ $$# -gt 0 ]; then shift; fi; \
	done; exit $$status

# FUZZ_SECONDS per target (default 600); the corpus grows in .build/fuzz/corpus/TARGET across runs (the
# repository's seeds are read, never written), and the executions and exec/s of each target are printed at the end.
fuzz-long: fuzz-build
	@rm -f $(FUZZ_SCRATCH)/long-summary.txt; for t in $(FUZZ_TARGETS); do \
	  work=$(FUZZ_SCRATCH)/corpus/$$t; mkdir -p $$work $(FUZZ_SCRATCH)/crashes; \
	  CONFTUI_FUZZ_TARGET=$$t $(FUZZ_ENV) timeout $$(( $(FUZZ_SECONDS) + 300 )) $(FUZZ_BIN) $(FUZZ_OPTIONS) $$(case " $(NO_LEAK_CHECK) " in *" $$t "*) echo -detect_leaks=0;; esac) \
	    -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_SCRATCH)/crashes/$$t- \
	    $$work Tests/Fuzz/corpus/$$t > $(FUZZ_SCRATCH)/long-$$t.log 2>&1; rc=$$?; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_SCRATCH)/long-$$t.log); \
	  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(FUZZ_SCRATCH)/long-$$t.log); \
	  files=$$(ls $$work | wc -l); \
	  printf "fuzz %-13s %12s runs %7s exec/s %6s corpus files  exit %s\n" $$t "$$runs" "$$rate" $$files $$rc \
	    | tee -a $(FUZZ_SCRATCH)/long-summary.txt; \
	done; echo; cat $(FUZZ_SCRATCH)/long-summary.txt; ! grep -qv "exit 0$$" $(FUZZ_SCRATCH)/long-summary.txt

# The main job: a live room at once. An in-process server on a free loopback port, three synthetic participants
# over real WebRTC, and you; it prints the URL a browser on this machine can open to join. (`conftui demo
# --simulate 3` is the same screen without any network.) ARGS passes options, e.g. make run ARGS="--peers 5".
# The release build, the one users get: four real-time participants in one process leave a 2-core machine no CPU to
# spare for a debug build's unoptimised Swift (the Swift suites keep testing the debug build).
run: deps conftui-release
	$(BIN_RELEASE)/conftui demo $(ARGS)

# The renderer and network steps read the benchmark clips as Y4M from .build/clips, converted once from CLIPS_SRC
# (a folder holding the clips and their to-y4m.sh; see docs/bench-methods.md).
CLIPS_SRC ?= ../shared/bench
# Runs of each network bench row (the table gives medians; each full run takes about 9 minutes).
NETBENCH_REPEAT ?= 1
# Which steps to run, comma-separated (`make bench BENCH=renderer,media`; `.venv/bin/python
# Tests/Bench/write_benchmarks.py --list` names them); empty runs them all. Tests/Bench/write_benchmarks.py runs the
# steps, shows their output as it comes, and writes docs/benchmarks.md only when every step ran and passed; a subset,
# or a run with a failed step, writes bench-results/benchmarks.md and leaves docs/benchmarks.md as it was.
BENCH ?=
bench: deps bench-deb-deps release conftui-debug
	@mkdir -p bench-results
	@if [ -d $(CLIPS_SRC) ]; then sh $(CLIPS_SRC)/to-y4m.sh .build/clips; \
	else echo "note: $(CLIPS_SRC) not found: the renderer suite needs talkhead/talkhead_noise/testsrc2 .y4m in .build/clips (set CLIPS_SRC=DIR with to-y4m.sh)"; fi
	$(PY) Tests/Bench/write_benchmarks.py --bin $(BIN_RELEASE) --bin-debug $(BIN_DEBUG) --python $(PY) --clips $${CONFTUI_CLIPS:-.build/clips} \
	  --netbench-repeat $(NETBENCH_REPEAT) $(if $(BENCH),--steps $(BENCH))

# The README's pictures: the release binary's demo room in a 120x40 tmux, captured with its colours at each scene
# of Tests/Screenshots/make_screenshots.py (the grid, the statistics, the help) and drawn as PNGs into
# docs/screenshots/ (Tests/Screenshots/README.md). Rerun and commit them after a change to the screen.
screenshots: deps conftui-release
	$(PY) Tests/Screenshots/make_screenshots.py $(BIN_RELEASE)/conftui docs/screenshots

clean:
	rm -rf .build bench-results
