#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package, as a user gets it:
#   tests/package/test_package.sh BUILD_DIR
# Builds the package with cpack from BUILD_DIR (a configured and built tree),
# checks its name, its Depends (the libwireshark ABI package that this
# Wireshark's library belongs to, and the pin to this release series; with
# tlsneg-pcap built, libpcap0.8 and libgcrypt20) and its files (the plugin in
# the global plugin folder, the profile, and /usr/bin/tlsneg-pcap when
# built). As root (or with passwordless sudo) it then installs it with apt,
# checks that tshark lists tlsneg from that folder and that tlsneg-pcap runs,
# removes it and checks that both are gone. The install is --reinstall so that
# it also runs where a tlsneg of the same version is installed; over an older
# one it is an upgrade, but no upgrade from a previous release is tested (no
# previous package is built). Where a tlsneg was installed before, the freshly
# built package is installed at the end, not the earlier one.
set -eu
build=$(cd "${1:?usage: test_package.sh BUILD_DIR}" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
check() { # check WHAT COMMAND...
    what=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok - $what"
    else
        failed=$((failed + 1))
        echo "not ok - $what"
    fi
}

version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
deb=$out/tlsneg_${version}_$(dpkg --print-architecture).deb
if ! (cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || [ ! -f "$deb" ]; then
    echo "not ok - cpack builds $(basename "$deb")"
    sed 's/^/#   /' "$out/cpack.log"
    echo "0 passed, 1 failed"
    exit 1
fi
check "cpack builds $(basename "$deb")" test -f "$deb"

# The ABI package: the one that owns the libwireshark this build linked
# (ldd may name it under /lib, dpkg knows it under /usr/lib).
soname=$(ldd "$build/tlsneg.so" | sed -n 's/^[[:space:]]*\(libwireshark\.so\.[0-9]*\) => .*/\1/p')
libpath=$(ldd "$build/tlsneg.so" | sed -n "s/^[[:space:]]*$soname => \\([^ ]*\\) .*/\\1/p")
abi_pkg=$( (dpkg -S "$libpath" || dpkg -S "/usr$libpath") 2>/dev/null | cut -d: -f1 | head -n1)
check "the package of $soname is known (${abi_pkg:-none})" test -n "$abi_pkg"
depends=$(dpkg-deb -f "$deb" Depends)
echo "# Depends: $depends"
check "Depends names $abi_pkg (the package of $soname)" \
    sh -c "printf '%s\n' '$depends' | tr ',' '\n' | grep -q '^ *$abi_pkg '"
ws=$(tshark -v 2>/dev/null | sed -n '1s/^TShark (Wireshark) \([0-9]*\)\.\([0-9]*\)\..*/\1.\2/p')
next="${ws%.*}.$((${ws#*.} + 1))"
check "Depends pins libwireshark-data to $ws.x" \
    sh -c "printf '%s\n' '$depends' | grep -q 'libwireshark-data (>= $ws), libwireshark-data (<< $next~)'"
plugdir=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Plugins:[[:space:]]*//p')
confdir=$(tshark -G folders 2>/dev/null | sed -n 's/^Global configuration:[[:space:]]*//p')
profile="$confdir/profiles/TLS Negotiation"
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/' | sed 's/^.* \.\//\//' | sort)
# tlsneg-pcap is in the package when the build made it (TLSNEG_BUILD_PCAP).
pcap_tool=""
if grep -q '^TLSNEG_BUILD_PCAP:BOOL=ON$' "$build/CMakeCache.txt"; then
    pcap_tool=/usr/bin/tlsneg-pcap
fi
want=$(printf '%s\n' "$plugdir/epan/tlsneg.so" "$profile/colorfilters" "$profile/dfilter_buttons" \
    "$profile/preferences" "$profile/recent" $pcap_tool | sort)
printf '%s\n' "$files" | sed 's/^/# file: /'
check "the package holds the plugin, the profile${pcap_tool:+ and $pcap_tool}, nothing else" \
    test "$files" = "$want"
if [ -n "$pcap_tool" ]; then
    # Debian 13 and later name the 64-bit time_t ABI libpcap0.8t64.
    for lib in libpcap0.8 libgcrypt20; do
        check "Depends names $lib (tlsneg-pcap's libraries, by dpkg-shlibdeps)" \
            sh -c "printf '%s\n' '$depends' | tr ',' '\n' | grep -q '^ *${lib}\(t64\)\? '"
    done
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    else
        echo "# not root and no passwordless sudo: install and removal not tried"
        echo "$passed passed, $failed failed"
        [ "$failed" -eq 0 ]
        exit
    fi
fi
before=$(dpkg-query -W -f='${Status}' tlsneg 2>/dev/null || true)
apt_get() {
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=600 "$@" >/dev/null 2>&1
}
listed() { tshark -G plugins 2>/dev/null | grep -q "tlsneg.so.*$plugdir/epan/tlsneg.so"; }
check "apt-get install ./$(basename "$deb")" apt_get install -y --reinstall "$deb"
check "tshark lists tlsneg from $plugdir/epan" listed
if [ -n "$pcap_tool" ]; then
    check "$pcap_tool --help runs" sh -c "$pcap_tool --help >/dev/null"
fi
capture=$(cd "$(dirname "$0")/../.." && pwd)/pcaps/fallback-chain.pcap
# shellcheck disable=SC2016 # $1 is the inner shell's
check "tshark -C \"TLS Negotiation\" reads a capture" \
    sh -c 'tshark -C "TLS Negotiation" -r "$1" -c 1 >/dev/null 2>&1' sh "$capture"
check "apt-get remove tlsneg" apt_get remove -y tlsneg
check "the plugin file is gone" test ! -e "$plugdir/epan/tlsneg.so"
check "the profile is gone" test ! -e "$profile"
check "tshark no longer lists tlsneg" sh -c "! tshark -G plugins 2>/dev/null | grep -q tlsneg"
if [ -n "$pcap_tool" ]; then
    check "$pcap_tool is gone" test ! -e "$pcap_tool"
fi
case $before in
*"install ok installed"*)
    apt_get install -y --reinstall "$deb"
    echo "# tlsneg was installed before the test: this build's package is installed in its place"
    ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
