// PyTorch's caching allocator replayed on the page, in a real Chromium:
//   node tests/browser/replay.test.mjs      (after ./build.sh)
// With the shared corpus: gpt2_oom.pickle under its 6 GiB cap: the sweep lists the
// settings and answers in one line that none finishes; a row replays its settings,
// whose layout is drawn beside the real one and whose reserved curve is drawn over
// the recorded one; the recorded settings agree with the recording entry by entry.
// A bad setting is refused in words, naming the key. Without the corpus, the
// repo's mlp_train.pickle.gz stands in (in CI the corpus is required).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, ROOT, canvasInk, check, drop, haveCorpus, openPage, settled, skipped, text, visible, withBrowser } from './harness.mjs';

const OOM = join(CORPUS, 'torch/gpt2_oom.pickle');
const TRAIN = join(CORPUS, 'torch/gpt2_train.pickle');
const EXPANDABLE = join(CORPUS, 'torch/gpt2_train_expandable.pickle');
const SMALL = join(ROOT, 'tests/data/mlp_train.pickle.gz');

/** Waits until element `id` shows text matching `pattern` (or 30 s pass); answers its text. */
async function waitText(page, id, pattern) {
  await page.waitForFunction(([id, source]) => {
    const e = document.getElementById(id);
    return e && !e.closest('[hidden]') && new RegExp(source).test(e.textContent);
  }, [id, pattern.source], { timeout: 30000 }).catch(() => {});
  return (await visible(page, id)) ? text(page, id) : '';
}

/** Share of the canvas's pixels in the replayed curve's purple. */
function purpleShare(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id);
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i] - 118) < 30 && Math.abs(data[i + 1] - 78) < 30 && Math.abs(data[i + 2] - 160) < 30) n += 1;
    return n / (data.length / 4);
  }, id);
}

/** Replays with `conf` in the settings field and `cap` in the cap field; answers the replay line. */
async function replayWith(page, conf, cap) {
  await page.locator('#replay-conf').fill(conf);
  await page.locator('#replay-capacity').fill(cap);
  await page.locator('#replay-run').click();
  return waitText(page, 'replay-line', /Replayed under/);
}

async function oomRun(page) {
  await drop(page, OOM);
  check('gpt2_oom: the replay form is shown with the snapshot', await visible(page, 'replay-form'));
  // the recorded settings under the recorded cap: the recording, entry by entry
  const recorded = await replayWith(page, '', '6GiB');
  check('gpt2_oom: the recorded settings fail where the run failed', /as recorded/.test(recorded) && /Out of memory at entry 398: 192 MiB requested/.test(recorded), recorded);
  check('gpt2_oom: the replay agrees with the recording on every entry and block', /on 563 of 563 entries and puts 260 of 260 blocks/.test(recorded), recorded);
  // the sweep under the cap: one row a setting, and the answer
  await page.locator('#replay-sweep').click();
  const answer = await waitText(page, 'sweep-answer', /finish/);
  check('gpt2_oom: the sweep answers which settings finish under 6 GiB', /No setting tried finishes under 6 GiB; the recorded settings finish with 6\.18 GiB reserved/.test(answer), answer);
  const rows = await page.locator('#sweep-rows tr').allTextContents();
  check('gpt2_oom: the sweep lists the recorded settings and at least ten others', rows.length >= 11 && /\(recorded\)/.test(rows[0]), rows.length);
  check('gpt2_oom: expandable segments, split sizes, roundings and garbage collection are tried', ['expandable_segments:True', 'max_split_size_mb:128', 'roundup_power2_divisions:4', 'garbage_collection_threshold:0.6'].every((c) => rows.some((r) => r.includes(c))), rows.join(' | '));
  check('gpt2_oom: each row says where its run fails', rows.every((r) => /out of memory at entry/.test(r)), rows.join(' | '));
  // a row replays its settings: the layout beside the real one, the curve over the recorded one
  const row = page.locator('#sweep-rows tr').filter({ has: page.locator('td:first-child', { hasText: /^expandable_segments:True$/ }) }).first();
  await row.click();
  const line = await waitText(page, 'replay-line', /Replayed under expandable_segments:True/);
  check('gpt2_oom: a row replays its settings under the cap', /with a cap of 6 GiB/.test(line) && /Out of memory at entry 398/.test(line), line);
  await settled(page);
  check('gpt2_oom: the layouts to compare can be chosen once replayed', await visible(page, 'snap-pair-field'));
  const heads = await page.locator('#compare-body h3').allTextContents();
  check('gpt2_oom: the real and the replayed layouts side by side', heads[0] === "PyTorch's caching allocator" && heads[1] === 'replayed · expandable_segments:True', heads.join(' | '));
  const replayed = await canvasInk(page, 'compare-2');
  check('gpt2_oom: the replayed layout is drawn', replayed.share > 0.05 && replayed.colours >= 5, JSON.stringify(replayed));
  check('gpt2_oom: its reserved curve is drawn over the recorded one', (await purpleShare(page, 'live-bytes')) > 0.0005);
  await page.locator('#snap-pair').selectOption('2,0');
  await settled(page);
  const pair = await page.locator('#compare-body h3').allTextContents();
  check('gpt2_oom: the replayed layout beside memplan\'s plan', pair[0].startsWith('replayed') && pair[1].startsWith('memplan'), pair.join(' | '));
  // a larger cap: the recorded settings finish
  const roomy = await replayWith(page, '', '7GiB');
  check('gpt2_oom: under 7 GiB the recorded settings finish', /The run finishes/.test(roomy), roomy);
}

/** gpt2_train, then gpt2_train_expandable beside it: the figures side by side, both real layouts on one address scale, the frames that changed. */
async function secondSnapshot(page) {
  await drop(page, TRAIN);
  await page.locator('#snap-second').setInputFiles(EXPANDABLE);
  await page.waitForSelector('#second-box:not([hidden])', { timeout: 30000 }).catch(() => {});
  await settled(page);
  const table = (await visible(page, 'second-box')) ? await text(page, 'second-rows') : '';
  check('the gpt2 pair: both runs\' figures side by side', /reserved peak7\.53 GiB7\.70 GiB/.test(table) && /settingstorch's defaultsexpandable_segments:True/.test(table), table);
  const heads = await page.locator('#compare-body h3').allTextContents();
  check('the gpt2 pair: both real layouts in the comparison', heads[0] === "A · PyTorch's caching allocator" && heads[1] === 'B · gpt2_train_expandable.pickle', heads.join(' | '));
  const frames = await page.evaluate(() => import('/www/charts.js').then((m) => [m.frameOf('compare-1'), m.frameOf('compare-2')]));
  check('the gpt2 pair: one address scale', frames[0] && frames[1] && frames[0].y_max === frames[1].y_max, JSON.stringify(frames.map((f) => f?.y_max)));
  const b = await canvasInk(page, 'compare-2');
  check('the gpt2 pair: the second real layout is drawn', b.share > 0.05 && b.colours >= 5, JSON.stringify(b));
  const changed = await text(page, 'second-frames-head');
  check('the gpt2 pair: the frames whose bytes at the live peak changed are said', /changed most|same bytes/.test(changed), changed);
}

async function smallRun(page) {
  await drop(page, SMALL);
  const line = await replayWith(page, 'expandable_segments:True', '');
  check('mlp_train: a replay under expandable segments', /Replayed under expandable_segments:True: reserved peak/.test(line) && /The run finishes/.test(line), line);
  check('mlp_train: the recorded settings agree with the recording', /on 257 of 257 entries/.test(line), line);
  await page.locator('#replay-sweep').click();
  const answer = await waitText(page, 'sweep-answer', /reserved peak/);
  check('mlp_train: the sweep answers in one line', answer.length > 20, answer);
}

/** A setting torch refuses is refused in words, naming the key; the field is marked. */
async function badSetting(page) {
  await page.locator('#replay-conf').fill('max_split_mb:128');
  await page.locator('#replay-run').click();
  await page.waitForFunction(() => /max_split_mb/.test(document.getElementById('error')?.textContent ?? ''), null, { timeout: 10000 }).catch(() => {});
  const error = (await visible(page, 'error')) ? await text(page, 'error') : '';
  check('a bad setting is refused naming the key and the keys that exist', /Could not replay the allocator/.test(error) && /`max_split_mb`/.test(error) && /max_split_size_mb/.test(error), error);
  check('the settings field is marked', (await page.locator('#replay-conf').getAttribute('aria-invalid')) !== null);
}

const corpus = haveCorpus();
if (corpus && !existsSync(OOM)) {
  console.error(`the shared corpus's gpt2_oom.pickle is missing at ${join(CORPUS, 'torch')}`);
  process.exit(1);
}
if (!corpus) skipped('gpt2_oom (the repo\'s mlp_train.pickle.gz stands in)');

withBrowser(async (context, url) => {
  const { page, problems } = await openPage(context, url);
  if (corpus) {
    await oomRun(page);
    await secondSnapshot(page);
  } else await smallRun(page);
  await badSetting(page);
  check('no console errors or page errors', problems.length === 0, problems.join('; '));
}, { deviceScaleFactor: 1 });
