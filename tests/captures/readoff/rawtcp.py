# SPDX-License-Identifier: GPL-2.0-or-later
# independent TCP reassembly + TLS record walk from tcp.payload
import sys, subprocess, collections
from hello import parse_hello, fields
path = sys.argv[1]
out = subprocess.run(['tshark','-r',path,'-o','tcp.analyze_sequence_numbers:FALSE','-T','fields','-e','frame.number','-e','tcp.stream','-e','tcp.srcport','-e','tcp.seq_raw','-e','tcp.flags.syn','-e','tcp.payload','-Y','tcp'],capture_output=True,text=True).stdout
segs = collections.defaultdict(list)
isn = {}
for line in out.splitlines():
    fn, st, sp, seq, syn, pay = (line.split('\t') + [''] * 6)[:6]
    d = (st, sp); seq = int(seq)
    if syn in ('1', 'True'):
        isn[d] = seq + 1; continue
    if pay:
        segs[d].append((int(fn), seq, bytes.fromhex(pay.replace(':',''))))
res = []
for d, sl in segs.items():
    base = isn.get(d, min(s for _, s, _ in sl))
    buf = {}; frame_of = {}
    for fn, seq, p in sl:
        off = (seq - base) % (1 << 32)
        for i, b in enumerate(p):
            if off + i not in buf:
                buf[off + i] = b; frame_of[off + i] = fn
    # contiguous prefix
    n = 0
    while n in buf: n += 1
    data = bytes(buf[i] for i in range(n))
    if n < len(buf): print('# gap in', d, 'after', n, 'bytes; have', len(buf))
    # walk records
    p = 0; hs = bytearray(); hs_rec = []
    recs = []
    while p + 5 <= len(data):
        ct, ver, ln = data[p], int.from_bytes(data[p+1:p+3],'big'), int.from_bytes(data[p+3:p+5],'big')
        if ct not in (20, 21, 22, 23, 24):
            print('# %s non-TLS bytes at %d: %s' % (d, p, data[p:p+16].hex())); break
        if p + 5 + ln > len(data):
            print('# %s record at %d truncated (len %d, have %d)' % (d, p, ln, len(data) - p - 5)); 
        endf = frame_of.get(min(p + 4 + ln, len(data) - 1))
        recs.append((ct, ver, ln, endf))
        if ct == 22:
            pay = data[p+5:p+5+ln]
            hs += pay; hs_rec += [len(recs) - 1] * len(pay)
        if ct == 20: break  # after CCS handshake records are encrypted (or 1.3 compat)
        p += 5 + ln
    q = 0
    while q + 4 <= len(hs):
        t = hs[q]; ml = int.from_bytes(hs[q+1:q+4], 'big')
        if q + 4 + ml > len(hs):
            print('# %s incomplete handshake msg type %d len %d have %d' % (d, t, ml, len(hs) - q - 4)); break
        ri = sorted(set(hs_rec[q:q + 4 + ml]))
        if t in (1, 2):
            r = parse_hello(t, bytes(hs[q+4:q+4+ml]))
            f = fields(r, recs[ri[0]][1])
            res.append((recs[ri[-1]][3], t, d, [hex(recs[i][1]) for i in ri], f, r['notes']))
        q += 4 + ml
res.sort(key=lambda x: x[0])
for x in res: print(x)
