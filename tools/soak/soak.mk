# Soak (tools/soak, docs/reliability.md "Soak"): the live daemon with 4 FEC channels under loss
# and faults and HTTP players, sampled into CSV and a markdown summary with growth after warm-up.
# `make soak SOAK_SECONDS=N` (default an hour); `soak-check` (in CHECK) runs a 3-minute one (half of it warm-up) and
# fails on a crash, RSS/FD growth over SOAK_CHECK_GROWTH % after warm-up, or client errors.
DEPS += python3 curl ffmpeg iproute2

SOAK_SECONDS ?= 3600
SOAK_CHECK_SECONDS ?= 180
SOAK_CHECK_WARMUP ?= 90
SOAK_CHECK_GROWTH ?= 10
SOAK_DIR ?= $(CURDIR)/.build-soak
SOAK_BINARY = "$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/grandstand"

.PHONY: soak soak-check
CHECK += soak-check

soak: deps stamp
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)
	tools/soak/soak.sh --binary $(SOAK_BINARY) --seconds $(SOAK_SECONDS) --out $(SOAK_DIR)/soak-$(SOAK_SECONDS)s

soak-check: deps stamp
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)
	tools/soak/soak.sh --binary $(SOAK_BINARY) --seconds $(SOAK_CHECK_SECONDS) --interval 3 \
	    --max-growth $(SOAK_CHECK_GROWTH) --warmup $(SOAK_CHECK_WARMUP) --assert --out $(SOAK_DIR)/check
