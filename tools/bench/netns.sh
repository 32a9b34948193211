# Sourced by the live benchmarks (hls/latency.sh, memory/run.sh): a private network namespace
# with lo up, and one exit trap that stops $send_pid and $run_pid and removes the namespace and
# the work folder.   usage: bench_netns PREFIX WORK   (sets $ns and $work)
bench_cleanup() {
    [ -n "${send_pid:-}" ] && kill "$send_pid" 2>/dev/null || true
    [ -n "${run_pid:-}" ] && kill "$run_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    [ -n "${KEEP_WORK:-}" ] && cp "$work"/*.log "$KEEP_WORK"/ 2>/dev/null; rm -rf "$work"
}

bench_netns() {
    ns=$1-$$
    work=$2
    trap bench_cleanup EXIT
    ip netns add "$ns"
    ip -n "$ns" link set lo up
}
