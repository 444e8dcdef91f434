// The "Write a graph" panel, in a real Chromium: node tests/browser/write.test.mjs
// (after ./build.sh). Opens the panel on the example (its text plans as the example
// does), types a graph (the page plans it as the CLI plans the same text), breaks a
// line (the error names it and the last plan stays), shares the text in a link that
// reopens it, and opens each exercise in the panel.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, cli, openPage, settled, text, visible, withBrowser } from './harness.mjs';
import { EXERCISES } from '../../www/teach-exercises.js';

const TYPED = `# typed in the test
graph typed_chain
input x 16MiB
output y 8MiB
a MatMul: x -> t1=32MiB
b: t1 -> t2=16MiB
c Add: t1 t2 -> y
`;

/** Replaces the panel's text with `value` as typing does, and waits for the re-plan. */
async function type(page, value) {
  await page.locator('#write-text').fill(value);
  await page.waitForTimeout(450);
  await settled(page);
}

/** The CLI's peak of `text` written to a file, as the page writes it. */
function cliPeak(dir, name, value, strategy = 'greedy-size') {
  const file = join(dir, `${name}.mgraph`);
  writeFileSync(file, value);
  return cli(['plan', file, '--strategy', strategy]).peak.split(' (')[0];
}

withBrowser(async (context, url) => {
  const dir = mkdtempSync(join(tmpdir(), 'memplan-write-'));
  try {
    const { page, problems } = await openPage(context, url);
    const examplePeak = await text(page, 'sum-peak');
    await page.locator('#write-open').click();
    await settled(page);
    const start = await page.locator('#write-text').inputValue();
    check('the panel opens on the graph on show, as text', /^graph transformer_layer$/m.test(start) && /->/.test(start), start.slice(0, 80));
    check('that text plans as the example does', (await text(page, 'sum-peak')) === examplePeak && /Planned/.test(await text(page, 'write-status')), await text(page, 'write-status'));

    await type(page, TYPED);
    const peak = await text(page, 'sum-peak');
    check('a typed graph is planned as it is typed', (await text(page, 'graph-name')) === 'typed_chain' && (await text(page, 'sum-valid')) === 'valid', await text(page, 'graph-name'));
    check('with the CLI\'s peak for the same text', peak === cliPeak(dir, 'typed', TYPED), peak);

    await type(page, TYPED.replace('b: t1 -> t2=16MiB', 'b: t1 -> t2=16Mb'));
    const status = await text(page, 'write-status');
    check('a parse error names its line', /line 6\b/.test(status) && /Not planned/.test(status), status);
    check('and shows that line', (await visible(page, 'write-line')) && (await text(page, 'write-line')).startsWith('6 │ b: t1 -> t2=16Mb'), await text(page, 'write-line'));
    check('the textarea is marked invalid', (await page.locator('#write-text').getAttribute('aria-invalid')) === 'true');
    check('and the last plan stays on show', (await text(page, 'sum-peak')) === peak && (await text(page, 'graph-name')) === 'typed_chain');
    check('the page\'s error box stays clear', !(await visible(page, 'error')));

    await type(page, TYPED.replace('c Add: t1 t2 -> y', 'c Add: t1 t2 -> y\nd: y -> t3'));
    check('an undeclared tensor is named with its line', /line 8\b.*t3/.test(await text(page, 'write-status')), await text(page, 'write-status'));

    await type(page, TYPED);
    await page.locator('#strategy').selectOption('best-fit');
    await settled(page);
    await page.locator('#share').click();
    const link = await page.locator('#share-link').inputValue();
    check('Share carries the text in the fragment', /#t=[A-Za-z0-9_-]+$/.test(link) && /strategy=best-fit/.test(link), link.slice(0, 120));
    check('and says so', /carries the text/.test(await text(page, 'share-note')), await text(page, 'share-note'));
    const fresh = await context.newPage();
    await fresh.goto(link);
    await settled(fresh);
    check('the link reopens the panel with the text', (await fresh.locator('#write-text').inputValue()) === TYPED);
    check('and the same plan and strategy', (await text(fresh, 'sum-peak')) === cliPeak(dir, 'typed', TYPED, 'best-fit')
      && (await fresh.locator('#strategy').inputValue()) === 'best-fit' && (await text(fresh, 'graph-name')) === 'typed_chain');
    await fresh.close();

    const broken = await context.newPage();
    await broken.goto(`${url}#t=AAAA`);
    await settled(broken);
    check('a damaged text link is explained', /damaged or cut short/.test(await text(broken, 'error')), await text(broken, 'error'));
    await broken.close();

    for (const ex of EXERCISES) {
      await page.locator('#write-start').selectOption(ex.id);
      await page.waitForFunction((typed) => document.getElementById('write-text').value !== typed
        && /^(Planned|Not planned)/.test(document.getElementById('write-status').textContent), TYPED, { timeout: 20000 });
      await settled(page);
      const written = await page.locator('#write-text').inputValue();
      const name = await text(page, 'graph-name');
      const strategy = await page.locator('#strategy').inputValue();
      const json = cli(['plan', ex.url, '--strategy', strategy]).peak.split(' (')[0];
      check(`exercise ${ex.id} opens in the panel and plans as its file`, new RegExp(`^graph ${name}$`, 'm').test(written)
        && (await text(page, 'sum-peak')) === json && /Planned/.test(await text(page, 'write-status')), `${name} ${await text(page, 'sum-peak')} vs ${json}`);
      await type(page, TYPED); // leave the exercise, so the next one is a change
    }
    check('no console errors or page errors', problems.length === 0, problems.join('; '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, { deviceScaleFactor: 1 });
