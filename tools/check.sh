#!/usr/bin/env bash
# `make check` (Makefile): the stages of CHECK one after another, and beside the VM stage
# (CHECK_BESIDE_OF, test-vm) two lanes at the lowest CPU and I/O priority:
#   CHECK_BESIDE         start with the VM stage (they need nothing of it: the fuzz build, perf)
#   CHECK_BESIDE_IMAGE   start once the VM stage's inputs are built (image-check copies the
#                        common root tree, deb-check-arm64 reads the arm64 package)
# The VM stage runs then as STAGE-inputs and STAGE-run (tools/qemu/vm.mk).
# On a 2-core runner the VM stage leaves a core idle while it builds the common root tree
# (mmdebstrap, one process at a time) and much of both while the booted VM waits (boots, timers,
# LED patterns, the rollback's minute). Those stages fill that time instead of running after it;
# none of their results depends on load (builds, callgrind counts, image structure). nice 19 gives
# them 1.5 % of a core the VM wants (CFS weights 15 against 1024), as the test bundles the VM
# harness builds beside it have always had.
# Every stage's wall time is printed; the last line repeats them all (a CI log's tail shows where
# the time went), also when a stage fails. The lanes are waited for when the VM stage ends (the
# stages after it may need what they built); without the VM stage in CHECK, their stages run
# after the others.
#   tools/check.sh               (MAKE, CHECK, CHECK_BESIDE, CHECK_BESIDE_IMAGE, CHECK_BESIDE_OF,
#                                 CHECK_LOGS from make)
#   tools/check.sh --lane S...   one lane (its own process group: a failure elsewhere ends it)
set -uo pipefail
make=${MAKE:-make}
logs=${CHECK_LOGS:-.build-check}

if [ "${1:-}" = --lane ]; then
    shift
    idle=(nice -n 19)
    ! ionice -c 3 true 2>/dev/null || idle+=(ionice -c 3)
    for stage in "$@"; do
        start=$(date +%s)
        if "${idle[@]}" "$make" --no-print-directory "$stage" > "$logs/$stage.log" 2>&1; then ok=ok; else ok=FAILED; fi
        echo "$stage $ok $(( $(date +%s) - start ))" >> "$logs/lanes"
        [ "$ok" = ok ] || exit 1
    done
    exit 0
fi

read -r -a sequential <<< "${CHECK:-}"
read -r -a early <<< "${CHECK_BESIDE:-}"
read -r -a late <<< "${CHECK_BESIDE_IMAGE:-}"
beside=("${early[@]}" "${late[@]}")
anchor=${CHECK_BESIDE_OF:-test-vm}
total=$(date +%s)
times=
lanes=()
mkdir -p "$logs"
rm -f "$logs/lanes" "$logs"/*.log

# Starts a lane of stages in the background, in its own process group.
start_lane() {
    [ $# -gt 0 ] || return 0
    setsid "$0" --lane "$@" &
    lanes+=("$!")
    echo "check: $* beside $anchor (logs in $logs/)"
}

# The lanes' outcome: their logs (in full: the CI log keeps everything) and their stages' times.
collect_lanes() {
    local waited=$(date +%s) stage ok took failed= pid
    for pid in "${lanes[@]}"; do wait "$pid"; done
    lanes=()
    waited=$(( $(date +%s) - waited ))
    for stage in "${beside[@]}"; do
        [ -f "$logs/$stage.log" ] || continue
        echo "check: ---- $stage (beside $anchor), $logs/$stage.log"
        cat "$logs/$stage.log"
    done
    while read -r stage ok took; do
        echo "check: stage $stage ($ok, beside $anchor) took $took s"
        times="$times $stage $took s beside,"
        [ "$ok" = ok ] || failed=$stage
    done < <(cat "$logs/lanes" 2>/dev/null)
    # A lane that died (killed, out of memory) left stages without a line: those failed too.
    for stage in "${beside[@]}"; do
        [ -n "$failed" ] || grep -q "^$stage ok " "$logs/lanes" 2>/dev/null || failed="$stage (did not finish)"
    done
    times="$times waited for the lanes $waited s,"
    [ -z "$failed" ] || { finish "$failed FAILED beside $anchor"; exit 1; }
}

finish() {
    local elapsed=$(( $(date +%s) - total ))
    if [ -n "${1:-}" ]; then
        echo "check: stage $1" >&2
        echo "check: stage times:$times $1; total $elapsed s" >&2
    else
        echo "check: all stages (${sequential[*]}; beside: ${beside[*]:-none}) passed in $elapsed s"
        echo "check: stage times:$times total $elapsed s"
    fi
}

# Ends the lanes' process groups when a stage fails or make is interrupted.
stop_lanes() { local pid; for pid in "${lanes[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done; }
trap 'stop_lanes' EXIT

failed_stage() { finish "$1 FAILED $(( $(date +%s) - $2 )) s"; exit 1; }

run_stage() {
    local stage=$1 start=$(date +%s)
    if [ "$stage" = "$anchor" ] && [ ${#beside[@]} -gt 0 ]; then
        start_lane "${early[@]}"
        # The VM stage's own inputs (image, packages, host build) at full priority, then the
        # lane that needs them.
        "$make" --no-print-directory "$stage-inputs" || failed_stage "$stage" "$start"
        start_lane "${late[@]}"
        "$make" --no-print-directory "$stage-run" || failed_stage "$stage" "$start"
    else
        "$make" --no-print-directory "$stage" || failed_stage "$stage" "$start"
    fi
    local took=$(( $(date +%s) - start ))
    echo "check: stage $stage took $took s"
    times="$times $stage $took s,"
    # The stages after the VM's may need what the lanes build (fuzz-check its binaries).
    [ ${#lanes[@]} -eq 0 ] || collect_lanes
}

ran_lanes=
for stage in "${sequential[@]}"; do
    [ "$stage" != "$anchor" ] || ran_lanes=1
    run_stage "$stage"
done
if [ -z "$ran_lanes" ]; then
    for stage in "${beside[@]}"; do run_stage "$stage"; done
fi
finish
