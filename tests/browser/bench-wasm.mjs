// The searching strategies in wasm, as the page's worker runs them, on MiniMalloc's
// hard instances: a script, not a test (nothing is asserted).
//   node tests/browser/bench-wasm.mjs [--strategy search] [--capacity 1048576] [--budget MS] [FILES...]
// Instantiates www/pkg in Node (V8, the engine of Chromium) and plans each file with
// the capacity and a wall-clock budget; prints the peak, whether it fits, and the time.

import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './harness.mjs';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    strategy: { type: 'string', default: 'search' },
    capacity: { type: 'string', default: '1048576' },
    budget: { type: 'string', default: '20000' },
  },
});
const dir = join(ROOT, '../shared/corpus/minimalloc');
const files = positionals.length ? positionals : readdirSync(dir).filter((f) => f.endsWith('.csv')).sort().map((f) => join(dir, f));

const wasm = await import(join(ROOT, 'www/pkg/memplan.js'));
wasm.initSync({ module: readFileSync(join(ROOT, 'www/pkg/memplan_bg.wasm')) });
const options = { capacity: opts.capacity, budget_ms: Number(opts.budget), wall_clock: true };
console.log(`${opts.strategy} in wasm (Node ${process.versions.node}, V8 ${process.versions.v8}), capacity ${opts.capacity}, budget ${opts.budget} ms`);
console.log(['file', 'peak', 'x capacity', 'fits', 'valid', 'time'].map((h, k) => (k ? h.padStart(12) : h.padEnd(20))).join(''));
for (const file of files) {
  const session = new wasm.Session(readFileSync(file), basename(file));
  const started = performance.now();
  const report = JSON.parse(session.plan(opts.strategy, options));
  const seconds = (performance.now() - started) / 1000;
  const { peak_bytes: peak } = report;
  const cap = report.capacity;
  const row = [basename(file).padEnd(20), `${peak}`.padStart(12), (peak / cap).toFixed(4).padStart(12),
    (peak <= cap ? 'yes' : 'no').padStart(12), `${report.valid}`.padStart(12), `${seconds.toFixed(2)} s`.padStart(12)];
  console.log(row.join(''));
  session.free();
}
