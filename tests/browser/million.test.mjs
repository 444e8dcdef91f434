// A million tensors in a real Chromium: node tests/browser/million.test.mjs (after
// ./build.sh). The graph (made on the spot, 24 MB of MiniMalloc CSV) is planned in
// the worker while the page keeps answering, with a progress note and a Cancel that
// works; planned again to the end, it is drawn, hovered, zoomed and panned, and each
// picture of the fast painter is checked against a redraw that visits every tensor.
// No timing is asserted beyond the page answering while the worker plans.

import { bigCsv } from './big.mjs';
import { canvasInk, check, settled, text, visible, withBrowser, openPage } from './harness.mjs';

const TENSORS = 1000000;
const CHART = 'time-address';

/** Times page round trips every 250 ms until the page is idle; returns their durations. */
async function pingWhileBusy(page, limitMs) {
  const pings = [];
  const started = Date.now();
  for (;;) {
    const sent = Date.now();
    const busy = await page.evaluate(() => document.body.dataset.busy === 'true');
    pings.push(Date.now() - sent);
    if (!busy || Date.now() - started > limitMs) return pings;
    await new Promise((done) => setTimeout(done, 250));
  }
}

async function load(page, csv) {
  await page.locator('#file').setInputFiles({ name: 'million.csv', mimeType: 'text/csv', buffer: csv });
}

async function cancel(page, csv) {
  const before = await text(page, 'sum-tensors');
  await load(page, csv);
  await page.waitForSelector('#busy:not([hidden])', { timeout: 30000 }).catch(() => {});
  const note = await text(page, 'busy-text');
  check('a million tensors: the progress note says what the worker does', await visible(page, 'busy') && /^(Reading the file|Planning)… [\d.]+ s$/.test(note), note);
  const pings = await pingWhileBusy(page, 3000);
  const slowest = Math.max(...pings);
  // as for the whole planning below: on a shared two-core machine a single round
  // trip now and then waits for the scheduler (505 ms once in six CI runs)
  const prompt = pings.filter((p) => p < 500).length / pings.length;
  check('the page answers within half a second while the worker works (9 pings in 10, none over 2 s)', prompt >= 0.9 && slowest < 2000, `${pings.length} pings, slowest ${slowest} ms`);
  await page.locator('#cancel').click();
  await settled(page);
  check('Cancel stops it and keeps the graph on show', (await text(page, 'sum-tensors')) === before && !(await visible(page, 'busy')) && !(await visible(page, 'error')));
}

async function plan(page, csv) {
  await load(page, csv);
  const started = Date.now();
  const pings = await pingWhileBusy(page, 600000);
  const prompt = pings.filter((p) => p < 500).length / pings.length;
  console.log(`     planned in ${((Date.now() - started) / 1000).toFixed(1)} s; ${pings.length} pings, slowest ${Math.max(...pings)} ms`);
  check('the page answered within half a second for most of the planning', prompt >= 0.9, `${(100 * prompt).toFixed(0)}% of ${pings.length}`);
  await settled(page);
  check('a million tensors are planned and placed', (await text(page, 'sum-tensors')) === `${TENSORS}` && !(await visible(page, 'error')), await text(page, 'sum-tensors'));
  check('the plan passes the checker', (await text(page, 'sum-valid')) === 'valid');
  const ink = await canvasInk(page, CHART);
  check('its time-by-address chart is drawn', ink.share > 0.1 && ink.colours >= 5, JSON.stringify(ink));
  await page.locator(`#${CHART}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#${CHART}`).boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.wheel(0, -600);
  await settled(page);
  check('wheel zoom redraws the million-tensor chart', (await canvasInk(page, CHART)).hash !== ink.hash);
  await samePixels(page, 'zoomed in');
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.6, { steps: 2 });
  await page.mouse.up();
  await settled(page);
  check('a pan shifts the pixels drawn before it', await page.evaluate(() => window.memplanDebug.reusedPixels()));
  await samePixels(page, 'panned');
  await page.locator(`#${CHART}`).focus();
  await page.keyboard.press('0');
  await settled(page);
  const whole = await canvasInk(page, CHART);
  check('reset shows the first picture again', whole.hash === ink.hash, `${whole.hash} vs ${ink.hash}`);
  await samePixels(page, 'all of it');
}

/**
 * Draws the chart now with the fast painter and again visiting every tensor (the
 * reference), and checks that the two give the same pixels: the fast painter's index
 * finds every box on show and paints it as the full visit does.
 */
async function samePixels(page, where) {
  await page.evaluate(() => window.memplanDebug.drawNow(false));
  const fast = await canvasInk(page, CHART);
  await page.evaluate(() => window.memplanDebug.drawNow(true));
  const full = await canvasInk(page, CHART);
  await page.evaluate(() => window.memplanDebug.drawNow(false));
  check(`${where}: the fast painter draws the pixels of a full redraw`, fast.hash === full.hash && fast.share > 0.05, `${JSON.stringify(fast)} vs ${JSON.stringify(full)}`);
}

withBrowser(async (context, url) => {
  const { page, problems } = await openPage(context, url);
  const csv = Buffer.from(bigCsv(TENSORS, 3));
  await cancel(page, csv);
  await plan(page, csv);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
