#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shell script of the project parses (sh -n or bash -n, as its first
# line asks) and passes shellcheck:
#   tests/lint/test_shell.sh [SOURCE_DIR]
# A script is any file outside build folders and .git whose first line starts
# with #! and names sh or bash. A sourced part (no #!, a "# shellcheck
# shell=sh|bash" line among its first three) is checked too: shellcheck -x
# reads it for the script that sources it but reports nothing in it. On its
# own it uses the variables of that script and sets some for it, so SC2154
# (referenced, not assigned) and SC2034 (assigned, unused) are left out there.
set -eu
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
command -v shellcheck >/dev/null || { echo "not ok - shellcheck is not installed (tools/install-deps.sh installs it)"; exit 1; }
passed=0
failed=0
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "$root" \( -name .git -o -name 'build*' -o -name node_modules \) -prune -o -type f -print |
    sort | while IFS= read -r f; do
    case $(head -c 64 "$f" 2>/dev/null | head -n1) in
    '#!/bin/sh'* | '#!/usr/bin/env sh'*) echo "sh $f" ;;
    '#!/bin/bash'* | '#!/usr/bin/env bash'*) echo "bash $f" ;;
    '#!'*) ;;
    *)
        case $(head -n 3 "$f" 2>/dev/null | grep -x '# shellcheck shell=\(sh\|bash\)') in
        *=sh) echo "sh $f part" ;;
        *=bash) echo "bash $f part" ;;
        esac
        ;;
    esac
done >"$list"
[ -s "$list" ] || { echo "not ok - no shell script found under $root"; exit 1; }
while read -r shell f part; do
    name=${f#"$root"/}
    skip=
    [ -z "$part" ] || skip='-e SC2154,SC2034'
    if "$shell" -n "$f"; then
        passed=$((passed + 1))
        echo "ok - $shell -n $name"
    else
        failed=$((failed + 1))
        echo "not ok - $shell -n $name"
    fi
    # shellcheck disable=SC2086 # $skip: no option or two words
    if out=$(shellcheck $skip -x -P "$(dirname "$f")" "$f" 2>&1); then
        passed=$((passed + 1))
        echo "ok - shellcheck $name${part:+ (sourced part)}"
    else
        failed=$((failed + 1))
        echo "not ok - shellcheck $name"
        printf '%s\n' "$out" | sed 's/^/#   /'
    fi
done <"$list"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
