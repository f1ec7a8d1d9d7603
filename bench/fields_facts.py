#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a user does without tlsneg: tshark's own fields, piped into a short
script that works out the same facts per hello (record and legacy version,
offered versions and the highest, selected and negotiated version,
HelloRetryRequest, GREASE values and count, SNI, TLS_FALLBACK_SCSV, downgrade
sentinel).

  tshark -r FILE $(fields_facts.py --tshark-args) | fields_facts.py

tshark joins repeated fields of one frame with commas, so two hellos in one
frame are mixed up here: one of the things tlsneg does better.
"""
import sys

PROTOS = ("tls", "dtls")
PER_PROTO = ["record.version", "handshake.type", "handshake.version", "handshake.random",
             "handshake.ciphersuite", "handshake.extension.type",
             "handshake.extensions.supported_version", "handshake.extensions_supported_group",
             "handshake.extensions_key_share_group", "handshake.sig_hash_alg",
             "handshake.extensions_alpn_str", "extension.psk_ke_mode",
             "handshake.extensions_server_name"]
FILTER = "tls.handshake.type in {1, 2} || dtls.handshake.type in {1, 2, 3}"
HRR_RANDOM = "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c"
SENTINELS = {"444f574e47524401": 1, "444f574e47524400": 0, "edbfb4a8c24710ff": 2}


def tshark_args():
    args = ["-Y", FILTER, "-T", "fields", "-e", "frame.number"]
    for p in PROTOS:
        for f in PER_PROTO:
            args += ["-e", p + "." + f]
    return args


def is_grease(v):
    return (v & 0x0F0F) == 0x0A0A and (v >> 8) == (v & 0xFF)


def rank(v):
    """Version order, as in docs/fields.md; None for GREASE and unknown values."""
    if v == 0x0304:
        return 100
    if 0x7F00 <= v <= 0x7FFF or 0x7E01 <= v <= 0x7E03 or 0xFB00 <= v <= 0xFBFF:
        return 50
    if v == 0x0002 or 0x0300 <= v <= 0x0303:
        return v & 0xFF if v != 2 else -1
    return {0x0100: 200, 0xFEFF: 201, 0xFEFD: 202, 0xFEFC: 203}.get(v)


def ints(s):
    return [int(x, 0) for x in s.split(",")] if s else []


def facts(frame, cols):
    (record, types, legacy, random_, suites, ext_types, versions, groups, key_shares,
     sig_algs, alpn, psk_modes, sni) = cols
    for t in ints(types):
        if t not in (1, 2, 3):
            continue
        rec = ints(record)[0] if record else None
        leg = ints(legacy)[0] if legacy else None
        rnd = random_.split(",")[0]
        offered = ints(versions) if t == 1 else []
        hrr = t == 2 and rnd == HRR_RANDOM
        known = [v for v in offered or ([leg] if leg is not None else []) if rank(v) is not None]
        offered_max = max(known, key=rank) if t == 1 and known else None
        selected = ints(versions)[0] if t == 2 and versions else None
        negotiated = (selected or leg) if t == 2 and not hrr else None
        grease = [v for v in ints(versions) + ints(suites) + ints(ext_types) + ints(groups)
                  + ints(key_shares) + ints(sig_algs) if is_grease(v)]
        grease += [m for m in ints(psk_modes) if m % 0x1F == 0x0B]
        grease += [a for a in alpn.split(",") if a and len(a) >= 2 and a.startswith("\\x")
                   and a[2:4].lower().endswith("a")]
        scsv = t == 1 and 0x5600 in ints(suites)
        sentinel = SENTINELS.get(rnd[-16:]) if t == 2 and not hrr else None
        yield (frame, t, hrr, rec, leg, offered, offered_max, selected, negotiated,
               len(grease), sni, scsv, sentinel)


def main():
    if sys.argv[1:] == ["--tshark-args"]:
        print("\n".join(tshark_args()))
        return 0
    n = len(PER_PROTO)
    out = sys.stdout
    count = 0
    for line in sys.stdin:
        cols = line.rstrip("\n").split("\t")
        frame = cols[0]
        for k in range(len(PROTOS)):
            part = cols[1 + k * n:1 + (k + 1) * n]
            if len(part) == n and part[1]:
                for f in facts(frame, part):
                    out.write("\t".join("" if v is None else str(v) for v in f) + "\n")
                    count += 1
    sys.stderr.write("fields_facts.py: %d hellos\n" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
