// The panels about the file on show: the form that asks what it leaves open (a value
// per free input dimension, an upper bound per data-dependent value), and the list
// of its op bodies with the importer's notes.

import { debounced } from './ui.js';

const $ = (id) => document.getElementById(id);

/** Dims as the form shows them: `4 x 3234`. */
export const dimsText = (dims) => dims.join(' x ');

/** What the form's note says of the free dims and of the sizes that depend on the data (`bounds`, as the import lists them; `asked`, values an error asks a bound for). */
function formNote(freeDims, bounds, asked, failed) {
  const defaulted = freeDims.filter((d) => !d.given).length;
  const raised = freeDims.filter((d) => d.raised).map((d) => d.name);
  const parts = [];
  if (freeDims.length) {
    const how = raised.length ? `${defaulted} defaulted: ${raised.join(', ')} raised from 1, where the model does not run` : `${defaulted} defaulted to 1`;
    const free = `This model leaves ${freeDims.length} input dimension${freeDims.length === 1 ? '' : 's'} free`;
    parts.push(failed ? `${free}, and it does not run with the values below.` : `${free}; the plan uses the values below${defaulted ? ` (${how})` : ''}.`);
  }
  if (bounds.length) {
    const worst = bounds.filter((b) => !b.given);
    const each = bounds.map((b) => `${b.value}: ${b.given ? `your bound; at worst ${dimsText(b.worst)}, ${b.why}` : `at worst ${b.why}`}`);
    const holds = worst.length === bounds.length ? 'so the plan holds for every input' : 'so the plan holds for inputs within your bounds';
    parts.push(`${bounds.length} size${bounds.length === 1 ? ' depends' : 's depend'} on the input data, each planned at the bound below (${each.join('; ')}), ${holds}; a smaller bound in its field makes a smaller arena for inputs within it.`);
  }
  if (asked.length) parts.push(`The size of ${asked.join(', ')} depends on the input data and nothing bounds it: give an upper bound of each dim, in the value's own order (such as 2 x 100), to plan for.`);
  return `${parts.join(' ')} Change a value to ${failed ? 'open it' : 're-plan'}.`;
}

/** The form beside the summary: one field per free input dimension (prefilled with the value used, with the inputs it belongs to), per value planned at a bound (prefilled with it, in the value's own dims) and per data-dependent value an error asks a bound for; a change reopens the file with the new values after a pause. Hidden when there is nothing to ask. With `failed`, the model did not open with these values. */
export function showShapeForm(freeDims, values, reopen, dims, { failed = false, bounds = [] } = {}) {
  const box = $('shape-form');
  const bounded = new Map(bounds.map((b) => [b.value, b]));
  const names = [...new Set([...bounded.keys(), ...Object.keys(values)])];
  box.hidden = freeDims.length === 0 && names.length === 0;
  if (box.hidden) return;
  $('shape-note').textContent = formNote(freeDims, bounds, names.filter((n) => !bounded.has(n)), failed);
  const form = $('shape-fields');
  const focused = form.contains(document.activeElement) ? document.activeElement.dataset : null;
  form.replaceChildren();
  const field = (label, title, value, kind, onValue) => {
    const wrap = document.createElement('label');
    const caption = document.createElement('span');
    caption.textContent = label;
    caption.title = title;
    const input = document.createElement('input');
    Object.assign(input, { value: `${value}`, type: 'text', inputMode: kind === 'dim' ? 'numeric' : 'text', className: 'input' });
    input.dataset[kind] = label;
    input.addEventListener('input', debounced(() => {
      const text = kind === 'dim' ? input.value.trim() : input.value.replace(/\s+/g, '');
      const ok = kind === 'dim' ? /^\d+$/.test(text) : /^(\d+(x\d+)*)?$/.test(text);
      input.setAttribute('aria-invalid', ok ? 'false' : 'true');
      if (ok) onValue(text);
    }, 400));
    wrap.append(caption, input);
    form.append(wrap);
  };
  const nextDims = { ...dims };
  const nextValues = { ...values };
  for (const d of freeDims) {
    field(d.name, `occurs in ${d.at.join(', ')}`, d.value, 'dim', (text) => {
      nextDims[d.name] = Number(text);
      reopen({ ...nextDims }, { ...nextValues });
    });
  }
  for (const name of names) {
    const b = bounded.get(name);
    const title = b ? `at worst ${dimsText(b.worst)}: ${b.why}` : 'an upper bound of this value\'s dims';
    const shown = b ? dimsText(b.dims) : values[name] ?? '';
    field(name, title, shown, 'value', (text) => {
      nextValues[name] = text;
      reopen({ ...nextDims }, { ...nextValues });
    });
  }
  // a re-plan redraws the form: the field being edited keeps the focus
  const again = focused && [...form.querySelectorAll('input')].find((i) => i.dataset.dim === focused.dim && i.dataset.value === focused.value);
  if (again) {
    again.focus();
    again.setSelectionRange(again.value.length, again.value.length);
  }
}

/** Lists the bodies of the file's ops (If branches, Loop bodies) of `info`: each is a nested arena, in use only while its op runs, and opens as its own chart (`focusBody(index)`); and the importer's notes. */
export function showBodies(info, focusBody) {
  const { bodies = [], focus = null, notes = [] } = info;
  const box = $('bodies');
  box.hidden = bodies.length === 0;
  $('bodies-head').textContent = focus === null
    ? `${bodies.length} nested arena${bodies.length === 1 ? '' : 's'}: the bodies of this graph's ops, each in use only while its op runs (an If needs its larger branch).`
    : `Showing the nested arena of ${bodies[focus].path}.`;
  const list = $('bodies-list');
  list.replaceChildren();
  const entry = (label, index, current) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button secondary small';
    button.textContent = current ? `${label} (on show)` : label;
    button.disabled = current;
    button.dataset.body = String(index);
    button.addEventListener('click', () => focusBody(index));
    li.append(button);
    list.append(li);
  };
  if (bodies.length) entry('Main graph', -1, focus === null);
  bodies.forEach((b, i) => entry(`${b.path}: ${b.tensors} tensors, ${b.ops} ops`, i, focus === i));
  const noteList = $('import-notes');
  noteList.hidden = notes.length === 0;
  noteList.replaceChildren(...notes.map((n) => Object.assign(document.createElement('li'), { textContent: n })));
}
