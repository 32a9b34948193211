#!/usr/bin/env bash
# Stage 2: the trixie arm64 sysroot (headers, libraries, Swift runtime and aarch64 modules) and
# the Swift SDK bundle that points the build root's compiler at it. The sysroot also serves as
# qemu-user's -L root. apt in the build root resolves the arm64 dependency closure from an empty
# package state of its own (APT_CONFIG below); the .debs are cached and extracted with dpkg-deb.
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"

list=$CROSS_DIR/packages/arm64.txt
nodeps=$CROSS_DIR/packages/arm64-nodeps.txt
want=$(inputs_hash "$CROSS_CACHE/root.stamp" "$0" "$list" "$nodeps")
stamp=$CROSS_CACHE/sysroot.stamp
if stamp_ok "$stamp" "$want"; then log "arm64 sysroot up to date ($SYSROOT)"; exit 0; fi
rm -f "$stamp"
t0=$SECONDS

# A private apt for an arm64 system with nothing installed, inside the build root.
APTDIR=$ARM64_DIR/apt
DEBS=$ARM64_DIR/debs
mkdir -p "$APTDIR/state/lists/partial" "$APTDIR/cache" "$APTDIR/parts" "$DEBS/partial"
: > "$APTDIR/state/status"
debian_sources "$SUITE" | awk '{ print "deb [arch=arm64]", $1, $2, "main" }' > "$APTDIR/sources.list"
cat > "$APTDIR/apt.conf" <<CONF
Dir::State "$APTDIR/state";
Dir::State::status "$APTDIR/state/status";
Dir::Cache "$APTDIR/cache";
Dir::Cache::archives "$DEBS";
Dir::Etc::SourceList "$APTDIR/sources.list";
Dir::Etc::SourceParts "$APTDIR/parts";
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
APT::Install-Recommends "false";
APT::Install-Suggests "false";
APT::Sandbox::User "root";
CONF
arm64_apt() { in_root APT_CONFIG="$APTDIR/apt.conf" "$@"; }

apt_log=$CROSS_CACHE/sysroot-apt.log
: > "$apt_log"
read -r -a roots <<< "$(list_words "$list")"
read -r -a lone <<< "$(list_words "$nodeps")"
# The target's Swift must be exactly the build root compiler's (.swiftmodule files are tied to
# the compiler build): pin swiftlang/libswiftlang to the version installed there.
swift_deb=$(in_root dpkg-query -W -f '${Version}' swiftlang)
[ -n "$swift_deb" ] || die "no swiftlang in the build root"
pin() { case $1 in swiftlang|libswiftlang) echo "$1=$swift_deb" ;; *) echo "$1" ;; esac; }
for i in "${!roots[@]}"; do roots[i]=$(pin "${roots[i]}"); done
for i in "${!lone[@]}"; do lone[i]=$(pin "${lone[i]}"); done
logged "$apt_log" arm64_apt apt-get update
# The closure as apt plans it ("Inst NAME (VERSION ... [ARCH])"), then the same set downloaded.
arm64_apt apt-get -s install "${roots[@]}" > "$APTDIR/plan.txt" 2>>"$apt_log" ||
    { tail -25 "$apt_log" >&2; die "apt cannot resolve the arm64 package set"; }
logged "$apt_log" arm64_apt apt-get install -y --download-only "${roots[@]}"
awk '/^Inst / { v = $3; sub(/^\(/, "", v); match($0, /\[[a-z0-9]+\]/); print $2, v, substr($0, RSTART + 1, RLENGTH - 2) }' \
    "$APTDIR/plan.txt" > "$APTDIR/debs.txt"
# Packages taken alone (their dependencies are not needed for what we use of them).
for p in "${lone[@]}"; do
    arm64_apt apt-cache show --no-all-versions "$p" |
        awk '/^Package:/ { n = $2 } /^Version:/ { v = $2 } /^Architecture:/ { a = $2 } END { print n, v, a }'
done >> "$APTDIR/debs.txt"
files=()
while read -r name ver arch; do
    f="${name}_${ver//:/%3a}_${arch}.deb"
    files+=("$f")
done < "$APTDIR/debs.txt"
missing=()
for p in "${lone[@]}"; do
    f=$(awk -v n="${p%%=*}" '$1 == n { v = $2; gsub(/:/, "%3a", v); print $1 "_" v "_" $3 ".deb" }' "$APTDIR/debs.txt")
    [ -s "$DEBS/$f" ] || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    logged "$apt_log" in_root APT_CONFIG="$APTDIR/apt.conf" /bin/sh -c 'cd "$0" && apt-get download "$@"' "$DEBS" "${missing[@]}"
fi
# Drop .debs no longer in the set (older versions), so the cache does not grow forever.
declare -A wanted=()
for f in "${files[@]}"; do wanted[$f]=1; done
for f in "$DEBS"/*.deb; do
    [ -n "${wanted[$(basename "$f")]:-}" ] || rm -f "$f"
done
for f in "${files[@]}"; do [ -s "$DEBS/$f" ] || die "expected $DEBS/$f after download"; done
log "arm64 packages: ${#files[@]} debs, $(du -ch "${files[@]/#/$DEBS/}" | tail -1 | cut -f1) (download + resolve $((SECONDS - t0)) s)"

# Extract everything (one chroot entry for all of them).
t1=$SECONDS
safe_rm "$SYSROOT"
mkdir -p "$SYSROOT"
# Two at a time: xz decompression of swiftlang (~400 MB) alone takes ~25 s.
printf '%s\0' "${files[@]}" > "$APTDIR/debs.list0"
in_root /bin/sh -ec 'cd "$2" && xargs -0 -n 16 -P 2 /bin/sh -ec "for f; do dpkg-deb -x \"\$f\" \"$1\"; done" x < "$3"' \
    x "$SYSROOT" "$DEBS" "$APTDIR/debs.list0"
# Merged /usr: lld follows libc.so/libm.so linker scripts into /lib/..., and the dynamic
# loader is /lib/ld-linux-aarch64.so.1.
for d in bin sbin lib; do
    if [ -d "$SYSROOT/$d" ] && [ ! -L "$SYSROOT/$d" ]; then
        mkdir -p "$SYSROOT/usr/$d"
        cp -a "$SYSROOT/$d/." "$SYSROOT/usr/$d/"
        rm -rf "${SYSROOT:?}/$d"
    fi
    ln -sfn "usr/$d" "$SYSROOT/$d"
done
# swiftlang:arm64 is the whole aarch64 toolchain; keep only the target side (modules, runtime,
# swift_static, clang headers). The compiler and its macro plugins come from the build root.
sw=$SYSROOT/usr/libexec/swift
rm -rf "${sw:?}/bin" "$sw/libexec" "$sw/share" "$sw/lib/swift/host" "$sw/lib/swift/embedded" \
    "$sw/lib/swift/FrameworkABIBaseline" "$sw/lib/swift/migrator" "$sw/lib/swift/pm"
find "$sw/lib" -maxdepth 1 \( -type f -o -type l \) -name '*.so*' -delete
# The sysroot is also qemu-user's -L root, which looks up every absolute path there first: an
# arm64 /usr/bin/sed in it would shadow the host's for a test that spawns one. Nothing in
# bin/sbin is needed to build.
rm -rf "${SYSROOT:?}/usr/bin" "${SYSROOT:?}/usr/sbin"
# Absolute symlinks would point at the host's files (amd64) from the linker and from qemu-user.
find "$SYSROOT" -type l -lname '/*' -print0 | while IFS= read -r -d '' l; do
    inside=${l#"$SYSROOT"}
    ln -sfn "$(realpath -sm --relative-to="$(dirname "$inside")" "$(readlink "$l")")" "$l"
done
log "extracted in $((SECONDS - t1)) s: $(du -sh "$SYSROOT" | cut -f1)"

# The Swift SDK bundle (swift build --swift-sdks-path $SDKS_DIR --swift-sdk $SDK_NAME).
resources=$SYSROOT/usr/libexec/swift/lib/swift
[ -d "$resources/linux/aarch64" ] || [ -d "$resources/linux" ] || die "no Swift resources at $resources"
safe_rm "$SDKS_DIR"
variant=$SDKS_DIR/$SDK_NAME.artifactbundle/$SDK_NAME/$TRIPLE
mkdir -p "$variant"
swift_version=$(awk '$1 == "libswiftlang" { print $2 }' "$APTDIR/debs.txt")
cat > "$SDKS_DIR/$SDK_NAME.artifactbundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$SDK_NAME": {
      "type": "swiftSDK",
      "version": "${swift_version%%-*}",
      "variants": [{ "path": "$SDK_NAME/$TRIPLE" }]
    }
  }
}
JSON
cat > "$variant/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "$TRIPLE": {
      "sdkRootPath": "$SYSROOT",
      "swiftResourcesPath": "$resources",
      "swiftStaticResourcesPath": "${resources}_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
# swift-driver looks for this in every SDK (silences "Could not read SDKSettings.json").
cat > "$SYSROOT/SDKSettings.json" <<JSON
{ "DisplayName": "Grandstand arm64 (Debian $SUITE)", "Version": "${swift_version%%-*}", "VersionMap": {}, "CanonicalName": "$TRIPLE" }
JSON
# No "linker" entry: with one, lld linked for x86_64.
cat > "$variant/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "swiftCompiler": {
    "extraCLIOptions": ["-use-ld=lld", "-Xlinker", "-rpath-link=$SYSROOT/usr/lib/aarch64-linux-gnu"]
  }
}
JSON

log "sysroot and SDK ready in $((SECONDS - t0)) s"
echo "$want" > "$stamp"
