# Grandstand build and test commands. `make check` is what CI runs; `make demo` shows the product.
# Each stage's fragment (cross/, tools/qemu/) appends its packages to DEPS and its stage to CHECK
# (or to a lane beside the host suite, CHECK_BESIDE_HOST, or beside the VM stage, CHECK_BESIDE and
# CHECK_BESIDE_IMAGE; tools/check.sh).
SHELL := /bin/bash
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=

# Debian packages the host build and tests need (headers of every C library the package links,
# plus the real peers the tests use).
DEPS := pkg-config libpcap-dev libgpiod-dev gpiod libsystemd-dev systemd libavcodec-dev libavutil-dev \
        libisal-dev libnl-genl-3-dev curl ffmpeg tshark tcpdump iproute2 chromium python3 \
        gstreamer1.0-tools gstreamer1.0-plugins-good \
        python3-zfec python3-venv python3-gi vlc-bin vlc-plugin-base \
        libsrt-openssl-dev srt-tools libcurl4-openssl-dev nginx openssl
CHECK := test-host test-browser
# Stages of the lanes (tools/check.sh): beside the host suite; beside the VM stage from its start,
# and once its inputs (image, packages) are built. The fragments append to them.
CHECK_BESIDE_HOST :=
CHECK_BESIDE :=
CHECK_BESIDE_IMAGE :=

.PHONY: all deps stamp build test test-host test-browser check clean demo fan-soak
all: build

-include cross/cross.mk
-include tools/qemu/vm.mk
-include tools/bench/bench.mk
-include tools/fuzz/fuzz.mk
-include packaging/package.mk
-include tools/soak/soak.mk

# A subset named on the command line runs alone (lane stages only when named too).
ifeq ($(origin CHECK),command line)
ifneq ($(origin CHECK_BESIDE_HOST),command line)
CHECK_BESIDE_HOST :=
endif
ifneq ($(origin CHECK_BESIDE),command line)
CHECK_BESIDE :=
endif
ifneq ($(origin CHECK_BESIDE_IMAGE),command line)
CHECK_BESIDE_IMAGE :=
endif
endif

deps:
	@tools/deps.sh $(DEPS)
	@tools/pydeps.sh

build: deps stamp
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

# Host tests (Swift Testing; `swift test` also runs XCTest cases, of which there are none).
# The fan app's Chromium suite runs on its own after the rest: it measures real-time playback
# (dropped frames, latency), which the other suites' parallel CPU load on a 2-core runner spoils.
# `make check` runs the two halves as stages: a lane builds the arm64 test bundle beside the
# first (tools/check.sh) and is done before the second.
test: test-host test-browser

test-host: deps stamp
	@tools/host-journald.sh
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --skip FanAppBrowserTests

test-browser: deps stamp
	@tools/host-journald.sh
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --filter FanAppBrowserTests

# The fan app's five-minute browser soak (1 % loss repaired by FEC, no stall; docs/fan-app.md).
# Not part of `make check`, whose host tests run the app's shorter Chromium tour.
fan-soak: deps stamp
	@tools/host-journald.sh
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	GRANDSTAND_FAN_SOAK=1 $(SWIFT) test --skip-build $(SWIFT_BUILD_FLAGS) --filter FanAppBrowserTests/fanAppDoesNotStallWithLossAndFEC

# Everything that exists: host tests, then each stage the fragments added (cross, qemu-user, VM),
# one after another, and the lane stages (builds, instruction counts, image structure) beside the
# host suite (CHECK_BESIDE_HOST) and the VM stage (CHECK_BESIDE, CHECK_BESIDE_IMAGE) at the lowest
# priority, where they use the CPU those stages leave idle (tools/check.sh). Each stage's wall
# time is printed, and the last line repeats them all, so the tail of a CI log shows where the 90
# minutes went. `make check CHECK="a b"` runs only those stages (lane stages only when their
# variable is named too).
check:
	@MAKE="$(MAKE)" CHECK="$(CHECK)" CHECK_BESIDE_HOST="$(CHECK_BESIDE_HOST)" CHECK_HOST_OF=test-host \
	  CHECK_BESIDE="$(CHECK_BESIDE)" CHECK_BESIDE_IMAGE="$(CHECK_BESIDE_IMAGE)" CHECK_BESIDE_OF=test-vm tools/check.sh

clean:
	rm -rf .build

# The product in one command: an embedded streamer loops tools/samples/clean.ts as three channels
# on loopback multicast, the gateway captures them on lo (root or CAP_NET_RAW) and serves them.
# Extra options: make demo DEMO_ARGS="--fan 0.0.0.0:8080 --drop-rate 0.001".
DEMO_ARGS ?=
demo: deps stamp
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)
	"$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/grandstand" demo $(DEMO_ARGS)

# Version and commit compiled into the binary (`grandstand version`).
stamp:
	@tools/build-stamp.sh
