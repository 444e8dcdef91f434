// Saves the README's screenshots (1280 wide, one device pixel per CSS pixel):
//   node tests/browser/screenshots.mjs   (after ./build.sh; needs the corpus copies)
// docs/visualizer.png: the Transformer layer with a comparison and a selection;
// docs/visualizer-npu.png: FlashAttention_Case0 for problem 2 with a spilled buffer selected;
// docs/snapshot.png: the corpus's gpt2_oom.pickle (a PyTorch memory snapshot) opened,
// a block selected and another hovered. `node tests/browser/screenshots.mjs snapshot`
// saves that one alone. docs/replay.png: the corpus's gpt2_train.pickle swept, and
// replayed under expandable segments beside the real layout (`... replay` alone).

import { chromium } from 'playwright-core';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, ROOT, scanTooltips, settled } from './harness.mjs';
import { serve } from '../../www/serve.mjs';

const SHOTS = [
  ['docs/visualizer.png', '?example=transformer&compare=best-fit&select=4'],
  ['docs/visualizer-npu.png', '?example=npu-tiny&caps=L1%3D200&compare=baseline&select=1'],
];

const { server, url } = await serve(ROOT, 0);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const only = process.argv[2];
  for (const [file, query] of SHOTS) {
    if (only) continue;
    await page.goto(url + query);
    await settled(page);
    await page.screenshot({ path: join(ROOT, file), fullPage: true });
    console.log(`${file}: ${Math.round(statSync(join(ROOT, file)).size / 1024)} KiB`);
  }
  if (!only || only === 'snapshot') await snapshotShot(page, url, 'docs/snapshot.png');
  if (!only || only === 'replay') await replayShot(page, url, 'docs/replay.png');
} finally {
  await browser.close();
  server.close();
}

/** Opens the corpus's gpt2_oom.pickle, selects a block of the real layout, hovers another, and saves the page as `file`. */
async function snapshotShot(page, url, file) {
  await page.goto(url);
  await settled(page);
  await page.locator('#file').setInputFiles(join(CORPUS, 'torch/gpt2_oom.pickle'));
  await settled(page);
  // select a block of the real layout, hover one of memplan's plan
  const stacked = (id) => scanTooltips(page, id, [9, 7]).then((found) => found.filter((f) => /\.py:\d+/.test(f.text)));
  const [real, plan] = [await stacked('compare-1'), await stacked('compare-0')];
  const chosen = real[Math.floor(real.length * 0.3)];
  const hovered = plan[Math.floor(plan.length * 0.4)];
  const box = await page.locator('#compare-1').boundingBox();
  await page.mouse.click(box.x + chosen.x, box.y + chosen.y);
  await settled(page);
  const planBox = await page.locator('#compare-0').boundingBox();
  await page.mouse.move(planBox.x + hovered.x, planBox.y + hovered.y);
  await page.waitForSelector('#compare-body .tooltip:not([hidden])');
  await page.screenshot({ path: join(ROOT, file), fullPage: true });
  console.log(`${file}: ${Math.round(statSync(join(ROOT, file)).size / 1024)} KiB`);
}

/** Opens the corpus's gpt2_train.pickle, sweeps the allocator's settings, replays it under expandable segments and saves the sweep and the two layouts as `file`. */
async function replayShot(page, url, file) {
  await page.goto(url);
  await settled(page);
  await page.locator('#file').setInputFiles(join(CORPUS, 'torch/gpt2_train.pickle'));
  await settled(page);
  await page.locator('#replay-sweep').click();
  await page.waitForSelector('#sweep-box:not([hidden])');
  await page.locator('#replay-conf').fill('expandable_segments:True');
  await page.locator('#replay-run').click();
  await page.waitForFunction(() => /Replayed under/.test(document.getElementById('replay-line').textContent));
  await settled(page);
  // from the summary to the end of the comparison, in page coordinates
  const [top, bottom] = await page.evaluate(() => [
    document.getElementById('snapshot-summary').getBoundingClientRect().top + window.scrollY,
    document.getElementById('compare-panel').getBoundingClientRect().bottom + window.scrollY,
  ]);
  await page.screenshot({ path: join(ROOT, file), fullPage: true, clip: { x: 0, y: top - 12, width: 1280, height: bottom - top + 24 } });
  console.log(`${file}: ${Math.round(statSync(join(ROOT, file)).size / 1024)} KiB`);
}
