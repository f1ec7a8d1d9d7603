#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Screenshot of the real Wireshark GUI showing the "TLS Version Negotiation"
# tree of one packet, expanded, with a given build of the plugin.
#
#   tools/wireshark-screenshot.sh PLUGIN.so CAPTURE FRAME OUT.png
#   e.g. tools/wireshark-screenshot.sh build/tlsneg.so pcaps/tls13-hrr.pcap 6 docs/screenshots/tls13-hrr.png
#
# Wireshark runs under Xvfb with only the given plugin build (DESIGN.md,
# "Loading the fresh build in tests": copy to $tmp/X.Y/epan/ in a mode-755
# folder, WIRESHARK_PLUGIN_DIR=$tmp, HOME=$tmp, run as nobody when root, so
# neither the installed copy nor root's warning dialog gets in the way).
# The packet list is filtered to the frames the plugin annotates (set
# TLSNEG_SCREENSHOT_FILTER to change that; empty = no filter). Then xdotool
# focuses the packet details, selects the last top-level item (the plugin is
# a postdissector, so its tree comes last) and expands it with all subtrees.
# Optional settings (environment):
#   TLSNEG_SCREENSHOT_WIDTH, _HEIGHT  window size (default 1600 x 900)
#   TLSNEG_SCREENSHOT_FILTER          display filter (default tlsneg; empty: none)
#   TLSNEG_SCREENSHOT_COLUMNS         packet list columns, as the value of the
#                                     gui.column.format preference, e.g.
#                                     '"No.","%m","Offered","%Cus:tlsneg.offered_max:0:R"'
#   TLSNEG_SCREENSHOT_PROFILE         a folder of configuration profile files
#                                     (e.g. profile/): Wireshark starts with it
#                                     as the profile "TLS Negotiation" (-C),
#                                     with its recent file's column widths
#   TLSNEG_SCREENSHOT_BYTES           1: show the bytes pane too
#   TLSNEG_SCREENSHOT_UPPER           the packet list's saved height (default
#                                     height/10; Wireshark scales it up)
#   TLSNEG_SCREENSHOT_KEYS            keys pressed in the packet details once
#                                     the tree is expanded (xdotool names,
#                                     e.g. "Down Down"): to select an item
#   TLSNEG_SCREENSHOT_DOUBLECLICK     "X Y": then double-click there (a link
#                                     item: Wireshark goes to its frame)
#   TLSNEG_SCREENSHOT_DIALOG          instead of the packet details, photograph
#                                     a dialog: "expert" (Analyze > Expert
#                                     Information, opened with -z expert, every
#                                     group expanded) or "stats" (Statistics >
#                                     TLS Version Negotiation, opened from the
#                                     menu: it is the menu's last item) or
#                                     "ladder" (Statistics > TLS Negotiation
#                                     Ladder, photographed at the size it
#                                     opens at) or "flow" (Statistics > Flow
#                                     Graph, its "Limit to display filter"
#                                     box ticked)
#   TLSNEG_SCREENSHOT_LADDER_GOTO     with the ladder: a frame number typed
#                                     into its "Go to frame..." button's
#                                     dialog; the whole screen is
#                                     photographed (main window and ladder)
# Needs: wireshark-qt, tshark, xvfb, xdotool, imagemagick.
# Every wait is bounded; Wireshark and Xvfb are stopped on exit. Exits non-zero
# unless OUT.png was written and is not a single colour.
set -eu

usage() { echo "usage: $0 PLUGIN.so CAPTURE FRAME OUT.png (see the comment at the top for the TLSNEG_SCREENSHOT_* settings)" >&2; exit 2; }
[ $# -eq 4 ] || usage
plugin=$1 capture=$2 frame=$3 out=$4
case $frame in ''|*[!0-9]*) usage ;; esac
width=${TLSNEG_SCREENSHOT_WIDTH:-1600}
height=${TLSNEG_SCREENSHOT_HEIGHT:-900}
filter=${TLSNEG_SCREENSHOT_FILTER-tlsneg}
columns=${TLSNEG_SCREENSHOT_COLUMNS-}
dialog=${TLSNEG_SCREENSHOT_DIALOG-}
ladder_goto=${TLSNEG_SCREENSHOT_LADDER_GOTO-}
profile_src=${TLSNEG_SCREENSHOT_PROFILE-}
profile_name="TLS Negotiation"
case $dialog in
    '') ;;
    expert) dialog_title="Expert Information" ;;
    stats) dialog_title="TLS Version Negotiation" ;;
    ladder) dialog_title="TLS Negotiation Ladder" ;;
    flow) dialog_title="Flow" ;;
    *) usage ;;
esac

die() { echo "screenshot: $*" >&2; exit 1; }
[ -r "$plugin" ] || die "cannot read plugin $plugin"
[ -r "$capture" ] || die "cannot read capture $capture"
for tool in wireshark tshark Xvfb xdotool import identify timeout; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found (apt-get install wireshark-qt tshark xvfb xdotool imagemagick)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlsneg-shot.XXXXXX")
chmod 755 "$tmp"
ws_pid="" xvfb_pid=""
cleanup() {
    # Only the processes started here, by id; timeout(1) passes the signal on.
    for pid in $ws_pid $xvfb_pid; do
        kill "$pid" 2>/dev/null || :
    done
    for pid in $ws_pid $xvfb_pid; do
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$pid" 2>/dev/null || :
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Run Wireshark, tshark and Xvfb unprivileged when we are root ($as_user is
# split into words on purpose where it is used).
as_user=""
if [ "$(id -u)" -eq 0 ]; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi

ws_version=$(timeout 30 tshark --version 2>/dev/null | sed -n 's/^TShark (Wireshark) \([0-9]*\.[0-9]*\).*/\1/p' | head -n1)
[ -n "$ws_version" ] || die "cannot read tshark's version"
mkdir -p "$tmp/$ws_version/epan" "$tmp/.config/wireshark" "$tmp/xdg"
chmod 755 "$tmp/$ws_version" "$tmp/$ws_version/epan"
cp "$plugin" "$tmp/$ws_version/epan/tlsneg.so"
chmod 755 "$tmp/$ws_version/epan/tlsneg.so"
capname=$(basename "$capture")
cp "$capture" "$tmp/$capname"
chmod 644 "$tmp/$capname"

# A fresh profile: window filling the screen, packet list on top, details
# below it, no bytes pane. Wireshark scales the saved pane height from its
# initial window size (about x1.8 here), so height/10 gives the list about a
# fifth of the screen.
upper=${TLSNEG_SCREENSHOT_UPPER:-$((height / 10))}
cat > "$tmp/.config/wireshark/recent_common" <<EOF
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: $width
gui.geometry_main_height: $height
gui.geometry_main_maximized: FALSE
privs.warn_if_elevated: FALSE
sys.warn_if_no_capture: FALSE
EOF
byte_view=FALSE
[ "${TLSNEG_SCREENSHOT_BYTES-}" = 1 ] && byte_view=TRUE
cat > "$tmp/.config/wireshark/recent" <<EOF
gui.byte_view_show: $byte_view
gui.packet_diagram_show: FALSE
gui.geometry_main_upper_pane: $upper
column.width:
	%m, 70,
	%t, 100,
	%s, 150,
	%d, 150,
	%p, 90,
	%L, 60,
	%i, -1
EOF
if [ -n "$profile_src" ]; then
    # The profile's own folder holds its recent file (pane sizes, widths).
    pdir="$tmp/.config/wireshark/profiles/$profile_name"
    mkdir -p "$pdir"
    cp "$profile_src"/preferences "$profile_src"/colorfilters "$profile_src"/dfilter_buttons "$pdir/"
    # The pane settings above, then the profile's own recent file (its
    # column widths), as a user who installed the profile has them.
    grep -v -e '^column.width:' -e '^	' "$tmp/.config/wireshark/recent" > "$pdir/recent"
    if [ -r "$profile_src/recent" ]; then
        cat "$profile_src/recent" >> "$pdir/recent"
    fi
fi
if [ "$(id -u)" -eq 0 ]; then
    chown -R 65534:65534 "$tmp/.config" "$tmp/xdg"
fi
chmod 700 "$tmp/xdg"

# An empty extcap folder: nothing here captures, and an extcap helper that
# hangs (androiddump has been seen to) would stall tshark -G and the GUI.
mkdir -p "$tmp/extcap"
unset WIRESHARK_CONFIG_DIR
WIRESHARK_PLUGIN_DIR=$tmp WIRESHARK_EXTCAP_DIR=$tmp/extcap HOME=$tmp
XDG_CONFIG_HOME=$tmp/.config XDG_RUNTIME_DIR=$tmp/xdg
export WIRESHARK_PLUGIN_DIR WIRESHARK_EXTCAP_DIR HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR

# Refuse to go on unless exactly the fresh copy is loaded.
# shellcheck disable=SC2086
plugins=$(cd "$tmp" || exit 1; timeout 60 $as_user tshark -G plugins 2>/dev/null | grep tlsneg || :)
[ "$(printf '%s\n' "$plugins" | awk -F'\t' '{print $NF}' | sed 's/^ *//;s/ *$//')" = "$tmp/$ws_version/epan/tlsneg.so" ] ||
    die "Wireshark does not load exactly the fresh build: ${plugins:-no tlsneg plugin}"
# shellcheck disable=SC2086
n=$(cd "$tmp" && timeout 120 $as_user tshark -r "$capname" -Y "frame.number == $frame && tlsneg" 2>/dev/null | wc -l)
[ "$n" -eq 1 ] || die "frame $frame of $capture has no TLS Version Negotiation tree"

# Xvfb on a free display, as the same user as Wireshark.
# shellcheck disable=SC2086
(cd "$tmp" && exec $as_user timeout -k 5 300 Xvfb -displayfd 3 -screen 0 "${width}x${height}x24" \
    -nolisten tcp -noreset 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1) &
xvfb_pid=$!
i=0
while ! grep -q '^[0-9]' "$tmp/display" 2>/dev/null; do
    [ $i -lt 100 ] || { cat "$tmp/xvfb.log" >&2; die "Xvfb did not start"; }
    kill -0 "$xvfb_pid" 2>/dev/null || { cat "$tmp/xvfb.log" >&2; die "Xvfb exited"; }
    sleep 0.1; i=$((i + 1))
done
DISPLAY=:$(head -n1 "$tmp/display")
export DISPLAY

layout3=NONE
[ "${TLSNEG_SCREENSHOT_BYTES-}" = 1 ] && layout3=PBYTES
start=$(date +%s)
set -- -r "$capname" -g "$frame" \
    -o gui.ask_unsaved:FALSE -o gui.update.enabled:FALSE \
    -o gui.layout_type:1 -o gui.layout_content_1:PLIST \
    -o gui.layout_content_2:PDETAILS -o "gui.layout_content_3:$layout3" \
    -o gui.packet_list_show_minimap:FALSE -o tcp.try_heuristic_first:TRUE
[ -n "$filter" ] && set -- "$@" -Y "$filter"
[ -n "$columns" ] && set -- "$@" -o "gui.column.format:$columns"
[ -n "$profile_src" ] && set -- "$@" -C "$profile_name"
[ "$dialog" = expert ] && set -- "$@" -z expert
# shellcheck disable=SC2086
(cd "$tmp" && exec $as_user timeout -k 5 300 wireshark "$@" >"$tmp/wireshark.log" 2>&1) &
ws_pid=$!

# Wait for the main window to show the capture.
win=""
i=0
while [ -z "$win" ]; do
    [ $i -lt 120 ] || { cat "$tmp/wireshark.log" >&2; die "no Wireshark window for $capname after 60 s"; }
    kill -0 "$ws_pid" 2>/dev/null || { cat "$tmp/wireshark.log" >&2; die "Wireshark exited"; }
    win=$(timeout 5 xdotool search --onlyvisible --name "^$capname" 2>/dev/null | head -n1 || :)
    sleep 0.5; i=$((i + 1))
done
sleep 2    # dissection, -Y and -g finish after the title is set
timeout 5 xdotool windowmove "$win" 0 0 windowsize "$win" "$width" "$height" >/dev/null 2>&1 || :
sleep 0.5

shoot=root
if [ -z "$dialog" ]; then
    # Packet details: below menu, tool bars and packet list; click near its
    # bottom (empty rows), then End = last top-level item = our tree,
    # Shift+Right = "Expand Subtrees". Park the pointer on the status bar.
    # With the bytes pane below, the details sit in the middle.
    click_y=$((height - 50))
    [ "${TLSNEG_SCREENSHOT_BYTES-}" = 1 ] && click_y=$((height / 2 - 20))
    timeout 5 xdotool mousemove --sync $((width / 2)) "$click_y" click 1
    sleep 0.3
    timeout 5 xdotool windowfocus --sync "$win" 2>/dev/null || :
    timeout 5 xdotool key --clearmodifiers End
    sleep 0.3
    timeout 5 xdotool key --clearmodifiers shift+Right
    sleep 0.3
    for k in ${TLSNEG_SCREENSHOT_KEYS-}; do
        timeout 5 xdotool key --clearmodifiers "$k"
        sleep 0.2
    done
    if [ -n "${TLSNEG_SCREENSHOT_DOUBLECLICK-}" ]; then
        # shellcheck disable=SC2086
        timeout 5 xdotool mousemove --sync $TLSNEG_SCREENSHOT_DOUBLECLICK click --repeat 2 1
        sleep 1
    fi
    if [ -n "$columns" ]; then
        # View > Resize Columns (Ctrl+Shift+R): each column as wide as its
        # text (pressed last: it upsets the keys above).
        timeout 5 xdotool key --clearmodifiers ctrl+shift+r
        sleep 1
    fi
    timeout 5 xdotool mousemove --sync $((width - 10)) $((height - 8))
    sleep 1
else
    if [ "$dialog" = stats ] || [ "$dialog" = ladder ] || [ "$dialog" = flow ]; then
        # Statistics menu (Alt+S), Up wraps to its last item, which is the
        # plugin's stats tree in Wireshark 4.0 (plugin trees come last).
        timeout 5 xdotool mousemove --sync $((width / 2)) $((height - 50)) click 1
        sleep 0.3
        timeout 5 xdotool windowfocus --sync "$win" 2>/dev/null || :
        timeout 5 xdotool key --clearmodifiers alt+s
        sleep 0.8
        if [ "$dialog" = ladder ] || [ "$dialog" = flow ]; then
            # The ladder's item is the twelfth of the menu in Wireshark 4.0
            # (after ONC-RPC Programs; Down skips separators), Flow Graph
            # the eighteenth (after DNS). Brittle: look at the picture.
            downs=11
            [ "$dialog" = flow ] && downs=17
            n=0
            while [ $n -lt $downs ]; do
                timeout 5 xdotool key --clearmodifiers Down
                n=$((n + 1))
            done
        else
            timeout 5 xdotool key --clearmodifiers Up
        fi
        sleep 0.3
        timeout 5 xdotool key --clearmodifiers Return
    fi
    # The dialog is a window of its own, titled "Wireshark · TITLE · FILE".
    dlg=""
    i=0
    while [ -z "$dlg" ]; do
        [ $i -lt 60 ] || { cat "$tmp/wireshark.log" >&2; die "no $dialog_title window after 30 s"; }
        kill -0 "$ws_pid" 2>/dev/null || { cat "$tmp/wireshark.log" >&2; die "Wireshark exited"; }
        dlg=$(timeout 5 xdotool search --onlyvisible --name "$dialog_title" 2>/dev/null | head -n1 || :)
        sleep 0.5; i=$((i + 1))
    done
    sleep 1    # the dialog taps the whole capture after it appears
    if [ "$dialog" = ladder ]; then
        # The ladder is photographed at the size it opens at (Wireshark
        # 4.0's text window: 620 x 450), to show what a class sees.
        timeout 5 xdotool windowmove "$dlg" 0 0 >/dev/null 2>&1 || :
    else
        timeout 5 xdotool windowmove "$dlg" 0 0 windowsize "$dlg" "$width" "$height" >/dev/null 2>&1 || :
    fi
    sleep 1
    if [ "$dialog" = flow ]; then
        # Tick "Limit to display filter" (found at these coordinates, left
        # of the bottom row, in Wireshark 4.0's Flow Graph resized to
        # 1280 x 800 here: brittle, look at the picture).
        timeout 5 xdotool mousemove --sync "${TLSNEG_SCREENSHOT_FLOW_BOX_X:-20}" \
            "${TLSNEG_SCREENSHOT_FLOW_BOX_Y:-$((height - 62))}" click 1
        sleep 1.5
    fi
    if [ "$dialog" = expert ]; then
        # Its tree: one collapsed row per expert info (summary) group. Click
        # the first row, End = last group; then expand from the bottom up
        # (Right expands, Up reaches the group above, still collapsed).
        timeout 5 xdotool mousemove --sync 200 30 click 1
        sleep 0.3
        timeout 5 xdotool key --clearmodifiers End
        n=0
        while [ $n -lt 24 ]; do
            timeout 5 xdotool key --clearmodifiers Right Up
            n=$((n + 1))
        done
        sleep 0.3
        # Widen the Summary column: drag its right edge (Qt's default width
        # puts it at x = 540 in Wireshark 4.0) to the right. Brittle: with
        # other fonts or versions the drag may miss the edge (nothing
        # happens) or move a column instead; look at the picture.
        summary_to=$((width * 3 / 4))
        timeout 5 xdotool mousemove --sync 540 22
        sleep 0.2
        timeout 5 xdotool mousedown 1
        sleep 0.2
        timeout 5 xdotool mousemove --sync $(((540 + summary_to) / 2)) 22
        sleep 0.2
        timeout 5 xdotool mousemove --sync "$summary_to" 22
        sleep 0.2
        timeout 5 xdotool mouseup 1
        sleep 0.3
    fi
    timeout 5 xdotool mousemove --sync $((width - 10)) $((height - 8))
    sleep 1
    shoot=$dlg
    if [ "$dialog" = ladder ] && [ -n "$ladder_goto" ]; then
        # The ladder's "Go to frame..." button (the middle one, found at
        # these coordinates in the 620 x 450 window of Wireshark 4.0:
        # brittle, look at the picture), the frame typed into the dialog it
        # opens; then photograph the whole screen: the main window behind,
        # with that frame selected.
        timeout 5 xdotool mousemove --sync 462 426 click 1
        sleep 1
        ask=""
        i=0
        while [ -z "$ask" ]; do
            [ $i -lt 20 ] || die "no \"Go to a rung's frame\" dialog after 10 s"
            ask=$(timeout 5 xdotool search --onlyvisible --name "Go to a rung" 2>/dev/null | head -n1 || :)
            sleep 0.5; i=$((i + 1))
        done
        # Click into its field (the first row's right half), then type.
        geom=$(timeout 5 xdotool getwindowgeometry --shell "$ask")
        ask_x=$(printf '%s\n' "$geom" | sed -n 's/^X=//p')
        ask_y=$(printf '%s\n' "$geom" | sed -n 's/^Y=//p')
        ask_w=$(printf '%s\n' "$geom" | sed -n 's/^WIDTH=//p')
        timeout 5 xdotool mousemove --sync $((ask_x + ask_w * 3 / 4)) $((ask_y + 22)) click 1
        sleep 0.3
        timeout 5 xdotool type --delay 50 "$ladder_goto"
        timeout 5 xdotool key --clearmodifiers Return
        sleep 6    # the filter back comes with the ladder's next redraw (3 s)
        timeout 5 xdotool windowmove "$dlg" $((width - 620)) $((height - 450)) >/dev/null 2>&1 || :
        sleep 1
        shoot=root
    fi
fi

mkdir -p "$(dirname "$out")"
timeout 30 import -window "$shoot" "$tmp/shot.png" || die "import failed"
kill -0 "$ws_pid" 2>/dev/null || die "Wireshark exited before the screenshot"
read -r w k <<EOF
$(identify -format '%w %k' "$tmp/shot.png")
EOF
[ "${k:-0}" -gt 1 ] || die "screenshot is a single colour"
cp "$tmp/shot.png" "$out"
echo "screenshot: $out (${w}px wide, $k colours, $(( $(date +%s) - start )) s in Wireshark)"
