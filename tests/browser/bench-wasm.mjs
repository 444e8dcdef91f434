// The searching strategies in wasm, as the page's worker runs them, on MiniMalloc's
// hard instances: a script, not a test (nothing is asserted).
//   node tests/browser/bench-wasm.mjs [--strategy search] [--capacity 1048576] [--budget MS]
//                                     [--runs N] [--pkg DIR] [FILES...]
// Instantiates www/pkg (or --pkg DIR, e.g. a copy of an older build) in Node (V8, the
// engine of Chromium) and plans each file with the capacity and a wall-clock budget;
// prints the peak, whether it fits, and the time (the median of --runs runs).

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './harness.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    strategy: { type: 'string', default: 'search' },
    capacity: { type: 'string', default: '1048576' },
    budget: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '1' },
    pkg: { type: 'string', default: join(ROOT, 'www/pkg') },
  },
});
const dir = join(ROOT, '../shared/corpus/minimalloc');
const files = positionals.length ? positionals : readdirSync(dir).filter((f) => f.endsWith('.csv')).sort().map((f) => join(dir, f));

const pkg = resolve(opts.pkg);
// MiniMalloc CSVs: the module the page's worker reads them with
const wasm = await import(join(pkg, 'memplan_worker.js'));
wasm.initSync({ module: readFileSync(join(pkg, 'memplan_worker_bg.wasm')) });
const options = { capacity: opts.capacity, budget_ms: Number(opts.budget), wall_clock: true };
console.log(`${pkg}: ${statSync(join(pkg, 'memplan_worker_bg.wasm')).size} bytes of wasm`);
console.log(`${opts.strategy} in wasm (Node ${process.versions.node}, V8 ${process.versions.v8}), capacity ${opts.capacity}, budget ${opts.budget} ms`);
console.log(['file', 'peak', 'x capacity', 'fits', 'valid', 'time'].map((h, k) => (k ? h.padStart(12) : h.padEnd(20))).join(''));
for (const file of files) {
  const session = new wasm.Session(readFileSync(file), basename(file));
  const times = [];
  let report;
  for (let run = 0; run < Math.max(1, Number(opts.runs)); run += 1) {
    const started = performance.now();
    report = JSON.parse(session.plan(opts.strategy, options));
    times.push((performance.now() - started) / 1000);
  }
  const seconds = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  const { peak_bytes: peak } = report;
  const cap = report.capacity;
  const row = [basename(file).padEnd(20), `${peak}`.padStart(12), (peak / cap).toFixed(4).padStart(12),
    (peak <= cap ? 'yes' : 'no').padStart(12), `${report.valid}`.padStart(12), `${seconds.toFixed(2)} s`.padStart(12)];
  console.log(row.join(''));
  session.free();
}
