// The visualizer's gallery, NPU view, compare, zoom, exports and share links in a real
// Chromium: node tests/browser/views.test.mjs (after ./build.sh; uses target/release/memplan
// when built, else cargo run, for the native numbers). Prints every check.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ROOT, canvasInk, check, clickAt, cli, corpusFileMissing, plain, scanTooltips, settled, text, visible, watch, withBrowser,
} from './harness.mjs';
import { GALLERY } from '../../www/gallery.js';

const CORPUS_FILES = {
  'www/gallery/FlashAttention_Case0.json': 'npu/FlashAttention_Case0.json',
  'www/gallery/light_squeezenet.json': 'graphs/light_squeezenet.json',
  'www/gallery/A.1048576.csv': 'minimalloc/A.1048576.csv',
};

/** Opens gallery entry `id` by its button. */
async function openExample(page, id) {
  await page.locator(`button[data-example="${id}"]`).click();
  await settled(page);
}

/** Checks one graph entry: peak as the CLI plans it with the page's strategy, charts drawn, no error. */
async function graphEntry(page, entry) {
  const native = cli(['plan', entry.url, '--strategy', await page.locator('#strategy').inputValue()]);
  const peak = native.peak.split(' (')[0];
  check(`${entry.id}: peak ${peak} as the CLI`, (await text(page, 'sum-peak')) === peak, await text(page, 'sum-peak'));
  check(`${entry.id}: checker valid`, (await text(page, 'sum-valid')) === 'valid');
  const ink = await canvasInk(page, 'time-address');
  check(`${entry.id}: time-by-address drawn`, ink.share > 0.1 && ink.colours >= 5, JSON.stringify(ink));
}

/** Checks one NPU entry: a drawn chart per level with buffers, spill timeline, Gantt, and the CLI's numbers. */
async function npuEntry(page, entry) {
  const levels = await page.locator('#levels canvas').evaluateAll((cs) => cs.map((c) => c.id));
  check(`${entry.id}: a chart per level that holds buffers`, levels.length >= 3, levels.join(','));
  for (const id of levels) {
    const ink = await canvasInk(page, id);
    check(`${entry.id}: ${id} drawn`, ink.share > 0.04 && ink.colours >= 5, JSON.stringify(ink));
  }
  const spills = await canvasInk(page, 'spills');
  const gantt = await canvasInk(page, 'gantt');
  check(`${entry.id}: pipe Gantt drawn`, gantt.share > 0.05 && gantt.colours >= 6, JSON.stringify(gantt));
  const native = cli(['npu', entry.url, '--problem', '2']);
  const bars = native.spills !== '0';
  check(`${entry.id}: spill timeline drawn (${bars ? 'bars' : 'axes and a note'})`,
    bars ? spills.share > 0.03 && spills.colours >= 5 : spills.share > 0.005, JSON.stringify(spills));
  const shown = {
    spills: plain(await text(page, 'npu-spills')),
    'extra movement': plain(await text(page, 'npu-movement')),
    makespan: plain(await text(page, 'npu-makespan')),
  };
  for (const [key, value] of Object.entries(shown)) {
    check(`${entry.id}: ${key} ${value} as memplan npu --problem 2`, value === native[key], `${value} vs ${native[key]}`);
  }
  check(`${entry.id}: independent checker says valid`, (await text(page, 'npu-valid')) === 'valid');
}

async function gallery(page, url, missing) {
  await page.goto(url);
  await settled(page);
  for (const entry of GALLERY) {
    if (missing.includes(entry.url)) {
      // build.sh copies these from the corpus: without it they cannot open
      corpusFileMissing(`gallery ${entry.id}`, `gallery ${entry.id}: ${entry.url} was copied by build.sh`);
      continue;
    }
    await openExample(page, entry.id);
    const err = (await visible(page, 'error')) ? await text(page, 'error') : '';
    if (!check(`gallery ${entry.id} loads without an error`, err === '', err)) continue;
    check(`gallery ${entry.id}: its button is marked`, (await page.locator(`button[data-example="${entry.id}"]`).getAttribute('aria-pressed')) === 'true');
    if (entry.about.startsWith('NPU')) await npuEntry(page, entry);
    else await graphEntry(page, entry);
    // the card's count is the summary's (all tensors, also those outside the arena)
    const count = entry.about.match(/([\d,]+) (?:nodes|tensors|buffers)$/)?.[1];
    const shown = plain(await text(page, entry.about.startsWith('NPU') ? 'npu-nodes' : 'sum-tensors'));
    check(`gallery ${entry.id}: its card says ${count}, as the summary`, count !== undefined && shown.split(' ').at(-1) === plain(count), `${entry.about} vs ${shown}`);
  }
}

async function missingExample(page, url) {
  await page.goto(url);
  await settled(page);
  await page.route('**/www/gallery/light_squeezenet.json', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await openExample(page, 'squeezenet');
  const err = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('a missing gallery file is explained', err.includes('SqueezeNet') && err.includes('404') && err.includes('build.sh'), err);
  check('after a missing example the graph stays', (await text(page, 'graph-name')) === 'transformer_layer');
  await page.unroute('**/www/gallery/light_squeezenet.json');
  await openExample(page, 'npu-tiny');
  check('the next example loads and clears the error', !(await visible(page, 'error')) && (await text(page, 'graph-name')) === 'npu_tiny_matmul');
}

/** Sets the capacity input of `level` and waits for the re-plan. */
async function setCapacity(page, level, value) {
  await page.locator(`#cap-${level}`).fill(value);
  await page.waitForTimeout(400);
  await settled(page);
}

async function capacities(page) {
  await openExample(page, 'npu-tiny');
  // Problem 1 of the tiny matmul meets its bound, as the CLI says
  await page.locator('#problem').selectOption('1');
  await settled(page);
  const p1 = await text(page, 'npu-yardstick');
  const bound = plain(/lower bound of the peak ([\d,]+), which this plan meets: proven optimal/.exec(p1)?.[1] ?? '');
  const peak = cli(['npu', 'examples/npu_tiny_matmul.json', '--problem', '1'])['peak L1+UB'];
  check('Problem 1 of the tiny matmul: its bound met, proven optimal, at the CLI\'s peak',
    bound === peak && plain(await text(page, 'npu-peak')) === peak, `${p1} | ${peak}`);
  await page.locator('#problem').selectOption('2');
  await settled(page);
  check('tiny NPU case: no spill at L1 4096', plain(await text(page, 'npu-spills')) === '0');
  const before = await canvasInk(page, 'level-0');
  await setCapacity(page, 'L1', '200');
  const native = cli(['npu', 'examples/npu_tiny_matmul.json', '--problem', '2', '--levels', 'L1=200']);
  check('L1 = 200 re-plans live: 1 spill', plain(await text(page, 'npu-spills')) === '1' && native.spills === '1');
  check('L1 = 200: movement and makespan as the CLI with --levels L1=200',
    plain(await text(page, 'npu-movement')) === native['extra movement'] && plain(await text(page, 'npu-makespan')) === native.makespan,
    `${await text(page, 'npu-movement')} ${await text(page, 'npu-makespan')}`);
  check('L1 = 200: the L1 chart is redrawn', (await canvasInk(page, 'level-0')).hash !== before.hash);
  await setCapacity(page, 'L1', 'lots');
  let err = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('a capacity that is not a number is explained', err.includes('L1') && err.includes('lots'), err);
  await setCapacity(page, 'L1', '100');
  err = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('a capacity below a buffer is explained', err.includes('Could not solve') && err.length > 40, err);
  await setCapacity(page, 'L1', '200');
  check('a good capacity clears the error and re-plans', !(await visible(page, 'error')) && plain(await text(page, 'npu-spills')) === '1');
}

async function highlight(page) {
  const ids = ['level-0', 'spills', 'gantt'];
  const before = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await canvasInk(page, id)).hash])));
  await page.locator('#spills').scrollIntoViewIfNeeded();
  const bars = await scanTooltips(page, 'spills', [7, 5]);
  const bar = bars[0];
  if (!check('the spill bar is found by hovering', bar !== undefined && bar.text.includes('moved192'), bar?.text)) return;
  await clickAt(page, 'spills', bar.x, bar.y);
  const buffer = bar.name.match(/buffer (\d+)/)[1];
  const selected = (await visible(page, 'npu-selection')) ? await text(page, 'npu-selection') : '';
  // the spill's steps as the native solver reports them for the same capacities
  const view = JSON.parse(execFileSync(join(ROOT, 'target/release/memplan'),
    ['npu', 'examples/npu_tiny_matmul.json', '--problem', '2', '--levels', 'L1=200', '--json', '-'], { cwd: ROOT, encoding: 'utf8' }));
  const spill = view.levels.flatMap((l) => l.spills).find((sp) => String(sp.buffer) === buffer);
  const steps = spill ? `out ${spill.out_step}, in ${spill.in_step}` : '(no such spill in the CLI plan)';
  check('click on a spill selects its buffer', selected.startsWith(`buffer ${buffer}`) && selected.includes(steps), `${selected} / ${steps}`);
  for (const id of ids) {
    check(`the selection is highlighted in ${id}`, (await canvasInk(page, id)).hash !== before[id]);
  }
  await page.keyboard.press('Escape');
  check('Escape clears the NPU selection', !(await visible(page, 'npu-selection')));
}

async function zoom(page) {
  await openExample(page, 'transformer');
  const id = 'time-address';
  const start = await canvasInk(page, id);
  const liveStart = await canvasInk(page, 'live-bytes');
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#${id}`).boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.wheel(0, -300);
  await settled(page);
  const zoomed = await canvasInk(page, id);
  check('wheel zooms the chart', zoomed.hash !== start.hash);
  check('the zoom across reaches the live-bytes chart too', (await canvasInk(page, 'live-bytes')).hash !== liveStart.hash);
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.6, { steps: 5 });
  await page.mouse.up();
  await settled(page);
  const panned = await canvasInk(page, id);
  check('drag pans the chart', panned.hash !== zoomed.hash);
  check('a drag does not select', !(await visible(page, 'selection')));
  await page.locator('#reset-zoom').click();
  await settled(page);
  check('reset restores the chart exactly', (await canvasInk(page, id)).hash === start.hash);
  await page.locator(`#${id}`).focus();
  await page.keyboard.press('+');
  await settled(page);
  const keyed = await canvasInk(page, id);
  await page.keyboard.press('ArrowLeft');
  await settled(page);
  check('+ and arrows zoom and pan from the keyboard', keyed.hash !== start.hash && (await canvasInk(page, id)).hash !== keyed.hash);
  await page.keyboard.press('0');
  await settled(page);
  check('0 resets from the keyboard', (await canvasInk(page, id)).hash === start.hash);
}

async function compare(page) {
  await page.locator('#compare').selectOption('naive');
  await settled(page);
  const sides = await page.locator('#compare-body .compare-side').allTextContents();
  check('compare shows two strategies side by side', sides.length === 2, sides.join(' | '));
  check('compare: greedy-size peak 384 MiB, 1.00× the bound', sides[0]?.includes('greedy-size') && sides[0].includes('384 MiB') && sides[0].includes('1.00×'), sides[0]);
  check('compare: naive peak 896 MiB, 2.33× the bound', sides[1]?.includes('naive') && sides[1].includes('896 MiB') && sides[1].includes('2.33×'), sides[1]);
  const ink = await canvasInk(page, 'compare-1');
  check('compare: the second strategy\'s chart is drawn', ink.share > 0.1 && ink.colours >= 5, JSON.stringify(ink));
  const found = await scanTooltips(page, 'time-address');
  const spot = found.find((f) => f.name === 'T4_AttnOut');
  const before = [(await canvasInk(page, 'compare-1')).hash, (await canvasInk(page, 'live-bytes')).hash];
  await clickAt(page, 'time-address', spot.x, spot.y);
  await settled(page); // the highlight is drawn on the next frames (late under load)
  const after = [(await canvasInk(page, 'compare-1')).hash, (await canvasInk(page, 'live-bytes')).hash];
  check('a click highlights the tensor in the compare chart and the live-bytes chart', after[0] !== before[0] && after[1] !== before[1]);
  await page.locator('#compare').selectOption('');
  await settled(page);
  check('compare none hides the panel', !(await visible(page, 'compare-panel')));
}

async function npuCompare(page) {
  await openExample(page, 'flash-attention');
  await page.locator('#npu-compare').selectOption('baseline');
  await settled(page);
  const sides = await page.locator('#compare-body .compare-side').allTextContents();
  const native = cli(['npu', 'www/gallery/FlashAttention_Case0.json', '--problem', '2', '--method', 'baseline']);
  check('NPU compare: best and baseline side by side', sides.length === 2 && sides[0].startsWith('best') && sides[1].startsWith('baseline'), sides.join(' | '));
  check('NPU compare: baseline spills as the CLI', plain(sides[1]).includes(`spills${native.spills}extra movement${native['extra movement']}`), `${sides[1]} vs ${native.spills}/${native['extra movement']}`);
  await page.locator('#npu-compare').selectOption('');
}

/** Clicks `button` and returns the download it starts: its name and bytes. */
async function downloaded(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(button).click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

async function exports(page) {
  await openExample(page, 'transformer');
  const png = await downloaded(page, 'button.png[data-canvas="time-address"]');
  check('PNG of a chart downloads', png.name === 'transformer_layer-time-address.png' && png.bytes.subarray(1, 4).toString() === 'PNG' && png.bytes.length > 5000, `${png.name} ${png.bytes.length}`);
  const json = await downloaded(page, '#download-json');
  const plan = JSON.parse(json.bytes.toString());
  check('plan JSON downloads with the peak', json.name.endsWith('.json') && plan.peak_bytes === 402653184 && plan.valid === true, json.name);
  const svg = await downloaded(page, '#download-svg');
  check('SVG downloads', svg.bytes.toString().startsWith('<svg') && svg.bytes.toString().includes('T0_QKV_Proj'));
  const exported = await downloaded(page, '#download-graph');
  const graphFile = join(tmpdir(), `memplan-graph-${process.pid}.json`);
  writeFileSync(graphFile, exported.bytes);
  const again = cli(['plan', graphFile]);
  rmSync(graphFile, { force: true });
  check('Graph JSON downloads and plans as the page did', exported.name === 'transformer_layer-graph.json' && again.peak?.includes('402653184 B') && again.check === 'valid', `${exported.name} ${JSON.stringify(again)}`);
  await openExample(page, 'flash-attention');
  const caseFile = await downloaded(page, '#download-graph');
  const casePath = join(tmpdir(), `memplan-case-${process.pid}.json`);
  writeFileSync(casePath, caseFile.bytes);
  const caseAgain = cli(['npu', casePath, '--problem', '1']);
  const caseFirst = cli(['npu', 'www/gallery/FlashAttention_Case0.json', '--problem', '1']);
  rmSync(casePath, { force: true });
  check('an NPU case downloads as contest JSON that solves as the case', caseFile.name === 'FlashAttention_Case0-case.json'
    && caseAgain.check !== undefined && JSON.stringify({ ...caseAgain, time: 0, case: 0 }) === JSON.stringify({ ...caseFirst, time: 0, case: 0 }), `${caseFile.name} ${JSON.stringify(caseAgain)}`);
  const npuJson = JSON.parse((await downloaded(page, '#download-json')).bytes.toString());
  const spills = Number(plain(await text(page, 'npu-spills')));
  check('NPU plan JSON has the levels, the spills shown and timed nodes',
    npuJson.levels.length === 5 && npuJson.spills === spills && npuJson.nodes.length >= 1716 && npuJson.makespan > 0,
    `${npuJson.levels.length} levels, ${npuJson.spills} spills vs ${spills}`);
  const npuSvg = (await downloaded(page, '#download-svg')).bytes.toString();
  check('NPU SVG has every chart', npuSvg.includes('L1: time by address') && npuSvg.includes('spills: out of') && npuSvg.includes('pipes: cycles'));
  const npuPng = await downloaded(page, 'button.png[data-canvas="gantt"]');
  check('PNG of the Gantt chart downloads', npuPng.name.endsWith('-gantt.png') && npuPng.bytes.length > 5000);
}

async function hostileExports(page) {
  const name = '<img src=x onerror="window.pwned=1">';
  const graph = JSON.stringify({
    name: '<b>hostile</b>',
    tensors: [{ name, size: '4KiB' }, { name: 'out', size: '4KiB' }],
    ops: [{ name: 'make', type: 'Const', inputs: [], outputs: [name] }, { name: 'use', type: 'Relu', inputs: [name], outputs: ['out'] }],
  });
  await page.locator('#file').setInputFiles({ name: 'hostile.json', mimeType: 'application/json', buffer: Buffer.from(graph) });
  await settled(page);
  const svg = (await downloaded(page, '#download-svg')).bytes.toString();
  check('hostile names stay text in the SVG export', !svg.includes('<img') && !svg.includes('<b>') && svg.includes('&lt;img'));
  const json = await downloaded(page, '#download-json');
  check('hostile names: the JSON export is named safely and parses', !/[<>"]/.test(json.name) && JSON.parse(json.bytes.toString()).graph === '<b>hostile</b>', json.name);
  const injected = await page.evaluate(() => document.querySelectorAll('img[src="x"]').length
    + [...document.querySelectorAll('b')].filter((b) => b.textContent === 'hostile').length + (window.pwned ?? 0));
  check('hostile names never become HTML', injected === 0);
}

/** The RGB of CSS pixel (x, y) of canvas `id`. */
const pixelAt = (page, id, x, y) => page.evaluate(([id, x, y]) => {
  const c = document.getElementById(id);
  const s = c.width / c.clientWidth;
  return [...c.getContext('2d').getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data.slice(0, 3)];
}, [id, x, y]);

/** `#rrggbb` at opacity 0.9 over white, as the chart paints an unselected box. */
function onWhite(hex) {
  return [1, 3, 5].map((k) => Math.round(parseInt(hex.slice(k, k + 2), 16) * 0.9 + 255 * 0.1));
}

/** Colour by op type: a legend of the producers' op types in the palette's colours, each box in its op type's colour; back to pools. */
async function colourBy(page) {
  await openExample(page, 'transformer');
  const byPool = await canvasInk(page, 'time-address');
  check('colour by pool: no legend', !(await visible(page, 'colour-legend')));
  await page.locator('#colour-by').selectOption('op');
  await settled(page);
  const seed = JSON.parse(readFileSync(join(ROOT, 'examples/transformer_layer.json'), 'utf8'));
  const typeOf = new Map(seed.ops.flatMap((op) => op.outputs.map((t) => [t, op.type])));
  const expected = [...new Set(seed.tensors.map((t) => typeOf.get(t.name)))];
  const items = await page.locator('#colour-legend li').allTextContents();
  check('colour by op type: the legend lists the producers\' op types in order', JSON.stringify(items) === JSON.stringify(expected), JSON.stringify(items));
  const byOp = await canvasInk(page, 'time-address');
  check('colour by op type redraws the chart', byOp.hash !== byPool.hash);
  const spots = await scanTooltips(page, 'time-address');
  let matched = 0;
  for (const name of ['T0_QKV_Proj', 'T4_AttnOut', 'T6_FFN_Up']) {
    const spot = spots.find((f) => f.name === name && f.y > 20);
    const k = expected.indexOf(typeOf.get(name));
    const swatch = await page.locator('#colour-legend .swatch').nth(k).evaluate((e) => getComputedStyle(e).backgroundColor);
    const hex = `#${swatch.match(/\d+/g).slice(0, 3).map((v) => Number(v).toString(16).padStart(2, '0')).join('')}`;
    const want = onWhite(hex);
    const got = await pixelAt(page, 'time-address', spot.x, spot.y);
    if (got.every((v, i) => Math.abs(v - want[i]) <= 3)) matched += 1;
    else console.log(`     ${name}: pixel ${got} vs ${want} (${typeOf.get(name)})`);
  }
  check('each box is painted in its op type\'s legend colour', matched === 3, `${matched} of 3`);
  await page.locator('#share').click();
  check('the share link keeps the colouring', /[?&]colour=op(&|$)/.test(await page.locator('#share-link').inputValue()));
  await page.locator('#colour-by').selectOption('pool');
  await settled(page);
  check('back to pools: the legend hides and the chart is as before', !(await visible(page, 'colour-legend')) && (await canvasInk(page, 'time-address')).hash === byPool.hash);
}

/** Capacity mode: the summary says whether the plan fits, and a bad size is an error that names the capacity. */
async function capacity(page) {
  await openExample(page, 'transformer');
  check('no capacity, no capacity figure', !(await visible(page, 'sum-capacity-stat')));
  const ask = async (size) => {
    await page.locator('#capacity').fill(size);
    await page.locator('#capacity').dispatchEvent('change');
    await settled(page);
  };
  await ask('400MiB');
  check('capacity 400 MiB: the 384 MiB plan fits', (await text(page, 'sum-capacity')) === 'fits 400 MiB', await text(page, 'sum-capacity'));
  await page.locator('#strategy').selectOption('naive');
  await settled(page);
  check('capacity 400 MiB: the naive 896 MiB plan is 496 MiB over', (await text(page, 'sum-capacity')) === '496 MiB over', await text(page, 'sum-capacity'));
  await ask('lots');
  check('a capacity that is not a size is an error naming the capacity', (await visible(page, 'error')) && /capacity: unknown size unit/i.test(await text(page, 'error'))
    && (await page.locator('#capacity').getAttribute('aria-invalid')) === 'true', await text(page, 'error'));
  await ask('');
  check('clearing the capacity clears the error and the figure', !(await visible(page, 'error')) && !(await visible(page, 'sum-capacity-stat')));
  await page.locator('#strategy').selectOption('greedy-size');
  await settled(page);
}

async function share(context, page) {
  await openExample(page, 'transformer');
  await page.locator('#strategy').selectOption('best-fit');
  await settled(page);
  const found = await scanTooltips(page, 'time-address');
  const spot = found.find((f) => f.name === 'T6_FFN_Up');
  await clickAt(page, 'time-address', spot.x, spot.y);
  await page.locator('#share').click();
  const link = await page.locator('#share-link').inputValue();
  check('share link carries example, strategy and selection', link.includes('example=transformer') && link.includes('strategy=best-fit') && /select=\d+/.test(link), link);
  const other = await context.newPage();
  await other.goto(link);
  await settled(other);
  check('shared link: same example', (await text(other, 'graph-name')) === 'transformer_layer');
  check('shared link: same strategy', (await other.locator('#strategy').inputValue()) === 'best-fit');
  check('shared link: same selection', (await visible(other, 'selection')) && (await text(other, 'selection')).startsWith('T6_FFN_Up'));
  await other.close();

  await page.locator('#strategy').selectOption('search');
  await page.locator('#budget').fill('250');
  await page.locator('#budget').dispatchEvent('change');
  await page.locator('#wall-clock').check();
  await settled(page);
  await page.locator('#share').click();
  const searchLink = await page.locator('#share-link').inputValue();
  check('share link carries the search budget and the wall clock', /budget=250(&|$)/.test(searchLink) && /clock=1(&|$)/.test(searchLink), searchLink);
  const searched = await context.newPage();
  await searched.goto(searchLink);
  await settled(searched);
  check('shared link: same budget and clock', (await searched.locator('#budget').inputValue()) === '250' && await searched.locator('#wall-clock').isChecked());
  check('shared link: the search plan is valid and at the bound', (await text(searched, 'sum-valid')) === 'valid' && (await text(searched, 'sum-ratio')).startsWith('1.00'), await text(searched, 'sum-ratio'));
  await searched.close();

  await openExample(page, 'npu-tiny');
  await setCapacity(page, 'L1', '200');
  const bars = await scanTooltips(page, 'spills', [7, 5]);
  await clickAt(page, 'spills', bars[0].x, bars[0].y);
  await page.locator('#share').click();
  const npuLink = await page.locator('#share-link').inputValue();
  const npuPage = await context.newPage();
  await npuPage.goto(npuLink);
  await settled(npuPage);
  check('shared NPU link: same case and capacity', (await text(npuPage, 'graph-name')) === 'npu_tiny_matmul' && (await npuPage.locator('#cap-L1').inputValue()) === '200', npuLink);
  check('shared NPU link: same spills and selection', plain(await text(npuPage, 'npu-spills')) === '1' && (await text(npuPage, 'npu-selection')).startsWith(bars[0].name.replace(' spills', '')));
  await npuPage.close();
}

async function phone(context, url) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  for (const id of ['transformer', 'npu-tiny']) {
    await page.goto(`${url}?example=${id}`);
    await settled(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(`phone width: ${id} fits without sideways scrolling`, overflow <= 0, `${overflow}px too wide`);
    await page.screenshot({ path: join(ROOT, `out/phone-${id}.png`), fullPage: true });
  }
  await page.close();
}

/** Saves the README's screenshots: a graph view and an NPU view, 1280 wide. */
async function screenshots(context, url) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${url}?example=transformer&compare=best-fit&select=4`);
  await settled(page);
  await page.screenshot({ path: join(ROOT, 'out/visualizer.png'), fullPage: true });
  await page.goto(`${url}?example=npu-tiny&caps=L1%3D200&select=1`);
  await settled(page);
  await page.screenshot({ path: join(ROOT, 'out/visualizer-npu.png'), fullPage: true });
  await page.close();
  console.log('screenshots: out/visualizer.png, out/visualizer-npu.png, out/phone-*.png');
}

withBrowser(async (context, url) => {
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  const missing = Object.keys(CORPUS_FILES).filter((f) => {
    try { readFileSync(join(ROOT, f)); return false; } catch { return true; }
  });
  await gallery(page, url, missing);
  const seen = problems.length;
  await missingExample(page, url);
  const expected = problems.splice(seen).filter((p) => !p.includes('404'));
  problems.push(...expected);
  await capacities(page);
  await highlight(page);
  await zoom(page);
  await compare(page);
  if (!missing.includes('www/gallery/FlashAttention_Case0.json')) {
    await npuCompare(page);
    await exports(page);
  } else {
    corpusFileMissing('the NPU comparison and exports (FlashAttention_Case0)', 'gallery FlashAttention_Case0.json was copied by build.sh');
  }
  await hostileExports(page);
  await colourBy(page);
  await capacity(page);
  await share(context, page);
  await phone(context, url);
  await screenshots(context, url);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 2 });
