#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scanexpect.py CAPTURE: manifest blocks for a scanner capture (pcaps/scan-*),
read off the bytes (analyze.py for the hellos, tshark's tls.*/tcp.* fields for
the rest), with the rules of rules.def and the probe recognition
(tlsneg.recognise_probes) applied by this script, not by tlsneg. Throw-away
like the other helpers here; its output was checked by hand."""
import os, subprocess, sys, re, collections, tempfile
RO = os.path.dirname(os.path.abspath(__file__))
import os
cap = os.path.abspath(sys.argv[1])
dump = subprocess.run(["tshark", "-q", "-X", "lua_script:" + RO + "/dump.lua", "-r", cap],
                      capture_output=True, text=True, cwd=RO).stdout
dump_path = os.path.join(tempfile.mkdtemp(), "dump.txt")
open(dump_path, "w").write(dump)
blocks_txt = subprocess.run(["python3", "analyze.py", dump_path, "tls"],
                            capture_output=True, text=True, cwd=RO).stdout
# hello blocks
hellos = collections.OrderedDict()
cur = None
for line in blocks_txt.splitlines():
    m = re.match(r"msg frame=(\d+) type=(\d+)", line)
    if m:
        cur = (int(m.group(1)), int(m.group(2)))
        hellos[cur] = []
    elif cur and line.startswith("  ") and not line.strip().startswith("#"):
        k, _, v = line.strip().partition(" ")
        hellos[cur].append((k, v))
E = ["frame.number", "frame.time_epoch", "tcp.stream", "tcp.srcport", "tcp.dstport",
     "tls.handshake.type", "tls.handshake.ciphersuite", "tls.handshake.extension.type",
     "tls.handshake.extensions_supported_group", "tls.handshake.sig_hash_alg",
     "tls.alert_message.desc", "tls.record.content_type", "tls.handshake.extensions.supported_version",
     "tls.handshake.version"]
out = subprocess.run(["tshark", "-r", cap, "-T", "fields", "-E", "occurrence=a"] +
                     sum([["-e", e] for e in E], []), capture_output=True, text=True).stdout
rows = {}
for l in out.splitlines():
    f = l.split("\t")
    rows[int(f[0])] = dict(zip(E, f))
server_port = None
for (fr, t), kv in hellos.items():
    if t == 1:
        server_port = rows[fr]["tcp.dstport"]; break

def ints(s):
    return [int(x, 16) if x.startswith("0x") else int(x) for x in s.split(",") if x]

def is_draft(v):
    return (v >> 8) == 0x7f or 0x7e01 <= v <= 0x7e03 or (v >> 8) == 0xfb

DEPR = {0x0002, 0x0300, 0x0301, 0x0302}
msgs = []   # (frame, kind, data)
for (fr, t), kv in hellos.items():
    msgs.append((fr, "hello", t, kv))
for fr, r in rows.items():
    if r["tls.alert_message.desc"] and "21" in r["tls.record.content_type"].split(","):
        for d in ints(r["tls.alert_message.desc"]):
            msgs.append((fr, "alert", d, None))
msgs.sort(key=lambda m: (m[0], 0 if m[1] == "hello" else 1))

last_ch = {}   # stream -> (frame, facts)
sh_seen = {}   # stream -> SH frame
out_lines = []
# probe emulation
burst = None
hello_list = []
stream_outcome = {}
later_probe = {}   # ClientHello frame -> its probe's first hello, known only later
def fp(fr):
    r = rows[fr]
    ext = frozenset(e for e in ints(r["tls.handshake.extension.type"])
                    if not ((e & 0x0f0f) == 0x0a0a and (e >> 8) == (e & 0xff)) and e not in (21, 41, 42, 44))
    suites = tuple(s for s in ints(r["tls.handshake.ciphersuite"]) if s != 0x5600)
    legacy = [x for x in r["tls.handshake.version"].split(",") if x][:1]
    return (suites, r["tls.handshake.extensions_supported_group"], r["tls.handshake.sig_hash_alg"], ext,
            r["tls.handshake.extensions.supported_version"], tuple(legacy))
for m in msgs:
    fr = m[0]; r = rows[fr]; st = r["tcp.stream"]
    from_server = r["tcp.srcport"] == server_port
    lines = []
    expert = []
    if m[1] == "hello":
        t, kv = m[2], m[3]
        d = dict(kv)
        exts = ints(r["tls.handshake.extension.type"])
        suites = ints(r["tls.handshake.ciphersuite"]) if t == 1 else []
        lines.append("msg frame=%d type=%d" % (fr, t))
        lines += ["  %s %s" % (k, v) for k, v in kv]
        if t == 1:
            offered = [int(x, 16) for x in d.get("offered_version", "").split()] if "offered_version" in d else None
            omax = int(d["offered_max"], 16) if "offered_max" in d else None
            last_ch[st] = (fr, offered, omax, int(d["legacy_version"], 16))
            if omax is not None and is_draft(omax):
                expert.append("draft_version")
            rec = int(d["record_version"], 16)
            if rec < 0x0300 or rec > 0x0303:
                expert.append("record_version_unusual")
            # Issue 14: only the TLS 1.3-only extensions; TLS 1.3 cipher suites alone are no sign.
            if offered is None and (51 in exts or 45 in exts or 42 in exts):
                expert.append("missing_supported_versions")
            if offered is not None and 0x0304 in offered:
                miss = (51 in exts and 10 not in exts) or (51 not in exts and 10 in exts) or \
                       (41 not in exts and 13 not in exts) or (41 in exts and 45 not in exts) or \
                       (41 in exts and exts[-1] != 41)
                if miss: expert.append("missing_extension")
                if int(d["legacy_version"], 16) != 0x0303: expert.append("legacy_version_mismatch")
            if 0x5600 in suites:
                expert.append("fallback_scsv_highest" if offered and 0x0304 in offered else "fallback_scsv")
            if omax in DEPR: expert.append("deprecated_version")
            # probe emulation
            now = float(r["frame.time_epoch"])
            cur_fp = fp(fr)
            # a variation: an offer not among the burst's last four distinct ones
            # (no hello of these captures is a retry of a failed attempt: checked by hand)
            key = (cur_fp, 0x5600 in suites)
            if burst is None or now - burst["last"] > 30:
                burst = {"first": fr, "n": 0, "var": 0, "rec": False, "last": now, "seen": [key],
                         "before": []}
            elif key not in burst["seen"]:
                burst["var"] += 1
                burst["seen"] = ([key] + burst["seen"])[:4]
            burst["n"] += 1; burst["last"] = now
            if not burst["rec"] and burst["n"] >= 5 and burst["var"] >= 3:
                burst["rec"] = True; expert.append("probe")
                # the hellos before this one learn it once the capture has been read
                for b_fr in burst["before"]:
                    later_probe[b_fr] = burst["first"]
            elif not burst["rec"]:
                burst["before"].append(fr)
            stream_outcome[st] = burst
            if burst["rec"]:
                lines.append("  probe %d" % burst["first"])
        else:
            ch = last_ch.get(st)
            neg = int(d["negotiated_version"], 16) if "negotiated_version" in d else None
            sh_seen[st] = fr
            rec = int(d["record_version"], 16)
            if neg is not None and neg <= 0x0303 and rec != neg: expert.append("record_version_unusual")
            if neg == 0x0304 and rec != 0x0303: expert.append("record_version_unusual")
            if ch and neg is not None:
                off, omax, leg = ch[1], ch[2], ch[3]
                if (off is not None and neg not in off) or (off is None and neg > leg):
                    expert.append("version_not_offered")
            if "selected_version" in d and int(d["selected_version"], 16) <= 0x0303:
                expert.append("old_version_via_extension")
            if "downgrade_sentinel" in d:
                if neg == 0x0304: expert.append("downgrade_sentinel_tls13")
                elif ch and ch[1] and 0x0304 in ch[1]: expert.append("downgrade_sentinel")
                else: expert.append("downgrade_sentinel_no_higher_offer")
            if neg in DEPR: expert.append("deprecated_version")
            if neg is not None and is_draft(neg): expert.append("draft_version")
    else:
        desc = m[2]
        ch = last_ch.get(st)
        lines.append("alert frame=%d" % fr)
        lines.append("  alert %d" % desc)
        if ch: lines.append("  client_hello_frame %d" % ch[0])
        if desc == 86: expert.append("inappropriate_fallback")
        if desc == 70: expert.append("protocol_version_alert")
        ends = desc not in (0, 90, 100)
        b = stream_outcome.get(st)
        done = st in sh_seen
        key = ("ended", st)
        if ends and ch and not stream_outcome.get(key):
            if done and from_server:
                pass   # after a ServerHello the server's alert ends nothing new
            else:
                stream_outcome[key] = True
                if done and not from_server:
                    if not (b and b["rec"] and b["first"] <= ch[0]):
                        expert.append("client_aborted"); lines.append("  aborted_after %d" % sh_seen[st])
                if b and b["rec"] and b["first"] <= ch[0]:
                    lines.append("  probe %d" % b["first"])
    if expert:
        lines.insert(1, "  expert " + " ".join(expert))
    out_lines += lines
# "later probe": after each earlier hello's block
final, cur = [], None
for l in out_lines + ["msg frame=0 type=0"]:
    m = re.match(r"(msg|alert) frame=(\d+)", l)
    if m and cur in later_probe:
        final.append("  later probe %d" % later_probe[cur])
    if m:
        cur = int(m.group(2)) if m.group(1) == "msg" else None
    final.append(l)
print("\n".join(final[:-1]))
