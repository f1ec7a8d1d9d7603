# SPDX-License-Identifier: GPL-2.0-or-later
import sys, collections
L = [l.split() for l in open(sys.argv[1])]
ptypes = {}
space = collections.defaultdict(dict)  # dir -> offset -> byte
conflicts = 0
for l in L:
    if l[0] == 'QPKT':
        pt = l[5].split('=')[1]
        ptypes[l[1]] = pt.split(',') if pt else []
for l in L:
    if l[0] == 'QCRY':
        fn, st, sp, off, ln, sid, data = l[1], l[2], l[3], int(l[5]), int(l[6]), int(l[7]), bytes.fromhex(l[8])
        pts = ptypes.get(fn, [])
        pt = pts[sid-1] if len(pts) >= sid else '0?'
        if pt not in ('0', '0?'): continue
        d = space[(st, sp)]
        for i, b in enumerate(data):
            if off+i in d and d[off+i] != b: conflicts += 1
            d[off+i] = b
print('conflicting retransmitted bytes:', conflicts)
for l in L:
    if l[0] == 'THS':
        msg = bytes.fromhex(l[8]); d = space[(l[2], l[3])]
        # find offset where it matches
        ok = None
        for start in sorted(d):
            if d[start] == msg[0] and all(d.get(start+i) == msg[i] for i in range(len(msg))):
                ok = start; break
        print('frame', l[1], 'type', l[6], 'len', len(msg), 'own reassembly match at offset', ok)
