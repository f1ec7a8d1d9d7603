# SPDX-License-Identifier: GPL-2.0-or-later
"""How many TCP segments hold a byte of each handshake message, from my own TCP
reassembly of tcp.payload and my own record walk (no tshark TLS dissection);
for a message that spans several records, the segments that hold a byte of
those records (headers included), in stream order, a segment that goes on
from one record into the next counted once. Prints the distribution, as a
frame=* manifest block states it: python3 tests/captures/readoff/segments.py CAPTURE"""
import sys, subprocess, collections
path = sys.argv[1]
out = subprocess.run(['tshark','-r',path,'-o','tcp.analyze_sequence_numbers:FALSE','-T','fields','-e','frame.number','-e','tcp.stream','-e','tcp.srcport','-e','tcp.seq_raw','-e','tcp.flags.syn','-e','tcp.payload','-Y','tcp'],capture_output=True,text=True).stdout
segs = collections.defaultdict(list); isn = {}
for line in out.splitlines():
    fn, st, sp, seq, syn, pay = (line.split('\t') + ['']*6)[:6]
    d=(st,sp); seq=int(seq)
    if syn in ('1','True'): isn[d]=seq+1; continue
    if pay: segs[d].append((int(fn), seq, bytes.fromhex(pay.replace(':',''))))
dist = collections.Counter()
for d, sl in segs.items():
    base = isn.get(d, min(s for _,s,_ in sl))
    buf={}; frame_of={}
    for fn, seq, p in sl:
        off=(seq-base)%(1<<32)
        for i,b in enumerate(p):
            if off+i not in buf: buf[off+i]=b; frame_of[off+i]=fn
    n=0
    while n in buf: n+=1
    data=bytes(buf[i] for i in range(n))
    p=0; hs=bytearray(); hs_at=[]; hs_rec=[]; r=0; rec_span={}
    while p+5<=len(data):
        ln=int.from_bytes(data[p+3:p+5],'big')
        rec_span[r]=(p, min(p+5+ln, len(data)))
        if data[p]==22:
            for i in range(ln): hs.append(data[p+5+i]); hs_at.append(p+5+i); hs_rec.append(r)
        p+=5+ln; r+=1
    q=0
    while q+4<=len(hs):
        mlen=int.from_bytes(hs[q+1:q+4],'big'); end=q+4+mlen
        if end>len(hs): break
        recs={hs_rec[i] for i in range(q,end)}
        frames={frame_of[hs_at[i]] for i in range(q,end)}
        if len(recs)>1:
            seq=[frame_of[i] for x in sorted(recs) for i in range(*rec_span[x])]
            dist[str(sum(1 for i,f in enumerate(seq) if i==0 or f!=seq[i-1]))]+=1
        else:
            dist[str(len(frames))]+=1
        q=end
print(sorted(dist.items()))
