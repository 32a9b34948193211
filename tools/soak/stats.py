#!/usr/bin/env python3
"""Reads the daemon's /api/v1/stats JSON on stdin; prints the soak's counters (totals) as CSV
fields: packets_received, window_recovery_successes, window_recovery_failures, rtp_packets_lost,
hls_segments, pcap_dropped_kernel (empty when the answer is missing or not JSON)."""
import json, sys

KEYS = ["packets_received", "window_recovery_successes", "window_recovery_failures", "rtp_packets_lost", "hls_segments",
        "pcap_dropped_kernel"]
try:
    document = json.loads(sys.stdin.read())
    total = document.get("total", {})
    channels = document.get("channels", {})
    values = []
    for key in KEYS:
        value = total.get(key)
        if value is None:  # a key kept per channel only: add it up
            found = [c.get(key) for c in channels.values() if isinstance(c, dict) and isinstance(c.get(key), (int, float))]
            value = sum(found) if found else ""
        values.append(str(value))
    print(",".join(values))
except (ValueError, AttributeError):
    print("," * (len(KEYS) - 1))
