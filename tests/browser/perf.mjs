// How fast the page plans and draws a big graph, in headless Chromium: a script, not a
// test (nothing is asserted).
//   node tests/browser/perf.mjs [--tensors N] [--strategy NAME] [--seed S] [--redraws K]
// Loads a generated MiniMalloc graph of N tensors (default 100,000) through the file
// input on a 1400 x 800 time-by-address canvas at one device pixel per CSS pixel, and
// prints the plan time (worker round trip), the first draw of the plan (not a redraw of
// the graph shown before, which the page may make while the worker plans), and the median and p95 of
// K pan and zoom redraws of the time-by-address chart (the wasm draw call), through
// the same windows for the same seed (the median depends on how wide they are: the
// further K zooms in, the fewer boxes the median redraw paints).

import { parseArgs } from 'node:util';
import { ROOT, launch, settled } from './harness.mjs';
import { bigCsv, random } from './big.mjs';
import { serve } from '../../www/serve.mjs';

const { values: opts } = parseArgs({
  options: {
    tensors: { type: 'string', default: '100000' },
    strategy: { type: 'string', default: 'greedy-size' },
    seed: { type: 'string', default: '1' },
    redraws: { type: 'string', default: '30' },
  },
});
const CHART = 'time-address';

/** The durations of performance measure `name` so far, in ms. */
const measures = (page, name) => page.evaluate((n) => performance.getEntriesByName(n).map((e) => e.duration), name);
/** Every chart's draws so far, in the order made: `[measure name, ms]`. */
const draws = (page) => page.evaluate(() => performance.getEntriesByType('measure')
  .filter((e) => e.name.startsWith('memplan:draw:')).map((e) => [e.name, e.duration]));

/** Waits until the page is idle and two frames have passed. */
async function frames(page) {
  await page.waitForSelector('body:not([data-busy])', { timeout: 0 });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * Zooms and pans the chart `count` times with the mouse; returns each redraw's time
 * and, per pan or zoom, the time of every chart it redrew (the live-bytes chart
 * follows the same steps).
 */
async function panZoom(page, count) {
  // the wheel's positions are seeded: two runs zoom and pan through the same windows
  const next = random(Number(opts.seed));
  const box = await page.locator(`#${CHART}`).boundingBox();
  const at = (u, v) => [box.x + box.width * u, box.y + box.height * v];
  const times = [];
  const steps = [];
  const charts = {};
  const reused = {};
  const kinds = {};
  for (let k = 0; k < count; k += 1) {
    const before = (await draws(page)).length;
    if (k % 3 === 0) {
      await page.mouse.move(...at(0.3 + 0.4 * next(), 0.5));
      await page.mouse.wheel(0, k < count / 2 ? -120 : 120);
    } else {
      await page.mouse.move(...at(0.5, 0.5));
      await page.mouse.down();
      await page.mouse.move(...at(k % 2 ? 0.4 : 0.6, k % 2 ? 0.45 : 0.55), { steps: 1 });
      await page.mouse.up();
    }
    await frames(page);
    const made = (await draws(page)).slice(before);
    const drawn = made.filter(([name]) => name === `memplan:draw:${CHART}`).map(([, ms]) => ms);
    times.push(...drawn);
    const kind = k % 3 !== 0 ? 'pans' : k < count / 2 ? 'zooms in' : 'zooms out';
    (kinds[kind] ??= []).push(...drawn);
    if (await page.evaluate(() => window.memplanDebug.reusedPixels?.())) reused[kind] = (reused[kind] ?? 0) + 1;
    steps.push(made.reduce((sum, [, ms]) => sum + ms, 0));
    for (const [name, ms] of made) (charts[name.replace('memplan:draw:', '')] ??= []).push(ms);
  }
  return { times, steps, charts, reused, kinds };
}

const tensors = Number(opts.tensors);
const csv = bigCsv(tensors, Number(opts.seed));
const { server, url } = await serve(ROOT, 0);
const { context, close } = await launch({ viewport: { width: 1600, height: 1000 } });
try {
  const page = context.pages()[0] ?? await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`${url}?strategy=${encodeURIComponent(opts.strategy)}`);
  await settled(page);
  await page.addStyleTag({ content: `main { max-width: none; } #${CHART}-wrap { width: 1400px; height: 800px; }` });
  await page.evaluate(() => performance.clearMeasures());
  const started = Date.now();
  await page.locator('#file').setInputFiles({ name: `big${tensors}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await frames(page);
  const total = Date.now() - started;
  const shown = await page.locator('#sum-tensors').textContent();
  const size = await page.evaluate((id) => { const c = document.getElementById(id); return `${c.width}x${c.height}`; }, CHART);
  const [plan] = await measures(page, 'memplan:plan');
  const opened = (await measures(page, 'memplan:open')).at(-1);
  // the first draw of the new plan: the page may redraw the graph it showed before
  // while the worker plans, so the draws that began before the plan came back do not count
  const first = await page.evaluate(([chart]) => {
    const [plan] = performance.getEntriesByName('memplan:plan');
    const done = plan.startTime + plan.duration;
    return performance.getEntriesByName(`memplan:draw:${chart}`).find((e) => e.startTime >= done)?.duration;
  }, [CHART]);
  const moved = await panZoom(page, Number(opts.redraws));
  const redraws = moved.times.sort((a, b) => a - b);
  const stepTimes = moved.steps.sort((a, b) => a - b);
  const rows = [
    ['graph', `${tensors.toLocaleString('en-US')} tensors (${shown.trim()} placed), ${opts.strategy}, canvas ${size}`],
    ['open (worker round trip)', `${opened.toFixed(0)} ms`],
    ['plan (worker round trip)', `${plan.toFixed(0)} ms`],
    ['first draw', first === undefined ? 'none after the plan' : `${first.toFixed(1)} ms`],
    ['file to drawn page', `${total} ms`],
    [`pan/zoom redraw median (${redraws.length})`, `${quantile(redraws, 0.5).toFixed(1)} ms`],
    ['pan/zoom redraw p95', `${quantile(redraws, 0.95).toFixed(1)} ms`],
    ['all charts per pan/zoom median', `${quantile(stepTimes, 0.5).toFixed(1)} ms`],
    ['all charts per pan/zoom p95', `${quantile(stepTimes, 0.95).toFixed(1)} ms`],
    ...Object.entries(moved.kinds).map(([kind, ms]) => {
      const sorted = ms.sort((a, b) => a - b);
      return [`  ${kind}: median, most, pixels reused`, `${quantile(sorted, 0.5).toFixed(1)} ms, ${sorted[sorted.length - 1].toFixed(1)} ms, ${moved.reused[kind] ?? 0} of ${ms.length}`];
    }),
    ...Object.entries(moved.charts).map(([name, ms]) => {
      const sorted = ms.sort((a, b) => a - b);
      return [`  ${name} median / p95 (${ms.length})`, `${quantile(sorted, 0.5).toFixed(1)} / ${quantile(sorted, 0.95).toFixed(1)} ms`];
    }),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
} finally {
  await close();
  server.close();
}
