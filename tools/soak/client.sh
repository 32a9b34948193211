#!/usr/bin/env bash
# One soak player: follows BASE/live.m3u8 (reloading every half second, as a player near the live
# edge does) and fetches each segment and part it has not fetched yet, then a rewind playlist now
# and then. Keeps "OK ERRORS" in COUNTS (rewritten after each round). A 404 for a segment that
# just left the window is not an error; any other non-2xx answer or a failed connection is.
# usage: client.sh BASE COUNTS
set -uo pipefail
base=$1 counts=$2
ok=0 err=0 round=0 started=0
declare -A fetched=()
while true; do
    round=$((round + 1))
    # Until the first answer the daemon may still be starting: refused connections do not count.
    if ! playlist=$(curl -s -m 5 -w '\n%{http_code}' "$base/live.m3u8"); then
        (( started )) && { err=$((err + 1)); echo "$(date +%T) live.m3u8: no answer"; }
        echo "$ok $err" >"$counts"; sleep 1; continue
    fi
    started=1
    code=${playlist##*$'\n'}
    if [[ $code == 200 ]]; then
        ok=$((ok + 1))
        # segment URIs and part URIs (URI="…")
        mapfile -t names < <(grep -v '^#' <<<"${playlist%$'\n'*}" | grep . ; grep -o 'EXT-X-PART:[^ ]*URI="[^"]*"' <<<"$playlist" | sed 's/.*URI="//; s/"$//')
        for name in "${names[@]}"; do
            [[ -n ${fetched[$name]:-} ]] && continue
            fetched[$name]=1
            status=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$base/$name") || status=000
            case $status in
                200) ok=$((ok + 1)) ;;
                404) ;;  # evicted between the playlist and the request
                *) err=$((err + 1)); echo "$(date +%T) $name: $status" ;;
            esac
        done
        (( ${#fetched[@]} > 2000 )) && fetched=()
    elif [[ $code != 404 ]]; then
        # 404 until the channel is announced; anything else counts
        err=$((err + 1)); echo "$(date +%T) live.m3u8: $code"
    fi
    if (( round % 20 == 0 )); then
        status=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$base/rewind.m3u8?offset=-20") || status=000
        [[ $status == 200 ]] && ok=$((ok + 1)) || { [[ $status == 404 ]] || { err=$((err + 1)); echo "$(date +%T) rewind: $status"; }; }
    fi
    echo "$ok $err" >"$counts"
    sleep 0.5
done
