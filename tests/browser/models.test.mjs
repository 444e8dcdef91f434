// Real model files in the visualizer, in a real Chromium: node tests/browser/models.test.mjs
// Needs ./build.sh first (www/pkg) and the shared corpus. Sets .tflite and .onnx files on
// the page's file input and compares the summary with what the native CLI reports.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CORPUS, ROOT, canvasInk, check, requireCorpus, text, visible, watch, withBrowser } from './harness.mjs';

const MODELS = [
  'tflite/hand_recrop.tflite',
  'tflite/selfie_segmentation.tflite',
  'onnx/light_squeezenet.onnx',
  'onnx/light_densenet121.shapes.onnx',
  'models/yolo.ts_fixed.onnx',
  'models/llama.ts_fixed.onnx',
  'models/ctrl_cond.dy_fixed.onnx',
];

/** Arena tensors, all tensors and the lower bound as `memplan plan` prints them. */
function native(file) {
  const out = execFileSync('cargo', ['run', '--release', '--quiet', '--', 'plan', file], { cwd: ROOT, encoding: 'utf8' });
  const tensors = out.match(/^tensors\s+(\d+) in the arena \((\d+) in all\)/m);
  const bound = out.match(/^lower bound\s+(.+?) \((\d+) B\)/m);
  if (!tensors || !bound) throw new Error(`unexpected CLI output for ${file}:\n${out}`);
  return { arena: tensors[1], all: tensors[2], lowerBound: bound[1] };
}

/** Chooses a file for the page's file input, as its bytes. */
async function pick(page, name, buffer) {
  await page.locator('#file').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
  await page.waitForSelector('body:not([data-busy])');
}


async function model(page, path) {
  const file = join(CORPUS, path);
  const name = basename(file);
  const want = native(file);
  await pick(page, name, readFileSync(file));
  const error = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check(`${name}: opens without an error`, error === '', error);
  check(`${name}: graph named after the file`, (await text(page, 'graph-name')) === name.replace(/\.(tflite|onnx)$/, ''));
  const tensors = await text(page, 'sum-tensors');
  check(`${name}: ${want.arena} arena tensors of ${want.all}, as the CLI`, tensors === `${want.arena} of ${want.all}`, tensors);
  const bound = await text(page, 'sum-lower-bound');
  check(`${name}: lower bound ${want.lowerBound}, as the CLI`, bound === want.lowerBound, bound);
  check(`${name}: the plan is valid`, (await text(page, 'sum-valid')) === 'valid');
  const time = (await canvasInk(page, 'time-address')).share;
  check(`${name}: time-by-address chart is drawn`, time > 0.05, `${time}`);
  const live = (await canvasInk(page, 'live-bytes')).share;
  check(`${name}: live-bytes chart is drawn`, live > 0.02, `${live}`);
}

/** The If of a torch.cond export: its two branches are listed as nested arenas, and each opens as its own chart. */
async function bodies(page) {
  const file = join(CORPUS, 'models/ctrl_cond.dy_fixed.onnx');
  await pick(page, basename(file), readFileSync(file));
  check('If model: the nested arenas are listed', await visible(page, 'bodies'));
  const labels = await page.locator('#bodies-list button').allTextContents();
  check('If model: the main graph and both branches', labels.length === 3 && labels.some((l) => l.includes('then_branch')) && labels.some((l) => l.includes('else_branch')), labels.join(' | '));
  const main = await text(page, 'sum-tensors');
  await page.locator('#bodies-list button', { hasText: 'then_branch' }).click();
  await page.waitForSelector('body:not([data-busy])');
  await page.waitForFunction((before) => document.getElementById('sum-tensors').textContent !== before, main);
  const branch = await text(page, 'sum-tensors');
  check('If model: the then branch opens as its own chart (2 arena tensors)', branch.startsWith('2 of'), branch);
  check('If model: the branch plan is valid', (await text(page, 'sum-valid')) === 'valid');
  const ink = (await canvasInk(page, 'time-address')).share;
  check('If model: the branch is drawn', ink > 0.05, `${ink}`);
  await page.locator('#bodies-list button', { hasText: 'Main graph' }).click();
  await page.waitForFunction((before) => document.getElementById('sum-tensors').textContent === before, main);
  check('If model: back on the main graph', (await text(page, 'sum-tensors')) === main);
}

async function truncated(page) {
  const data = readFileSync(join(CORPUS, 'tflite/hand_recrop.tflite'));
  const before = await text(page, 'graph-name');
  await pick(page, 'cut.tflite', data.subarray(0, data.length / 3));
  const error = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('truncated model: the error says tflite', error.includes('tflite'), error);
  check('truncated model: the previous graph stays', (await text(page, 'graph-name')) === before);
}

requireCorpus();

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  for (const path of MODELS) await model(page, path);
  await bodies(page);
  await truncated(page);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
