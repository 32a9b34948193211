#!/usr/bin/env bash
# Runs a cross-built test bundle (PackageTests.xctest) under qemu-user, the way `swift test` does
# on a host: XCTest cases first, then Swift Testing (--testing-library swift-testing).
#   tools/qemu/user/test-suite.sh BUNDLE [SWIFT-TESTING ARGS...]   (e.g. --filter CaptureTests)
# Prints both summaries and the failed tests; exits non-zero if either run failed or timed out.
# ARM64_TEST_TIMEOUT (seconds, default 1500) bounds each run; ARM64_TEST_LOG names the log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?usage: $0 BUNDLE [ARGS...]}; shift
[ -x "$bundle" ] || { echo "test-arm64: no test bundle at $bundle" >&2; exit 2; }
timeout_s=${ARM64_TEST_TIMEOUT:-1500}
log=${ARM64_TEST_LOG:-$(dirname "$bundle")/test-arm64.log}
: > "$log"

# Run one library's tests; echo its exit status (output goes to the terminal and the log).
run() {
    local name=$1; shift
    local t0=$SECONDS rc
    echo "=== $name under qemu-aarch64 ===" | tee -a "$log"
    timeout -k 30 "$timeout_s" "$here/run" "$bundle" "$@" 2>&1 | tee -a "$log"
    rc=${PIPESTATUS[0]}
    [ "$rc" -ne 124 ] || echo "test-arm64: $name timed out after $timeout_s s" | tee -a "$log"
    echo "=== $name: exit $rc in $((SECONDS - t0)) s ===" | tee -a "$log"
    return "$rc"
}

t0=$SECONDS
run XCTest; xc=$?
run "Swift Testing" --testing-library swift-testing "$@"; st=$?
# Swift Testing exits 69 (EX_UNAVAILABLE) when no test matched; `swift test` accepts that too.
st_note=""
if [ "$st" -eq 69 ]; then st=0; st_note=" (no Swift Testing tests found)"; fi

# Summaries from a copy of the log without colour escapes.
plain=$log.plain
sed 's/\x1b\[[0-9;]*m//g' "$log" > "$plain"
echo
echo "=== test-arm64 summary ($((SECONDS - t0)) s under qemu-user; log: $log) ==="
grep -a 'Executed [0-9]* tests\?' "$plain" | tail -1 | sed 's/^[[:space:]]*/XCTest:        /'
grep -a -E '(✔|✘) Test run with' "$plain" | tail -1 | sed 's/^/Swift Testing: /'
echo "Swift Testing exit: $st$st_note; XCTest exit: $xc"
failed=$(grep -a -E "^✘ (Test|Suite) .* (failed|recorded an issue)|Test Case .* failed|error: " "$plain" | grep -av 'Test run with' || true)
if [ -n "$failed" ]; then
    echo "Failures:"
    printf '%s\n' "$failed" | sed 's/^/  /' | head -100
fi
# A crash (signal, timeout) leaves no verdict for the tests that were running: name them.
if [ "$st" -gt 1 ]; then
    echo "Swift Testing did not finish; tests started without a result:"
    awk '/^◇ Test .* started\.$/ { t = $0; sub(/^◇ Test /, "", t); sub(/ started\.$/, "", t); if (t != "run") open[t] = 1 }
         /^[✔✘] Test / { t = $0; sub(/^[✔✘] Test /, "", t); sub(/ (passed|failed).*$/, "", t); delete open[t] }
         END { for (t in open) print "  " t }' "$plain"
fi
[ "$xc" -eq 0 ] && [ "$st" -eq 0 ]
