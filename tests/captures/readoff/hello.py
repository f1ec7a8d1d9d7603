# SPDX-License-Identifier: GPL-2.0-or-later
# Independent hello parser (does not use tshark's field values).
HRR_RANDOM = bytes.fromhex('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c')
PSK_GREASE = {0x0b,0x2a,0x49,0x68,0x87,0xa6,0xc5,0xe4}
def is_grease(v): return (v & 0x0f0f) == 0x0a0a and (v >> 8) == (v & 0xff)

def known(v):
    if v in (0x0002,0x0300,0x0301,0x0302,0x0303,0x0304): return True
    if 0x7f00 < v <= 0x7f1c: return True   # drafts 1..28
    if v in (0x7e01,0x7e02,0x7e03): return True
    if (v >> 8) == 0xfb: return True
    if v in (0x0100,0xfeff,0xfefd,0xfefc): return True
    return False

def rank(v):
    # one scale per family
    tls = {0x0002:1,0x0300:2,0x0301:3,0x0302:4,0x0303:5,0x0304:1000}
    if v in tls: return ('tls', tls[v])
    if (v>>8)==0x7f: return ('tls', 100 + (v & 0xff))
    if (v>>8)==0x7e: return ('tls', 300 + (v & 0xff))
    if (v>>8)==0xfb: return ('tls', 400 + (v & 0xff))
    dt = {0x0100:1,0xfeff:2,0xfefd:3,0xfefc:4}
    if v in dt: return ('dtls', dt[v])
    return None

class Short(Exception): pass
class Cur:
    def __init__(s, b, notes): s.b=b; s.p=0; s.notes=notes
    def take(s, n, what):
        if s.p + n > len(s.b): raise Short('truncated at %s (need %d, have %d)' % (what, n, len(s.b)-s.p))
        r = s.b[s.p:s.p+n]; s.p += n; return r
    def u8(s, w): return s.take(1,w)[0]
    def u16(s, w): return int.from_bytes(s.take(2,w),'big')
    def u24(s, w): return int.from_bytes(s.take(3,w),'big')
    def left(s): return len(s.b)-s.p

def parse_hello(mtype, body, dtls=False):
    """body = message body without the 4-byte (TLS) / 12-byte (DTLS) header."""
    notes = []
    r = {'type': mtype, 'grease': [], 'exts': [], 'notes': notes}
    c = Cur(body, notes)
    def g(v, fam):
        if is_grease(v): r['grease'].append((v, fam))
    try:
        r['legacy_version'] = c.u16('version')
        if mtype == 3:
            ck = c.u8('cookie len'); c.take(ck, 'cookie')
            if c.left(): notes.append('trailing %d bytes after HVR' % c.left())
            return r
        r['random'] = c.take(32, 'random')
        draft_sh = False
        if mtype == 2:
            lv = r['legacy_version']
            if (lv >> 8) == 0x7f and (lv & 0xff) < 22:
                draft_sh = True; notes.append('draft-%d ServerHello layout (no session_id, no compression)' % (lv & 0xff))
        if not draft_sh:
            sl = c.u8('session id len'); r['session_id'] = c.take(sl, 'session id')
        if mtype == 1 and dtls:
            ck = c.u8('cookie len'); r['cookie'] = c.take(ck, 'cookie')
        if mtype == 1:
            cl = c.u16('cipher suites len')
            cs = c.take(cl, 'cipher suites')
            if cl % 2: notes.append('odd cipher_suites length')
            r['ciphers'] = [int.from_bytes(cs[i:i+2],'big') for i in range(0, cl - cl%2, 2)]
            for v in r['ciphers']: g(v, 'cipher_suite')
            ml = c.u8('comp len'); r['comp'] = list(c.take(ml, 'comp'))
        else:
            r['cipher'] = c.u16('cipher suite')
            g(r['cipher'], 'cipher_suite')
            if not draft_sh: r['comp'] = [c.u8('comp')]
        if c.left() == 0:
            r['no_ext_block'] = True
            return r
        el = c.u16('extensions len')
        eb = c.take(el, 'extensions')
        if c.left(): notes.append('%d trailing bytes after extensions' % c.left())
        e = Cur(eb, notes)
        while e.left():
            et = e.u16('ext type'); ln = e.u16('ext len'); d = e.take(ln, 'ext %d data' % et)
            r['exts'].append((et, d))
            g(et, 'extension')
            x = Cur(d, notes)
            try:
                if et == 43:
                    if mtype == 1:
                        n = x.u8('sv len'); lst = x.take(n, 'sv list')
                        vs = [int.from_bytes(lst[i:i+2],'big') for i in range(0, n - n%2, 2)]
                        r['offered'] = vs
                        for v in vs: g(v, 'version')
                        if x.left(): notes.append('trailing bytes in supported_versions')
                    else:
                        v = x.u16('selected'); r['selected'] = v; g(v, 'version')
                elif et == 0 and mtype == 1:
                    if ln:
                        n = x.u16('sni list len'); lst = Cur(x.take(n, 'sni list'), notes)
                        while lst.left():
                            nt = lst.u8('name type'); nl = lst.u16('name len'); nm = lst.take(nl, 'name')
                            if nt == 0 and 'sni' not in r: r['sni'] = nm.decode('latin-1')
                elif et == 10:
                    n = x.u16('groups len'); lst = x.take(n, 'groups')
                    for i in range(0, n - n%2, 2): g(int.from_bytes(lst[i:i+2],'big'), 'group')
                elif et == 51 or et == 40:
                    fam = 'key_share'
                    if mtype == 1:
                        n = x.u16('ks len'); lst = Cur(x.take(n, 'ks list'), notes)
                        while lst.left():
                            grp = lst.u16('ks group'); kl = lst.u16('ks key len'); lst.take(kl, 'ks key')
                            g(grp, fam)
                    else:
                        grp = x.u16('ks group'); g(grp, fam)
                elif et == 13:
                    n = x.u16('sigalgs len'); lst = x.take(n, 'sigalgs')
                    for i in range(0, n - n%2, 2): g(int.from_bytes(lst[i:i+2],'big'), 'signature_algorithm')
                elif et == 16:
                    n = x.u16('alpn len'); lst = Cur(x.take(n, 'alpn list'), notes)
                    r['alpn'] = []
                    while lst.left():
                        pl = lst.u8('proto len'); p = lst.take(pl, 'proto')
                        r['alpn'].append(p)
                        if pl == 2 and is_grease(int.from_bytes(p,'big')): r['grease'].append((int.from_bytes(p,'big'), 'alpn'))
                elif et == 45:
                    n = x.u8('psk modes len'); lst = x.take(n, 'psk modes')
                    for m in lst:
                        if m in PSK_GREASE: r['grease'].append((m, 'psk_mode'))
            except Short as ex:
                notes.append('ext %d: %s' % (et, ex))
    except Short as ex:
        notes.append('MESSAGE ' + str(ex)); r['truncated'] = True
    return r

def fields(r, record_version=None, quic=False):
    """Produce ordered manifest (key, value-string) list."""
    out = []
    t = r['type']
    if t == 2:
        out.append(('hrr', '1' if r.get('random') == HRR_RANDOM else '0'))
    if not quic: out.append(('record_version', '0x%04x' % record_version))
    out.append(('legacy_version', '0x%04x' % r['legacy_version']))
    if t == 1:
        if 'offered' in r:
            out.append(('offered_version', ' '.join('0x%04x' % v for v in r['offered'])))
            cand = [v for v in r['offered'] if not is_grease(v) and known(v)]
        else:
            cand = [r['legacy_version']] if known(r['legacy_version']) else []
        if cand:
            fam = rank(cand[0])[0]
            best = max((v for v in cand if rank(v)[0] == fam), key=lambda v: rank(v)[1])
            if any(rank(v)[0] != fam for v in cand): r['notes'].append('mixed TLS/DTLS families offered')
            out.append(('offered_max', '0x%04x' % best))
    if t == 2:
        if 'selected' in r: out.append(('selected_version', '0x%04x' % r['selected']))
        if r.get('random') != HRR_RANDOM:
            out.append(('negotiated_version', '0x%04x' % r.get('selected', r['legacy_version'])))
    if r['grease']:
        out.append(('grease_value', ' '.join('0x%04x' % v for v, f in r['grease'])))
        out.append(('grease_family', ' '.join(f for v, f in r['grease'])))
    out.append(('grease_count', str(len(r['grease']))))
    if t == 1:
        if 'sni' in r: out.append(('sni', r['sni']))
        out.append(('fallback_scsv', '1' if 0x5600 in r.get('ciphers', []) else '0'))
    if t == 2 and 'random' in r:
        tail = r['random'][-8:]
        if tail == b'DOWNGRD\x01': out.append(('downgrade_sentinel', '1'))
        elif tail == b'DOWNGRD\x00': out.append(('downgrade_sentinel', '0'))
        elif tail[:7] == b'DOWNGRD': r['notes'].append('random ends in DOWNGRD + %02x' % tail[7])
    return out
