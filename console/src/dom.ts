/** Building elements without innerHTML: every text goes in as a text node, so nothing a server sends is ever parsed as markup. */

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
export type Child = Node | string | number | null | undefined | false | readonly Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A table with a caption, column headers and rows of cells. */
export function table(caption: string, headers: readonly string[], rows: readonly (readonly Child[])[], attrs: Attrs = {}): HTMLTableElement {
  return h(
    'table',
    attrs,
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c))))),
  );
}

/** A short message in the corner that goes away by itself. */
export function toast(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const box = document.getElementById('toasts');
  if (!box) return;
  const el = h('div', { class: `toast ${kind}` }, message);
  box.appendChild(el);
  setTimeout(() => el.remove(), kind === 'error' ? 8000 : 4000);
}

/**
 * Asks before an action: a modal dialog with the question and a confirm
 * button named for the action. Resolves true only when confirmed.
 */
export function confirmAction(question: string, action: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-label': 'Confirm' },
      h('p', {}, question),
      h(
        'form',
        { method: 'dialog' },
        h('button', { value: 'cancel', type: 'submit' }, 'Cancel'),
        h('button', { value: 'confirm', type: 'submit', class: 'danger' }, action),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}
