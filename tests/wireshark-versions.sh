#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build tlsneg and run its tests against other Wireshark versions, each in a
# Debian root filesystem made with debootstrap:
#
#   tests/wireshark-versions.sh [--prepare-only] [VERSION ...]   (as root, or with sudo)
#
#   --prepare-only  make (or bring up to date) the chroots and stop: .ci/run
#                   does this in the background while ./run-tests.sh runs
#
#   VERSION  Debian suite  Wireshark
#   4.0      bookworm      4.0.x   (the Debian 12 host: ./run-tests.sh covers it)
#   4.4      trixie        4.4.x
#   4.6      sid           4.6.x   (unstable: a newer upload fails the run, see below)
#   default: 4.4 4.6
#
# For each version: makes (or reuses) the chroot, copies this source tree (the
# files git knows, committed or not, without build folders) into it, then
# runs the release build (warnings as errors) and ctest there: unit,
# differential, captures, contract, profile, ladder, package and screenshot tests (not
# the lint tests, which read only the sources, nor differential.pcap, which
# checks tlsneg-pcap against the host's tshark, nor pcap.scheduler, which runs
# tlsneg-pcap on Slurm and DuckDB: the host run covers them).
#
# The chroots are cached in $TLSNEG_CHROOT_DIR (default /var/cache/tlsneg-chroots),
# one folder per suite, with a stamp file listing suite, mirror and packages.
# A missing chroot, one that fails its health check, or one whose package list
# cannot be brought up to date is rebuilt from scratch; a changed package list
# (new stamp) only installs what is new. A chroot is built in SUITE.new and
# renamed when complete, so an interrupted build is never reused.
#
# Environment:
#   TLSNEG_CHROOT_DIR     cache folder (default /var/cache/tlsneg-chroots)
#   TLSNEG_DEBIAN_MIRROR  Debian archive URL (default: the first .../debian URI
#                         in /etc/apt/sources.list*, else http://deb.debian.org/debian)
#   TLSNEG_VERSIONS_GUI   1 (default): install wireshark (the Qt GUI), Xvfb, xdotool and
#                         ImageMagick and run the screenshot test; 0: leave them
#                         out and exclude that test (said so in the output)
#   TLSNEG_CHROOT_REFRESH 1: apt-get upgrade the cached chroots before testing
#   TLSNEG_VERSIONS_OUT   a folder: each version's build is copied to
#                         OUT/X.Y/tlsneg.so (built against that Debian's Wireshark)
#   TLSNEG_JOBS           build jobs (default 2)
#
# As a user, only what needs root goes through sudo (debootstrap, chroot,
# mount, apt-get, and writing or removing under the cache folder); git and
# the rest run as the user.
#
# Mounts (/proc, /dev, /dev/shm) live only while a version runs and are
# unmounted on exit; as root, when unshare(1) works, everything also runs in
# a private mount namespace, so not even a killed run leaves a mount behind.
set -eu

die() {
    echo "wireshark-versions: $*" >&2
    exit 1
}

suite_of() {
    case $1 in
    4.0) echo bookworm ;;
    4.4) echo trixie ;;
    4.6) echo sid ;;
    *) return 1 ;;
    esac
}

prepare_only=0
if [ "${1:-}" = --prepare-only ]; then
    prepare_only=1
    shift
fi
for v in "$@"; do
    suite_of "$v" >/dev/null || die "unknown version '$v' (known: 4.0 4.4 4.6)"
done
# debootstrap, chroot and mount need root: as a user, through sudo (asked
# here once; its environment is reset, so variables go through env(1)).
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "run as root or as a user with sudo (debootstrap, chroot and mount need root)"
    sudo true || die "sudo failed: run as root or as a user with sudo"
    sudo=sudo
fi
# A user's PATH may lack the sbin folders (debootstrap, chroot).
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
export PATH
# write_root FILE: standard input into FILE, as root.
write_root() {
    $sudo tee "$1" >/dev/null
}
if ! command -v debootstrap >/dev/null 2>&1; then
    echo "wireshark-versions: installing debootstrap"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >/dev/null ||
        { $sudo apt-get update >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends debootstrap >/dev/null; } ||
        die "debootstrap is missing and could not be installed"
fi
for tool in debootstrap chroot mount umount flock tar; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done

# A private mount namespace: mounts made below vanish with this process (as
# root only: a user's mounts are made through sudo, outside any namespace of
# ours, and unmounted by the exit trap).
if [ -z "$sudo" ] && [ -z "${TLSNEG_IN_MOUNT_NS:-}" ] &&
    unshare --mount --propagation private true 2>/dev/null; then
    [ "$prepare_only" = 1 ] && set -- --prepare-only "$@"
    TLSNEG_IN_MOUNT_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

src=$(cd "$(dirname "$0")/.." && pwd)
cache=${TLSNEG_CHROOT_DIR:-/var/cache/tlsneg-chroots}
gui=${TLSNEG_VERSIONS_GUI:-1}
jobs=${TLSNEG_JOBS:-2}
[ $# -gt 0 ] || set -- 4.4 4.6

mirror_from_sources() {
    # One-line (deb URL suite ...) and deb822 (URIs: URL) forms; the main
    # archive, not debian-security.
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
        2>/dev/null |
        sed -n -e 's/^deb[ \t]\{1,\}\(\[[^]]*\][ \t]\{1,\}\)\{0,1\}\([^ \t]*\).*/\2/p' \
            -e 's/^URIs:[ \t]*\([^ \t]*\).*/\1/p' |
        grep -E '^https?://[^ ]*/debian/?$' | head -n1 | sed 's:/$::'
}
mirror=${TLSNEG_DEBIAN_MIRROR:-$(mirror_from_sources)}
mirror=${mirror:-http://deb.debian.org/debian}

packages="build-essential dpkg-dev file cmake pkg-config python3 util-linux wireshark-dev
          libwireshark-dev tshark libglib2.0-dev shellcheck libpcap-dev libgcrypt20-dev
          openssl iproute2 python3-cryptography python3-jsonschema"
if [ "$gui" = 1 ]; then
    packages="$packages wireshark xvfb xdotool imagemagick"
fi
# shellcheck disable=SC2086 # one package a word
packages=$(printf '%s\n' $packages | sort -u | tr '\n' ' ' | sed 's/ $//')

case $cache in
*[[:space:]]*) die "TLSNEG_CHROOT_DIR must not contain white space: $cache" ;;
esac
$sudo mkdir -p "$cache"
$sudo chmod 755 "$cache"

# Mounts made under the current chroot, most recent last.
mounted=""
root=""

unmount_all() {
    # Most recent first.
    rev=""
    for m in $mounted; do rev="$m $rev"; done
    for m in $rev; do
        $sudo umount "$m" 2>/dev/null || $sudo umount -l "$m" 2>/dev/null || :
    done
    mounted=""
}
trap 'unmount_all' EXIT
trap 'exit 130' INT TERM HUP

mount_chroot() {
    r=$1
    $sudo mount -t proc proc "$r/proc"
    mounted="$mounted $r/proc"
    $sudo mount --bind /dev "$r/dev"
    mounted="$mounted $r/dev"
    $sudo mount --make-private "$r/dev" 2>/dev/null || :
    # A private devpts instance: apt wants a pty for its log.
    if $sudo mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$r/dev/pts" 2>/dev/null; then
        mounted="$mounted $r/dev/pts"
    fi
    $sudo mkdir -p "$r/dev/shm" 2>/dev/null || :
    if [ -d "$r/dev/shm" ]; then
        $sudo mount -t tmpfs -o mode=1777,size=256m tmpfs "$r/dev/shm"
        mounted="$mounted $r/dev/shm"
    fi
}

# still_mounted DIR: is anything mounted at or below DIR?
still_mounted() {
    awk -v d="$1" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/self/mounts
}

remove_tree() {
    d=$1
    [ -e "$d" ] || return 0
    # Never delete through a mount (a bound /dev above all).
    awk -v d="$d" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r |
        while read -r m; do $sudo umount "$m" 2>/dev/null || $sudo umount -l "$m"; done
    still_mounted "$d" && die "$d still has mounts below it; not deleting"
    $sudo rm -rf --one-file-system "$d"
}

in_chroot() {
    $sudo chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive "$@"
}

stamp_text() {
    printf 'format 1\nsuite %s\nmirror %s\npackages %s\n' "$1" "$mirror" "$packages"
}

# healthy: every package installed and the tools answer.
healthy() {
    [ -x "$root/usr/bin/env" ] || return 1
    # shellcheck disable=SC2086,SC2016 # one package a word; ${Status} is dpkg's
    st=$(in_chroot dpkg-query -W -f='${Status}\n' $packages 2>/dev/null) || return 1
    # shellcheck disable=SC2086
    [ "$(printf '%s\n' "$st" | grep -c 'install ok installed')" -eq "$(printf '%s\n' $packages | wc -l)" ] ||
        return 1
    in_chroot sh -c 'cmake --version && gcc --version && python3 --version && tshark --version' \
        >/dev/null 2>&1
}

apt_install() {
    in_chroot apt-get update -qq || return 1
    # shellcheck disable=SC2086
    in_chroot apt-get install -y -qq --no-install-recommends $packages >/dev/null || return 1
    in_chroot apt-get clean
}

# make_chroot SUITE DIR: debootstrap DIR from scratch and install the packages.
make_chroot() {
    suite=$1 dir=$2
    new=$dir.new
    remove_tree "$new"
    echo "== $suite: debootstrap from $mirror (cold start) =="
    # shellcheck disable=SC2016 # expanded by the inner shell
    $sudo sh -c 'log=$1; shift; exec "$@" >"$log" 2>&1' sh "$cache/$suite.debootstrap.log" \
        debootstrap --variant=minbase "$suite" "$new" "$mirror" ||
        { tail -n 30 "$cache/$suite.debootstrap.log" >&2; die "debootstrap $suite failed (log: $cache/$suite.debootstrap.log)"; }
    if [ "$suite" = sid ]; then
        # sid's Release file can carry a Valid-Until already past on a
        # mirror or snapshot that lags behind.
        echo 'Acquire::Check-Valid-Until "false";' | write_root "$new/etc/apt/apt.conf.d/99tlsneg-valid-until"
    fi
    # No daemons started by package scripts.
    printf '#!/bin/sh\nexit 101\n' | write_root "$new/usr/sbin/policy-rc.d"
    $sudo chmod 755 "$new/usr/sbin/policy-rc.d"
    root=$new
    mount_chroot "$root"
    echo "== $suite: installing $packages =="
    apt_install || die "installing packages into $suite failed"
    healthy || die "$suite chroot is not healthy right after it was built"
    unmount_all
    stamp_text "$suite" | write_root "$new/.tlsneg-stamp"
    remove_tree "$dir.old"
    if [ -e "$dir" ]; then $sudo mv "$dir" "$dir.old"; fi
    $sudo mv "$new" "$dir"
    remove_tree "$dir.old"
}

# prepare SUITE: leaves $root pointing at a healthy, up-to-date, mounted chroot.
prepare() {
    suite=$1
    dir=$cache/$suite
    root=$dir
    if [ -d "$dir" ] && [ -x "$dir/usr/bin/env" ]; then
        mount_chroot "$root"
        want=$(stamp_text "$suite")
        have=$(cat "$dir/.tlsneg-stamp" 2>/dev/null || :)
        if [ "$want" != "$have" ]; then
            echo "== $suite: package list changed: refreshing =="
            if apt_install && healthy; then
                printf '%s\n' "$want" | write_root "$dir/.tlsneg-stamp"
            else
                echo "== $suite: refresh failed: rebuilding =="
                unmount_all
                make_chroot "$suite" "$dir"
                root=$dir
                mount_chroot "$root"
            fi
        elif [ "${TLSNEG_CHROOT_REFRESH:-0}" = 1 ]; then
            echo "== $suite: apt-get upgrade (TLSNEG_CHROOT_REFRESH=1) =="
            if ! { in_chroot apt-get update -qq && in_chroot apt-get -y -qq dist-upgrade >/dev/null &&
                in_chroot apt-get clean; }; then
                die "upgrading $suite failed"
            fi
        fi
        if ! healthy; then
            echo "== $suite: cached chroot is broken: rebuilding =="
            unmount_all
            make_chroot "$suite" "$dir"
            root=$dir
            mount_chroot "$root"
        fi
    else
        make_chroot "$suite" "$dir"
        root=$dir
        mount_chroot "$root"
    fi
}

# copy_sources DEST: this tree as git sees it (tracked and untracked, not
# ignored: no build folders); the captures the tests read are all in it.
copy_sources() {
    dest=$1
    $sudo mkdir -p "$dest/main"
    # Read as the caller, written as root (files owned by root, as in a root run).
    if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
        git -C "$src" ls-files -z -co --exclude-standard |
            tar -C "$src" --null --ignore-failed-read -T - -cf - 2>/dev/null |
            $sudo tar --no-same-owner -C "$dest/main" -xf -
    else
        tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . |
            $sudo tar --no-same-owner -C "$dest/main" -xf -
    fi
}

now() { date +%s; }

results=""
status=0
overall_start=$(now)
for version in "$@"; do
    suite=$(suite_of "$version")
    # flock(1) locks a file open for reading too: the lock file is made as
    # root, then opened by whoever runs this.
    [ -e "$cache/$suite.lock" ] || $sudo touch "$cache/$suite.lock"
    exec 9<"$cache/$suite.lock"
    flock 9
    t0=$(now)
    prepare "$suite"
    t1=$(now)
    got=$(in_chroot tshark --version 2>/dev/null | sed -n 's/^TShark (Wireshark) \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' | head -n1)
    case $got in
    "$version".*) ;;
    *)
        unmount_all
        die "Debian $suite now ships Wireshark ${got:-?}, not $version: update the version table in $0 and the per-version notes in tests/"
        ;;
    esac
    if [ "$prepare_only" = 1 ]; then
        unmount_all
        exec 9>&-
        line="Wireshark $got (Debian $suite): chroot ready in $((t1 - t0)) s"
        echo "== $line =="
        results="$results
$line"
        continue
    fi
    echo "== Wireshark $got (Debian $suite): build and test =="
    work=$root/tlsneg-work
    remove_tree "$work"
    copy_sources "$work"
    # The lint tests read the sources, and differential.pcap checks
    # tlsneg-pcap, which uses no Wireshark, against the host's tshark, and
    # pcap.scheduler runs tlsneg-pcap on Slurm daemons and DuckDB that the
    # chroots do not install: the host's run covers them.
    exclude='^(lint[.].*|differential[.]pcap|pcap[.]scheduler)$'
    if [ "$gui" != 1 ]; then
        exclude='^(lint[.].*|differential[.]pcap|pcap[.]scheduler|screenshot)$'
        echo "== note: screenshot test excluded: TLSNEG_VERSIONS_GUI=0, so no Wireshark GUI or Xvfb in the chroot =="
    fi
    rc=0
    in_chroot sh -c "cd /tlsneg-work/main &&
        cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLSNEG_SANITIZE=OFF \
            -DTLSNEG_BUILD_PLUGIN=ON >/dev/null &&
        cmake --build build -j$jobs &&
        cd build && ctest -j$jobs --output-on-failure -E '$exclude'" || rc=$?
    t2=$(now)
    if [ -n "${TLSNEG_VERSIONS_OUT:-}" ] && [ -f "$work/main/build/tlsneg.so" ]; then
        mkdir -p "$TLSNEG_VERSIONS_OUT/$version"
        cp "$work/main/build/tlsneg.so" "$TLSNEG_VERSIONS_OUT/$version/tlsneg.so"
        echo "== $TLSNEG_VERSIONS_OUT/$version/tlsneg.so: built for Wireshark $got (Debian $suite) =="
    fi
    unmount_all
    exec 9>&-
    if [ $rc -eq 0 ]; then
        r="ok"
    else
        r="FAILED (exit $rc)"
        status=1
    fi
    line="Wireshark $got (Debian $suite): $r; chroot $((t1 - t0)) s, build and tests $((t2 - t1)) s"
    echo "== $line =="
    results="$results
$line"
done
echo
echo "== summary ($(($(now) - overall_start)) s) ==${results}"
exit $status
