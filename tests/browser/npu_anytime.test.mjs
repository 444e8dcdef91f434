// Anytime NPU solving in a real Chromium: node tests/browser/npu_anytime.test.mjs (after
// ./build.sh). FlashAttention_Case0's Problem 2 takes seconds of wasm: its charts are
// drawn from the first plan while the worker still solves, change when a better plan
// arrives, and Stop keeps a valid plan on show. No timing is asserted.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, canvasInk, check, openPage, plain, requireCorpus, settled, text, visible, withBrowser } from './harness.mjs';

const LEVEL = 'level-0';

/** The numbers and the ink of the plan on show, read again when a better plan came in between. */
async function shown(page) {
  const movement = async () => Number(plain(await text(page, 'npu-movement')));
  for (;;) {
    const before = await movement();
    const seen = {
      movement: before,
      valid: await text(page, 'npu-valid'),
      ink: await canvasInk(page, LEVEL),
      gantt: await canvasInk(page, 'gantt'),
    };
    if ((await movement()) === before) return seen;
  }
}

const busy = (page) => page.evaluate(() => document.body.dataset.busy === 'true');

// FlashAttention_Case0 is the gallery's copy from the corpus (./build.sh)
if (!existsSync(join(ROOT, 'www/gallery/FlashAttention_Case0.json'))) requireCorpus();

await withBrowser(async (context, url) => {
  const { page, problems } = await openPage(context, url);
  await page.locator('button[data-example="flash-attention"]').click();
  // the first plan: drawn while the worker goes on solving
  await page.waitForFunction(() => /^\d[\d,]*$/.test(document.getElementById('npu-movement')?.textContent ?? ''), null, { timeout: 120000 });
  const first = await shown(page);
  const stillSolving = await busy(page);
  check('the first plan is on show while the worker still solves', stillSolving, `busy ${stillSolving}`);
  check('its level chart and Gantt chart are drawn', first.ink.share > 0.04 && first.gantt.share > 0.05, JSON.stringify([first.ink, first.gantt]));
  check('the first plan passes the independent checker', first.valid === 'valid', first.valid);
  const yard = await text(page, 'npu-yardstick');
  check('the summary says the lower bound (none useful for this movement) and the best published number',
    /no useful lower bound of the movement is known; best published 3,584\./.test(yard), yard);
  // a better plan: fewer bytes moved, drawn anew
  const better = await page.waitForFunction((before) => {
    const now = Number((document.getElementById('npu-movement')?.textContent ?? '').replace(/,/g, ''));
    return now < before;
  }, first.movement, { timeout: 120000 }).then(() => true, () => false);
  const second = await shown(page);
  check('a better plan replaces it as the solve goes on', better && second.movement < first.movement, `${first.movement} then ${second.movement}`);
  check('the charts change with it', second.ink.hash !== first.ink.hash || second.gantt.hash !== first.gantt.hash, JSON.stringify([first.movement, second.movement, first.ink, second.ink, first.gantt, second.gantt]));
  const note = await text(page, 'busy-text');
  check('the progress note names the best so far', /Solving… [\d.]+ s: best so far extra movement [\d,]+/.test(note), note);
  // Stop keeps the best plan so far
  const solving = await busy(page);
  await page.locator('#cancel').click();
  await settled(page);
  const kept = await shown(page);
  check('Stop was pressed while the worker solved', solving);
  check('Stop keeps the plan on show, valid', kept.valid === 'valid' && kept.movement <= second.movement && kept.ink.share > 0.04, JSON.stringify(kept));
  check('Stop hides the progress note and shows no error', !(await visible(page, 'busy')) && !(await visible(page, 'error')));
  // and the page solves again afterwards, to the end
  await page.locator('#problem').selectOption('1');
  await settled(page);
  const peak = Number(plain(await text(page, 'npu-peak')));
  check('after Stop the fresh worker solves again', peak > 0 && (await text(page, 'npu-valid')) === 'valid', `${peak}`);
  const p1 = await text(page, 'npu-yardstick');
  const bound = Number((/lower bound of the peak ([\d,]+)/.exec(p1)?.[1] ?? '').replace(/,/g, ''));
  check('Problem 1 shows its lower bound, at most the peak, and the published 4,498', bound > 0 && bound <= peak && /best published 4,498/.test(p1), p1);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
});
