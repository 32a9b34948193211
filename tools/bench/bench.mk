# Benchmarks (tools/bench; tools/bench/README.md lists them). `make bench`: ingest (the packet path
# and replay against raw libpcap) and HTTP throughput (docs/performance.md). Not part of CHECK:
# timings measure, they do not test.
DEPS += gcc python3 util-linux
# tools/bench/http: the fan listener against nginx, loaded by wrk.
DEPS += wrk nginx-light curl
# tools/bench/instructions: the instruction-count guard (`make perf-check`, a stage of `make
# check`): callgrind counts of the hot paths against tools/bench/instructions/baseline.tsv; a
# regression beyond the tolerance fails. Counts do not depend on load, so it can be a test.
DEPS += valgrind
# In the lane beside the VM stage (tools/check.sh): counts do not depend on load.
CHECK_BESIDE += perf-check

.PHONY: bench perf-check
bench: deps stamp
	tools/bench/ingest.sh
	SKIP_BUILD=1 tools/bench/http/run.sh

# UPDATE=1 make perf-check rewrites the baseline (an intended change; commit it with the reason).
perf-check: deps
	SWIFT="$(SWIFT)" tools/bench/instructions/check.sh
