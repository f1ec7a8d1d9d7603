# SPDX-License-Identifier: GPL-2.0-or-later
import sys, subprocess, collections
from analyze import load, tls_msgs, dtls_msgs, quic_msgs
from hello import parse_hello, fields, is_grease, PSK_GREASE
path, dump, kind = sys.argv[1], sys.argv[2], sys.argv[3]
p = 'dtls' if kind == 'dtls' else 'tls'
fl = ['frame.number', p+'.handshake.type', p+'.handshake.version', p+'.handshake.extensions.supported_version',
      p+'.handshake.extensions_server_name', p+'.handshake.ciphersuite', p+'.handshake.random', p+'.handshake.extension.type',
      p+'.handshake.extensions_supported_group', p+'.handshake.extensions_key_share_group', p+'.handshake.sig_hash_alg', p+'.extension.psk_ke_mode', p+'.record.version']
cmd = ['tshark', '-r', path, '-T', 'fields', '-E', 'occurrence=a', '-E', 'aggregator=|']
for f in fl: cmd += ['-e', f]
out = subprocess.run(cmd, capture_output=True, text=True).stdout
ts = {}
for line in out.splitlines():
    c = line.split('\t')
    ts[int(c[0])] = [x.split('|') if x else [] for x in c[1:]]
def iv(s): return int(s, 0)
L = load(dump)
msgs = {'tls': tls_msgs, 'dtls': dtls_msgs, 'quic': quic_msgs}[kind](L)
per = collections.defaultdict(list)
for m in msgs:
    r = parse_hello(m['type'], m['body'] if kind == 'dtls' else m['msg'][4:], dtls=(kind == 'dtls'))
    per[m['frame']].append(r)
bad = 0
for fn, rs in sorted(per.items()):
    t = ts[fn]
    types = [iv(x) for x in t[0] if iv(x) in (1, 2, 3)]
    mine_types = [r['type'] for r in rs]
    probs = []
    # DTLS: dtls.handshake.type appears per fragment header; compare only the last occurrences
    if kind == 'dtls':
        if not all(x in types for x in mine_types): probs.append('types %s vs %s' % (mine_types, types))
    elif types != mine_types: probs.append('types %s vs %s' % (mine_types, types))
    ver = [iv(x) for x in t[1]]
    mver = [r['legacy_version'] for r in rs]
    if kind == 'dtls' or any(r['type'] == 3 for r in rs):
        if collections.Counter(mver) - collections.Counter(ver): probs.append('versions %s vs %s' % (mver, ver))
    elif ver[:len(mver)] != mver: probs.append('versions %s vs %s' % (mver, ver))
    sv = [iv(x) for x in t[2]]
    msv = []
    for r in rs:
        msv += r.get('offered', []) + ([r['selected']] if 'selected' in r else [])
    if sv != msv: probs.append('supported_versions %s vs %s' % ([hex(x) for x in msv], [hex(x) for x in sv]))
    sni = t[3]; msni = [r['sni'] for r in rs if 'sni' in r]
    if sni != msni: probs.append('sni %s vs %s' % (msni, sni))
    cs = [iv(x) for x in t[4]]
    mcs = []
    for r in rs: mcs += r.get('ciphers', []) + ([r['cipher']] if 'cipher' in r else [])
    if collections.Counter(mcs) - collections.Counter(cs): probs.append('ciphers differ: mine-extra %s' % (collections.Counter(mcs) - collections.Counter(cs)))
    if cs.count(0x5600) != mcs.count(0x5600): probs.append('scsv count')
    rnd = [x.replace(':', '') for x in t[5]]
    mr = [r['random'].hex() for r in rs if 'random' in r]
    if rnd[:len(mr)] != mr and sorted(rnd) != sorted(mr): probs.append('random %s vs %s' % (mr, rnd))
    # grease multisets per family, from tshark fields
    g = collections.Counter()
    for x in t[4]:
        if is_grease(iv(x)): g[('cipher_suite', iv(x))] += 1
    for x in t[6]:
        if is_grease(iv(x)): g[('extension', iv(x))] += 1
    for x in t[7]:
        if is_grease(iv(x)): g[('group', iv(x))] += 1
    for x in t[8]:
        if is_grease(iv(x)): g[('key_share', iv(x))] += 1
    for x in t[9]:
        if is_grease(iv(x)): g[('signature_algorithm', iv(x))] += 1
    for x in t[10]:
        if iv(x) in PSK_GREASE: g[('psk_mode', iv(x))] += 1
    for x in t[2]:
        if is_grease(iv(x)): g[('version', iv(x))] += 1
    mg = collections.Counter()
    for r in rs:
        for v, f in r['grease']: mg[(f if f != 'key_share(ext40)' else 'key_share', v)] += 1
    if g != mg: probs.append('grease mine %s vs tshark %s' % (sorted(mg.items()), sorted(g.items())))
    recv = [iv(x) for x in t[11]]
    print('frame %d: %s' % (fn, 'OK' if not probs else 'DIFF ' + '; '.join(probs)), ' tshark record versions in frame:', sorted(set(hex(x) for x in recv)))
    bad += bool(probs)
print('frames with differences:', bad)
