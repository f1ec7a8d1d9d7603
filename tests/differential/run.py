#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Differential test: for every hello in every capture, the core's
legacy_version, supported_versions, extension order, message length,
supported_groups, key shares (group and length) and selected group
(tlsneg-dump) equal tshark's own tls.*/dtls.* fields
(tests/captures/extract_hellos.py). And tlsneg-dump judges a ServerHello
by the ClientHello it kept: server_group_no_client_share exactly when
tshark shows the ServerHello's group among that ClientHello's groups (or
no list) but not among its key shares."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

from tests.captures import tsharkbox
from tests.captures.extract_hellos import extract
from tests.results import Results

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def captures():
    return sorted(glob.glob(os.path.join(ROOT, "pcaps", "**", "*.pcap*"), recursive=True))


def dtls_header(raw):
    length = int.from_bytes(raw[1:4], "big")
    off = int.from_bytes(raw[6:9], "big")
    frag = int.from_bytes(raw[9:12], "big")
    return length, int.from_bytes(raw[4:6], "big"), off, frag


def inputs_for(msgs):
    """(message, tlsneg-dump input line) for every complete message; DTLS
    fragments are put together by message_seq, as the peer would."""
    pending = {}
    for m in msgs:
        raw = bytes.fromhex(m["hex"])
        if m["wire"] == "dtls":
            length, seq, off, frag = dtls_header(raw)
            if off != 0 or frag != length:
                body = pending.setdefault((seq, m["type"]), bytearray(length))
                body[off:off + frag] = raw[12:12 + frag]
                cover = pending.setdefault((seq, m["type"], "cover"), set())
                cover.update(range(off, off + frag))
                if len(cover) == length and m["legacy_version"] is not None:
                    yield m, f"dtls-body {m['type']} {bytes(body).hex()}"
                continue
        yield m, f"{m['wire']} {m['hex']}"


# Where the core and tshark differ on purpose, hello by hello: broken hellos
# that tshark shows without complaint, and what the core says instead.
KNOWN = {
    # Session ID length 32 with 10 bytes left in the message.
    ("pcaps/synth-malformed.pcap", 22): {"status": "inner length does not fit"},
    # A padding extension whose length (512) runs past the extensions block.
    ("pcaps/synth-malformed.pcap", 32): {"status": "inner length does not fit"},
    # Three bytes after the extensions block.
    ("pcaps/synth-malformed.pcap", 42): {"status": "trailing bytes"},
    # A server's supported_versions of 3 bytes: tshark reads a version from the
    # first two; the core selects nothing from a malformed extension.
    ("pcaps/synth-supported-versions-malformed.pcap", 56): {"supported_versions": []},
}

# Where Wireshark versions read a broken hello differently: (capture, frame) ->
# (first version, check, what tshark shows from that version on, what the core
# says). Older versions show what the core says.
BY_VERSION = {
    # 4.4 and later list the padding extension (21) whose length runs past the
    # extensions block, with their own expert info "Vector length 512 is too
    # large, truncating it to 100"; 4.0 stops before it (Malformed Packet). The
    # core counts only the extensions that fit.
    ("pcaps/synth-malformed.pcap", 32): ((4, 4), "extension order",
                                         [0, 11, 10, 35, 22, 23, 13, 43, 45, 51, 21],
                                         [0, 11, 10, 35, 22, 23, 13, 43, 45, 51]),
}


def key_exchange_checks(m, core):
    """The groups, key shares and selected group of a hello, and its length:
    tshark's reading against the core's. tshark shows a HelloRetryRequest's
    group as selected_group and a ServerHello's as its key share's group;
    tls.handshake.length counts the body, the core the header too (4 bytes,
    12 in DTLS); an SSL 2.0 record carries no handshake length."""
    shares = [[g, n] for g, n in zip(m.get("key_share_groups", []), m.get("key_share_lengths", []))]
    selected = m["selected_group"][0] if m.get("selected_group") else None
    if m["type"] == 2 and selected is None and shares:
        selected = shares[0][0]
    checks = [("groups", m.get("groups", []), core["groups"]),
              ("key shares", shares, core["key_shares"]),
              ("selected group", selected if m["type"] == 2 else None,
               core.get("group_selected"))]
    if m["wire"] != "ssl2" and m.get("length") is not None:
        header = 12 if m["wire"] == "dtls" else 4
        checks.append(("hello length", int(m["length"]) + header, core["hello_length"]))
    return checks


def kept_hello_check(m, core, client):
    """For a ServerHello with a key share judged against client (the last
    ClientHello before it, as tlsneg-dump keeps it: its tshark fields and
    the core's reading), whether server_group_no_client_share must be
    reported, read off tshark's fields; None where the rule does not judge
    (a HelloRetryRequest, no ClientHello, a broken one, no key_share)."""
    if m["type"] != 2 or core["hrr"] or not client or client[1]["status"] != "ok":
        return None
    shares = m.get("key_share_groups", [])
    if not shares or 51 not in client[0]["extension_types"]:
        return None
    group = shares[0]
    listed = client[0].get("groups") or []
    return group not in client[0]["key_share_groups"] and (not listed or group in listed)


def tshark_version():
    out = tsharkbox.plain_run(["--version"]).stdout
    m = re.search(r"TShark \(Wireshark\) (\d+)\.(\d+)", out)
    if not m:
        raise RuntimeError("cannot read tshark's version from: " + out[:200])
    return int(m.group(1)), int(m.group(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dump", required=True, help="the built tlsneg-dump")
    args = ap.parse_args()
    ws_version = tshark_version()
    res = Results(max_detail=20)

    def check_capture(cap, batch):
        msgs = extract(cap)
        pairs = list(inputs_for(msgs))
        if not pairs:
            return
        out = subprocess.run([args.dump], input="\n".join(l for _, l in pairs) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
        name = os.path.relpath(cap, ROOT)
        problems = []
        client = None
        for (m, _), line in zip(pairs, out):
            core = json.loads(line)
            want_finding = kept_hello_check(m, core, client)
            if m["type"] == 1:
                client = (m, core)
            if want_finding is not None:
                got_finding = any(f["finding"] == "server_group_no_client_share"
                                  for f in core.get("findings", []))
                if want_finding != got_finding:
                    problems.append(f"frame {m['frame']}: server_group_no_client_share "
                                    f"{'missing' if want_finding else 'reported'} against the "
                                    f"kept ClientHello (frame {client[0]['frame']})")
            want_sv = [int(v, 16) for v in m["supported_versions"]]
            got_sv = core["supported_versions"] or []
            checks = [("legacy_version", int(m["legacy_version"], 16), core["legacy_version"]),
                      ("supported_versions", want_sv, got_sv),
                      ("extension order", m["extension_types"], core["extensions"]),
                      ("status", "ok", core["status"])]
            checks += key_exchange_checks(m, core)
            known = KNOWN.get((name, m["frame"]), {})
            since = BY_VERSION.get((name, m["frame"]))
            for what, want, got in checks:
                want = known.get(what, want)
                if since and what == since[1] and ws_version >= since[0]:
                    if want != since[2]:
                        problems.append(f"frame {m['frame']} type {m['type']}: {what}: Wireshark "
                                        f"{'.'.join(map(str, ws_version))} was noted to show "
                                        f"{since[2]}, shows {want}")
                    want = since[3]
                if want != got:
                    problems.append(f"frame {m['frame']} type {m['type']}: {what}: tshark {want}, core {got}")
        batch.check(not problems, f"{name}: {len(pairs)} hellos agree with tshark", problems)

    res.each(captures(), check_capture)
    return res.summary()


if __name__ == "__main__":
    sys.exit(main())
