#!/usr/bin/env python3
"""Soak report: samples.csv (tools/soak/soak.sh) → a markdown summary.

Growth is measured after a warm-up (the HLS window, caches and thread pools fill first): the
median of the samples in the first tenth after the warm-up against the median of the last tenth,
plus the least-squares slope after the warm-up projected to one hour.
usage: report.py samples.csv --out summary.md [--crashed 0|1] [--max-growth PCT] [--warmup S]
       [--stop-ms MS --stop-status S [--max-stop-ms MS]] [--assert]
With --assert the exit status is 1 on a crash, RSS or FD growth above the limit, a stop slower than
--max-stop-ms or not exiting 0, or client errors above 1 % of requests.
"""
import argparse, csv, statistics, sys


def column(rows, key):
    return [(float(r["t"]), float(r[key])) for r in rows if r.get(key) not in (None, "")]


def growth(points, warmup):
    after = [(t, v) for t, v in points if t >= warmup]
    if len(after) < 4:
        return None
    window = max(2, len(after) // 10)
    first = statistics.median(v for _, v in after[:window])
    last = statistics.median(v for _, v in after[-window:])
    n = len(after)
    mean_t = sum(t for t, _ in after) / n
    mean_v = sum(v for _, v in after) / n
    var_t = sum((t - mean_t) ** 2 for t, _ in after)
    slope = sum((t - mean_t) * (v - mean_v) for t, v in after) / var_t if var_t else 0.0
    return {
        "first": first, "last": last, "max": max(v for _, v in after), "min": min(v for _, v in after),
        "growth": (last - first) / first * 100 if first else 0.0,
        "per_hour": slope * 3600 / first * 100 if first else 0.0,
    }


def sparkline(values, width=60):
    if not values:
        return ""
    bars = "▁▂▃▄▅▆▇█"
    step = max(1, len(values) // width)
    picked = [max(values[i:i + step]) for i in range(0, len(values), step)]
    low, high = min(picked), max(picked)
    span = (high - low) or 1
    return "".join(bars[int((v - low) / span * (len(bars) - 1))] for v in picked)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("samples")
    parser.add_argument("--out", required=True)
    parser.add_argument("--crashed", type=int, default=0)
    parser.add_argument("--max-growth", type=float, default=5.0)
    parser.add_argument("--daemon-log")
    parser.add_argument("--warmup", type=float, help="seconds excluded from growth (default 20 %% of the run, 60-600 s)")
    parser.add_argument("--stop-ms", type=int, help="SIGTERM to exit, measured at the end under load")
    parser.add_argument("--stop-status", type=int, help="the daemon's exit status after SIGTERM")
    parser.add_argument("--max-stop-ms", type=int, default=2000)
    parser.add_argument("--assert", dest="check", action="store_true")
    args = parser.parse_args()
    rows = [r for r in csv.DictReader(open(args.samples)) if r.get("daemon_alive") == "1"]
    duration = float(rows[-1]["t"]) if rows else 0.0
    warmup = args.warmup if args.warmup is not None else min(max(60.0, duration * 0.2), 600.0)
    rss, fds = column(rows, "rss_kb"), column(rows, "fds")
    threads, cpu = column(rows, "threads"), column(rows, "cpu_pct")
    rss_growth, fd_growth = growth(rss, warmup), growth(fds, warmup)
    last = rows[-1] if rows else {}
    first_after = next((r for r in rows if float(r["t"]) >= warmup), last)
    ok, err = int(last.get("http_ok") or 0), int(last.get("http_err") or 0)
    failures = []
    if args.crashed:
        failures.append("the daemon crashed")
    for name, g in (("RSS", rss_growth), ("FDs", fd_growth)):
        if g is None:
            failures.append(f"{name}: too few samples after the {warmup:.0f} s warm-up")
        elif g["growth"] > args.max_growth:
            failures.append(f"{name} grew {g['growth']:.1f} % after warm-up (limit {args.max_growth} %)")
    if args.stop_ms is not None and args.stop_ms > args.max_stop_ms:
        failures.append(f"SIGTERM to exit took {args.stop_ms} ms (limit {args.max_stop_ms} ms)")
    if args.stop_status not in (None, 0):
        failures.append(f"the daemon exited {args.stop_status} on SIGTERM")
    if ok == 0:
        failures.append("no HTTP request succeeded")
    elif err > ok / 100:
        failures.append(f"{err} client errors in {ok + err} requests (over 1 %)")

    def fmt(g, unit, scale=1.0):
        if g is None:
            return "| – | – | – | – | – |"
        return (f"| {g['first'] / scale:,.1f} {unit} | {g['last'] / scale:,.1f} {unit} | {g['max'] / scale:,.1f} {unit} "
                f"| {g['growth']:+.2f} % | {g['per_hour']:+.2f} %/h |")

    def delta(key):
        try:
            return f"{int(float(last[key])) - int(float(first_after[key])):,}"
        except (KeyError, ValueError, TypeError):
            return "–"

    lines = [
        "# Soak summary", "",
        f"- duration: {duration:.0f} s, {len(rows)} samples, warm-up {warmup:.0f} s (excluded from growth)",
        f"- daemon crashes: {args.crashed}",
        f"- stop under load: SIGTERM to exit {args.stop_ms} ms, exit status {args.stop_status}" if args.stop_ms is not None else "- stop under load: –",
        f"- HTTP requests: {ok:,} ok, {err:,} errors",
        f"- CPU: mean {statistics.mean(v for _, v in cpu):.1f} % of one core, max {max(v for _, v in cpu):.0f} %" if cpu else "- CPU: –",
        f"- threads: {int(min(v for _, v in threads))}–{int(max(v for _, v in threads))}" if threads else "- threads: –",
        "",
        "| metric | after warm-up | end | max | growth | trend (slope, per hour) |",
        "|---|---|---|---|---|---|",
        "| RSS " + fmt(rss_growth, "MiB", 1024.0),
        "| open FDs " + fmt(fd_growth, ""),
        "",
        f"RSS over time: `{sparkline([v for _, v in rss])}` ({min((v for _, v in rss), default=0) / 1024:.1f}–"
        f"{max((v for _, v in rss), default=0) / 1024:.1f} MiB)", "",
        "| counter (after warm-up → end) | change |", "|---|---|",
    ]
    for key in ("packets_received", "window_recovery_successes", "window_recovery_failures", "rtp_packets_lost", "hls_segments",
                "pcap_dropped_kernel"):
        lines.append(f"| `{key}` | {delta(key)} |")
    lines += ["", "Result: " + ("PASS" if not failures else "FAIL — " + "; ".join(failures)), ""]
    text = "\n".join(lines)
    open(args.out, "w").write(text)
    print(text)
    if args.check and failures:
        if args.daemon_log:
            print("--- daemon log (tail) ---", file=sys.stderr)
            print("".join(open(args.daemon_log, errors="replace").readlines()[-30:]), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
