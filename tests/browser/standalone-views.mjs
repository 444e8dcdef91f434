// What a self-contained HTML file of a view must show in Chromium, shared by
// standalone.test.mjs (files written by `memplan html`) and standalone-open.mjs (the
// Python package's `memplan.html`, driven by its pytest tests).

import { canvasInk, check, settled, text, visible } from './harness.mjs';

/** Records every request of `context` that leaves the files `allowed` (file: URLs) until `stop()`. */
export function watchRequests(context, allowed) {
  const outside = [];
  const listener = (r) => {
    const url = r.url();
    if (/^(blob|data|about):/.test(url)) return;
    if (url.startsWith('file:') && allowed.includes(url.split(/[?#]/)[0])) return;
    outside.push(url);
  };
  context.on('request', listener);
  return { outside, stop: () => context.off('request', listener) };
}

/** Checks the view of the transformer example (best-fit) in `frame` (a page or an iframe), named `where`. */
export async function transformerShown(frame, where) {
  const error = (await visible(frame, 'error')) ? await text(frame, 'error') : '';
  check(`${where}: opens without an error`, error === '', error);
  check(`${where}: names the graph and says where it comes from`, (await text(frame, 'graph-name')) === 'transformer_layer'
    && (await text(frame, 'graph-source')) === 'inlined in this file', `${await text(frame, 'graph-name')} / ${await text(frame, 'graph-source')}`);
  check(`${where}: best-fit, the strategy it was written with`, (await frame.locator('#strategy').inputValue()) === 'best-fit');
  const peak = await text(frame, 'sum-peak');
  check(`${where}: peak 384 MiB, valid`, peak === '384 MiB' && (await text(frame, 'sum-valid')) === 'valid', peak);
  check(`${where}: 8 tensors, lower bound 384 MiB`, (await text(frame, 'sum-tensors')).startsWith('8') && (await text(frame, 'sum-lower-bound')) === '384 MiB');
  const chart = await canvasInk(frame, 'time-address');
  check(`${where}: the time-by-address chart is drawn`, chart.share > 0.05 && chart.colours > 4, JSON.stringify(chart));
  const live = await canvasInk(frame, 'live-bytes');
  check(`${where}: the live-bytes chart is drawn`, live.share > 0.02, JSON.stringify(live));
}

/** Checks the view of mlp_train.pickle in `frame`, named `where`; the figures are `memplan plan`'s. */
export async function snapshotShown(frame, where) {
  const error = (await visible(frame, 'error')) ? await text(frame, 'error') : '';
  check(`${where}: opens without an error`, error === '', error);
  check(`${where}: the snapshot summary is shown, the graph's own is not`, (await visible(frame, 'snapshot-summary')) && !(await visible(frame, 'graph-summary')));
  const live = await text(frame, 'snap-live');
  check(`${where}: live peak 466.94 MiB`, live === '466.94 MiB', live);
  const reserved = await text(frame, 'snap-reserved');
  check(`${where}: reserved peak 472 MiB`, reserved === '472 MiB', reserved);
  const plan = await text(frame, 'snap-plan');
  check(`${where}: memplan's plan 466.94 MiB with auto, valid`, plan.startsWith('466.94 MiB') && (await frame.locator('#strategy').inputValue()) === 'auto'
    && (await text(frame, 'snap-valid')) === 'valid', plan);
  const planned = await canvasInk(frame, 'time-address');
  const real = await canvasInk(frame, 'compare-1');
  check(`${where}: the plan and the allocator's layout are drawn`, planned.share > 0.05 && real.share > 0.05, `${planned.share} ${real.share}`);
}

/** The page is ready and every chart is drawn once more (a frame may have been laid out after the first draw). */
export async function ready(frame) {
  await settled(frame);
}


/**
 * Checks the view of tests/data/detector.onnx inlined as the model itself, opened
 * with the bounds `over_index=3x2500;over_scores=2500` (so its form lists them, and
 * changes them), in `frame`, named `where`; `peak` is the plan's peak as the page
 * words it.
 */
export async function detectorShown(frame, where, peak) {
  const error = (await visible(frame, 'error')) ? await text(frame, 'error') : '';
  check(`${where}: opens without an error`, error === '', error);
  check(`${where}: the model itself is inlined`, (await text(frame, 'graph-name')) === 'detector');
  const field = (name) => frame.locator(`#shape-fields input[data-value="${name}"]`);
  const fields = await frame.locator('#shape-fields input').count();
  check(`${where}: the form lists the bounded values`, (await visible(frame, 'shape-form')) && fields >= 4, `${fields} fields`);
  const given = (await field('over_index').inputValue()).replace(/\s+/g, '');
  check(`${where}: opened at the bound it was planned with`, given === '3x2500', given);
  const shown = await text(frame, 'sum-peak');
  check(`${where}: the plan's peak, ${peak}`, shown === peak, shown);
  const chart = await canvasInk(frame, 'time-address');
  check(`${where}: the chart is drawn`, chart.share > 0.02, JSON.stringify(chart));
}
