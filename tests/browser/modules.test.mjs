// The page's wasm modules, loaded when needed, in a real Chromium: node tests/browser/modules.test.mjs
// Needs ./build.sh first (www/pkg) and the shared corpus. The first example fetches only
// the page's module and the worker's graph module, under 1 MB together; an NPU case
// fetches the NPU module and a model the model module, each once; a model opened while
// the model module downloads still opens; a module that cannot be fetched is an error
// the page shows, and the next try loads it (the worker's first module too); a file dragged over the page fetches the
// model module before it is dropped.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, ROOT, check, requireCorpus, settled, summaryNumbers, text, watch, withBrowser } from './harness.mjs';

const MODEL = join(CORPUS, 'onnx', 'light_squeezenet.onnx');
const TFLITE = join(CORPUS, 'tflite', 'hand_recrop.tflite');
/** The budget for the wasm a first visit fetches: 1 MB. */
const MB = 1_000_000;

requireCorpus();

/** Which module a URL of www/pkg fetches (`page`, `worker`, `models`, `npu`), or null. */
const moduleOf = (url) => /\/www\/pkg\/memplan_(\w+)_bg\.wasm$/.exec(url)?.[1] ?? null;

/**
 * A new page of `context` at `url` whose fetches of module `name` fail until `allow()`
 * is called, with its page errors in `problems` (not console errors: a refused fetch
 * logs one of its own).
 */
async function refusing(context, url, name) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  let refuse = true;
  await page.route(`**/www/pkg/memplan_${name}_bg.wasm`, (route) => (refuse ? route.abort() : route.continue()));
  await page.goto(url);
  await settled(page);
  return { page, problems, allow: () => { refuse = false; } };
}

const wasmBytes = (name) => statSync(join(ROOT, `www/pkg/memplan_${name}_bg.wasm`)).size;

withBrowser(async (context, url) => {
  const problems = [];
  const fetched = [];
  context.on('request', (r) => {
    const name = moduleOf(r.url());
    if (name) fetched.push(name);
  });
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(url);
  await settled(page);
  check('the first example opens', (await text(page, 'graph-name')) === 'transformer_layer');
  check('it fetches the page module and the worker\'s graph module only', JSON.stringify([...fetched].sort()) === '["page","worker"]', fetched.join(' '));
  const first = wasmBytes('page') + wasmBytes('worker');
  check('together under 1 MB of wasm', first < MB, `${first}`);
  check('each module under 1 MB', ['page', 'worker', 'models', 'npu', 'snapshot'].every((m) => wasmBytes(m) < MB));

  await page.locator('button[data-example="npu-tiny"]').click();
  await settled(page);
  check('an NPU case fetches the NPU module', fetched.filter((m) => m === 'npu').length === 1, fetched.join(' '));
  check('and is solved, the checker says valid', (await text(page, 'npu-valid')) === 'valid', await text(page, 'npu-valid'));

  // the first model opened while the model module is still to come: the worker answers
  // in order, so the plan that follows is the model's
  await page.locator('#file').setInputFiles(MODEL);
  await settled(page);
  check('a model fetches the model module', fetched.filter((m) => m === 'models').length === 1, fetched.join(' '));
  check('and opens', (await text(page, 'graph-name')) === 'light_squeezenet');
  const numbers = await summaryNumbers(page);
  await page.locator('#file').setInputFiles(TFLITE);
  await settled(page);
  check('a second model reuses it', fetched.filter((m) => m === 'models').length === 1, fetched.join(' '));
  check('and opens', (await text(page, 'graph-name')) === 'hand_recrop');
  await page.locator('button[data-example="transformer"]').first().click();
  await settled(page);
  check('back to a graph: nothing more is fetched', fetched.length === 4, fetched.join(' '));
  check('the model\'s numbers were its own', JSON.stringify(numbers) !== JSON.stringify(await summaryNumbers(page)));
  check('no console errors or page errors', problems.length === 0, problems.join('; '));

  // a module that cannot be fetched: the page says so and keeps the graph on show; the
  // next try fetches it again
  const { page: cold, problems: coldProblems, allow: allowModels } = await refusing(context, url, 'models');
  await cold.locator('#file').setInputFiles(MODEL);
  await settled(cold);
  const error = await text(cold, 'error');
  check('a module that does not load is an error the page shows', /model module could not be loaded/.test(error), error);
  check('the graph on show stays', (await text(cold, 'graph-name')) === 'transformer_layer');
  allowModels();
  await cold.locator('#file').setInputFiles(MODEL);
  await settled(cold);
  check('the next try loads it and opens the model', (await text(cold, 'graph-name')) === 'light_squeezenet', await text(cold, 'error'));
  check('no page errors', coldProblems.length === 0, coldProblems.join('; '));
  // the worker's first module refused at start: the first example is an error, and
  // the next request fetches the module again
  const { page: starting, problems: startingProblems, allow: allowWorker } = await refusing(context, url, 'worker');
  const startingError = await text(starting, 'error');
  check('a first module that does not load is an error the page shows', /graph module could not be loaded/.test(startingError), startingError);
  allowWorker();
  await starting.locator('button[data-example="transformer"]').first().click();
  await settled(starting);
  check('the next request loads it and opens the example', (await text(starting, 'graph-name')) === 'transformer_layer', await text(starting, 'error'));
  check('no page errors when the first module fails', startingProblems.length === 0, startingProblems.join('; '));

  // a file dragged over the page: the model module comes ahead of the drop
  const hinted = await context.newPage();
  const hintedProblems = [];
  watch(hinted, hintedProblems);
  await hinted.goto(url);
  await settled(hinted);
  const before = fetched.filter((m) => m === 'models').length;
  const files = await hinted.evaluateHandle(() => {
    const data = new DataTransfer();
    data.items.add(new File(['{}'], 'model.onnx'));
    return data;
  });
  await hinted.dispatchEvent('body', 'dragover', { dataTransfer: files });
  await hinted.waitForFunction(() => !document.getElementById('drop').hidden);
  const deadline = Date.now() + 10000;
  while (fetched.filter((m) => m === 'models').length === before && Date.now() < deadline) await hinted.waitForTimeout(50);
  check('a file dragged over the page fetches the model module before the drop', fetched.filter((m) => m === 'models').length === before + 1, fetched.join(' '));
  check('and nothing is opened', (await text(hinted, 'graph-name')) === 'transformer_layer');
  check('no console errors or page errors after the hint', hintedProblems.length === 0, hintedProblems.join('; '));
  console.log(`modules: page ${wasmBytes('page')}, worker ${wasmBytes('worker')}, models ${wasmBytes('models')}, npu ${wasmBytes('npu')}, snapshot ${wasmBytes('snapshot')} bytes of wasm`);
}, { deviceScaleFactor: 1 });
