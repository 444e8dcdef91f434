// The allocator replay in the page, in a real Chromium (a benchmark, not a test):
//   node tests/browser/bench-replay.mjs FILE.pickle [CONF...]   (after ./build.sh)
// Opens FILE, then for each setting CONF (default: expandable_segments:True,
// max_split_size_mb:128, roundup_power2_divisions:4) types it into the settings
// field, replays, and prints the time from the click until the replay's line, the
// replayed layout and its reserved curve are drawn (median and worst of 3 each);
// then the same for a sweep.

import { basename } from 'node:path';
import { openPage, settled, withBrowser } from './harness.mjs';

const [file, ...asked] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tests/browser/bench-replay.mjs FILE.pickle [CONF...]');
  process.exit(2);
}
const confs = asked.length ? asked : ['expandable_segments:True', 'max_split_size_mb:128', 'roundup_power2_divisions:4'];

/** Runs `act` and waits until `done` holds in the page and it has drawn: milliseconds. */
async function timed(page, act, done) {
  const started = Date.now();
  await act();
  await page.waitForFunction(done, null, { timeout: 120000, polling: 10 });
  await settled(page);
  return Date.now() - started;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

withBrowser(async (context, url) => {
  const { page } = await openPage(context, url);
  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => !document.body.dataset.busy && document.getElementById('snap-live').textContent !== '–', null, { timeout: 300000 });
  await settled(page);
  for (const conf of confs) {
    const times = [];
    for (let k = 0; k < 3; k += 1) {
      await page.locator('#replay-conf').fill(k % 2 ? '' : conf);
      const expect = k % 2 ? 'as recorded' : conf;
      times.push(await timed(page, () => page.locator('#replay-run').click(), `document.getElementById('replay-line').textContent.includes(${JSON.stringify(expect)})`));
    }
    console.log(`${basename(file)}: replay under ${conf} (then as recorded, then again): drawn in ${median(times)} ms median, ${Math.max(...times)} ms worst`);
  }
  const sweep = await timed(page, async () => {
    await page.evaluate(() => { document.getElementById('sweep-box').hidden = true; });
    await page.locator('#replay-sweep').click();
  }, "!document.getElementById('sweep-box').hidden");
  console.log(`${basename(file)}: sweep of ${await page.locator('#sweep-rows tr').count()} settings shown in ${sweep} ms`);
}, { deviceScaleFactor: 1 });
