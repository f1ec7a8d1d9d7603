#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every C file (.c .h) of the project is as clang-format writes it with the
# repo's .clang-format (clang-format --dry-run --Werror):
#   tests/lint/test_format.sh [SOURCE_DIR]
# Data that clang-format would mangle goes between "clang-format off" and
# "clang-format on" comments. Build folders and .git are left out.
set -eu
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
command -v clang-format >/dev/null || { echo "not ok - clang-format is not installed (tools/install-deps.sh installs it)"; exit 1; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "$root" \( -name .git -o -name 'build*' -o -name node_modules \) -prune -o -type f \
    -name '*.[ch]' -print | sort >"$list"
n=$(wc -l <"$list")
[ "$n" -gt 0 ] || { echo "not ok - no C file found under $root"; exit 1; }
passed=0
failed=0
while IFS= read -r f; do
    name=${f#"$root"/}
    # --style=file: the .clang-format nearest to the file, the repo's.
    if out=$(clang-format --dry-run --Werror --style=file "$f" 2>&1) && [ -z "$out" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "not ok - clang-format $name"
        printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
    fi
done <"$list"
[ "$failed" -gt 0 ] || echo "ok - all $n C files as clang-format writes them"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
