// Saves the README's screenshots (1280 wide, one device pixel per CSS pixel):
//   node tests/browser/screenshots.mjs   (after ./build.sh; needs the corpus copies)
// docs/visualizer.png: the Transformer layer with a comparison and a selection;
// docs/visualizer-npu.png: FlashAttention_Case0 for problem 2 with a spilled buffer selected.

import { chromium } from 'playwright-core';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, settled } from './harness.mjs';
import { serve } from '../../www/serve.mjs';

const SHOTS = [
  ['docs/visualizer.png', '?example=transformer&compare=best-fit&select=4'],
  ['docs/visualizer-npu.png', '?example=npu-tiny&caps=L1%3D200&compare=baseline&select=1'],
];

const { server, url } = await serve(ROOT, 0);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  for (const [file, query] of SHOTS) {
    await page.goto(url + query);
    await settled(page);
    await page.screenshot({ path: join(ROOT, file), fullPage: true });
    console.log(`${file}: ${Math.round(statSync(join(ROOT, file)).size / 1024)} KiB`);
  }
} finally {
  await browser.close();
  server.close();
}
