// Sizes that depend on the data, in a real Chromium: node tests/browser/worst_case.test.mjs
// Needs ./build.sh first (www/pkg) and the shared corpus. An SSDlite-like detector
// (tests/data/detector.onnx) opens planned at its worst case: the form lists each bounded
// value prefilled with its worst case in its own dims, and says why; smaller bounds re-plan
// as `memplan plan --value-shape` does. A Loop with no bound asks for one in the form. Then
// the page is made to show every kind of message the readers give (the bounds note, a
// bound above the worst case, a size with no bound, free dims that do not run, options a
// file does not take, a bad file) and none may name a CLI flag.

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, ROOT, check, cli, requireCorpus, settled, text, watch, withBrowser } from './harness.mjs';

requireCorpus();

const GALLERY = join(ROOT, 'www/gallery');
mkdirSync(GALLERY, { recursive: true });
copyFileSync(join(CORPUS, 'tflite', 'hand_recrop.tflite'), join(GALLERY, 'test-hand_recrop.tflite'));
writeFileSync(join(GALLERY, 'test-aligned.csv'), 'id,lower,upper,size,alignment\na,0,3,10,64\n');
writeFileSync(join(GALLERY, 'test-garbage.onnx'), Buffer.from([0x08, 0x07, 0x3a, 0xff, 0xff, 0x01]));

/** `--` and a letter: a CLI flag. */
const FLAG = /--[a-z]/i;

/** Every message the page shows about the file: the error, the form's note and field titles, the body list and the import notes. */
async function messages(page) {
  return page.evaluate(() => {
    const shown = (id) => { const el = document.getElementById(id); return el && !el.hidden ? el.textContent : ''; };
    const titles = [...document.querySelectorAll('#shape-fields [title]')].map((e) => e.title);
    return [shown('error'), shown('shape-note'), shown('bodies-head'), shown('import-notes'), ...titles].filter(Boolean);
  });
}

/** Opens `query` and waits until the page is ready. */
async function open(page, url, query) {
  await page.goto(`${url}?${query}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  await settled(page);
}

/** The peak `memplan plan` prints for `file` with `args` and the page's strategy, as the page shows it (without the bytes). */
function cliPeak(file, args = []) {
  return cli(['plan', file, '--strategy', 'greedy-size', ...args]).peak?.split(' (')[0];
}

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  const seen = [];
  const keep = async (what) => seen.push(...(await messages(page)).map((m) => [what, m]));

  // the detector opens, planned at its worst case, and says so
  await open(page, url, 'src=tests/data/detector.onnx');
  check('detector: it opens, with no error', await page.locator('#error').isHidden());
  check('detector: the plan is valid', (await text(page, 'sum-valid')) === 'valid');
  check('detector: the peak is the CLI\'s at the worst case', (await text(page, 'sum-peak')) === cliPeak('tests/data/detector.onnx'), await text(page, 'sum-peak'));
  const field = (name) => page.locator(`#shape-fields input[data-value="${name}"]`);
  const prefilled = {};
  for (const name of ['selected', 'over_index', 'over_scores', 'over_order']) prefilled[name] = await field(name).inputValue();
  check('detector: each bounded value has a field prefilled with its worst case, in its own dims',
    JSON.stringify(prefilled) === JSON.stringify({ selected: '100 x 3', over_index: '3 x 7680', over_scores: '7680', over_order: '7680' }), JSON.stringify(prefilled));
  const note = await text(page, 'shape-note');
  check('detector: the note says why each is its worst case', /4 sizes depend on the input data/.test(note) && /every element of the input nonzero/.test(note) && /max_output_boxes_per_class/.test(note), note);
  check('detector: the note says the plan holds for every input', /holds for every input/.test(note), note);
  const title = await page.locator('#shape-fields label span', { hasText: 'over_index' }).getAttribute('title');
  check('detector: the field\'s title gives the worst case and why', /3 x 7680: every element of the input nonzero/.test(title ?? ''), title);
  await keep('detector');
  await page.screenshot({ path: join(ROOT, 'target', 'worst_case-detector.png') });

  // smaller bounds re-plan as the CLI's --value-shape
  const before = await text(page, 'sum-peak');
  for (const [name, bound] of [['over_index', '3 x 2500'], ['over_scores', '2500']]) {
    const note = await text(page, 'shape-note');
    await field(name).fill(bound);
    await page.waitForFunction((n) => document.getElementById('shape-note').textContent !== n, note, { timeout: 20000 });
    await settled(page);
  }
  check('bounds given: TopK\'s indices take the bound of its values', (await field('over_order').inputValue()) === '2500', await field('over_order').inputValue());
  const given = cliPeak('tests/data/detector.onnx', ['--value-shape', 'over_index=3x2500', '--value-shape', 'over_scores=2500']);
  check('bounds given: the peak is the CLI\'s with the same bounds', (await text(page, 'sum-peak')) === given, `${await text(page, 'sum-peak')} vs ${given}`);
  check('bounds given: the plan is valid, its peak below the worst case\'s', (await text(page, 'sum-valid')) === 'valid' && (await text(page, 'sum-peak')) !== before, `${before} before`);
  check('bounds given: the field keeps the bound typed', (await field('over_index').inputValue()) === '3 x 2500', await field('over_index').inputValue());
  check('bounds given: the note says the plan holds within them', /your bound; at worst 3 x 7680/.test(await text(page, 'shape-note')) && /within your bounds/.test(await text(page, 'shape-note')), await text(page, 'shape-note'));
  await keep('bounds given');

  // a bound above the worst case: a note says so
  await open(page, url, 'src=tests/data/detector.onnx&values=selected%3D200x3');
  const notes = await text(page, 'import-notes');
  check('bound above the worst case: a note says so', /`selected`.*not within its worst case \[100, 3\]/.test(notes), notes);
  await keep('bound above');

  // a size nothing bounds: the error names it and what decides it, the form asks for it
  await open(page, url, 'src=tests/data/loop_scan.onnx');
  const error = await page.locator('#error').textContent();
  check('no bound: the error names the value and the trip count\'s input', /`steps`/.test(error) && /trip count/.test(error) && /`trips`/.test(error), error);
  check('no bound: the hint names the form', /upper bound for steps in the form/.test(error), error);
  const steps = field('steps');
  check('no bound: the form asks for steps, empty', (await steps.isVisible()) && (await steps.inputValue()) === '');
  await keep('no bound');
  await steps.fill('8 x 4');
  await page.waitForFunction(() => document.getElementById('graph-name').textContent === 'loop_scan', null, { timeout: 20000 });
  await settled(page);
  check('no bound: with 8 x 4 it opens as the CLI plans it', (await text(page, 'sum-peak')) === cliPeak('tests/data/loop_scan.onnx', ['--value-shape', 'steps=8x4']), await text(page, 'sum-peak'));

  // every other kind of message the readers give the page
  for (const [what, query] of [
    ['free dims that do not run', 'src=tests/data/reshape100.onnx'],
    ['a free dim the model does not have', 'src=tests/data/detector.onnx&dims=zz%3D4'],
    ['a value shape for a TFLite model', 'src=www/gallery/test-hand_recrop.tflite&values=boxes%3D4'],
    ['a MiniMalloc alignment', 'src=www/gallery/test-aligned.csv'],
    ['a bad model', 'src=www/gallery/test-garbage.onnx'],
  ]) {
    await open(page, url, query);
    const shown = await messages(page);
    check(`${what}: the page shows a message`, shown.length > 0, JSON.stringify(shown));
    await keep(what);
  }
  const flagged = seen.filter(([, m]) => FLAG.test(m));
  check(`no message names a CLI flag (${seen.length} read)`, seen.length >= 12 && flagged.length === 0, JSON.stringify(flagged));
  check('no console or page errors', problems.length === 0, problems.join('\n'));
});
