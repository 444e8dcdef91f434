// Canvas sizing and pointer hit tests for the charts drawn by the wasm sessions.

/** Sizes `canvas`'s backing store to its CSS box times the device pixel ratio; returns the ratio. */
export function fitCanvas(canvas) {
  const { scale, width, height } = fittedSize(canvas);
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  return scale;
}

/** The device pixels `canvas` takes on the screen now, and the scale: what {@link fitCanvas} sizes it to. */
export function fittedSize(canvas) {
  const scale = window.devicePixelRatio || 1;
  const { width, height } = canvas.getBoundingClientRect();
  return { scale, width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The data point (step, bytes) under CSS pixel (x, y) of a chart, or null outside its plot. */
export function dataAt(frame, x, y) {
  const fx = (x - frame.left) / frame.width;
  const fy = (frame.top + frame.height - y) / frame.height;
  if (!(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1)) return null;
  return {
    step: frame.x_min + fx * (frame.x_max - frame.x_min),
    bytes: frame.y_min + fy * (frame.y_max - frame.y_min),
  };
}

/** Where CSS pixel (x, y) falls in the plot as fractions (u across, v up), or null outside it. */
export function plotFraction(frame, x, y) {
  const u = (x - frame.left) / frame.width;
  const v = (frame.top + frame.height - y) / frame.height;
  return u >= 0 && u <= 1 && v >= 0 && v <= 1 ? { u, v } : null;
}

/** The placed tensor drawn under CSS pixel (x, y) of the time-by-address chart, or null. */
export function tensorAt(frame, tensors, x, y) {
  const at = dataAt(frame, x, y);
  if (at === null) return null;
  const index = stepIndex(tensors);
  const bucket = index.buckets[Math.floor(at.step / index.width)] ?? [];
  for (const t of bucket) {
    if (at.step >= t.start && at.step < t.end + 1 && at.bytes >= t.offset && at.bytes < t.offset + t.size) {
      return t;
    }
  }
  return null;
}

const STEP_BUCKETS = 4096;
const stepIndexes = new WeakMap();

/** `tensors` (boxes with start, end) bucketed by the steps they live through, made once per array: a hover looks at one bucket, not at every tensor. */
function stepIndex(tensors) {
  let index = stepIndexes.get(tensors);
  if (index) return index;
  let steps = 1;
  for (const t of tensors) steps = Math.max(steps, t.end + 1);
  const width = Math.ceil(steps / STEP_BUCKETS);
  const buckets = Array.from({ length: Math.ceil(steps / width) }, () => []);
  for (const t of tensors) {
    const last = Math.floor(t.end / width);
    for (let b = Math.floor(t.start / width); b <= last; b += 1) buckets[b].push(t);
  }
  index = { width, buckets };
  stepIndexes.set(tensors, index);
  return index;
}

/** The live-bytes profile of a packed plan report (crates/formats/src/packed.rs: `MPK2`, the head's length and the head, then the profile's length and its records of step (u32) and bytes (u64), little-endian), copied out of `bytes`: `{ view, count }` for {@link liveAt}. */
export function packedProfile(packed) {
  const bytes = packed instanceof Uint8Array ? packed : new Uint8Array(packed);
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = 8 + data.getUint32(4, true);
  const count = data.getUint32(at, true);
  const records = bytes.slice(at + 4, at + 4 + 12 * count);
  return { view: new DataView(records.buffer), count };
}

/** Bytes alive at `step` in a profile of {@link packedProfile} (searched: the last change at or before it). */
export function liveAt(profile, step) {
  if (!profile) return 0;
  const { view, count } = profile;
  let [lo, hi] = [0, count];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (view.getUint32(12 * mid, true) <= step) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : Number(view.getBigUint64(12 * (lo - 1) + 4, true));
}

/** The residency of an NPU level chart under CSS pixel (x, y), or null. */
export function residencyAt(frame, residencies, x, y) {
  return tensorAt(frame, residencies, x, y);
}

/** The spill bar of the timeline under CSS pixel (x, y): `{level, spill}` indices, or null. */
export function spillAt(frame, layout, levels, x, y) {
  const at = dataAt(frame, x, y);
  if (at === null) return null;
  const row = Math.floor(frame.y_max - at.bytes);
  for (const r of layout.spills) {
    const s = levels[r.level].spills[r.spill];
    const [left, right] = away(s.out_step, s.in_step);
    if (r.row === row && at.step >= left && at.step < right) return r;
  }
  return null;
}

/** The steps a spilled buffer is away from its level, as the timeline draws them. */
export function away(outStep, inStep) {
  const left = outStep + 1;
  return inStep > left ? [left, inStep] : [left - 0.5, left + 0.5];
}

/** The pipe lanes of the Gantt chart, top to bottom. */
export const PIPES = ['MTE1', 'MTE2', 'MTE3', 'FIXP', 'CUBE', 'VECTOR'];

/** The schedule position of the node drawn under CSS pixel (x, y) of the Gantt chart, or null. */
export function nodeAt(frame, nodes, x, y) {
  const at = dataAt(frame, x, y);
  if (at === null) return null;
  const pipe = PIPES[Math.floor(frame.y_max - at.bytes)];
  const k = nodes.findIndex((n) => n.pipe === pipe && n.start !== null && at.step >= n.start && at.step < n.end);
  return k < 0 ? null : k;
}
