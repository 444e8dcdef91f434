// A big graph through the planning worker in a real Chromium: node tests/browser/big.test.mjs
// (after ./build.sh). 20,000 tensors made on the spot; no timing is asserted.

import { bigCsv } from './big.mjs';
import { canvasInk, check, clickAt, scanTooltips, text, visible, watch, withBrowser } from './harness.mjs';

const TENSORS = 20000;
const CHART = 'time-address';

/** Waits until the worker has answered and two frames have been drawn. */
async function idle(page) {
  await page.waitForSelector('body[data-ready="true"]:not([data-busy])', { timeout: 300000 });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** The RGB of CSS pixel (x, y) of canvas `id`. */
const pixel = (page, id, x, y) => page.evaluate(([id, x, y]) => {
  const c = document.getElementById(id);
  const s = c.width / c.clientWidth;
  return [...c.getContext('2d').getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data.slice(0, 3)];
}, [id, x, y]);

async function load(page) {
  await page.locator('#file').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(bigCsv(TENSORS, 7)) });
  await idle(page);
  check(`a ${TENSORS}-tensor graph loads through the worker`, (await text(page, 'sum-tensors')) === `${TENSORS}` && !(await visible(page, 'error')), await text(page, 'sum-tensors'));
  check('its plan is valid', (await text(page, 'sum-valid')) === 'valid');
  const ink = await canvasInk(page, CHART);
  check('its time-by-address chart is drawn', ink.share > 0.1 && ink.colours >= 5, JSON.stringify(ink));
}

/** A slow plan runs in the worker: the page answers, shows the progress note, and Cancel keeps the plan on show. */
async function cancel(page) {
  const before = { peak: await text(page, 'sum-peak'), hash: (await canvasInk(page, CHART)).hash };
  // best-of holds its budget: twenty seconds of it keep the worker busy long enough
  await page.locator('#budget').fill('20000');
  await page.locator('#budget').dispatchEvent('change');
  await idle(page);
  await page.locator('#strategy').selectOption('best-of');
  await page.waitForSelector('#busy:not([hidden])', { timeout: 10000 }).catch(() => {});
  check('a long plan shows the progress note', await visible(page, 'busy'));
  check('the page is marked busy while the worker plans', await page.evaluate(() => document.body.dataset.busy === 'true'));
  const note = await page.waitForFunction(() => /best so far/.test(document.getElementById('busy-text').textContent), null, { timeout: 60000 })
    .then(() => text(page, 'busy-text'), () => text(page, 'busy-text'));
  check('the progress note shows the search\'s best plan so far against the bound', /Planning with best-of… [\d.]+ s: best so far [\d.]+ \w+ \([\d.]+× the lower bound\)/.test(note), note);
  await page.locator('#share').click();
  check('another control is handled while the worker plans', await visible(page, 'share-box'));
  await page.locator('#cancel').click();
  await idle(page);
  check('Cancel hides the progress note', !(await visible(page, 'busy')));
  check('Cancel keeps the previous plan', (await text(page, 'sum-peak')) === before.peak && (await canvasInk(page, CHART)).hash === before.hash);
  check('Cancel sets the strategy back to the plan on show', (await page.locator('#strategy').inputValue()) === 'greedy-size');
  check('Cancel shows no error', !(await visible(page, 'error')));
  await page.locator('#strategy').selectOption('naive');
  await idle(page);
  check('after a cancel the fresh worker plans again', (await text(page, 'sum-valid')) === 'valid' && (await text(page, 'sum-peak')) !== before.peak);
  await page.locator('#strategy').selectOption('greedy-size');
  await idle(page);
  check('and back to the first plan', (await text(page, 'sum-peak')) === before.peak);
}

async function zoom(page) {
  const start = (await canvasInk(page, CHART)).hash;
  await page.locator(`#${CHART}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#${CHART}`).boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.wheel(0, -600);
  await idle(page);
  check('wheel zoom changes the big chart', (await canvasInk(page, CHART)).hash !== start);
  await page.locator('#reset-zoom').click();
  await idle(page);
  check('Reset restores the big chart exactly', (await canvasInk(page, CHART)).hash === start);
}

async function hover(page) {
  const found = await scanTooltips(page, CHART, [23, 17]);
  check('hover finds tensors on the fast-drawn chart', found.length > 50, `${found.length}`);
  const spot = found[Math.floor(found.length / 2)];
  if (!spot) return;
  const under = await pixel(page, CHART, spot.x, spot.y);
  check('a hovered tensor is painted under the pointer', Math.max(...under) - Math.min(...under) > 20, JSON.stringify(under));
  const before = (await canvasInk(page, CHART)).hash;
  await clickAt(page, CHART, spot.x, spot.y);
  await idle(page);
  check('a click selects the hovered tensor', (await visible(page, 'selection')) && (await text(page, 'selection')).startsWith(spot.name), `${spot.name} vs ${await text(page, 'selection')}`);
  const chosen = await pixel(page, CHART, spot.x, spot.y);
  check('the selection is highlighted where the tensor is drawn', (await canvasInk(page, CHART)).hash !== before && chosen.join() !== under.join(), `${under} -> ${chosen}`);
  await page.keyboard.press('Escape');
}

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(url);
  await idle(page);
  await load(page);
  await cancel(page);
  await zoom(page);
  await hover(page);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
});
