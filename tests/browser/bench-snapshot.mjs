// The page on a large PyTorch snapshot, in a real Chromium (a benchmark, not a test):
//   node tests/browser/bench-snapshot.mjs FILE.pickle   (after ./build.sh; a 1 GB one
//   from bench/snapshot_scale.sh)
// Chooses FILE in the page's file picker (the browser reads it from disk, as for a user)
// and prints whether the page showed it or an error, how long until it was drawn, the
// slowest round trip to the page while the worker read it, and that the tab lived.

import { basename } from 'node:path';
import { openPage, settled, text, visible, withBrowser } from './harness.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node tests/browser/bench-snapshot.mjs FILE.pickle');
  process.exit(2);
}

withBrowser(async (context, url) => {
  const { page, problems } = await openPage(context, url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  const started = Date.now();
  await page.setInputFiles('#file', file);
  let slowest = 0;
  let alive = true;
  // answer round trips while the worker reads, until the page is idle again
  for (;;) {
    const t = Date.now();
    const busy = await page.evaluate(() => document.body.dataset.busy !== undefined).catch(() => null);
    if (busy === null) { alive = false; break; }
    slowest = Math.max(slowest, Date.now() - t);
    if (!busy && Date.now() - started > 1000) break;
    await new Promise((done) => setTimeout(done, 250));
  }
  await settled(page).catch(() => { alive = false; });
  const seconds = (Date.now() - started) / 1000;
  const error = alive && (await visible(page, 'error')) ? (await text(page, 'error')).replace(/\s+/g, ' ').slice(0, 300) : '';
  const live = alive && (await visible(page, 'snap-live')) ? await text(page, 'snap-live') : '-';
  const plan = alive && (await visible(page, 'snap-plan')) ? await text(page, 'snap-plan') : '-';
  console.log(`${basename(file)}: ${alive ? 'the tab lived' : 'THE TAB DIED'}; ${error ? `error shown: ${error}` : `live peak ${live}, plan ${plan}`}; ${seconds.toFixed(1)} s until idle; slowest round trip ${slowest} ms`);
  if (problems.length) console.log(`page problems: ${problems.join(' | ').slice(0, 300)}`);
}, {});
