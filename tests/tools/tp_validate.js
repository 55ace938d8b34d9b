// Usage: node tp_validate.js <trace file> ["SQL" ...]
'use strict';
const fs = require('fs'), path = require('path');
const DIR = __dirname;
globalThis.self = globalThis;
globalThis.navigator = { userAgent: 'node' };
function varint(n) { n = BigInt(n); const out = []; do { let b = Number(n & 0x7fn); n >>= 7n; if (n) b |= 0x80; out.push(b); } while (n); return Buffer.from(out); }
function key(f, wt) { return varint((f << 3) | wt); }
function fVarint(f, v) { return Buffer.concat([key(f, 0), varint(v)]); }
function fBytes(f, b) { b = Buffer.from(b); return Buffer.concat([key(f, 2), varint(b.length), b]); }
function rpc(seq, method, argField, argBytes) {            // TraceProcessorRpcStream{msg=1: TraceProcessorRpc{seq=1, request=2, args}}
  const parts = [fVarint(1, seq), fVarint(2, method)];
  if (argField) parts.push(fBytes(argField, argBytes));
  return fBytes(1, Buffer.concat(parts));
}
function decode(buf) {
  const out = []; let i = 0;
  const rv = () => { let r = 0n, s = 0n, b; do { b = buf[i++]; r |= BigInt(b & 0x7f) << s; s += 7n; } while (b & 0x80); return r; };
  while (i < buf.length) {
    const k = Number(rv()), f = k >> 3, wt = k & 7;
    if (wt === 0) out.push([f, 0, rv()]);
    else if (wt === 1) { out.push([f, 1, buf.readDoubleLE(i)]); i += 8; }
    else if (wt === 2) { const l = Number(rv()); out.push([f, 2, buf.subarray(i, i + l)]); i += l; }
    else if (wt === 5) { out.push([f, 5, buf.readFloatLE(i)]); i += 4; }
    else throw new Error('bad wiretype ' + wt);
  }
  return out;
}
function packedVarints(b) { const r = []; let i = 0; while (i < b.length) { let v = 0n, s = 0n, x; do { x = b[i++]; v |= BigInt(x & 0x7f) << s; s += 7n; } while (x & 0x80); r.push(BigInt.asIntN(64, v)); } return r; }
function rawResult(b) {  // RawQueryResult; NULL cells are appended to every value array (v20.1 rpc.cc)
  const cols = [], types = [], values = []; let n = 0, err;
  for (const [f, wt, v] of decode(b)) {
    if (f === 1) { const d = decode(v); cols.push(d.find(x => x[0] === 1)[2].toString()); const t = d.find(x => x[0] === 2); types.push(t ? Number(t[2]) : 0); }
    else if (f === 2) n = Number(v);
    else if (f === 4) err = v.toString();
    else if (f === 3) {
      const c = { longs: [], doubles: [], strings: [], nulls: [] };
      for (const [cf, cwt, cv] of decode(v)) {
        if (cf === 1) cwt === 2 ? c.longs.push(...packedVarints(cv)) : c.longs.push(BigInt.asIntN(64, cv));
        else if (cf === 2) { if (cwt === 2) { for (let j = 0; j < cv.length; j += 8) c.doubles.push(cv.readDoubleLE(j)); } else c.doubles.push(cv); }
        else if (cf === 3) c.strings.push(cv.toString());
        else if (cf === 4) cwt === 2 ? c.nulls.push(...packedVarints(cv).map(x => x !== 0n)) : c.nulls.push(cv !== 0n);
      }
      values.push(c);
    }
  }
  const ptr = values.map(() => ({ l: 0, d: 0, s: 0 })), rows = [];
  for (let r = 0; r < n; r++) rows.push(values.map((c, k) => {
    const p = ptr[k];
    if (c.nulls[r]) { p.l++; p.d++; p.s++; return null; }
    if (types[k] === 1) return c.longs[p.l++];
    if (types[k] === 2) return c.doubles[p.d++];
    return c.strings[p.s++];
  }));
  return { cols, rows, err };
}
const TRACE_FILE = process.argv[2] ? path.resolve(process.argv[2]) : null;
process.chdir(DIR);
eval(fs.readFileSync(path.join(DIR, 'engine_bundle.js'), 'utf8'));   // defines the worker's self.onmessage
let pending = Buffer.alloc(0); const waiters = [];
const port = { postMessage(d) { pending = Buffer.concat([pending, Buffer.from(d)]); drain(); }, onmessage: null };
function drain() {
  for (;;) {
    if (pending.length < 2) return;
    let i = 1, l = 0n, s = 0n, b; do { if (i >= pending.length) return; b = pending[i++]; l |= BigInt(b & 0x7f) << s; s += 7n; } while (b & 0x80);
    const end = i + Number(l); if (end > pending.length) return;
    const msg = pending.subarray(i, end); pending = pending.subarray(end);
    const w = waiters.shift(); if (w) w(decode(msg));
  }
}
self.onmessage({ data: { enginePort: port } });
let seq = 0;
function call(method, argField, argBytes) { return new Promise(res => { waiters.push(res); port.onmessage({ data: new Uint8Array(rpc(++seq, method, argField, argBytes)) }); }); }
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function query(sql) { const r = await call(4, 104, fBytes(1, sql)); return rawResult(r.find(x => x[0] === 204)[2]); }
(async () => {
  for (let k = 0; k < 100; k++) { try { await sleep(100); if (await Promise.race([call(10), sleep(2000).then(() => null)])) break; } catch (e) { } }
  const data = fs.readFileSync(TRACE_FILE); const CH = 16 << 20; const t0 = Date.now();
  for (let off = 0; off < data.length; off += CH) {
    const r = await call(1, 101, data.subarray(off, off + CH));
    const ar = r.find(x => x[0] === 201); if (ar) for (const [f, , v] of decode(ar[2])) if (f === 2) { console.log('APPEND ERROR:', v.toString()); process.exitCode = 2; }
    const fe = r.find(x => x[0] === 5); if (fe) { console.log('FATAL:', fe[2].toString()); process.exitCode = 3; }
  }
  await call(2);
  console.log(`parsed ${data.length} bytes in ${Date.now() - t0} ms`);
  const defaults = [
    "select name, idx, severity, source, value from stats where value > 0 and (severity = 'error' or severity = 'data_loss')",
    "select count(*) as slices, min(ts), max(ts + dur) from slice",
    "select count(*) as counters from counter",
    "select count(*) as flows from flow",
  ];
  for (const q of (process.argv.length > 3 ? process.argv.slice(3) : defaults)) {
    const r = await query(q);
    console.log('> ' + q); if (r.err) console.log('  SQL ERROR: ' + r.err);
    console.log('  ' + r.cols.join(' | ')); for (const row of r.rows) console.log('  ' + row.map(String).join(' | '));
  }
  process.exit(process.exitCode || 0);
})();
