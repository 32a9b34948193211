#!/usr/bin/env bash
# Instruction-count guard (issue 19; docs/performance.md, "Instruction-count guard"): builds
# `perf-guard` (release), runs each of its cases under callgrind collecting only the measured
# section (`--collect-atstart=no --toggle-collect='*callgrindMeasuredSection*'`), divides the
# instructions by the units the case handled and compares them with baseline.tsv. Prints a table
# (measured, baseline, ratio) and exits 1 when a case costs more than its baseline plus its
# tolerance. Instruction counts do not depend on the machine's load, and with
# SWIFT_DETERMINISTIC_HASHING=1 two runs of one build give the same count.
#
# Environment:
#   UPDATE=1        write the measured values into baseline.tsv (an intended change; commit it
#                   with the change and say why in the commit message); tolerances and notes stay
#   CASES="a b"     only these cases (default: every case perf-guard lists)
#   SKIP_BUILD=1    use the existing release build
#   SWIFT           the swift driver (default swift)
#   KEEP=DIR        keep the callgrind files in DIR (read them with callgrind_annotate)
# Exit status: 0 within tolerance (or updated), 1 regression, 2 setup problem.
set -euo pipefail
cd "$(dirname "$0")/../../.."

SWIFT=${SWIFT:-swift}
BASELINE=tools/bench/instructions/baseline.tsv
DEFAULT_TOLERANCE=10
TOGGLE='*callgrindMeasuredSection*'

command -v valgrind >/dev/null || { echo "perf-check: valgrind is not installed (make deps)" >&2; exit 2; }
started=$(date +%s)
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    echo "== release build of perf-guard" >&2
    "$SWIFT" build -c release --product perf-guard >&2
fi
BIN="$("$SWIFT" build -c release --show-bin-path)/perf-guard"
[[ -x "$BIN" ]] || { echo "perf-check: no release binary at $BIN" >&2; exit 2; }
built=$(date +%s)
# The measured section must exist as a function of its own, or callgrind collects nothing.
nm "$BIN" | grep 'callgrindMeasuredSection' >/dev/null || { echo "perf-check: no callgrindMeasuredSection symbol in $BIN (inlined or renamed?)" >&2; exit 2; }

if [[ -n "${KEEP:-}" ]]; then
    WORK=$KEEP
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi

ARCH=$(uname -m)
# (awk reads its whole input: a `head` closing the pipe early would fail it under pipefail)
SWIFT_VERSION=$("$SWIFT" --version 2>&1 | awk '/Swift version/ && !v { v = $0; sub(/.*Swift version /, "", v); sub(/ .*/, "", v) } END { print v }')
VALGRIND_VERSION=$(valgrind --version)
LIBC_VERSION=$(ldd --version 2>&1 | awk 'NR == 1 { print $NF }')

# The baseline: "# toolchain: ..." header line, then case, unit, instructions per unit,
# tolerance in percent, note (tab-separated; "-" for a placeholder without a number).
declare -A BASE TOL NOTE UNIT
ORDER=()
BASE_ARCH="" BASE_TOOLCHAIN=""
if [[ -f "$BASELINE" ]]; then
    while IFS=$'\t' read -r name unit value tolerance note; do
        [[ -z "$name" ]] && continue
        if [[ "$name" == "# toolchain:"* ]]; then
            BASE_TOOLCHAIN=${name#\# toolchain: }
            BASE_ARCH=${BASE_TOOLCHAIN%% *}
            continue
        fi
        [[ "$name" == \#* ]] && continue
        ORDER+=("$name")
        UNIT[$name]=$unit BASE[$name]=$value TOL[$name]=$tolerance NOTE[$name]=${note:-}
    done < "$BASELINE"
fi
TOOLCHAIN="$ARCH swift-$SWIFT_VERSION $VALGRIND_VERSION glibc-$LIBC_VERSION"
if [[ "${UPDATE:-0}" != 1 && -n "$BASE_ARCH" && "$BASE_ARCH" != "$ARCH" ]]; then
    echo "perf-check: the baseline was recorded on $BASE_ARCH, this is $ARCH: counts are not comparable." >&2
    echo "            Record one for this machine with UPDATE=1 (and keep it out of the shared baseline)." >&2
    exit 2
fi
if [[ -n "$BASE_TOOLCHAIN" && "$BASE_TOOLCHAIN" != "$TOOLCHAIN" ]]; then
    echo "perf-check: note: baseline from $BASE_TOOLCHAIN, measuring with $TOOLCHAIN" >&2
    echo "            (another compiler or C library moves the counts by itself)" >&2
fi

mapfile -t LISTED < <("$BIN" list)
CASE_NAMES=()
for line in "${LISTED[@]}"; do
    name=${line%% *}
    UNIT[$name]=${line#* }
    if [[ -z "${CASES:-}" || " $CASES " == *" $name "* ]]; then CASE_NAMES+=("$name"); fi
done

declare -A MEASURED
for name in "${CASE_NAMES[@]}"; do
    out="$WORK/$name.callgrind"
    if ! SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
            --collect-atstart=no --toggle-collect="$TOGGLE" "$BIN" run "$name" > "$WORK/$name.stdout" 2> "$WORK/$name.stderr"; then
        echo "perf-check: $name failed under callgrind:" >&2
        tail -20 "$WORK/$name.stderr" >&2
        exit 2
    fi
    total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
    units=$(sed -n 's/.* units=\([0-9]*\).*/\1/p' "$WORK/$name.stdout")
    if [[ -z "$total" || "$total" -eq 0 || -z "$units" || "$units" -eq 0 ]]; then
        echo "perf-check: $name: no instructions collected ($total) or no units ($units)" >&2
        exit 2
    fi
    MEASURED[$name]=$(awk -v t="$total" -v u="$units" 'BEGIN { printf "%.1f", t / u }')
done

# The table, in baseline order, then cases new to the baseline.
for name in "${CASE_NAMES[@]}"; do [[ -n "${BASE[$name]+x}" ]] || ORDER+=("$name"); done
status=0
printf '%-20s %-8s %14s %14s %7s %9s  %s\n' case unit measured baseline ratio tolerance result
for name in "${ORDER[@]}"; do
    base=${BASE[$name]:--}
    tolerance=${TOL[$name]:-$DEFAULT_TOLERANCE}
    if [[ -z "${MEASURED[$name]+x}" ]]; then
        if [[ "$base" == "-" ]]; then
            printf '%-20s %-8s %14s %14s %7s %9s  %s\n' "$name" "${UNIT[$name]}" - - - - "placeholder: ${NOTE[$name]}"
        elif [[ -z "${CASES:-}" ]]; then
            printf '%-20s %-8s %14s %14s %7s %9s  %s\n' "$name" "${UNIT[$name]}" - "$base" - "+$tolerance%" "MISSING: perf-guard has no such case"
            status=1
        fi
        continue
    fi
    measured=${MEASURED[$name]}
    if [[ "$base" == "-" ]]; then
        printf '%-20s %-8s %14s %14s %7s %9s  %s\n' "$name" "${UNIT[$name]}" "$measured" - - "+$tolerance%" "new (no baseline yet)"
        continue
    fi
    read -r ratio verdict < <(awk -v m="$measured" -v b="$base" -v t="$tolerance" 'BEGIN {
        r = m / b
        if (r > 1 + t / 100) v = "REGRESSION"
        else if (r < 1 - t / 100) v = "better (update the baseline to keep the gain)"
        else v = "ok"
        printf "%.3f %s\n", r, v }')
    printf '%-20s %-8s %14s %14s %7s %9s  %s\n' "$name" "${UNIT[$name]}" "$measured" "$base" "$ratio" "+$tolerance%" "$verdict"
    [[ "$verdict" == REGRESSION ]] && status=1
done
echo "(instructions per unit, callgrind Ir of the measured section only; build $((built - started)) s, measure $(($(date +%s) - built)) s)"

if [[ "${UPDATE:-0}" == 1 ]]; then
    {
        printf '# Instruction-count baseline of tools/bench/instructions/check.sh (docs/performance.md, "Instruction-count guard").\n'
        printf '# Instructions per unit (callgrind Ir of the measured section); a case fails above baseline x (1 + tolerance/100).\n'
        printf '# Rewritten by UPDATE=1 tools/bench/instructions/check.sh (tolerances and notes are kept); %s.\n' "$(date -u +%Y-%m-%d)"
        printf '# toolchain: %s\n' "$TOOLCHAIN"
        printf '# case\tunit\tinstructions_per_unit\ttolerance_percent\tnote\n'
        for name in "${ORDER[@]}"; do
            value=${MEASURED[$name]:-${BASE[$name]:--}}
            tolerance=${TOL[$name]:-$DEFAULT_TOLERANCE}
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "${UNIT[$name]}" "$value" "$tolerance" "${NOTE[$name]:-}"
        done
    } > "$BASELINE.new"
    mv "$BASELINE.new" "$BASELINE"
    echo "perf-check: wrote $BASELINE (review it with git diff, commit it with the change that explains it)"
    exit 0
fi
if [[ $status != 0 ]]; then
    echo "perf-check: FAILED: a case costs more instructions than its baseline allows." >&2
    echo "  Look at it:  KEEP=/tmp/perf CASES=NAME $0; callgrind_annotate --inclusive=yes /tmp/perf/NAME.callgrind" >&2
    echo "  Intended?    UPDATE=1 $0   (rewrites $BASELINE; commit it and say why)" >&2
fi
exit $status
