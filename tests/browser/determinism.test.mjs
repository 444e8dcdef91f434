// Determinism across builds: the worker's wasm modules (www/pkg, instantiated in Node
// with initSync, the same code the page's worker runs: `worker` for graphs and CSV,
// `models` for models and for everything else too) and the native CLI
// (target/release/memplan plan FILE --json -) give the same plan for the same input
// and options: strategy, peak, lower bound, order and every tensor's offset.
//
// The searching strategies run on the same budget in both: the page's default of
// 50 ms counted in work units, which the CLI counts too with `--deterministic`.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CORPUS, ROOT, check, corpusFileMissing, results } from './harness.mjs';

const BUDGET_MS = 50;
const INPUTS = [
  'examples/transformer_layer.json',
  join(CORPUS, 'graphs/light_squeezenet.json'),
  join(CORPUS, 'graphs/hand_recrop.json'),
  join(CORPUS, 'minimalloc/A.1048576.csv'),
  join(CORPUS, 'tflite/hand_recrop.tflite'),
  join(CORPUS, 'onnx/light_squeezenet.onnx'),
].map((f) => (f.startsWith('/') ? f : join(ROOT, f)));

/** The fields both builds produce, as canonical text (big sizes kept exact). */
function essentials(planText) {
  // keep every integer as written: sizes may exceed 2^53
  const plan = JSON.parse(planText.replace(/:\s*(\d{16,})/g, ':"$1"'));
  const p = plan;
  return JSON.stringify({
    strategy: p.strategy,
    peak: String(p.peak_bytes),
    lower: String(p.lower_bound),
    order: p.order,
    tensors: p.tensors.map((t) => [t.id, t.name, String(t.size), t.start, t.end, String(t.offset)]),
  });
}

function native(file, strategy) {
  const bin = join(ROOT, 'target/release/memplan');
  const args = ['plan', file, '--strategy', strategy, '--deterministic', '--budget', `${BUDGET_MS}`, '--json', '-'];
  return execFileSync(bin, args, {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28,
  });
}

async function main() {
  for (const need of ['www/pkg/memplan_worker_bg.wasm', 'www/pkg/memplan_models_bg.wasm', 'target/release/memplan']) {
    if (!existsSync(join(ROOT, need))) {
      console.error(`${need} is missing: run ./build.sh and cargo build --release first`);
      process.exit(2);
    }
  }
  const load = async (name) => {
    const wasm = await import(join(ROOT, `www/pkg/memplan_${name}.js`));
    wasm.initSync({ module: readFileSync(join(ROOT, `www/pkg/memplan_${name}_bg.wasm`)) });
    return wasm;
  };
  const builds = { worker: await load('worker'), models: await load('models') };
  const strategies = builds.worker.strategies().map((s) => (typeof s === 'string' ? s : s.name));
  check('both builds list the same strategies', JSON.stringify(builds.models.strategies()) === JSON.stringify(builds.worker.strategies()));
  for (const file of INPUTS) {
    if (!existsSync(file)) {
      corpusFileMissing(basename(file), `${file} is there to compare`);
      continue;
    }
    const bytes = readFileSync(file);
    // the worker reads a model with the `models` build and anything else with `worker`
    const model = builds.worker.readerOf(bytes) === 'model';
    check(`${basename(file)}: the worker's reader is ${model ? 'models' : 'worker'}`, model === /\.(onnx|tflite)$/.test(file));
    const names = model ? ['models'] : ['worker', 'models'];
    for (const name of names) {
      const wasm = builds[name];
      const session = new wasm.Session(bytes, basename(file));
      for (const strategy of strategies) {
        const options = { budget_ms: BUDGET_MS };
        const page = essentials(session.plan(strategy, options));
        const again = essentials(new wasm.Session(bytes, basename(file)).plan(strategy, options));
        const cli = essentials(native(file, strategy));
        const what = `${basename(file)} ${strategy} (${name})`;
        check(`${what}: wasm plans the same twice`, page === again);
        check(`${what}: wasm and native give the same plan`, page === cli,
          `wasm ${page.slice(0, 160)} / native ${cli.slice(0, 160)}`);
      }
      session.free?.();
    }
  }
  let refused = '';
  try {
    new builds.worker.Session(readFileSync(join(ROOT, 'tests/data/reshape100.onnx')), 'model.onnx');
  } catch (e) {
    refused = e.message;
  }
  check('the worker build refuses a model, saying why', /reads no onnx models/.test(refused), refused);
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed === 0 && results.passed > 0 ? 0 : 1);
}

await main();
