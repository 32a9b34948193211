#!/usr/bin/env bash
# Fetches Debian trixie's libmicrohttpd (1.0.x, what the product ships on) for this machine's
# architecture into CACHE/libmicrohttpd-trixie (an ignored cache, never committed) and prints the
# directory holding libmicrohttpd.so.12, for LD_LIBRARY_PATH. The mirror is the host's own
# (first URIs: of /etc/apt/sources.list.d/debian.sources or deb line of /etc/apt/sources.list);
# apt runs on a private state directory, so the system's apt configuration is not touched.
# Usage: tools/bench/http/trixie-mhd.sh [CACHE]   (default GRANDSTAND_CACHE or ./.cache)
set -euo pipefail
CACHE=${1:-${GRANDSTAND_CACHE:-$PWD/.cache}}
DIR="$CACHE/libmicrohttpd-trixie"
ARCH=$(dpkg --print-architecture)
LIB="$DIR/root/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")"
if [[ -e "$LIB/libmicrohttpd.so.12" ]]; then echo "$LIB"; exit 0; fi

MIRROR=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n "$MIRROR" ]] || MIRROR=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null || true)
[[ -n "$MIRROR" ]] || { echo "trixie-mhd.sh: no Debian mirror in the host's apt sources" >&2; exit 1; }
mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" > "$DIR/apt/sources.list"
APT=(-o "Dir::Etc::SourceList=$DIR/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
     -o "Dir::State::Lists=$DIR/apt/lists" -o "Dir::Cache=$DIR/apt" -o "Dir::Cache::archives=$DIR/apt/archives"
     -o Dir::State::status=/dev/null -o "APT::Architecture=$ARCH" -o APT::Sandbox::User=root)
apt-get "${APT[@]}" -qq update >&2
(cd "$DIR" && apt-get "${APT[@]}" -qq download "libmicrohttpd12t64:$ARCH" >&2)
rm -rf "$DIR/root"
dpkg-deb -x "$(ls "$DIR"/libmicrohttpd12t64_*.deb | head -1)" "$DIR/root"
[[ -e "$LIB/libmicrohttpd.so.12" ]] || { echo "trixie-mhd.sh: no libmicrohttpd.so.12 in the package" >&2; exit 1; }
echo "$LIB"
