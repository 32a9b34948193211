#!/usr/bin/env bash
# `make check` (Makefile): the stages of CHECK one after another, and lanes beside two of them at
# the lowest CPU and I/O priority:
#   CHECK_BESIDE_HOST    beside the host suite (CHECK_HOST_OF, test-host): the arm64 toolchain and
#                        test bundle (test-arm64-inputs); test-arm64 then only runs the suite
#   CHECK_BESIDE         start with the VM stage (CHECK_BESIDE_OF, test-vm): the fuzz build, perf
#   CHECK_BESIDE_IMAGE   start once the VM stage's inputs are built (image-check copies the
#                        common root tree, deb-check-arm64 reads the arm64 package)
# The VM stage runs then as STAGE-inputs and STAGE-run (tools/qemu/vm.mk).
# On a 2-core runner the host suite leaves more than a core idle (its tests wait on sockets,
# processes and timers), the VM stage one while it builds the common root tree (mmdebstrap, one
# process at a time) and much of both while the booted VM waits (boots, timers, LED patterns, the
# rollback's minute). The lanes fill that time instead of running after it; none of their results
# depends on load (builds, callgrind counts, image structure). nice 19, for the lane's autogroup
# as well as its tasks, gives them 1.5 % of a core the stage wants (CFS weights 15 against 1024).
# Every stage's wall time is printed; the last line repeats them all (a CI log's tail shows where
# the time went), also when a stage fails. A stage's lanes are waited for when it ends (the stages
# after it need what they built); without their stage in CHECK, lane stages run after the others.
#   tools/check.sh               (MAKE, CHECK, CHECK_BESIDE_HOST, CHECK_HOST_OF, CHECK_BESIDE,
#                                 CHECK_BESIDE_IMAGE, CHECK_BESIDE_OF, CHECK_LOGS from make)
#   tools/check.sh --lane S...   one lane (its own process group: a failure elsewhere ends it)
set -uo pipefail
make=${MAKE:-make}
logs=${CHECK_LOGS:-.build-check}

if [ "${1:-}" = --lane ]; then
    shift
    # The lane is a session of its own (setsid), and with the scheduler's autogroups (Debian's
    # default, sched_autogroup_enabled) each session shares the CPU as one group whatever its
    # tasks' nice: the group itself gets nice 19 here. Without this a lane took half the cores
    # (measured 2026-11-28: the host build beside the arm64 lane 420 s instead of 244 s; two
    # busy loops at nice 19 in their own session got as many cycles as two at nice 0, and 2 %
    # of them with the group's nice set).
    echo 19 > /proc/self/autogroup 2>/dev/null || true
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
read -r -a host <<< "${CHECK_BESIDE_HOST:-}"
read -r -a early <<< "${CHECK_BESIDE:-}"
read -r -a late <<< "${CHECK_BESIDE_IMAGE:-}"
host_anchor=${CHECK_HOST_OF:-test-host}
anchor=${CHECK_BESIDE_OF:-test-vm}
total=$(date +%s)
times=
lanes=()
beside=()
mkdir -p "$logs"
rm -f "$logs/lanes" "$logs"/*.log

# Starts a lane of stages (beside the stage $1) in the background, in its own process group.
start_lane() {
    local of=$1
    shift
    [ $# -gt 0 ] || return 0
    setsid "$0" --lane "$@" &
    lanes+=("$!")
    beside+=("$@")
    echo "check: $* beside $of (logs in $logs/)"
}

# The lanes' outcome (beside the stage $1): their logs (in full: the CI log keeps everything) and
# their stages' times.
collect_lanes() {
    local of=$1 waited=$(date +%s) stage ok took failed= pid
    for pid in "${lanes[@]}"; do wait "$pid"; done
    lanes=()
    waited=$(( $(date +%s) - waited ))
    for stage in "${beside[@]}"; do
        [ -f "$logs/$stage.log" ] || continue
        echo "check: ---- $stage (beside $of), $logs/$stage.log"
        cat "$logs/$stage.log"
    done
    while read -r stage ok took; do
        echo "check: stage $stage ($ok, beside $of) took $took s"
        times="$times $stage $took s beside,"
        [ "$ok" = ok ] || failed=$stage
    done < <(cat "$logs/lanes" 2>/dev/null)
    # A lane that died (killed, out of memory) left stages without a line: those failed too.
    for stage in "${beside[@]}"; do
        [ -n "$failed" ] || grep -q "^$stage ok " "$logs/lanes" 2>/dev/null || failed="$stage (did not finish)"
    done
    times="$times waited for the lanes $waited s,"
    beside=()
    rm -f "$logs/lanes"
    [ -z "$failed" ] || { finish "$failed FAILED beside $of"; exit 1; }
}

finish() {
    local elapsed=$(( $(date +%s) - total ))
    if [ -n "${1:-}" ]; then
        echo "check: stage $1" >&2
        echo "check: stage times:$times $1; total $elapsed s" >&2
    else
        echo "check: all stages (${sequential[*]}; beside: ${host[*]} ${early[*]} ${late[*]}) passed in $elapsed s"
        echo "check: stage times:$times total $elapsed s"
    fi
}

# Ends the lanes' process groups when a stage fails or make is interrupted.
stop_lanes() { local pid; for pid in "${lanes[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done; }
trap 'stop_lanes' EXIT

failed_stage() { finish "$1 FAILED $(( $(date +%s) - $2 )) s"; exit 1; }

# The machine's CPU ticks, busy and all (/proc/stat's first line): a stage's busy share says
# whether a lane beside it would have room (idle cores) or only slow it (docs/flashing.md).
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }
busy_since() {
    local busy0=$1 all0=$2 busy all
    read -r busy all < <(cpu_ticks)
    echo "$(( all > all0 ? 100 * (busy - busy0) / (all - all0) : 0 ))"
}

run_stage() {
    local stage=$1 start=$(date +%s) busy0 all0
    read -r busy0 all0 < <(cpu_ticks)
    if [ "$stage" = "$anchor" ] && [ $(( ${#early[@]} + ${#late[@]} )) -gt 0 ]; then
        start_lane "$stage" "${early[@]}"
        # The VM stage's own inputs (image, packages, host build) at full priority, then the
        # lane that needs them.
        "$make" --no-print-directory "$stage-inputs" || failed_stage "$stage" "$start"
        start_lane "$stage" "${late[@]}"
        "$make" --no-print-directory "$stage-run" || failed_stage "$stage" "$start"
    else
        [ "$stage" != "$host_anchor" ] || start_lane "$stage" "${host[@]}"
        "$make" --no-print-directory "$stage" || failed_stage "$stage" "$start"
    fi
    local took=$(( $(date +%s) - start )) busy
    busy=$(busy_since "$busy0" "$all0")
    echo "check: stage $stage took $took s (CPU $busy % busy)"
    times="$times $stage $took s ($busy %),"
    # The stages after this one may need what its lanes built (test-arm64 its test bundle,
    # fuzz-check its binaries).
    [ ${#lanes[@]} -eq 0 ] || collect_lanes "$stage"
}

# Every stage depends on `deps stamp` (apt packages, the build stamp): made once here, before any
# lane could run apt or write the stamp beside a stage doing the same.
if [ $(( ${#host[@]} + ${#early[@]} + ${#late[@]} )) -gt 0 ]; then
    "$make" --no-print-directory deps stamp || { finish "deps FAILED"; exit 1; }
fi
ran_host= ran_vm=
for stage in "${sequential[@]}"; do
    [ "$stage" != "$host_anchor" ] || ran_host=1
    [ "$stage" != "$anchor" ] || ran_vm=1
    run_stage "$stage"
done
[ -n "$ran_host" ] || for stage in "${host[@]}"; do run_stage "$stage"; done
[ -n "$ran_vm" ] || for stage in "${early[@]}" "${late[@]}"; do run_stage "$stage"; done
finish
