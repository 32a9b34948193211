# Benchmarks (tools/bench). `make bench`: replay vs raw libpcap throughput (docs/performance.md).
# Not part of CHECK: it measures, it does not test.
DEPS += gcc python3 util-linux

.PHONY: bench
bench: deps stamp
	tools/bench/ingest.sh
