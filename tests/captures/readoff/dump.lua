-- SPDX-License-Identifier: GPL-2.0-or-later
-- tshark -q -X lua_script:dump.lua -r CAPTURE > dump_<name>.txt
-- Prints raw bytes: TREC (tls.record), THS (hello at tls.handshake.type, from the
-- field data source), DREC (dtls.record), DHS, QPKT/QCRY (QUIC packets, CRYPTO frames).
local F = {}
for _, n in ipairs({"tls.handshake.type","tls.record","dtls.record","dtls.handshake.type","quic.crypto.offset","quic.crypto.length","quic.crypto.crypto_data","quic.long.packet_type","quic.version","quic.header_form","tcp.stream","udp.stream","tcp.srcport","udp.srcport","tcp.len","tcp.seq"}) do F[n] = Field.new(n) end
local function all(n) return { F[n]() } end
local function hex(r) return tostring(r:bytes()) end
local tap = Listener.new(nil, "tls || dtls || quic")
local tvbids = {}
function tap.packet(pinfo, tvb)
  local fn = pinfo.number
  local strm = F["tcp.stream"]() or F["udp.stream"]()
  strm = strm and tostring(strm.value) or "-"
  local sp = F["tcp.srcport"]() or F["udp.srcport"]()
  sp = sp and tostring(sp.value) or "-"
  local srcs = {}
  local function sid(s)
    for i, x in ipairs(srcs) do if x == s then return i end end
    table.insert(srcs, s); return #srcs
  end
  for _, r in ipairs(all("tls.record")) do
    local s = r.source
    local hdr = s:range(r.offset, math.min(5, s:len() - r.offset))
    local pay = ""
    if r.len > 5 then pay = hex(s:range(r.offset + 5, r.len - 5)) end
    print(string.format("TREC %d %s %s %d %d %d %s %s", fn, strm, sp, sid(s), r.offset, r.len, hex(hdr), pay))
  end
  for _, fi in ipairs(all("tls.handshake.type")) do
    local s = fi.source
    local t = fi.value
    if t <= 3 then
      local mlen = s:range(fi.offset + 1, 3):uint()
      local n = math.min(s:len() - fi.offset, 4 + mlen)
      print(string.format("THS %d %s %s %d %d %d %d %s", fn, strm, sp, sid(s), fi.offset, t, mlen, hex(s:range(fi.offset, n))))
    end
  end
  for _, r in ipairs(all("dtls.record")) do
    local s = r.source
    local n = math.min(r.len, s:len() - r.offset)
    print(string.format("DREC %d %s %s %d %d %d %s", fn, strm, sp, sid(s), r.offset, r.len, hex(s:range(r.offset, n))))
  end
  for _, fi in ipairs(all("dtls.handshake.type")) do
    print(string.format("DHS %d %s %s %d %d %d", fn, strm, sp, sid(fi.source), fi.offset, fi.value))
  end
  local offs, lens, datas = all("quic.crypto.offset"), all("quic.crypto.length"), all("quic.crypto.crypto_data")
  local pts, vers, hfs = all("quic.long.packet_type"), all("quic.version"), all("quic.header_form")
  local pv = {}
  for i, v in ipairs(vers) do table.insert(pv, string.format("0x%08x", v.value)) end
  local pp = {}
  for i, v in ipairs(pts) do table.insert(pp, tostring(v.value)) end
  if #offs > 0 or #vers > 0 then
    print(string.format("QPKT %d %s %s vers=%s ptypes=%s", fn, strm, sp, table.concat(pv, ","), table.concat(pp, ",")))
  end
  for i, o in ipairs(offs) do
    local d = datas[i]
    print(string.format("QCRY %d %s %s %d %s %s %d %s", fn, strm, sp, o.offset, tostring(o.value), tostring(lens[i].value), sid(d.source), hex(d.range)))
  end

end
