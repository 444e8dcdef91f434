// Shared pieces of the browser tests: a served page in headless Chromium, checks that
// print what they checked, canvas pixel measures, and the native CLI's numbers.

import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../www/serve.mjs';

export const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export const results = { passed: 0, failed: 0 };

/** The shared corpus, beside the repository. */
/** The shared corpus: $MEMPLAN_CORPUS, else ../shared/corpus beside the repository. */
export const CORPUS = process.env.MEMPLAN_CORPUS ? resolve(ROOT, process.env.MEMPLAN_CORPUS) : resolve(ROOT, '..', 'shared', 'corpus');

/** Says that `what` is skipped for want of the corpus: on stdout, and as a line of the file $MEMPLAN_SKIPS names (./test.sh counts them). */
export function skipped(what) {
  const line = `${basename(process.argv[1] ?? 'browser')}: ${what}: the shared corpus is absent at ${CORPUS}`;
  console.log(`SKIPPED ${line}`);
  if (process.env.MEMPLAN_SKIPS) appendFileSync(process.env.MEMPLAN_SKIPS, `${line}\n`);
}

/** A file the corpus gives (directly or through build.sh's copies) is not there: check `name` fails when the corpus is here, else `what` is skipped. */
export function corpusFileMissing(what, name) {
  if (haveCorpus()) check(name, false);
  else skipped(what);
}

/** Whether the shared corpus is here; in CI its absence ends the test as a failure. */
export function haveCorpus() {
  if (existsSync(CORPUS)) return true;
  if (process.env.CI) {
    console.error(`the shared corpus is missing at ${CORPUS} (required in CI; set MEMPLAN_CORPUS=DIR)`);
    process.exit(1);
  }
  return false;
}

/** Ends a test that needs the shared corpus when it is missing: a failure in CI, a skip (said so) elsewhere. */
export function requireCorpus() {
  if (haveCorpus()) return;
  skipped('every check');
  process.exit(0);
}

/** The summary's numbers of the plan on show: graph, tensors, lower bound, peak and the checker's verdict. */
export async function summaryNumbers(page) {
  const out = {};
  for (const id of ['graph-name', 'sum-tensors', 'sum-lower-bound', 'sum-peak', 'sum-valid']) out[id] = await text(page, id);
  return out;
}

/** Records one check: prints it and counts it. */
export function check(what, ok, detail = '') {
  if (ok) results.passed += 1;
  else results.failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? ` (${detail})` : ''}`);
  return ok;
}

/** Serves the repo and opens Chromium; runs `body(context, url)` and reports. */
/**
 * Headless Chromium with a fresh profile (a cold cache), 1280 x 1000 at scale 1 unless
 * `options` say otherwise; `close()` ends it and removes the profile.
 */
export async function launch(options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'memplan-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, args: ARGS, headless: true,
    viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1, ...options,
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

export async function withBrowser(body, options = {}) {
  if (!existsSync(join(ROOT, 'www/pkg/memplan_worker_bg.wasm'))) {
    console.error('www/pkg is missing: run ./build.sh first');
    process.exit(2);
  }
  const { server, url } = await serve(ROOT, 0);
  const { context, close } = await launch({ acceptDownloads: true, deviceScaleFactor: 2, ...options });
  try {
    await body(context, url);
  } finally {
    await close();
    server.close();
  }
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed === 0 ? 0 : 1);
}

/** The first page of `context`, watched for errors (collected in the returned `problems`), opened at `url` and settled. */
export async function openPage(context, url) {
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  await page.goto(url);
  await settled(page);
  return { page, problems };
}

/** A graph whose first tensor's name is an `<img onerror>` that sets `window.pwned`. */
export const HOSTILE_GRAPH = JSON.stringify({
  name: 'hostile',
  tensors: [{ name: '<img src=x onerror="window.pwned=1">', size: '4KiB' }, { name: 'out', size: '4KiB' }],
  ops: [
    { name: 'make', type: 'Const', inputs: [], outputs: ['<img src=x onerror="window.pwned=1">'] },
    { name: 'use', type: 'Relu', inputs: ['<img src=x onerror="window.pwned=1">'], outputs: ['out'] },
  ],
});

/** Collects console errors and page errors of `page` into `problems`. */
export function watch(page, problems) {
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
}

export const text = (page, id) => page.locator(`#${id}`).textContent();
export const visible = (page, id) => page.locator(`#${id}`).isVisible();

/** Drops the file at `path` on the page, as a user drags it from the desktop, and waits until the page has shown it (or an error). */
export async function drop(page, path) {
  const bytes = [...readFileSync(path)];
  await page.evaluate(([bytes, name]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], name));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [bytes, basename(path)]);
  await page.waitForSelector('body[data-busy]', { timeout: 2000 }).catch(() => {});
  await settled(page);
}

/** Waits until the page has loaded and is not busy. */
export async function settled(page) {
  await page.waitForSelector('body[data-ready="true"]:not([data-busy])', { timeout: 30000 });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** Share of a canvas's pixels that are not near-white, how many colours appear, and a hash of them. */
export function canvasInk(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id);
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    let hash = 0;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235) ink += 1;
      colours.add((data[i] >> 4) * 256 + (data[i + 1] >> 4) * 16 + (data[i + 2] >> 4));
      hash = (hash * 31 + data[i] * 7 + data[i + 1] * 3 + data[i + 2]) >>> 0;
    }
    return { share: ink / (data.length / 4), colours: colours.size, hash, width: c.width, css: c.clientWidth };
  }, id);
}

/**
 * Moves a synthetic pointer over a grid of canvas `id` and records what its tooltip
 * names at each point.
 */
export function scanTooltips(page, id, step = [13, 9]) {
  return page.evaluate(([id, [sx, sy]]) => {
    const canvas = document.getElementById(id);
    const tip = canvas.parentElement.querySelector('.tooltip');
    const box = canvas.getBoundingClientRect();
    const found = [];
    for (let y = 4; y < box.height; y += sy) {
      for (let x = 4; x < box.width; x += sx) {
        canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + x, clientY: box.top + y, bubbles: true }));
        if (!tip.hidden) found.push({ x, y, name: tip.querySelector('.name').textContent, text: tip.textContent });
      }
    }
    canvas.dispatchEvent(new MouseEvent('mouseleave'));
    return found;
  }, [id, step]);
}

/** Clicks CSS point (x, y) of canvas `id` with the real mouse, scrolling it into view first. */
export async function clickAt(page, id, x, y) {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  const box = await page.locator(`#${id}`).boundingBox();
  await page.mouse.click(box.x + x, box.y + y);
}

/** Runs the native CLI on `args` and returns its `key  value` lines as an object (values without a bound in parentheses after them). */
export function cli(args) {
  const bin = join(ROOT, 'target/release/memplan');
  const out = existsSync(bin)
    ? execFileSync(bin, args, { cwd: ROOT, encoding: 'utf8' })
    : execFileSync('cargo', ['run', '--release', '--quiet', '--', ...args], { cwd: ROOT, encoding: 'utf8' });
  const fields = {};
  for (const line of out.split('\n')) {
    const m = line.match(/^(\S+(?: \S+)*?)\s{2,}(.*)$/);
    // a figure may be followed by its lower bound: `makespan  1960   (lower bound ...)`
    if (m) fields[m[1]] = m[2].replace(/\s{3}\(.*\)$/, '');
  }
  return fields;
}

/** Opens model file `path` through the page's file input, plans it with `strategy` and selects a tensor in the middle of the time-by-address chart; waits for the page each time. */
export async function openAndSelect(page, path, strategy) {
  await page.locator('#file').setInputFiles({ name: basename(path), mimeType: 'application/octet-stream', buffer: readFileSync(path) });
  await settled(page);
  await page.locator('#strategy').selectOption(strategy);
  await settled(page);
  const found = await scanTooltips(page, 'time-address', [17, 11]);
  const spot = found[Math.floor(found.length / 2)];
  await clickAt(page, 'time-address', spot.x, spot.y);
  await settled(page);
}

/** A number as the page writes it, without separators. */
export const plain = (s) => (s ?? '').replace(/,/g, '').trim();
