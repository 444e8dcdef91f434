// The visualizer in a real Chromium: node tests/browser/page.test.mjs
// Needs ./build.sh first (www/pkg). Prints every check; exits non-zero on a failure.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, canvasInk, check, settled, text, visible, watch, withBrowser, HOSTILE_GRAPH } from './harness.mjs';

const LOOP = JSON.stringify({
  name: 'loop',
  tensors: [{ name: 'x', size: '1KiB' }, { name: 'y', size: '1KiB' }],
  ops: [
    { name: 'A', type: 'Add', inputs: ['y'], outputs: ['x'] },
    { name: 'B', type: 'Mul', inputs: ['x'], outputs: ['y'] },
  ],
});


/** Waits until the planning worker has answered and the page is not busy. */
const idle = (page) => page.waitForSelector('body:not([data-busy])');

/** Chooses `value` in select `id` and waits for the re-plan. */
async function choose(page, id, value) {
  await page.locator(`#${id}`).selectOption(value);
  await idle(page);
}

/** Types `value` into input `id` and waits for the re-plan. */
async function type(page, id, value) {
  await page.locator(`#${id}`).fill(value);
  await idle(page);
}

/** Chooses a file for the page's file input. */
async function pick(page, name, content, mimeType = 'application/json') {
  await page.locator('#file').setInputFiles({ name, mimeType, buffer: Buffer.from(content) });
  await page.waitForSelector('body:not([data-busy])');
}

/** Share of canvas pixels that are not near-white, and how many colours appear. */
/**
 * Moves a synthetic pointer over a grid of the chart and records what the tooltip names
 * at each point, with whether a box is painted under it.
 */
function scanTooltips(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById('time-address');
    const tip = document.getElementById('tooltip');
    const box = canvas.getBoundingClientRect();
    const ctx = canvas.getContext('2d');
    const scale = canvas.width / box.width;
    const found = [];
    for (let y = 4; y < box.height; y += 9) {
      for (let x = 4; x < box.width; x += 13) {
        canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + x, clientY: box.top + y, bubbles: true }));
        if (tip.hidden) continue;
        // white names and edges sit on the boxes: look at a few pixels around
        const near = ctx.getImageData(Math.round(x * scale) - 3, Math.round(y * scale) - 3, 7, 7).data;
        let painted = false;
        for (let i = 0; i < near.length; i += 4) {
          painted ||= Math.max(near[i], near[i + 1], near[i + 2]) - Math.min(near[i], near[i + 1], near[i + 2]) > 40;
        }
        const name = tip.querySelector('.name').textContent;
        found.push({ x, y, name, painted });
      }
    }
    canvas.dispatchEvent(new MouseEvent('mouseleave'));
    return found;
  });
}

async function firstLoad(page, url) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  check('example loads: graph name shown', (await text(page, 'graph-name')) === 'transformer_layer');
  check('default strategy is greedy-size', (await page.locator('#strategy').inputValue()) === 'greedy-size');
  const options = await page.locator('#strategy option').allTextContents();
  const five = ['naive', 'pools', 'first-fit', 'greedy-size', 'best-fit'];
  check('strategy menu lists the five basic strategies', five.every((s) => options.includes(s)), options.join(','));
  check('summary: 8 tensors', (await text(page, 'sum-tensors')) === '8');
  check('summary: lower bound 384 MiB', (await text(page, 'sum-lower-bound')) === '384 MiB');
  check('summary: naive 896 MiB', (await text(page, 'sum-naive')) === '896 MiB');
  check('greedy-size: peak 384 MiB', (await text(page, 'sum-peak')) === '384 MiB');
  check('greedy-size: checker valid', (await text(page, 'sum-valid')) === 'valid');
  check('summary: 3 pools', (await text(page, 'sum-pools')) === '3');
  check('no error shown', !(await visible(page, 'error')));
}

async function charts(page) {
  const time = await canvasInk(page, 'time-address');
  check('time-by-address canvas is drawn (not blank)', time.share > 0.2 && time.colours >= 5, JSON.stringify(time));
  check('canvas is sized in device pixels (HiDPI)', time.width === time.css * 2, `${time.width} vs ${time.css}`);
  const live = await canvasInk(page, 'live-bytes');
  check('live-bytes canvas is drawn (not blank)', live.share > 0.05, JSON.stringify(live));
}

async function hover(page) {
  const found = await scanTooltips(page);
  const names = new Set(found.map((f) => f.name));
  check('hover finds every tensor of the example', names.size === 8, [...names].join(','));
  const bare = found.filter((f) => !f.painted);
  check('tooltips appear only over painted boxes', bare.length === 0, JSON.stringify(bare.slice(0, 5)));
  const spot = found.find((f) => f.name === 'T0_QKV_Proj');
  if (!check('hover over T0_QKV_Proj located', spot !== undefined)) return;
  const box = await page.locator('#time-address').boundingBox();
  await page.mouse.move(box.x + spot.x, box.y + spot.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const tip = await text(page, 'tooltip');
  check('real hover shows T0_QKV_Proj in the tooltip', tip.includes('T0_QKV_Proj'), tip);
  check('tooltip gives size, steps and producer', tip.includes('128 MiB') && tip.includes('0–1') && tip.includes('Op0 (QKVProj)'), tip);
  const before = await canvasInk(page, 'time-address');
  await page.mouse.click(box.x + spot.x, box.y + spot.y);
  const selected = await text(page, 'selection');
  check('click selects the tensor and shows its details', (await visible(page, 'selection')) && selected.includes('T0_QKV_Proj'), selected);
  // the redraw comes on an animation frame: read the canvas once it has
  await settled(page);
  const after = await canvasInk(page, 'time-address');
  check('selection redraws the chart with a highlight', after.share !== before.share);
  await page.locator('#live-bytes').scrollIntoViewIfNeeded();
  const live = await page.locator('#live-bytes').boundingBox();
  await page.mouse.move(live.x + live.width * 0.97, live.y + live.height * 0.5);
  const liveTip = (await visible(page, 'live-tooltip')) ? await text(page, 'live-tooltip') : '';
  check('live-bytes hover shows the last step at 384 MiB', liveTip.startsWith('step 5') && liveTip.includes('384 MiB live'), liveTip);
  await page.keyboard.press('Escape');
  check('Escape clears the selection', !(await visible(page, 'selection')));
  await page.mouse.move(box.x + 2, box.y + 2);
  check('tooltip hides off the boxes', !(await visible(page, 'tooltip')));
}

async function strategies(page) {
  await choose(page, 'strategy', 'naive');
  check('naive: peak 896 MiB', (await text(page, 'sum-peak')) === '896 MiB');
  check('naive: ratio 2.33×', (await text(page, 'sum-ratio')) === '2.33×');
  await choose(page, 'strategy', 'best-fit');
  check('best-fit: peak 384 MiB and valid', (await text(page, 'sum-peak')) === '384 MiB' && (await text(page, 'sum-valid')) === 'valid');
  await type(page, 'align', '3MiB');
  check('alignment 3 MiB re-plans and stays valid', (await text(page, 'sum-valid')) === 'valid' && !(await visible(page, 'error')));
  await type(page, 'align', 'lots');
  const err = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('a bad alignment is explained', err.includes('lots'), err);
  await type(page, 'align', '1');
  check('a good alignment clears the error', !(await visible(page, 'error')));
}

async function badFiles(page) {
  await pick(page, 'broken.json', '{"tensors": [ {"name": "a", ');
  const err = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('malformed file: error shown in the page', err.includes('Could not open broken.json'), err);
  check('malformed file: the previous graph stays', (await text(page, 'graph-name')) === 'transformer_layer');
  await choose(page, 'strategy', 'first-fit');
  check('after the error, re-selecting a strategy works', !(await visible(page, 'error')) && (await text(page, 'sum-valid')) === 'valid');
  await pick(page, 'loop.json', LOOP);
  const cycle = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('cyclic graph: the error names the cycle', cycle.includes('cycle') && cycle.includes('`A`') && cycle.includes('`B`') && cycle.includes('Every op must come after'), cycle);
  await choose(page, 'strategy', 'greedy-size');
  check('after the cycle, the page still plans', (await text(page, 'sum-peak')) === '384 MiB');
}

async function otherFiles(page) {
  await pick(page, 'tiny.csv', 'id,lower,upper,size\n0,0,3,100\n1,2,5,200\n2,4,8,50\n', 'text/csv');
  const csv = `${await text(page, 'graph-name')} ${await text(page, 'sum-peak')} ${await text(page, 'error')}`;
  check('MiniMalloc CSV loads', csv.startsWith('tiny 300 B'), csv);
  await pick(page, 'hostile.json', HOSTILE_GRAPH);
  const hostile = `${await text(page, 'graph-name')} ${await text(page, 'error')}`;
  check('hostile names load', hostile.startsWith('hostile '), hostile);
  const found = await scanTooltips(page);
  const injected = await page.evaluate(() => document.querySelectorAll('#tooltip img, #selection img').length + (window.pwned ?? 0));
  check('tensor names are shown as text, never as HTML', found.some((f) => f.name.startsWith('<img')) && injected === 0);
}

async function hosted(page, url) {
  await page.goto(`${url}?src=${encodeURIComponent('/examples/transformer_layer.json')}`);
  await page.waitForSelector('body[data-ready="true"]');
  check('?src=URL loads a hosted file', (await text(page, 'graph-source')) === '/examples/transformer_layer.json' && (await text(page, 'sum-lower-bound')) === '384 MiB');
}

/** Selects one tensor and hovers another, for a screenshot that shows both. */
async function showcase(page) {
  const found = await scanTooltips(page);
  const box = await page.locator('#time-address').boundingBox();
  const at = (name) => found.find((f) => f.name === name);
  const [chosen, hovered] = [at('T4_AttnOut'), at('T6_FFN_Up')];
  if (!check('showcase tensors located', chosen && hovered)) return;
  await page.mouse.click(box.x + chosen.x, box.y + chosen.y);
  await page.mouse.move(box.x + hovered.x, box.y + hovered.y);
  await page.waitForSelector('#tooltip:not([hidden])');
}

withBrowser(async (context, url) => {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await firstLoad(page, url);
  await charts(page);
  await hover(page);
  await strategies(page);
  await badFiles(page);
  await otherFiles(page);
  await hosted(page, url);
  await showcase(page);
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'out/page.png'), fullPage: true });
  console.log('screenshot: out/page.png');
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
});
