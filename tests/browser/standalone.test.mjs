// One self-contained HTML file of a view (`memplan html`), in a real Chromium:
// node tests/browser/standalone.test.mjs
// Needs ./build.sh first (www/pkg) and the release CLI. Writes the file for the seed
// Transformer example and for a small real PyTorch snapshot, opens each from a file://
// URL with no server running, and finds the plan drawn, the right figures and no
// request outside the file (anything but file:, blob: and data: is a failure, and a
// file: request for anything but the HTML itself too). Then opens the same file in an
// iframe's srcdoc, as a notebook shows it. (Not as a data: URL iframe: Chrome refuses
// URLs over 2 MiB, and the file's are about 2.4 MB.)

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, check, launch, results, settled, text, visible, watch } from './harness.mjs';
import { ready, snapshotShown, transformerShown, watchRequests } from './standalone-views.mjs';

const BIN = join(ROOT, 'target/release/memplan');
if (!existsSync(join(ROOT, 'www/pkg/memplan_worker_bg.wasm'))) {
  console.error('www/pkg is missing: run ./build.sh first');
  process.exit(2);
}

/** Writes the standalone file of `file` with `args` into `dir`; answers its path. */
function standalone(dir, file, out, args = []) {
  const path = join(dir, out);
  const command = existsSync(BIN) ? [BIN, []] : ['cargo', ['run', '--release', '--quiet', '--']];
  execFileSync(command[0], [...command[1], 'html', join(ROOT, file), '--out', path, ...args], { cwd: ROOT, encoding: 'utf8' });
  return path;
}

/** Opens `html` (the file's text) in the srcdoc of an iframe of a file: host page; answers the frame. */
async function inFrame(context, dir, html, problems) {
  const how = 'srcdoc';
  const page = await context.newPage();
  watch(page, problems);
  const host = join(dir, `host-${how}.html`);
  const attribute = `srcdoc="${html.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`;
  writeFileSync(host, `<!doctype html><title>notebook</title><p>Out[1]:</p><iframe name="view" style="width:1240px;height:900px;border:0" ${attribute}></iframe>`);
  await page.goto(pathToFileURL(host).href);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await ready(frame);
  return { page, frame, host: pathToFileURL(host).href };
}

const dir = mkdtempSync(join(tmpdir(), 'memplan-standalone-'));
const { context, close } = await launch();
const problems = [];
try {
  // no server: every http(s) request is refused and counted
  await context.route(/^https?:/, (route) => route.abort());
  const transformer = standalone(dir, 'examples/transformer_layer.json', 'transformer.html', ['--strategy', 'best-fit']);
  const snapshot = standalone(dir, 'tests/data/mlp_train.pickle', 'mlp_train.html');
  const sizes = [transformer, snapshot].map((f) => statSync(f).size);
  console.log(`sizes: transformer_layer ${sizes[0]} bytes, mlp_train.pickle ${sizes[1]} bytes`);
  const html = readFileSync(transformer, 'utf8');
  check('the file refers to no page file by path', !/(src|href)="www\//.test(html));
  check('it is one file of a few MB', sizes.every((s) => s > 500000 && s < 4000000), sizes.join(' '));

  const urls = [transformer, snapshot].map((f) => pathToFileURL(f).href);
  const { outside, stop } = watchRequests(context, urls);
  const page = await context.newPage();
  watch(page, problems);
  await page.goto(urls[0]);
  await ready(page);
  await transformerShown(page, 'transformer_layer from file://');
  check('Share, Download demo and the gallery are hidden', !(await visible(page, 'share')) && !(await visible(page, 'download-demo')) && !(await visible(page, 'gallery')));
  await page.locator('#strategy').selectOption('naive');
  await settled(page);
  check('another strategy re-plans in the file (naive: 896 MiB)', (await text(page, 'sum-peak')) === '896 MiB', await text(page, 'sum-peak'));
  check('the address is left as it was', page.url() === urls[0], page.url());
  await page.screenshot({ path: join(ROOT, 'target', 'standalone-transformer.png') });
  await page.close();

  const snap = await context.newPage();
  watch(snap, problems);
  await snap.goto(urls[1]);
  await ready(snap);
  await snapshotShown(snap, 'mlp_train.pickle from file://');
  await snap.screenshot({ path: join(ROOT, 'target', 'standalone-snapshot.png'), fullPage: true });
  await snap.close();
  stop();
  check('no request leaves the files', outside.length === 0, outside.join(' '));

  // as a notebook shows it: an iframe's srcdoc
  {
    const how = 'srcdoc';
    const hosts = [pathToFileURL(join(dir, 'host-srcdoc.html')).href];
    const { outside: left, stop: stopFrame } = watchRequests(context, hosts);
    const t = await inFrame(context, dir, html, problems);
    await transformerShown(t.frame, `transformer_layer in an iframe (${how})`);
    await t.frame.locator('#strategy').selectOption('naive');
    await settled(t.frame);
    check(`in an iframe (${how}) another strategy re-plans`, (await text(t.frame, 'sum-peak')) === '896 MiB');
    await t.page.screenshot({ path: join(ROOT, 'target', 'standalone-srcdoc.png') });
    await t.page.close();
    const s = await inFrame(context, dir, readFileSync(snapshot, 'utf8'), problems);
    await snapshotShown(s.frame, `mlp_train.pickle in an iframe (${how})`);
    await s.page.close();
    stopFrame();
    check(`in an iframe (${how}) no request leaves the file`, left.length === 0, left.join(' '));
  }
} finally {
  await close();
  rmSync(dir, { recursive: true, force: true });
}
check('no console errors or page errors', problems.length === 0, problems.join('; '));
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);
