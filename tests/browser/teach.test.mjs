// The Learn view in a real Chromium: node tests/browser/teach.test.mjs (after ./build.sh;
// uses target/release/memplan when built, else cargo run, for the native plans). Steps
// through the seed Transformer example and checks the live set, the pool chosen and the
// offset chosen at every step against the CLI's plan, restores a moment from a shared
// link, plays, answers an exercise, checks the phone layout and saves screenshots.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, canvasInk, check, corpusFileMissing, settled, text, watch, withBrowser, HOSTILE_GRAPH } from './harness.mjs';

const SEED = 'examples/transformer_layer.json';

/** The CLI's plan of `file` with `strategy`, as its JSON report. */
function nativePlan(file, strategy) {
  const bin = join(ROOT, 'target/release/memplan');
  const args = ['plan', file, '--strategy', strategy, '--json', '-'];
  const out = existsSync(bin)
    ? execFileSync(bin, args, { cwd: ROOT, encoding: 'utf8' })
    : execFileSync('cargo', ['run', '--release', '--quiet', '--', ...args], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.slice(out.indexOf('{')));
}

/** The moment the Learn view shows, as it records it on itself. */
const moment = (page) => page.locator('#learn-view').evaluate((v) => ({ ...v.dataset }));
const explanation = (page) => text(page, 'learn-title').then(async (t) => `${t} ${await text(page, 'learn-lines')}`);

/** Waits for the view to show stage `stage` at position `step` (and its lesson). */
async function at(page, stage, step) {
  await page.waitForFunction(([s, k]) => {
    const v = document.getElementById('learn-view');
    return v.dataset.stage === s && v.dataset.step === `${k}` && (v.dataset.live || v.dataset.current);
  }, [stage, step], { timeout: 10000 });
}

const ids = (list) => list.map((t) => t.id).join(',');

/** A CSS point of canvas `id` whose hover names tensor `name` (scanning a grid), or null. */
function findTensor(page, id, name) {
  return page.evaluate(([id, name]) => {
    const canvas = document.getElementById(id);
    const box = canvas.getBoundingClientRect();
    for (let y = 2; y < box.height; y += 4) {
      for (let x = 2; x < box.width; x += 4) {
        canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + x, clientY: box.top + y, bubbles: true }));
        if (canvas.title.startsWith(`${name}:`)) return { x, y };
      }
    }
    return null;
  }, [id, name]);
}
const MIB = 1 << 20;

/** Steps through every execution step with the arrow key: the live set and bytes as the CLI's plan. */
async function liveness(page, plan) {
  await page.locator('#learn-stages button[data-stage="live"]').click();
  await at(page, 'live', 0);
  for (let step = 0; step < plan.steps; step += 1) {
    if (step > 0) await page.keyboard.press('ArrowRight');
    await at(page, 'live', step);
    const live = plan.tensors.filter((t) => t.start <= step && step <= t.end);
    const shown = await moment(page);
    check(`step ${step}: the live set is the CLI's (${live.map((t) => t.name).join(', ')})`, shown.live === ids(live), `${shown.live} vs ${ids(live)}`);
    const bytes = live.reduce((a, t) => a + t.size, 0);
    const words = await explanation(page);
    check(`step ${step}: the words name every live tensor and ${bytes / MIB} MiB`, live.every((t) => words.includes(t.name)) && words.includes(`${bytes / MIB} MiB in all`), words);
    if (bytes === plan.lower_bound) {
      check(`step ${step}: the highest stack is explained as the lower bound`, words.includes('highest stack') && words.includes('lower bound'), words);
    }
  }
  const ink = await canvasInk(page, 'learn-live');
  check('the live-bytes curve with the stack is drawn', ink.share > 0.1 && ink.colours >= 5, JSON.stringify(ink));
}

/** Steps through the colouring: birth order, and at every move the pool the CLI's plan gives. */
async function colouring(page, plan) {
  await page.keyboard.press('2');
  await at(page, 'colour', 0);
  const order = [...plan.tensors].sort((a, b) => a.start - b.start || a.id - b.id);
  for (let k = 0; k < order.length; k += 1) {
    if (k > 0) await page.locator('#learn-next').click();
    await at(page, 'colour', k);
    const shown = await moment(page);
    const t = order[k];
    check(`colouring move ${k}: ${t.name} takes pool ${t.pool} as in the CLI's plan`, shown.current === `${t.id}` && shown.pool === `${t.pool}`, JSON.stringify(shown));
    const words = await explanation(page);
    check(`colouring move ${k}: the words name the tensor and its pool`, words.includes(t.name) && words.includes(`pool ${t.pool}`), words);
  }
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await at(page, 'colour', 4);
  const words = await explanation(page);
  check('colouring T4_AttnOut: pool 0 busy with T3_Score, pool 1 grows, 320 MiB so far', words.includes('busy: T3_Score') && words.includes('grows from 64 MiB to 128 MiB') && words.includes('320 MiB in all'), words);
  const spot = await findTensor(page, 'learn-graph', 'T6_FFN_Up');
  check('hovering the graph names a tensor', spot !== null);
  if (spot) {
    await page.locator('#learn-graph').click({ position: spot });
    await at(page, 'colour', 6);
    check('clicking T6_FFN_Up in the graph goes to its colouring move', (await moment(page)).current === '6');
  }
  const box = await findTensor(page, 'learn-time', 'T4_AttnOut');
  if (check('hovering the time-by-address chart names a tensor', box !== null)) {
    await page.locator('#learn-time').click({ position: box });
    await at(page, 'colour', 4);
    check('clicking T4_AttnOut in the time-by-address chart goes to its move', (await moment(page)).current === '4');
  }
  const graph = await canvasInk(page, 'learn-graph');
  check('the interference graph is drawn in pool colours', graph.share > 0.02 && graph.colours >= 6, JSON.stringify(graph));
}

/** Steps through greedy-size's packing: at every move the offset the CLI's plan gives. */
async function packing(page, plan) {
  await page.keyboard.press('3');
  await at(page, 'pack', 0);
  const order = [...plan.tensors].sort((a, b) => b.size - a.size || a.start - b.start || a.id - b.id);
  for (let k = 0; k < order.length; k += 1) {
    if (k > 0) await page.keyboard.press('ArrowRight');
    await at(page, 'pack', k);
    const shown = await moment(page);
    const t = order[k];
    check(`packing move ${k}: ${t.name} at ${t.offset / MIB} MiB as in the CLI's plan`, shown.current === `${t.id}` && shown.offset === `${t.offset}`, JSON.stringify(shown));
  }
  const words = await explanation(page);
  check('the last placement gives the peak and the bound', words.includes(`Peak so far: ${plan.peak_bytes / MIB} MiB`) && words.includes('lower bound'), words);
}

/** A link to a moment restores it: the URL kept in the address bar, and the Share link. */
async function shared(context, page) {
  await page.keyboard.press('2');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await at(page, 'colour', 6);
  const kept = page.url();
  check('the address bar keeps the moment', kept.includes('view=learn') && kept.includes('stage=colour') && kept.includes('step=6'), kept);
  await page.locator('#share').click();
  const link = await page.locator('#share-link').inputValue();
  check('the Share link carries the moment', link.includes('view=learn') && link.includes('stage=colour') && link.includes('step=6'), link);
  const before = await moment(page);
  const other = await context.newPage();
  const problems = [];
  watch(other, problems);
  await other.goto(link);
  await settled(other);
  await at(other, 'colour', 6);
  const after = await moment(other);
  check('the shared link opens the same moment (stage, step, tensor, pool)', JSON.stringify(after) === JSON.stringify(before), `${JSON.stringify(after)} vs ${JSON.stringify(before)}`);
  check('the shared link opens the Learn view, slider in place', (await other.locator('#learn-view').isVisible()) && (await other.locator('#learn-step').inputValue()) === '6');
  check('the shared page has no console error', problems.length === 0, problems.join('; '));
  await other.close();
}

/** Play advances by itself and stops at the end; Space pauses. */
async function play(page) {
  await page.locator('#learn-stages button[data-stage="live"]').click();
  await at(page, 'live', 0);
  await page.locator('#learn-play').click();
  await page.waitForFunction(() => Number(document.getElementById('learn-view').dataset.step) >= 1, null, { timeout: 5000 });
  check('Play steps forward', Number((await moment(page)).step) >= 1);
  await page.locator('#learn-step').focus();
  await page.keyboard.press(' ');
  const paused = (await moment(page)).step;
  await page.waitForTimeout(1500);
  check('Space pauses', (await moment(page)).step === paused, `${paused} then ${(await moment(page)).step}`);
}

/** The first-fit exercise: the CLI's first-fit peak is the right answer, another is not. */
async function exercise(page) {
  await page.locator('button[data-exercise="teach-first-fit"]').click();
  await settled(page);
  await at(page, 'pack', 0);
  const native = nativePlan('examples/teach/first_fit_trap.json', 'first-fit');
  check('the exercise opens with first-fit', (await page.locator('#strategy').inputValue()) === 'first-fit');
  await page.locator('#learn-answer').fill('72');
  await page.locator('#learn-answer-form button').click();
  check('a wrong answer is told so', (await text(page, 'learn-feedback')).startsWith('Not quite'));
  await page.locator('#learn-answer').fill(`${native.peak_bytes / MIB}`);
  await page.locator('#learn-answer-form button').click();
  const said = await text(page, 'learn-feedback');
  check(`the CLI's first-fit peak (${native.peak_bytes / MIB} MiB) is the right answer`, said.startsWith('Right'), said);
}

/** Larger graphs: SqueezeNet's graph is summarised in words; MiniMalloc's million steps are declined in words. */
async function large(page, url) {
  if (existsSync(join(ROOT, 'www/gallery/light_squeezenet.json'))) {
    await page.goto(`${url}?example=squeezenet&view=learn&stage=colour&step=10`);
    await settled(page);
    await at(page, 'colour', 10);
    const ink = await canvasInk(page, 'learn-graph');
    check('SqueezeNet: the interference graph is summarised (text, no nodes)', ink.share > 0.003 && ink.share < 0.1, JSON.stringify(ink));
  } else {
    corpusFileMissing('SqueezeNet\'s lesson', 'SqueezeNet: www/gallery/light_squeezenet.json was copied by build.sh');
  }
  if (existsSync(join(ROOT, 'www/gallery/A.1048576.csv'))) {
    await page.goto(`${url}?example=minimalloc-a&view=learn`);
    await settled(page);
    await page.waitForFunction(() => document.getElementById('learn-title').textContent.includes('cannot be walked'));
    check('MiniMalloc A: the lesson is declined in words', (await text(page, 'learn-title')).includes('steps in a lesson'));
  } else {
    corpusFileMissing('MiniMalloc A\'s lesson', 'MiniMalloc A: www/gallery/A.1048576.csv was copied by build.sh');
  }
}

/** A hostile tensor name is shown as text in the explanation, never run as markup. */
async function hostile(page, url) {
  await page.goto(`${url}?view=learn`);
  await settled(page);
  await page.locator('#file').setInputFiles({ name: 'hostile.json', mimeType: 'application/json', buffer: Buffer.from(HOSTILE_GRAPH) });
  await page.waitForFunction(() => document.getElementById('learn-title').textContent.includes('runs make'));
  const words = await explanation(page);
  check('a hostile name appears as text in the words', words.includes('<img src=x onerror="window.pwned=1">'), words);
  check('a hostile name runs nothing', (await page.evaluate(() => window.pwned)) === undefined);
}

/** At 390 x 844 every stage fits without sideways scrolling; saves a phone screenshot. */
async function phone(context, url) {
  const page = await context.newPage();
  const problems = [];
  watch(page, problems);
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [stage, step] of [['live', 4], ['colour', 4], ['pack', 3]]) {
    await page.goto(`${url}?example=transformer&view=learn&stage=${stage}&step=${step}`);
    await settled(page);
    await at(page, stage, step);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(`phone: the ${stage} stage fits 390 px without sideways scrolling`, overflow <= 0, `${overflow}px too wide`);
    const ink = await canvasInk(page, 'learn-graph');
    check(`phone: the ${stage} stage's graph is drawn`, ink.share > 0.02, JSON.stringify(ink));
    if (stage === 'colour') await page.screenshot({ path: join(ROOT, 'out/teaching-phone.png'), fullPage: true });
  }
  check('phone: no console error', problems.length === 0, problems.join('; '));
  await page.close();
}

/** The README's screenshots of the Learn view, 1280 wide at one image pixel per CSS pixel: the seed's colouring, and the first-fit trap's last placement. */
async function screenshot(context, url) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${url}?example=transformer&view=learn&stage=colour&step=4`);
  await settled(page);
  await at(page, 'colour', 4);
  await page.screenshot({ path: join(ROOT, 'out/teaching.png'), fullPage: true, scale: 'css' });
  await page.goto(`${url}?example=teach-first-fit&strategy=first-fit&view=learn&stage=pack&step=3`);
  await settled(page);
  await at(page, 'pack', 3);
  const top = await page.locator('.learn-controls').boundingBox();
  const bottom = await page.locator('.learn-charts').boundingBox();
  const clip = { x: 0, y: top.y - 16, width: 1280, height: bottom.y + bottom.height - top.y + 32 };
  await page.screenshot({ path: join(ROOT, 'out/teaching-pack.png'), clip, fullPage: true, scale: 'css' });
  await page.close();
  console.log('screenshots: out/teaching.png, out/teaching-pack.png, out/teaching-phone.png');
}

withBrowser(async (context, url) => {
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const problems = [];
  const page = context.pages()[0] ?? await context.newPage();
  watch(page, problems);
  const plan = nativePlan(SEED, 'greedy-size');
  await page.goto(`${url}?example=transformer`);
  await settled(page);
  check('the Learn tab is offered for a graph', await page.locator('#tab-learn').isVisible());
  await page.locator('#tab-learn').click();
  check('the Learn tab opens the view and hides the plan charts', (await page.locator('#learn-view').isVisible()) && !(await page.locator('#time-address').isVisible()));
  await liveness(page, plan);
  await colouring(page, plan);
  await packing(page, plan);
  await shared(context, page);
  await play(page);
  await exercise(page);
  await page.locator('#tab-plan').click();
  check('the Plan tab brings the plan charts back', (await page.locator('#time-address').isVisible()) && !page.url().includes('view=learn'), page.url());
  await large(page, url);
  await hostile(page, url);
  await phone(context, url);
  await screenshot(context, url);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 2 });
