#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file of the project names its licence in an SPDX line within
# its first three lines:
#   tests/lint/test_spdx.sh [SOURCE_DIR]
# Source files: C (.c .h .def), Python, shell, Lua, Java, Go, CMake files and
# .ci/run, outside build folders, .git and pcaps/public/ (other projects'
# captures, whose licences pcaps/public/README.md names).
set -eu
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
tag="SPDX-License-Identifier: GPL-2.0-or-later"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "$root" \( -name .git -o -name 'build*' -o -path "$root/pcaps/public" \) -prune -o -type f \
    \( -name '*.[ch]' -o -name '*.def' -o -name '*.py' -o -name '*.sh' -o -name '*.lua' \
    -o -name '*.java' -o -name '*.go' -o -name CMakeLists.txt -o -name '*.cmake' \
    -o -path "$root/.ci/run" \) -print | sort >"$list"
n=$(wc -l <"$list")
[ "$n" -gt 0 ] || { echo "not ok - no source file found under $root"; exit 1; }
missing=0
while IFS= read -r f; do
    if ! head -n 3 "$f" | grep -q "$tag"; then
        echo "not ok - ${f#"$root"/} has no '$tag' line"
        missing=$((missing + 1))
    fi
done <"$list"
if [ "$missing" -eq 0 ]; then
    echo "ok - all $n source files carry '$tag'"
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"
    exit 1
fi
