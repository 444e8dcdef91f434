// A large PyTorch memory snapshot made on the spot, for the browser tests and
// benchmarks of big files: a pickle (protocol 4, as torch writes it) of a training
// loop's trace, seeded, so every run sees the same file.
//
// The trace: one 8 GiB segment reserved first, then `iterations` steps of a model of
// `layers` layers, each step allocating its activations layer by layer (a few
// blocks per layer, sizes from 512 B to 48 MiB) and freeing them in reverse, as a
// backward pass does (`free_requested`, then `free_completed`). Blocks sit on a stack
// in the segment, so no two live blocks overlap. Entries carry every key torch
// writes (`compile_context`, `user_metadata`, a frame list of its own), the
// keys and frames memoised as Python's pickler does. `liveBytes` is the live peak, `entries` and
// `blocks` the counts.

import { random } from './big.mjs';

const SEGMENT = 8 * 2 ** 30;
const BASE = 0x7f00_0000_0000;

/** Writes pickle opcodes into growing byte chunks. */
class Writer {
  constructor() {
    this.chunks = [];
    this.buf = new Uint8Array(1 << 22);
    this.at = 0;
    this.memo = new Map();
    this.next = 0;
    this.text = new TextEncoder();
  }

  room(n) {
    if (this.at + n <= this.buf.length) return;
    this.chunks.push(this.buf.subarray(0, this.at));
    this.buf = new Uint8Array(Math.max(1 << 22, n));
    this.at = 0;
  }

  byte(...bytes) {
    this.room(bytes.length);
    for (const b of bytes) this.buf[this.at++] = b;
  }

  /** A non-negative integer: BININT1, BININT or LONG1. */
  int(n) {
    if (n < 256) return this.byte(0x4b, n);
    if (n < 2 ** 31) return this.byte(0x4a, n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255);
    const bytes = [];
    let v = BigInt(n);
    while (v > 0n) {
      bytes.push(Number(v & 255n));
      v >>= 8n;
    }
    if (bytes[bytes.length - 1] & 0x80) bytes.push(0);
    this.byte(0x8a, bytes.length, ...bytes);
  }

  /** A string, memoised: written once, then fetched (BINGET / LONG_BINGET). */
  str(s) {
    const seen = this.memo.get(s);
    if (seen !== undefined) return this.get(seen);
    const b = this.text.encode(s);
    this.room(b.length + 6);
    this.byte(0x8c, b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
    this.memoize(s);
  }

  memoize(key) {
    this.byte(0x94);
    this.memo.set(key, this.next++);
  }

  get(i) {
    if (i < 256) this.byte(0x68, i);
    else this.byte(0x6a, i & 255, (i >>> 8) & 255, (i >>> 16) & 255, (i >>> 24) & 255);
  }

  /** A dict of `pairs` ([key, write value]). */
  dict(pairs) {
    this.byte(0x7d, 0x28);
    for (const [k, v] of pairs) {
      this.str(k);
      v();
    }
    this.byte(0x75);
  }

  bytes() {
    this.chunks.push(this.buf.subarray(0, this.at));
    const total = this.chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** The snapshot's bytes and what it holds. */
export function bigSnapshot({ iterations = 3600, layers = 96, seed = 7 } = {}) {
  const next = random(seed);
  const w = new Writer();
  w.byte(0x80, 4);
  // per layer: its frame list (shared by every entry of the layer) and block sizes
  const plan = [];
  for (let l = 0; l < layers; l += 1) {
    const sizes = [];
    const count = 1 + Math.floor(next() * 4);
    for (let k = 0; k < count; k += 1) sizes.push(512 * Math.ceil(2 ** (next() * 17)));
    plan.push(sizes);
  }
  let time = 1_700_000_000_000_000;
  let entries = 0;
  let blocks = 0;
  let peak = 0;
  const entry = (action, addr, size, frames) => {
    time += 1 + Math.floor(next() * 40);
    entries += 1;
    w.dict([
      ['action', () => w.str(action)],
      ['addr', () => w.int(addr)],
      ['size', () => w.int(size)],
      ['stream', () => w.int(0)],
      ['time_us', () => w.int(time)],
      ['compile_context', () => w.str('N/A')],
      ['user_metadata', () => w.str('')],
      ['frames', frames],
    ]);
  };
  // each entry's frame list is a list of its own, of frame dicts written once
  // (memoised at their first use) and fetched after, as torch's pickles hold them
  const frameList = (l) => () => {
    w.byte(0x5d, 0x28);
    for (const [k, [name, line]] of [[`layer${l}`, 10 + l], ['forward', 120], ['_call_impl', 1790], ['train_step', 42], ['<module>', 7]].entries()) {
      const key = `frame ${l} ${k}`;
      if (w.memo.has(key)) {
        w.get(w.memo.get(key));
        continue;
      }
      w.dict([['name', () => w.str(name)], ['filename', () => w.str(`/work/model/l${l % 8}.py`)], ['line', () => w.int(line)]]);
      w.memoize(key);
    }
    w.byte(0x65);
  };
  w.byte(0x7d, 0x28);
  w.str('segments');
  w.byte(0x5d);
  w.str('device_traces');
  w.byte(0x5d, 0x28, 0x5d, 0x28);
  entry('segment_alloc', BASE, SEGMENT, frameList(0));
  let inList = 1;
  const batch = () => {
    inList += 1;
    if (inList === 1000) {
      w.byte(0x65, 0x28);
      inList = 0;
    }
  };
  for (let i = 0; i < iterations; i += 1) {
    const stack = [];
    let top = 0;
    for (let l = 0; l < layers; l += 1) {
      for (const size of plan[l]) {
        stack.push([BASE + top, size, l]);
        entry('alloc', BASE + top, size, frameList(l));
        batch();
        top += size;
        blocks += 1;
      }
    }
    peak = Math.max(peak, top);
    while (stack.length) {
      const [addr, size, l] = stack.pop();
      entry('free_requested', addr, size, frameList(l));
      batch();
      entry('free_completed', addr, size, frameList(l));
      batch();
    }
  }
  w.byte(0x65, 0x65); // the entries' APPENDS, the device list's
  w.byte(0x75, 0x2e); // the top dict's SETITEMS, STOP
  return { bytes: w.bytes(), entries, blocks, liveBytes: peak };
}
