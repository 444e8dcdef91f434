// Big graphs for the browser tests and the performance script, made on the spot:
// MiniMalloc CSV (id,lower,upper,size), seeded, so every run sees the same graph.

/** A seeded generator of floats in 0..1 (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `tensors` buffers over about a tenth as many steps: most live a few steps, one in
 * five hundred lives long; sizes spread from 64 B to 1 MiB on a log scale.
 */
export function bigCsv(tensors, seed = 1) {
  const next = random(seed);
  const steps = Math.max(10, Math.round(tensors / 10));
  const lines = ['id,lower,upper,size'];
  for (let id = 0; id < tensors; id += 1) {
    const lower = Math.floor(next() * steps);
    const life = next() < 0.002 ? Math.ceil(next() * steps * 0.05) : 1 + Math.floor(next() * 12);
    const upper = Math.min(steps, lower + life);
    const size = Math.round(64 * 2 ** (next() * 14));
    lines.push(`${id},${lower},${upper},${size}`);
  }
  return `${lines.join('\n')}\n`;
}
