#!/usr/bin/env bash
# `make check` (Makefile): the stages of CHECK one after another, and the stages of CHECK_BESIDE
# in a lane beside the VM stage (CHECK_BESIDE_OF, test-vm) at the lowest CPU and I/O priority.
# The booted VM waits a good part of its stage (boots, timers, LED patterns, the rollback's
# minute), and on a 2-core runner those stages (builds, callgrind counts, image structure: nothing
# whose result depends on load) fill that idle time instead of running after it. nice 19 gives the
# lane 1.5 % of a core the VM wants (CFS weights 15 against 1024), so the VM's timing checks see
# the load they saw before, as with the test bundles tools/qemu/vm builds beside it.
# Every stage's wall time is printed; the last line repeats them all (a CI log's tail shows where
# the time went), also when a stage fails. The lane is waited for when the VM stage ends (the
# stages after it may need what it built); without the VM stage in CHECK, the CHECK_BESIDE stages
# run after the others.
#   tools/check.sh               (MAKE, CHECK, CHECK_BESIDE, CHECK_BESIDE_OF, CHECK_LOGS from make)
#   tools/check.sh --lane S...   the lane itself (its own process group: a failure elsewhere ends it)
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
        echo "$stage $ok $(( $(date +%s) - start ))" >> "$logs/lane"
        [ "$ok" = ok ] || exit 1
    done
    exit 0
fi

read -r -a sequential <<< "${CHECK:-}"
read -r -a beside <<< "${CHECK_BESIDE:-}"
anchor=${CHECK_BESIDE_OF:-test-vm}
total=$(date +%s)
times=
lane=
mkdir -p "$logs"
rm -f "$logs/lane" "$logs"/*.log

# The lane's outcome: its logs (in full: the CI log keeps everything) and its stages' times.
collect_lane() {
    local waited=$(date +%s) stage ok took failed=
    wait "$lane"
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
    done < <(cat "$logs/lane" 2>/dev/null)
    # A lane that died (killed, out of memory) left stages without a line: those failed too.
    for stage in "${beside[@]}"; do
        [ -n "$failed" ] || grep -q "^$stage ok " "$logs/lane" 2>/dev/null || failed="$stage (did not finish)"
    done
    times="$times waited for the lane $waited s,"
    lane=
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

# Ends the lane's process group when a stage fails or make is interrupted.
stop_lane() { [ -z "$lane" ] || kill -TERM -- "-$lane" 2>/dev/null; }
trap 'stop_lane' EXIT

run_stage() {
    local stage=$1 start=$(date +%s) took
    if [ "$stage" = "$anchor" ] && [ ${#beside[@]} -gt 0 ]; then
        # The VM stage's own builds first (image, packages, host build), at full priority; the
        # lane starts once the VM's inputs are on disk.
        "$make" --no-print-directory "$stage-inputs" || { took=$(( $(date +%s) - start )); finish "$stage FAILED $took s"; exit 1; }
        setsid "$0" --lane "${beside[@]}" &
        lane=$!
        echo "check: ${beside[*]} beside $stage (logs in $logs/)"
    fi
    if "$make" --no-print-directory "$stage"; then
        took=$(( $(date +%s) - start ))
        echo "check: stage $stage took $took s"
        times="$times $stage $took s,"
        # The stages after the VM's may need what the lane builds (fuzz-check its binaries).
        [ -z "$lane" ] || collect_lane
    else
        took=$(( $(date +%s) - start ))
        finish "$stage FAILED $took s"
        exit 1
    fi
}

ran_lane=
for stage in "${sequential[@]}"; do
    [ "$stage" != "$anchor" ] || ran_lane=1
    run_stage "$stage"
done
if [ -z "$ran_lane" ]; then
    for stage in "${beside[@]}"; do run_stage "$stage"; done
fi
finish
