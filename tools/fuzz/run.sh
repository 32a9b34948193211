#!/usr/bin/env bash
# Runs each fuzz target for SECONDS (libFuzzer -max_total_time) from its seeds plus the corpus
# it grew before (FUZZ_DIR/corpus/<target>), then prints one summary row per target.
# Exit status: non-zero when any target crashed, leaked or timed out (inputs in FUZZ_DIR/artifacts).
# usage: run.sh FUZZ_DIR SECONDS TARGET...
set -uo pipefail
dir=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
failed=()
rows=()
for target in "$@"; do
    mkdir -p "$dir/corpus/$target" "$dir/artifacts/$target" "$dir/logs" "$dir/seeds/$target"
    dict=()
    [[ -f $here/dict/$target.dict ]] && dict=(-dict="$here/dict/$target.dict")
    log=$dir/logs/$target.log
    # -timeout: one input over 10 s is a hang; -rss_limit_mb bounds memory; leaks are reported by ASan.
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    "$dir/bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$dir/artifacts/$target/" "${dict[@]}" \
        "$dir/corpus/$target" "$dir/seeds/$target" >"$log" 2>&1
    status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | tail -1 | cut -d' ' -f2)
    ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | tail -1 | cut -d' ' -f2)
    corp=$(grep -oE 'corp: [0-9]+' <<<"$last" | tail -1 | cut -d' ' -f2)
    result=ok
    if (( status != 0 )); then
        result="FAILED ($(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+[^ ]*|fuzz property violated: .*|Fatal error: .*|ERROR: libFuzzer: [a-z-]+' "$log" || echo "exit $status"))"
        failed+=("$target")
    fi
    rows+=("| $target | ${seconds} | ${execs:-?} | ${speed:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $result |")
    echo "fuzz $target: ${execs:-?} execs, ${speed:-?}/s, cov ${cov:-?}, ft ${ft:-?}: $result (log $log)"
done
echo
echo "| target | seconds | executions | execs/s | coverage (cov) | features (ft) | corpus | result |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if (( ${#failed[@]} )); then
    echo "fuzz: crashes/leaks/timeouts in: ${failed[*]} — reproduce with $dir/bin/<target> $dir/artifacts/<target>/<file>" >&2
    for target in "${failed[@]}"; do tail -40 "$dir/logs/$target.log" >&2; done
    exit 1
fi
