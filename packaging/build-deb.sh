#!/usr/bin/env bash
# Builds grandstand_VERSION_ARCH.deb from a built binary, rootfs-overlay/ (unit, default config,
# udev rule, sysusers/tmpfiles, journald and journal-gatewayd settings), board/ files, docs and a
# man page generated from `--help`. Depends come from dpkg-shlibdeps: for arm64 against the
# trixie sysroot of the cross build (packaging/shlibs-admindir.sh), for amd64 against the host.
# usage: build-deb.sh ARCH BINARY OUT_DIR
#   GRANDSTAND_DEB_VERSION   the package version (default: VERSION, as tools/build-stamp.sh)
#   SOURCE_DATE_EPOCH        file times and the man page date (default: the last commit's time)
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 ARCH BINARY OUT_DIR" >&2; exit 2; }
arch=$1 binary=$2 out=$3
pkg_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$pkg_dir/.." && pwd)
overlay=$repo/rootfs-overlay
cache=${GRANDSTAND_CACHE:-$repo/.cache}
sysroot=$cache/cross/arm64/sysroot
die() { echo "build-deb: $*" >&2; exit 1; }
[ -x "$binary" ] || die "no binary at $binary"
version=${GRANDSTAND_DEB_VERSION:-$(cat "$repo/VERSION")}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || echo 0)}

case $arch in
    arm64) run=(qemu-aarch64-static -L "$sysroot" "$binary"); strip=aarch64-linux-gnu-strip ;;
    amd64) run=("$binary"); strip="strip" ;;
    *) die "unknown architecture $arch (arm64 or amd64)" ;;
esac

work=$(mktemp -d "${TMPDIR:-/var/tmp}/grandstand-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
doc=$root/usr/share/doc/grandstand
mkdir -p "$root/DEBIAN" "$doc"

# Files: the product part of rootfs-overlay/, at the paths a package owns (/usr/lib for units,
# udev rules and journald drop-ins; /etc only for the configuration the operator edits).
install -D -m 0755 "$binary" "$root/usr/bin/grandstand"
# As dh_strip: no symbols or debug info in the package (the cross build already strips).
"$strip" --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/grandstand"
while read -r from to mode; do
    case $from in ''|'#'*) continue ;; esac
    install -D -m "${mode:-0644}" "$overlay/$from" "$root$to"
done < "$pkg_dir/overlay-map.txt"
for b in "$repo"/board/*/board.json; do
    install -D -m 0644 "$b" "$root/usr/share/grandstand/boards/$(basename "$(dirname "$b")").json"
done
for d in README.md docs/*.md; do
    [ -f "$repo/$d" ] && install -D -m 0644 "$repo/$d" "$doc/$d"
done
install -m 0644 "$pkg_dir/debian/copyright" "$doc/copyright"
printf 'grandstand (%s) unstable; urgency=medium\n\n  * Build of commit %s.\n\n -- Grandstand builders <builders@grandstand.invalid>  %s\n' \
    "$version" "$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
    "$(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n > "$doc/changelog.gz"

# The man page from --help and each subcommand's help (help2man runs the binary; qemu-user
# for arm64).
cat > "$work/grandstand-help" <<WRAP
#!/bin/sh
case "\$1" in
    --version) echo "grandstand $version" ;;
    *) exec $(printf '%q ' "${run[@]}") "\$@" ;;
esac
WRAP
chmod +x "$work/grandstand-help"
{
    echo "[SUBCOMMANDS IN DETAIL]"
    for sub in $("${run[@]}" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | awk 'NR > 1 && $1 ~ /^[a-z]/ { print $1 }'); do
        echo ".SS $sub"
        echo ".nf"
        "${run[@]}" help "$sub" 2>&1 | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"
        echo ".fi"
    done
    echo "[FILES]"
    echo ".TP"; echo ".I /etc/grandstand/config.json"; echo "The configuration (a conffile: kept across upgrades)."
    echo ".TP"; echo ".I /var/lib/grandstand"; echo "State: device UUID, management token, queued reports."
    echo ".TP"; echo ".I /var/cache/grandstand"; echo "The content cache."
    echo ".TP"; echo ".I /usr/share/grandstand/board.json"; echo "The board's LEDs and interfaces (written by the image build)."
    echo "[SEE ALSO]"
    echo "systemctl(1), journalctl(1), /usr/share/doc/grandstand/"
} > "$work/include.h2m"
mkdir -p "$root/usr/share/man/man8"
help2man --no-info --section=8 --name="Grandstand venue gateway" --include="$work/include.h2m" \
    --output="$work/grandstand.8" "$work/grandstand-help" ||
    die "help2man failed"
sed -i 's/grandstand-help/grandstand/g; s/GRANDSTAND-HELP/GRANDSTAND/g' "$work/grandstand.8"
gzip -9n < "$work/grandstand.8" > "$root/usr/share/man/man8/grandstand.8.gz"

# Control files: the maintainer scripts and the conffile list.
install -m 0755 "$pkg_dir/debian/postinst" "$pkg_dir/debian/prerm" "$pkg_dir/debian/postrm" "$root/DEBIAN/"
echo /etc/grandstand/config.json > "$root/DEBIAN/conffiles"

# Depends from the libraries the binary links (dpkg-shlibdeps wants a debian/control to read).
mkdir -p "$work/debian"
printf 'Source: grandstand\n\nPackage: grandstand\nArchitecture: any\n' > "$work/debian/control"
if [ "$arch" = arm64 ]; then
    admindir=$cache/packaging/arm64-admindir
    "$pkg_dir/shlibs-admindir.sh" "$cache/cross/arm64/debs" "$sysroot" "$admindir"
    shlibs=$(cd "$work" && DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu DEB_HOST_MULTIARCH=aarch64-linux-gnu \
        dpkg-shlibdeps --admindir="$admindir" -l"$sysroot/usr/lib/aarch64-linux-gnu" -O \
        "$root/usr/bin/grandstand" 2> "$work/shlibdeps.err") || { cat "$work/shlibdeps.err" >&2; die "dpkg-shlibdeps failed"; }
else
    shlibs=$(cd "$work" && dpkg-shlibdeps -O "$root/usr/bin/grandstand" 2> "$work/shlibdeps.err") ||
        { cat "$work/shlibdeps.err" >&2; die "dpkg-shlibdeps failed"; }
fi
depends=${shlibs#shlibs:Depends=}
{ [ -n "$depends" ] && [ "$depends" != "$shlibs" ]; } || die "dpkg-shlibdeps gave no Depends: $shlibs"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: grandstand
Version: $version
Architecture: $arch
Maintainer: Grandstand builders <builders@grandstand.invalid>
Installed-Size: $size
Depends: $depends, systemd, init-system-helpers (>= 1.54~)
Recommends: systemd-journal-remote, openssl
Section: net
Priority: optional
Homepage: https://grandstand.invalid/
Description: venue gateway: multicast ingest, FEC, HLS serving to fans
 Grandstand runs on small arm64 boxes beside stadium Wi-Fi access points. It
 captures the venue's multicast channels (RTP/MPEG-TS with SMPTE 2022-1 FEC,
 SAP/SDP discovery), repairs losses, serves the channels to fans over HTTP
 (HLS) and reports health through status LEDs, journald and systemd's
 watchdog.
CONTROL
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
# Reproducible: every file's time is SOURCE_DATE_EPOCH, owners root:root (dpkg-deb --root-owner-group).
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$out"
deb=$out/grandstand_${version}_${arch}.deb
# Renamed into place: the VM harness may be reading the previous (identical) package meanwhile.
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb.partial.$$" >/dev/null
mv -f "$deb.partial.$$" "$deb"
echo "$deb"
