#!/usr/bin/env bash
# make image BOARD=NAME: a flashable disk image for a board of board/, from Debian packages only.
#   1. mmdebstrap: Debian trixie arm64 root tree with tools/image/packages.list, the board's
#      packages.list and the grandstand .deb (apt resolves its Depends), configured in an arm64
#      chroot through qemu-user (binfmt_misc, tools/lib/roottree.sh); the slow cache helpers diverted.
#   1b. The board's layout_tree if it has one (board/BOARD/layout.sh: rpi4 adds its kernel module).
#   2. rootfs-overlay/ (the part the .deb does not ship), tools/image/image-overlay/ (first-boot
#      units, DHCP on the uplink), board/BOARD/overlay/ if there is one, the board file, fstab,
#      host name; no machine id, no SSH host keys.
#   3. The root filesystem without loop mounts (mkfs.ext4 -d), then the board's layout
#      (board/BOARD/layout.sh: partition table, boot partition, files beside the image).
# Reproducible: SOURCE_DATE_EPOCH (the last commit's time) for mmdebstrap and every file time;
# disk, partition and filesystem UUIDs derived from the board name and the .deb's hash.
# usage: build.sh BOARD DEB OUT_DIR    -> OUT_DIR/grandstand-BOARD.img (+ what the layout puts beside it)
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 BOARD DEB OUT_DIR" >&2; exit 2; }
board=$1 deb=$(realpath "$2") out=$3
IMAGE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lib/roottree.sh
. "$IMAGE_DIR/../lib/roottree.sh"   # log, die, list_words, mmdebstrap_arm64, binfmt, root_ns (REPO_DIR too)
LOG_TAG=image
board_dir=$REPO_DIR/board/$board
[ -f "$board_dir/board.json" ] || die "unknown board $board (no board/$board/board.json)"
[ -f "$board_dir/layout.sh" ] || die "no image layout for board $board (no board/$board/layout.sh)"
[ -f "$deb" ] || die "no package $deb (make deb-arm64)"
[ "$(id -u)" -eq 0 ] || die "building an image needs root (chroot, device nodes, binfmt_misc)"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO_DIR" log -1 --format=%ct)}
IMAGE_CACHE=${GRANDSTAND_CACHE:-$REPO_DIR/.cache}/image
# Diverted while packages install (SLOW_HELPERS, tools/lib/roottree.sh), plus update-initramfs:
# the kernel's postinst and every initramfs-tools trigger would each run mkinitramfs (≈18 min
# under emulation at load 20); build_tree runs it once, at the end, for the installed kernel.
IMAGE_HELPERS="$SLOW_HELPERS /usr/sbin/update-initramfs"
# Also diverted while the common tree installs, then run once by a customize hook: depmod (the
# kernel's postinst; ≈3 min emulated, reading every .ko.xz) runs natively with the host's kmod
# (same modules.dep/alias/symbols text; the .bin indexes resolve the same in the guest's kmod),
# and update-ca-certificates (ca-certificates' postinst and its own trigger: two runs, a few
# forks per certificate under emulation) runs once in the chroot.
ONCE_HELPERS="/usr/sbin/depmod /usr/sbin/update-ca-certificates"
# The initramfs holds only the modules that mount the root filesystem (board/*/initramfs-modules,
# written to the image's /etc/initramfs-tools/modules, so a kernel upgrade on the device builds
# the same): MODULES=list instead of Debian's MODULES=most (34 MB and minutes under emulation).
# zstd is not installed (no Recommends), so gzip, which every kernel here reads.
INITRAMFS_CONF="MODULES=list
COMPRESS=gzip"

# Stable identifiers from the inputs: uuid NAME -> a UUID, hex8 NAME -> 8 hex digits (for
# board/*/layout.sh too).
seed=$(sha256sum "$deb" | cut -c1-32)
# shellcheck disable=SC2317 # called by the boards' layout_ids
uuid() { printf '%s' "$board $seed $1" | sha256sum | sed -E 's/^(.{8})(.{4}).(.{3}).(.{3})(.{12}).*/\1-\2-4\3-8\4-\5/'; }
# shellcheck disable=SC2317
hex8() { printf '%s' "$board $seed $1" | sha256sum | cut -c1-8; }

# The union of every board's initramfs modules (board/*/initramfs-modules), one per line, in
# first-seen order: one initramfs in the common tree serves every board.
initramfs_modules() { list_words "$REPO_DIR"/board/*/initramfs-modules | xargs -n1 | awk '!seen[$0]++'; }
# The .deb's Depends as package names (first alternative, no versions): they go in the common tree.
deb_depends() { dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/[[:space:]]//g' | grep . | sort -u | xargs; }

# Step 1, cached: the common tree of every board (tools/image/packages.list and the .deb's
# Depends, no grandstand), configured in an arm64 chroot (mmdebstrap, binfmt_misc); its customize
# hook downloads each board's extra packages (board/*/packages.list) with their dependencies into
# BOARD_DEBS/<board>/ so a board tree is a copy plus dpkg -i (install_debs), no second mmdebstrap.
build_tree() {
    local tree=$1 debs_dir=$2 stage=$3 fetch initramfs initramfs_conf depmod certs b
    # shellcheck disable=SC2016 # $1 and $k expand in mmdebstrap's hook shell
    depmod='for k in $(ls "$1/usr/lib/modules"); do
        depmod -b "$1" "$k"
        w="$1/usr/lib/modules/$k/modules.weakdep"
        [ -e "$w" ] || echo "# Weak dependencies extracted from modules themselves." > "$w"; done'
    # shellcheck disable=SC2016
    certs='chroot "$1" update-ca-certificates --fresh >/dev/null'
    # shellcheck disable=SC2016
    initramfs='for k in $(ls "$1/usr/lib/modules"); do
        chroot "$1" update-initramfs -c -k "$k"; done'
    # The initramfs configuration (INITRAMFS_CONF, the boards' module lists), staged on the host.
    mkdir -p "$stage"
    { echo "# Written by tools/image/build.sh (docs/flashing.md): the root-disk modules only."
      printf '%s\n' "$INITRAMFS_CONF"; } > "$stage/initramfs.conf"
    { echo "# The boards' root-disk modules (tools/image/build.sh: board/*/initramfs-modules)."
      initramfs_modules; } > "$stage/modules"
    # shellcheck disable=SC2016
    initramfs_conf='cp "'"$stage"'/initramfs.conf" "$1/etc/initramfs-tools/conf.d/grandstand"
        cat "'"$stage"'/modules" >> "$1/etc/initramfs-tools/modules"'
    fetch=
    for b in "$REPO_DIR"/board/*/; do
        b=$(basename "$b")
        # shellcheck disable=SC2016
        fetch+='mkdir -p "$1/tmp/debs-'$b'/partial" && chroot "$1" apt-get -q -y -o Dir::Cache::Archives=/tmp/debs-'$b' install --download-only '"$(list_words "$REPO_DIR/board/$b/packages.list")"' >/dev/null && mkdir -p '"$debs_dir/$b"' && find "$1/tmp/debs-'$b'" -maxdepth 1 -name "*.deb" -exec mv -t '"$debs_dir/$b"' {} + && rm -rf "$1/tmp/debs-'$b'"; '
    done
    binfmt_require
    log "mmdebstrap: common $TARGET_SUITE arm64 tree ($(list_words "$IMAGE_DIR/packages.list" | wc -w) packages + the .deb's Depends)"
    # shellcheck disable=SC2086 # helper lists are words
    mmdebstrap_arm64 "$tree" "$TARGET_SUITE" "main non-free-firmware" \
        "$(list_words "$IMAGE_DIR/packages.list") $(deb_depends)" "$IMAGE_HELPERS $ONCE_HELPERS" \
        --aptopt='APT::Install-Recommends "false"' \
        --customize-hook="$fetch" --customize-hook="$depmod" --customize-hook="$initramfs_conf" \
        --customize-hook="$(restore_helpers $IMAGE_HELPERS $ONCE_HELPERS)" --customize-hook="$initramfs" \
        --customize-hook="$certs"
    binfmt_cleanup
    trap - EXIT
}

# Step 1b: dpkg -i the given .debs into the tree $1 in its arm64 chroot (own mount namespace:
# /proc and /dev vanish with it); IMAGE_HELPERS are diverted around it as in build_tree.
install_debs() {
    local root=$1
    shift
    binfmt_require
    rm -rf "$root/tmp/install-debs"
    mkdir -p "$root/tmp/install-debs"
    # The product's own documentation stays (the man page and --help point to it), read after
    # mmdebstrap's path-exclude list (99mmdebstrap), here and on the device's later upgrades.
    printf '%s\n' "# tools/image/build.sh: grandstand's documentation is kept (docs/flashing.md)." \
        "path-include=/usr/share/doc/grandstand/*" > "$root/etc/dpkg/dpkg.cfg.d/99zz-grandstand-docs"
    cp "$@" "$root/tmp/install-debs/"
    # shellcheck disable=SC2016,SC2086 # $1 expands in the namespace's shell; helper lists are words
    root_ns "$root" sh -euc "$(divert_helpers $IMAGE_HELPERS)"'
        chroot "$1" env DEBIAN_FRONTEND=noninteractive dpkg --force-unsafe-io -i $(cd "$1" && ls tmp/install-debs/*.deb | sed "s|^|/|")
        '"$(restore_helpers $IMAGE_HELPERS)"'
        chroot "$1" systemd-hwdb update   # once, here (diverted during every install above)
        ' sh "$root" 2>&1 | indent
    rm -rf "$root/tmp/install-debs"
    binfmt_cleanup
    trap - EXIT
}

# Step 2: the product's files and the image's identity, all on the host. The fstab mounts the
# root on ROOT_PARTUUID and what the board's layout_fstab adds (their mount points made here).
customize() {
    local root=$1 chips chip f mount_point
    # rootfs-overlay/, minus what the .deb ships (packaging/overlay-map.txt: it lives in /usr there),
    # then tools/image/image-overlay/ and the board's overlay/, staged beside the tree.
    rm -rf "$root.overlay"
    cp -a --no-preserve=ownership "$REPO_DIR/rootfs-overlay" "$root.overlay"
    while read -r from _; do
        case $from in ''|'#'*) continue ;; esac
        rm -f "$root.overlay/$from"
    done < "$REPO_DIR/packaging/overlay-map.txt"
    cp -a --no-preserve=ownership "$IMAGE_DIR/image-overlay/." "$root.overlay/"
    if [ -d "$board_dir/overlay" ]; then cp -a --no-preserve=ownership "$board_dir/overlay/." "$root.overlay/"; fi
    # Modes as git keeps them (directories 0755, files 0644 or 0755 when executable), not as the
    # checkout's umask left them: cp -a gives the tree's /etc and /usr the overlay's modes, and a
    # clone made under umask 002 (or a `git archive` export) made them group-writable.
    chmod -R u=rwX,go=rX "$root.overlay"
    cp -a "$root.overlay/." "$root/"
    rm -rf "$root.overlay"
    ln -sfn "boards/$board.json" "$root/usr/share/grandstand/board.json"
    # Start after udev has given the board's GPIO chips to group gpio (as install-product.sh).
    chips=$(grep -o '"chip"[[:space:]]*:[[:space:]]*"[^"]*"' "$board_dir/board.json" | sed -E 's/.*"([^"]*)"$/\1/' | sort -u)
    mkdir -p "$root/etc/systemd/system/grandstand.service.d"
    { echo "# Written by tools/image/build.sh from board/$board/board.json: its GPIO chips."
      echo "[Unit]"
      for chip in $chips; do echo "Wants=dev-$chip.device"; echo "After=dev-$chip.device"; done
    } > "$root/etc/systemd/system/grandstand.service.d/board.conf"
    systemctl --root="$root" --quiet enable grandstand-growroot.service grandstand-ssh-keys.service grandstand-update-reboot.path \
        systemd-networkd.service
    # No systemd-firstboot prompts on the console of a headless box.
    ln -sfn /dev/null "$root/etc/systemd/system/systemd-firstboot.service"
    echo "LANG=C.UTF-8" > "$root/etc/locale.conf"
    ln -sfn /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"
    echo grandstand > "$root/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tgrandstand\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
    { echo "# <file system> <mount point> <type> <options> <dump> <pass>"
      # An A/B layout (ROOT_IN_FSTAB=no) leaves / out: either slot may hold this tree.
      [ "${ROOT_IN_FSTAB:-yes}" = no ] || echo "PARTUUID=$ROOT_PARTUUID / ext4 defaults,noatime 0 1"
      layout_fstab
    } > "$root/etc/fstab"
    layout_fstab | while read -r _ mount_point _; do mkdir -p "$root$mount_point"; done
    install_rauc "$root"
    # udev's hardware database is built by install_debs; /etc/.updated and /var/.updated as new as /usr
    # so the first boot skips the ConditionNeedsUpdate= units (under TCG the hwdb rebuild held
    # udev's coldplug past the GPIO device's 90 s timeout).
    touch "$root/etc/.updated" "$root/var/.updated"
    # Per-device identity is made at first boot: machine id (systemd), SSH host keys (unit above).
    echo uninitialized > "$root/etc/machine-id"
    rm -f "$root"/etc/ssh/ssh_host_* "$root/var/lib/dbus/machine-id" "$root/var/lib/systemd/random-seed"
    # What /etc holds as shipped: an update keeps what the box changed or added (docs/updates.md).
    "$REPO_DIR/tools/update/slot-hook.sh" record "$root"
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
        "$root"/var/log/* "$root"/tmp/* "$root"/var/cache/debconf/*-old "$root"/var/lib/dpkg/*-old \
        "$root"/var/cache/ldconfig/aux-cache   # aux-cache holds inode numbers and times of this host
    f=$(find "$root" -newermt "@$SOURCE_DATE_EPOCH" -print -quit)
    [ -z "$f" ] || find "$root" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
}

# RAUC's configuration when the board has one (board/BOARD/system.conf) and the tree has RAUC:
# /etc/rauc/system.conf and the keyring bundles are checked against (tools/update/keys.sh: the
# development CA of this cache, or the venue's in GRANDSTAND_UPDATE_KEYS; docs/updates.md).
install_rauc() {
    local root=$1 keys
    [ -f "$board_dir/system.conf" ] && [ -x "$root/usr/bin/rauc" ] || return 0
    keys=$("$REPO_DIR/tools/update/keys.sh")
    mkdir -p "$root/etc/rauc"
    cp "$board_dir/system.conf" "$root/etc/rauc/system.conf"
    cp "$keys/ca.cert.pem" "$root/etc/rauc/keyring.pem"
    chmod 0644 "$root/etc/rauc/system.conf" "$root/etc/rauc/keyring.pem"
}

# An ext4 image of a tree (no loop mount), with fixed UUID, hash seed and times; SIZE_MIB
# (optional) fixes its size.
make_ext4() {
    local tree=$1 img=$2 label=$3 fs_uuid=$4 used size_mib=${5:-}
    used=$(du -sm "$tree" | cut -f1)
    # a little room by default: first boot grows it to the card anyway
    [ -n "$size_mib" ] || size_mib=$(( used * 5 / 4 + 192 ))
    rm -f "$img"
    E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -L "$label" -U "$fs_uuid" \
        -E "hash_seed=$fs_uuid,lazy_itable_init=0" -d "$tree" "$img" "${size_mib}M"
    # mke2fs 1.47.0 copies each inode's ctime from the host tree (the copy's time, which touch
    # cannot set), and atimes: clamp them to SOURCE_DATE_EPOCH with debugfs, so two builds hash-equal.
    # Access times too (symlinks read during the build keep a new atime).
    { echo "sif / ctime @$SOURCE_DATE_EPOCH"; echo "sif / atime @$SOURCE_DATE_EPOCH"
      find "$tree" -mindepth 1 -printf '%P\n' |
          sed "s|.*|sif \"/&\" ctime @$SOURCE_DATE_EPOCH\nsif \"/&\" atime @$SOURCE_DATE_EPOCH|"
    } | E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH debugfs -w -f - "$img" >/dev/null 2>&1
}

main() {
    local key work root kver img f
    mkdir -p "$IMAGE_CACHE" "$out"
    # The common tree's inputs only: no .deb content, no step-2/3 code (a new commit reuses it),
    # and no absolute path (a clone elsewhere or a worktree reuses it too).
    key=$({ declare -f build_tree deb_depends initramfs_modules list_words mmdebstrap_arm64 divert_helpers \
                restore_helpers
            echo "$TARGET_SUITE $IMAGE_HELPERS $ONCE_HELPERS ${DPKG_EXCLUDES[*]} $INITRAMFS_CONF"; initramfs_modules
            list_words "$IMAGE_DIR/packages.list"; deb_depends
            for f in "$REPO_DIR"/board/*/packages.list; do echo "${f#"$REPO_DIR"/}"; list_words "$f"; done; } |
        sha256sum | cut -c1-16)
    work=$IMAGE_CACHE/common-$key
    # Exclusive while building (older trees are deleted then), shared while a board copies it.
    exec 9>"$IMAGE_CACHE/common.lock"
    flock -x 9
    if [ ! -e "$work/tree.READY" ]; then
        drop_old_trees
        mkdir -p "$work"
        SECONDS=0
        build_tree "$work/tree" "$work/board-debs" "$work/initramfs"
        touch "$work/tree.READY"
        log "common root tree in $SECONDS s"
    fi
    flock -s 9
    # Board work files beside the common tree, one build per board at a time per cache.
    exec 7>"$IMAGE_CACHE/$board.lock"
    flock 7
    root=$IMAGE_CACHE/$board-rootfs
    rm -rf "$root"
    SECONDS=0
    cp -a "$work/tree" "$root"
    exec 9>&-
    log "tree copied in $SECONDS s"
    SECONDS=0
    # shellcheck disable=SC2046 # cache paths have no spaces
    install_debs "$root" $(find "$work/board-debs/$board" -maxdepth 1 -name '*.deb' | LC_ALL=C sort) "$deb"
    log "board packages and $(basename "$deb") installed in $SECONDS s"
    work=$IMAGE_CACHE/$board-work
    rm -rf "$work"; mkdir -p "$work"
    kver=$(find "$root/usr/lib/modules" -mindepth 1 -maxdepth 1 -printf "%f\n" | head -n1)
    { [ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/boot/initrd.img-$kver" ]; } ||
        die "no kernel/initramfs for $kver in the tree"
    img=$out/grandstand-$board.img
    # The board's layout (board/BOARD/layout.sh): its identifiers, fstab lines and partitions.
    layout_fstab() { :; }
    layout_tree() { :; }
    # shellcheck source=/dev/null # one of board/*/layout.sh
    . "$board_dir/layout.sh"
    declare -F layout_ids layout_image >/dev/null || die "board/$board/layout.sh lacks layout_ids or layout_image"
    layout_ids
    [ -n "${ROOT_PARTUUID:-}" ] || die "board/$board/layout.sh: layout_ids set no ROOT_PARTUUID"
    SECONDS=0
    layout_tree "$root" "$kver"
    log "board tree step (layout_tree) in $SECONDS s"
    customize "$root"
    make_ext4 "$root" "$work/root.img" grandstand-root "$(uuid rootfs)"
    layout_image "$root" "$kver" "$work" "$img"
    rm -rf "$root"
    log "$img: $(du -h --apparent-size "$img" | cut -f1), sha256 $(sha256sum "$img" | cut -c1-16)"
}

# Deletes the common trees of other keys but the newest finished one: two checkouts on different
# recipes that share a cache (worktrees of one repository) would otherwise rebuild each other's.
drop_old_trees() {
    local d kept=
    for d in $(find "$IMAGE_CACHE" -mindepth 1 -maxdepth 1 -name 'common-*' -printf '%T@ %p\n' | sort -rn | cut -d' ' -f2-); do
        if [ -z "$kept" ] && [ -e "$d/tree.READY" ]; then kept=$d; else rm -rf "$d"; fi
    done
}

# The board's cmdline.txt with its root partition's PARTUUID (root=PARTUUID=@ROOT_PARTUUID@).
# shellcheck disable=SC2317 # called by the boards' layout_image
board_cmdline() { sed "s/@ROOT_PARTUUID@/$ROOT_PARTUUID/" "$board_dir/cmdline.txt"; }

# The disk: LABEL (dos|gpt) table from sfdisk on the image file, then each partition image
# written in place with dd (by the boards' layout_image). Arguments:
# IMG LABEL DISK_ID [PART_IMG TYPE [PARTUUID]]...
# shellcheck disable=SC2317
assemble() {
    local img=$1 label=$2 id=$3 start=8192 total=8192 script p size_s
    shift 3
    local -a parts=("$@")
    script="label: $label"$'\n'
    if [ "$label" = gpt ]; then script+="label-id: $id"$'\n'; else script+="label-id: 0x$id"$'\n'; fi
    local i=0 step=2; [ "$label" = gpt ] && step=3
    while [ "$i" -lt ${#parts[@]} ]; do
        p=${parts[i]}
        if [ -n "$p" ]; then
            size_s=$(( ($(stat -c %s "$p") + 511) / 512 ))
            script+="start=$total, size=$size_s, type=${parts[i+1]}"
            [ "$label" = gpt ] && script+=", uuid=${parts[i+2]}"
            [ "$label" = dos ] && [ "$i" -eq 0 ] && script+=", bootable"
            script+=$'\n'
            total=$(( total + (size_s + 2047) / 2048 * 2048 ))
        fi
        i=$((i + step))
    done
    rm -f "$img"
    truncate -s $(( (total + 2048) * 512 )) "$img"   # + 1 MiB for the backup GPT
    sfdisk --no-reread --no-tell-kernel -q "$img" <<< "$script"
    total=$start i=0
    while [ "$i" -lt ${#parts[@]} ]; do
        p=${parts[i]}
        if [ -n "$p" ]; then
            dd if="$p" of="$img" bs=1M seek=$(( total * 512 )) oflag=seek_bytes conv=notrunc,sparse status=none
            size_s=$(( ($(stat -c %s "$p") + 511) / 512 ))
            total=$(( total + (size_s + 2047) / 2048 * 2048 ))
        fi
        i=$((i + step))
    done
}

main "$@"; exit $?
