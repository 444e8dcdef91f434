// Sharing a file opened from this computer, in a real Chromium: node tests/browser/share.test.mjs
// Needs ./build.sh first (www/pkg) and the shared corpus. Opens a model through the file
// input, changes the strategy and selects a tensor, takes the Share link (which carries
// the graph in its #g= fragment), opens it in a fresh page and finds the same numbers and
// selection; a damaged fragment is explained and the example shown.

import { join } from 'node:path';
import { CORPUS, check, openAndSelect, requireCorpus, settled, summaryNumbers, text, watch, withBrowser } from './harness.mjs';

const MODEL = join(CORPUS, 'models', 'yolo.ts_fixed.onnx');

requireCorpus();

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(url);
  await settled(page);
  await openAndSelect(page, MODEL, 'best-fit');
  const before = await summaryNumbers(page);
  const selected = await page.locator('#selection').textContent();
  await page.locator('#share').click();
  await page.waitForFunction(() => document.getElementById('share-link').value.includes('#g='), null, { timeout: 20000 });
  const link = await page.locator('#share-link').inputValue();
  check('the Share link carries the graph in its fragment', /#g=[A-Za-z0-9_-]+$/.test(link) && /strategy=best-fit/.test(link), link.slice(0, 120));
  check('the link stays under the limit', link.length < 17000, `${link.length}`);
  check('the note says the link carries the graph', /carries the graph/.test(await text(page, 'share-note')));

  const fresh = await context.newPage();
  watch(fresh, problems);
  await fresh.goto(link);
  await settled(fresh);
  const after = await summaryNumbers(fresh);
  check('the link reopens the same graph and plan', JSON.stringify(after) === JSON.stringify(before), `${JSON.stringify(after)} vs ${JSON.stringify(before)}`);
  check('with the same strategy', (await fresh.locator('#strategy').inputValue()) === 'best-fit');
  check('and the same selection', (await fresh.locator('#selection').textContent()) === selected, selected?.slice(0, 80));
  await fresh.close();

  const broken = await context.newPage();
  watch(broken, problems);
  await broken.goto(`${url}#g=AAAAAAAA`);
  await settled(broken);
  const error = await text(broken, 'error');
  check('a damaged link is explained', /damaged or cut short/.test(error), error);
  check('and the example is shown', (await text(broken, 'graph-name')) === 'transformer_layer');
  await broken.close();
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
