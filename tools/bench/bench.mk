# Benchmarks (tools/bench). `make bench`: replay vs raw libpcap throughput (docs/performance.md).
# Not part of CHECK: it measures, it does not test.
DEPS += gcc python3 util-linux
# tools/bench/http: the fan listener against nginx, loaded by wrk.
DEPS += wrk nginx-light curl

.PHONY: bench
bench: deps stamp
	tools/bench/ingest.sh
	SKIP_BUILD=1 tools/bench/http/run.sh
