# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# capture-common.sh: what the capture scripts share (make-captures.sh,
# make-pq-captures.sh, make-starttls-captures.sh, make-quic-captures.sh).
# Each sources it after setting $me (its name in log lines) and $out (where
# its captures go).

log() { printf '[%s] %s\n' "$me" "$*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# await TRIES PID LOG MESSAGE CMD...: run CMD every 50 ms until it succeeds,
# at most TRIES times; when PID (unless empty) exits first or the tries run
# out, show LOG (unless empty) and die with MESSAGE. What every capture script
# waits for: dumpcap capturing, a server listening, a helper ready.
await() {
    local tries=$1 pid=$2 logf=$3 message=$4 _
    shift 4
    for _ in $(seq "$tries"); do
        "$@" && return 0
        [ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    [ -z "$logf" ] || cat "$logf" >&2
    die "$message"
}

# capturing LOG: dumpcap's log says it is capturing.
capturing() { grep -q 'Capturing on' "$1"; }

# select_scenarios KNOWN... -- ARGS...: sets scenarios to ARGS, or to every
# KNOWN one when ARGS is empty; dies on a name that is not KNOWN.
select_scenarios() {
    local known=() s
    while [ "$1" != -- ]; do
        known+=("$1")
        shift
    done
    shift
    scenarios=("$@")
    [ ${#scenarios[@]} -gt 0 ] || scenarios=("${known[@]}")
    for s in "${scenarios[@]}"; do
        case " ${known[*]} " in
        *" $s "*) ;;
        *) die "unknown scenario $s (known: ${known[*]})" ;;
        esac
    done
}

# fields NAME FILTER FIELD...: tshark fields of the frames matching FILTER.
fields() {
    local name=$1 filter=$2
    shift 2
    local args=() f
    for f in "$@"; do
        args+=(-e "$f")
    done
    tshark -r "$out/$name.pcap" -Y "$filter" -T fields -E occurrence=a "${args[@]}" 2>/dev/null
}

# expect_count NAME FILTER N: exactly N frames match FILTER, or fail.
expect_count() {
    local name=$1 filter=$2 want=$3 got
    got=$(fields "$name" "$filter" frame.number | wc -l)
    [ "$got" -eq "$want" ] || die "$name: $got frames match '$filter', expected $want"
}
