#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin is the Wireshark glue and only that, and the library knows
# nothing of Wireshark (issue 25):
#   tests/lint/test_plugin_glue.sh [SOURCE_DIR]
# Every C file (.c, .h) in plugin/ includes a Wireshark header: one under
# epan/ or wsutil/, or ws-compat.h, which includes them. No file under lib/
# includes a Wireshark header (epan/, wsutil/, wiretap/, ui/, ws_*.h,
# ws-compat.h) or a GLib one (glib.h, glib/, glib-object.h, gmodule.h, gio/):
# code that needs neither belongs in lib/, code that needs them in plugin/.
set -eu
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
include='^[[:space:]]*#[[:space:]]*include[[:space:]]*'
glue="${include}(<(epan|wsutil)/|\"ws-compat\\.h\")"
foreign="${include}[<\"](epan/|wsutil/|wiretap/|ui/|ws_[A-Za-z0-9_]*\\.h|ws-compat\\.h|glib\\.h|glib/|glib-object\\.h|gmodule\\.h|gio/)"
passed=0
failed=0
pass() {
    passed=$((passed + 1))
    echo "ok - $1"
}
fail() {
    failed=$((failed + 1))
    echo "not ok - $1"
}

# The patterns themselves, so that a broken one cannot pass everything.
for line in '#include <epan/packet.h>' '#include <wsutil/plugins.h>' '#include "ws-compat.h"'; do
    if printf '%s\n' "$line" | grep -Eq "$glue"; then
        pass "'$line' counts as a Wireshark header in plugin/"
    else
        fail "'$line' does not count as a Wireshark header in plugin/"
    fi
done
for line in '#include <glib.h>' '# include <epan/proto.h>' '#include <ws_version.h>' \
    '#include "ws-compat.h"'; do
    if printf '%s\n' "$line" | grep -Eq "$foreign"; then
        pass "'$line' is refused under lib/"
    else
        fail "'$line' is not refused under lib/"
    fi
done
for line in '#include <stdint.h>' '#include "core/facts.h"'; do
    if printf '%s\n' "$line" | grep -Eq "$foreign"; then
        fail "'$line' is refused under lib/"
    else
        pass "'$line' is allowed under lib/"
    fi
done

list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "$root/plugin" -type f -name '*.[ch]' -print | sort >"$list"
[ -s "$list" ] || { echo "not ok - no C file found under $root/plugin"; exit 1; }
while IFS= read -r f; do
    name=${f#"$root"/}
    if grep -Eq "$glue" "$f"; then
        pass "$name includes a Wireshark header"
    else
        fail "$name includes no Wireshark header (epan/, wsutil/ or ws-compat.h): pure C belongs in lib/"
    fi
done <"$list"

find "$root/lib" -type f -print | sort >"$list"
[ -s "$list" ] || { echo "not ok - no file found under $root/lib"; exit 1; }
while IFS= read -r f; do
    name=${f#"$root"/}
    if found=$(grep -En "$foreign" "$f"); then
        fail "$name includes a Wireshark or GLib header: Wireshark code belongs in plugin/"
        printf '%s\n' "$found" | sed 's/^/#   line /'
    else
        pass "$name includes no Wireshark or GLib header"
    fi
done <"$list"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
