// Real model files in the visualizer, in a real Chromium: node tests/browser/models.test.mjs
// Needs ./build.sh first (www/pkg) and the shared corpus. Sets .tflite and .onnx files on
// the page's file input and compares the summary with what the native CLI reports.

import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../www/serve.mjs';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const MODELS = [
  'tflite/hand_recrop.tflite',
  'tflite/selfie_segmentation.tflite',
  'onnx/light_squeezenet.onnx',
  'onnx/light_densenet121.shapes.onnx',
];

const results = { passed: 0, failed: 0 };

/** Records one check: prints it and counts it. */
function check(what, ok, detail = '') {
  if (ok) results.passed += 1;
  else results.failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? ` (${detail})` : ''}`);
  return ok;
}

const text = (page, id) => page.locator(`#${id}`).textContent();
const visible = (page, id) => page.locator(`#${id}`).isVisible();

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

/** Share of canvas pixels that are not near-white. */
function ink(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id);
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235) inked += 1;
    }
    return inked / (data.length / 4);
  }, id);
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
  const time = await ink(page, 'time-address');
  check(`${name}: time-by-address chart is drawn`, time > 0.05, `${time}`);
  const live = await ink(page, 'live-bytes');
  check(`${name}: live-bytes chart is drawn`, live > 0.02, `${live}`);
}

async function truncated(page) {
  const data = readFileSync(join(CORPUS, 'tflite/hand_recrop.tflite'));
  const before = await text(page, 'graph-name');
  await pick(page, 'cut.tflite', data.subarray(0, data.length / 3));
  const error = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('truncated model: the error says tflite', error.includes('tflite'), error);
  check('truncated model: the previous graph stays', (await text(page, 'graph-name')) === before);
}

async function main() {
  if (!existsSync(CORPUS)) {
    if (process.env.CI) {
      console.error(`the shared corpus is missing at ${CORPUS} (required in CI)`);
      process.exit(1);
    }
    console.log(`SKIPPED: the shared corpus is missing at ${CORPUS}`);
    process.exit(0);
  }
  if (!existsSync(join(ROOT, 'www/pkg/memplan_bg.wasm'))) {
    console.error('www/pkg is missing: run ./build.sh first');
    process.exit(2);
  }
  const { server, url } = await serve(ROOT, 0);
  const profile = mkdtempSync(join(tmpdir(), 'memplan-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, args: ARGS, headless: true,
    viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1,
  });
  const problems = [];
  try {
    const page = context.pages()[0] ?? await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
    for (const path of MODELS) await model(page, path);
    await truncated(page);
    check('no console errors or page errors', problems.length === 0, problems.join('; '));
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
