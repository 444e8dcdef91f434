// The form for free input dimensions, in a real Chromium: node tests/browser/dims.test.mjs
// Needs ./build.sh first (www/pkg) and the shared corpus. Opens a dynamic-axes BERT export
// (input_ids: [batch, seq]) through ?src=, checks the warning and the fields, changes seq
// and compares the plan with `memplan plan --dim`, then reopens the share link. A model
// whose value's size depends on the data opens at its worst case, and a smaller bound in
// the form re-plans. A model that cannot
// run with its free dims at 1 opens with them raised, or asks for them with the error.

import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, ROOT, check, requireCorpus, settled, text, watch, withBrowser } from './harness.mjs';
import { execFileSync } from 'node:child_process';

const MODEL = 'bert.dy_dyn.onnx';

/** The lower bound `memplan plan` prints for the model with `args`. */
function nativeBound(args) {
  const out = execFileSync('cargo', ['run', '--release', '--quiet', '--', 'plan', join(CORPUS, 'models', MODEL), ...args], { cwd: ROOT, encoding: 'utf8' });
  return out.match(/^lower bound\s+(.+?) \(\d+ B\)/m)[1];
}

requireCorpus();

mkdirSync(join(ROOT, 'www/gallery'), { recursive: true });
copyFileSync(join(CORPUS, 'models', MODEL), join(ROOT, 'www/gallery', `test-${MODEL}`));
copyFileSync(join(CORPUS, 'models', 'silero_vad.onnx'), join(ROOT, 'www/gallery', 'test-silero_vad.onnx'));

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(`${url}?src=www/gallery/test-${MODEL}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  check('free dims: the form shows', await page.locator('#shape-form').isVisible());
  const box = await page.locator('#shape-form').boundingBox();
  const height = page.viewportSize().height;
  check('free dims: the warning is visible without scrolling', box && box.y + box.height <= height, JSON.stringify(box));
  const note = await text(page, 'shape-note');
  check('free dims: the note says two dims were defaulted', /2 input dimensions free/.test(note) && /2 defaulted to 1/.test(note), note);
  const seq = page.locator('#shape-fields input[data-dim="seq"]');
  const batch = page.locator('#shape-fields input[data-dim="batch"]');
  check('free dims: a field per dimension, prefilled with 1', (await seq.inputValue()) === '1' && (await batch.inputValue()) === '1');
  const title = await page.locator('#shape-fields label span', { hasText: 'seq' }).getAttribute('title');
  check('free dims: the field names the inputs it occurs in', /input_ids\[1\]/.test(title ?? ''), title);
  const at1 = await text(page, 'sum-lower-bound');
  check('free dims: the plan at seq=1 is the CLI\'s', at1 === nativeBound([]), at1);

  await seq.fill('128');
  await page.waitForFunction((before) => document.getElementById('sum-lower-bound').textContent !== before, at1, { timeout: 20000 });
  await settled(page);
  const at128 = await text(page, 'sum-lower-bound');
  check('free dims: seq=128 re-plans as memplan plan --dim seq=128', at128 === nativeBound(['--dim', 'seq=128']), at128);
  check('free dims: the plan is valid', (await text(page, 'sum-valid')) === 'valid');
  const link = page.url();
  check('free dims: the address keeps seq=128', /dims=seq%3D128/.test(link), link);

  await page.goto(link);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  check('free dims: the link reopens seq=128', (await page.locator('#shape-fields input[data-dim="seq"]').inputValue()) === '128');
  check('free dims: and its plan', (await text(page, 'sum-lower-bound')) === at128);

  // a size that depends on the data: it opens at its worst case, and the form holds
  // that bound in the value's own dims, for a smaller one
  await page.goto(`${url}?src=tests/data/nonzero.onnx`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  const idx = page.locator('#shape-fields input[data-value="idx"]');
  check('data-dependent: it opens, with no error', await page.locator('#error').isHidden());
  check('data-dependent: the form holds idx at its worst case, 2 x 12', (await idx.inputValue()) === '2 x 12', await idx.inputValue());
  check('data-dependent: the note says why', /every element of the input nonzero/.test(await text(page, 'shape-note')), await text(page, 'shape-note'));
  const worst = await text(page, 'sum-peak');
  await idx.fill('2x5');
  await page.waitForFunction((before) => document.getElementById('sum-peak').textContent !== before, worst, { timeout: 20000 });
  await settled(page);
  const peak = await text(page, 'sum-peak');
  const cli = execFileSync('cargo', ['run', '--release', '--quiet', '--', 'plan', 'tests/data/nonzero.onnx', '--value-shape', 'idx=2x5'], { cwd: ROOT, encoding: 'utf8' });
  check('data-dependent: idx=2x5 plans as memplan plan --value-shape idx=2x5', cli.includes(`peak         ${peak}`), `${peak} vs ${cli}`);

  // silero's STFT cannot run on one sample: the import raises that dim, and says so
  await page.goto(`${url}?src=www/gallery/test-silero_vad.onnx`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  const samples = page.locator('#shape-fields input[data-dim="input:1"]');
  const cliSilero = execFileSync('cargo', ['run', '--release', '--quiet', '--', 'plan', join(CORPUS, 'models', 'silero_vad.onnx')], { cwd: ROOT, encoding: 'utf8' });
  const raisedTo = cliSilero.match(/input:1=(\d+)/)?.[1];
  check('raised dims: silero opens with input:1 raised as memplan plan raises it', raisedTo && raisedTo !== '1' && (await samples.inputValue()) === raisedTo, `${await samples.inputValue()} vs ${raisedTo}`);
  check('raised dims: the note names the raised dim', /input:1 raised from 1/.test(await text(page, 'shape-note')), await text(page, 'shape-note'));
  check('raised dims: the plan is valid', (await text(page, 'sum-valid')) === 'valid');

  // a model that runs with none of the values tried: the error comes with the form
  await page.goto(`${url}?src=tests/data/reshape100.onnx`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  const n = page.locator('#shape-fields input[data-dim="n"]');
  const k = page.locator('#shape-fields input[data-dim="k"]');
  check('failed dims: the form asks for n and k', (await n.isVisible()) && (await k.isVisible()));
  check('failed dims: the error says why', /do not reshape to \[100\]/.test(await page.locator('#error').textContent()));
  check('failed dims: the note says the model does not run with these values', /does not run with the values below/.test(await text(page, 'shape-note')), await text(page, 'shape-note'));
  check('failed dims: the header says nothing is loaded', (await text(page, 'graph-name')) === 'not loaded', await text(page, 'graph-name'));
  // a value that still does not run: the error follows it and the form stays
  await n.fill('3');
  await page.waitForFunction(() => /3 elements do not reshape/.test(document.getElementById('error').textContent), null, { timeout: 20000 });
  check('failed dims: a given value that does not run keeps the form, with that value', (await n.isVisible()) && (await n.inputValue()) === '3');
  await n.fill('4');
  await k.fill('25');
  await page.waitForFunction(() => document.getElementById('sum-peak').textContent.includes('B'), null, { timeout: 20000 });
  await settled(page);
  const cliFit = execFileSync('cargo', ['run', '--release', '--quiet', '--', 'plan', 'tests/data/reshape100.onnx', '--dim', 'n=4', '--dim', 'k=25'], { cwd: ROOT, encoding: 'utf8' });
  check('failed dims: n=4, k=25 plans as memplan plan --dim', cliFit.includes(`peak         ${await text(page, 'sum-peak')}`), cliFit);

  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
  check('free dims: the form stays hidden for a graph without free dims', !(await page.locator('#shape-form').isVisible()));
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
