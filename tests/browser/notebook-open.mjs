// Opens a notebook as nbconvert writes it to HTML (examples/memplan.ipynb executed by
// crates/python/tests/test_notebook.py) in headless Chromium and checks that each of its
// memplan views is drawn inside its cell's output:
//   node tests/browser/notebook-open.mjs NOTEBOOK.html [SCREENSHOT.png]
// (the first view's cell to SCREENSHOT.png, the second's to SCREENSHOT-2.png)
// The first view must be the seed example's plan, the second mlp_train.pickle's
// snapshot (the checks of standalone-views.mjs), each iframe inside an output area and
// sized as _repr_html_ asks (the width of the cell, 900 px high). The notebook's own
// page may ask for its CDN scripts (aborted here: the views must not need them); the
// views themselves must make no request outside the file and log no error. Exit 0 when
// every check passed.

import { pathToFileURL } from 'node:url';
import { check, launch, results } from './harness.mjs';
import { ready, snapshotShown, transformerShown } from './standalone-views.mjs';

/** Each canvas shown in `frame` (laid out at least 100 px wide), with the share of its pixels that are painted (opaque) and not near-white. */
function visibleInk(frame) {
  return frame.evaluate(() => [...document.querySelectorAll('canvas')]
    .filter((c) => c.offsetWidth >= 100 && c.offsetHeight >= 50 && c.width > 0 && c.height > 0)
    .map((c) => {
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 0 && (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235)) ink += 1;
      }
      return { id: c.id || c.className, share: ink / (data.length / 4) };
    }));
}

const [file, screenshot] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tests/browser/notebook-open.mjs NOTEBOOK.html [SCREENSHOT.png]');
  process.exit(2);
}
const url = pathToFileURL(file).href;
const { context, close } = await launch({ viewport: { width: 1280, height: 1000 } });
const problems = [];
const outside = [];
try {
  await context.route(/^https?:/, (route) => route.abort());
  const page = await context.newPage();
  // what the views do (their frames are about:srcdoc), not what the notebook's page does
  page.on('console', (m) => {
    if (m.type() === 'error' && m.location().url.startsWith('about:srcdoc')) problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    const frame = r.frame();
    if (frame !== page.mainFrame() && !/^(blob|data|about):/.test(r.url())) outside.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  const outputs = page.locator('.jp-OutputArea-output iframe');
  const count = await outputs.count();
  check('two memplan views, each inside a cell\'s output', count === 2, `${count} iframes in outputs`);
  const kinds = [['the plan', transformerShown], ['the snapshot', snapshotShown]];
  for (let i = 0; i < Math.min(count, 2); i += 1) {
    const [name, shown] = kinds[i];
    const element = outputs.nth(i);
    await element.scrollIntoViewIfNeeded();
    const box = await element.boundingBox();
    check(`${name}: the output's iframe is sized (${box && Math.round(box.width)} x ${box && Math.round(box.height)})`,
      box && box.width > 900 && box.height >= 890);
    const frame = await (await element.elementHandle()).contentFrame();
    await ready(frame);
    await shown(frame, `${name} in the notebook`);
    const inked = await visibleInk(frame);
    check(`${name}: its shown charts are inked (${inked.map((c) => `${c.id} ${(c.share * 100).toFixed(1)}%`).join(', ')})`,
      inked.length > 0 && inked.every((c) => c.share > 0.02));
    if (screenshot) {
      // the cell and its output as a reader sees them: SCREENSHOT, then SCREENSHOT-2.png
      await element.scrollIntoViewIfNeeded();
      await page.screenshot({ path: i === 0 ? screenshot : screenshot.replace(/(\.png)?$/, `-${i + 1}.png`) });
    }
  }
  check('no request of a view leaves the file', outside.length === 0, outside.join(' '));
} finally {
  await close();
}
check('no console errors in the views', problems.length === 0, problems.join('; '));
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);
