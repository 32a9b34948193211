# libFuzzer targets for the pure core's parsers (tools/fuzz, docs/reliability.md "Fuzzing").
# GrandstandCore is compiled once with -sanitize=fuzzer,address into a static library; each
# target is one harness (tools/fuzz/targets/<name>.swift) plus Support.swift linked against it.
# `make fuzz FUZZ_SECONDS=N` runs each target N seconds; `make fuzz-check` (in CHECK) runs them
# all within FUZZ_CHECK_SECONDS in total and fails on any crash, leak or timeout.
DEPS += python3

FUZZ_DIR ?= $(CURDIR)/.build-fuzz
FUZZ_SWIFTC ?= $(or $(shell command -v swiftc 2>/dev/null),/opt/swift/usr/bin/swiftc)
FUZZ_FLAGS ?= -parse-as-library -sanitize=fuzzer,address -O -g
# Every harness in tools/fuzz/targets is a target.
FUZZ_TARGETS ?= $(sort $(basename $(notdir $(wildcard tools/fuzz/targets/*.swift))))
FUZZ_SECONDS ?= 60
FUZZ_CHECK_SECONDS ?= 60
FUZZ_CORE_SOURCES := $(sort $(shell find Sources/GrandstandCore -name '*.swift'))
FUZZ_SHARED := $(sort $(wildcard tools/fuzz/*.swift))
FUZZ_BINARIES := $(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-check fuzz-build fuzz-seeds
# The build (a sanitized core, a binary per target) and then the timed fuzzing in the lane
# beside the VM stage (tools/check.sh), while the stage builds its root tree (one emulated dpkg
# at a time, a core left): the fuzzing counts executions, not speed, so the lane's low priority
# costs it only executions (a hang is still one input over -timeout's 10 s).
CHECK_BESIDE += fuzz-build fuzz-check

fuzz-build: $(FUZZ_BINARIES) fuzz-seeds

$(FUZZ_DIR)/lib/libGrandstandCore.a: $(FUZZ_CORE_SOURCES) tools/fuzz/fuzz.mk
	@mkdir -p $(FUZZ_DIR)/lib
	@echo "fuzz: compiling GrandstandCore with $(FUZZ_FLAGS)"
	@cd $(FUZZ_DIR)/lib && $(FUZZ_SWIFTC) $(FUZZ_FLAGS) -enable-testing -suppress-warnings -module-name GrandstandCore \
	    -emit-library -static -emit-module -emit-module-path GrandstandCore.swiftmodule -o libGrandstandCore.a \
	    $(addprefix $(CURDIR)/,$(FUZZ_CORE_SOURCES))

$(FUZZ_DIR)/bin/%: tools/fuzz/targets/%.swift $(FUZZ_SHARED) $(FUZZ_DIR)/lib/libGrandstandCore.a
	@mkdir -p $(FUZZ_DIR)/bin $(FUZZ_DIR)/obj/$*
	@echo "fuzz: linking $@"
	@set -o pipefail; cd $(FUZZ_DIR)/obj/$* && $(FUZZ_SWIFTC) $(FUZZ_FLAGS) -module-name Fuzz_$* -I $(FUZZ_DIR)/lib \
	    $(addprefix $(CURDIR)/,$(FUZZ_SHARED)) $(CURDIR)/tools/fuzz/targets/$*.swift \
	    $(FUZZ_DIR)/lib/libGrandstandCore.a -o $@ 2>&1 | { grep -v 'Cannot export local symbol' || true; }

# Seeds come from Tests/Fixtures (and the regression inputs in Tests/Fixtures/fuzz) every time.
fuzz-seeds: deps
	@rm -rf $(FUZZ_DIR)/seeds && python3 tools/fuzz/seeds.py Tests/Fixtures $(FUZZ_DIR)/seeds

fuzz: deps fuzz-build
	tools/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-check: deps fuzz-build
	tools/fuzz/run.sh $(FUZZ_DIR) $$(( $(FUZZ_CHECK_SECONDS) / $(words $(FUZZ_TARGETS)) )) $(FUZZ_TARGETS)
