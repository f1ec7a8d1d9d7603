# SPDX-License-Identifier: GPL-2.0-or-later
import sys, collections
from hello import parse_hello, fields

def load(path):
    L = []
    for line in open(path):
        L.append(line.rstrip('\n').split(' '))
    return L

def tls_msgs(L):
    """messages from tshark's THS, located in my own record stream."""
    recs = collections.defaultdict(list)   # dir -> list of (frame, ctype, ver, payload)
    for x in L:
        if x[0] == 'TREC':
            fn, st, sp = int(x[1]), x[2], x[3]
            hdr = bytes.fromhex(x[7]); pay = bytes.fromhex(x[8]) if len(x) > 8 else b''
            if len(hdr) < 5: continue
            recs[(st, sp)].append((fn, hdr[0], int.from_bytes(hdr[1:3], 'big'), pay))
    streams = {}
    for d, rl in recs.items():
        buf = bytearray(); owner = []
        for i, (fn, ct, ver, pay) in enumerate(rl):
            if ct == 22:
                buf += pay; owner += [i] * len(pay)
        streams[d] = (bytes(buf), owner, rl)
    cursor = collections.defaultdict(int)
    out = []
    for x in L:
        if x[0] != 'THS': continue
        fn, st, sp, t, mlen = int(x[1]), x[2], x[3], int(x[6]), int(x[7])
        msg = bytes.fromhex(x[8])
        d = (st, sp)
        buf, owner, rl = streams[d]
        pos = buf.find(msg, cursor[d])
        info = {'frame': fn, 'type': t, 'dir': d, 'msg': msg, 'mlen': mlen}
        if len(msg) < 4 + mlen: info['short'] = len(msg)
        if pos < 0:
            info['rv'] = None; info['err'] = 'not found in record stream'
        else:
            if pos != cursor[d]: info['skipped'] = pos - cursor[d]
            cursor[d] = pos + len(msg)
            ri = sorted(set(owner[pos:pos + len(msg)]))
            info['rv'] = rl[ri[0]][2]
            info['rec_versions'] = [rl[i][2] for i in ri]
            info['rec_frames'] = [rl[i][0] for i in ri]
            info['end_frame'] = rl[owner[pos + len(msg) - 1]][0]
        out.append(info)
    return out

def dtls_msgs(L):
    """own DTLS reassembly from the record bytes."""
    out = []
    partial = {}
    for x in L:
        if x[0] != 'DREC': continue
        fn, st, sp = int(x[1]), x[2], x[3]
        rec = bytes.fromhex(x[7])
        ct = rec[0]; ver = int.from_bytes(rec[1:3], 'big'); epoch = int.from_bytes(rec[3:5], 'big')
        ln = int.from_bytes(rec[11:13], 'big'); pay = rec[13:13 + ln]
        if ct != 22 or epoch != 0: continue
        p = 0
        while p + 12 <= len(pay):
            h = pay[p:p + 12]
            t = h[0]; mlen = int.from_bytes(h[1:4], 'big'); seq = int.from_bytes(h[4:6], 'big')
            fo = int.from_bytes(h[6:9], 'big'); fl = int.from_bytes(h[9:12], 'big')
            frag = pay[p + 12:p + 12 + fl]
            p += 12 + fl
            key = (st, sp, seq, t, mlen)
            ent = partial.get(key)
            if ent is None or ent['done']:
                ent = {'buf': bytearray(mlen), 'have': [False] * mlen, 'recs': [], 'done': False}
                partial[key] = ent
            ent['recs'].append((fn, ver, fo, fl))
            ent['buf'][fo:fo + len(frag)] = frag
            for i in range(fo, fo + len(frag)): ent['have'][i] = True
            if all(ent['have']) and t in (1, 2, 3):
                ent['done'] = True
                first = [r for r in ent['recs'] if r[2] == 0]
                out.append({'frame': fn, 'type': t, 'dir': (st, sp), 'body': bytes(ent['buf']), 'seq': seq,
                            'rv': (first[0][1] if first else ent['recs'][0][1]),
                            'rec_versions': [r[1] for r in ent['recs']], 'rec_frames': [r[0] for r in ent['recs']],
                            'frags': [(r[2], r[3]) for r in ent['recs']]})
    return out

def quic_msgs(L):
    out = []
    for x in L:
        if x[0] != 'THS': continue
        fn, st, sp, t, mlen = int(x[1]), x[2], x[3], int(x[6]), int(x[7])
        msg = bytes.fromhex(x[8])
        info = {'frame': fn, 'type': t, 'dir': (st, sp), 'msg': msg, 'mlen': mlen}
        if len(msg) < 4 + mlen: info['short'] = len(msg)
        out.append(info)
    return out

def run(path, kind):
    L = load(path)
    if kind == 'tls': msgs = tls_msgs(L)
    elif kind == 'dtls': msgs = dtls_msgs(L)
    else: msgs = quic_msgs(L)
    res = []
    for m in msgs:
        if kind == 'dtls':
            r = parse_hello(m['type'], m['body'], dtls=True)
        else:
            r = parse_hello(m['type'], m['msg'][4:], dtls=False)
        f = fields(r, m.get('rv'), quic=(kind == 'quic'))
        res.append((m, r, f))
    return res

if __name__ == '__main__':
    for m, r, f in run(sys.argv[1], sys.argv[2]):
        extra = {k: v for k, v in m.items() if k not in ('msg', 'body')}
        print('msg frame=%d type=%d' % (m['frame'], m['type']), '   #', extra)
        for k, v in f: print('  %s %s' % (k, v))
        if r['notes']: print('  # NOTES:', r['notes'])
        print('  # exts:', [e[0] for e in r['exts']])
