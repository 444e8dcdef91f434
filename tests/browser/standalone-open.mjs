// Opens one self-contained HTML file of a view in headless Chromium and checks it:
//   node tests/browser/standalone-open.mjs FILE.html transformer|snapshot [--in-iframe]
//   node tests/browser/standalone-open.mjs FILE.html detector PEAK
// `transformer`: the seed example planned with best-fit; `snapshot`: tests/data/
// mlp_train.pickle; `detector`: tests/data/detector.onnx inlined as it is, with
// bounds given for over_index and over_scores, and PEAK its plan's peak as the page
// words it. With --in-iframe, FILE is a host page whose iframe holds the view
// (a notebook's output). The Python package's tests run it on what memplan.html writes;
// it fails on any request outside the file, any page or console error, or a view that
// is not drawn. Exit 0 when every check passed.

import { pathToFileURL } from 'node:url';
import { check, launch, results, watch } from './harness.mjs';
import { detectorShown, ready, snapshotShown, transformerShown, watchRequests } from './standalone-views.mjs';

const [file, kind, how] = process.argv.slice(2);
const shown = { transformer: transformerShown, snapshot: snapshotShown, detector: detectorShown }[kind];
if (!file || !shown) {
  console.error('usage: node tests/browser/standalone-open.mjs FILE.html transformer|snapshot [--in-iframe] | detector PEAK');
  process.exit(2);
}
const url = pathToFileURL(file).href;
const { context, close } = await launch();
const problems = [];
try {
  await context.route(/^https?:/, (route) => route.abort());
  const { outside, stop } = watchRequests(context, [url]);
  const page = await context.newPage();
  watch(page, problems);
  await page.goto(url);
  const inFrame = how === '--in-iframe';
  const frame = inFrame ? await (await page.waitForSelector('iframe')).contentFrame() : page;
  await ready(frame);
  await shown(frame, `${kind} ${inFrame ? 'in an iframe' : 'from file://'}`, how);
  stop();
  check('no request leaves the file', outside.length === 0, outside.join(' '));
} finally {
  await close();
}
check('no console errors or page errors', problems.length === 0, problems.join('; '));
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);
