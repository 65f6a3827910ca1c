/**
 * A completion popup for a text field, as an ARIA combobox with a listbox:
 * the field keeps the focus while ArrowDown/ArrowUp move through the
 * suggestions (the active one named by `aria-activedescendant`, so a screen
 * reader reads it), Enter or Tab takes the active one, Escape closes the
 * list. A click takes a suggestion too.
 *
 * What to suggest and what taking one does belong to the caller
 * (devtools.ts: endpoints in the path, the mapping's field names in the body).
 */
import { fill, h } from './dom.ts';

/** What the field offers at the caret: the suggestions and where the popup goes. */
export interface Offer {
  readonly items: readonly string[];
  /** Pixels from the field's top-left corner to the popup's (below the caret's line). */
  readonly top: number;
  readonly left: number;
}

export interface CompletionOptions {
  /** Suggestions for the field as it is now, or null for none. */
  readonly offer: () => Offer | null;
  /** Puts the chosen suggestion into the field. */
  readonly accept: (item: string) => void;
  /** Accessible name of the list. */
  readonly label: string;
}

/** Suggestions shown at most (the list scrolls). */
const MAX_ITEMS = 50;

let nextId = 0;

export interface Completion {
  /** Looks at the field again (after it changed) and shows or hides the list. */
  update(): void;
  close(): void;
  readonly isOpen: () => boolean;
  /** The popup's element, to put beside the field (in a positioned container). */
  readonly element: HTMLElement;
}

export function attachCompletion(field: HTMLInputElement | HTMLTextAreaElement, opts: CompletionOptions): Completion {
  const id = `completion-${nextId++}`;
  const list = h('ul', { id, role: 'listbox', class: 'completion', 'aria-label': opts.label, hidden: true });
  let items: readonly string[] = [];
  let active = -1;

  field.setAttribute('role', 'combobox');
  field.setAttribute('aria-autocomplete', 'list');
  field.setAttribute('aria-controls', id);
  field.setAttribute('aria-expanded', 'false');

  const isOpen = () => !list.hidden;

  const close = () => {
    list.hidden = true;
    items = [];
    active = -1;
    field.setAttribute('aria-expanded', 'false');
    field.removeAttribute('aria-activedescendant');
  };

  const highlight = (i: number) => {
    active = i;
    list.querySelectorAll('[role=option]').forEach((el, j) => el.setAttribute('aria-selected', j === i ? 'true' : 'false'));
    const el = document.getElementById(`${id}-${i}`);
    if (el) {
      field.setAttribute('aria-activedescendant', el.id);
      el.scrollIntoView({ block: 'nearest' });
    } else field.removeAttribute('aria-activedescendant');
  };

  const take = (i: number) => {
    const item = items[i];
    close();
    if (item !== undefined) opts.accept(item);
  };

  const update = () => {
    const o = opts.offer();
    if (o === null || o.items.length === 0) {
      close();
      return;
    }
    items = o.items.slice(0, MAX_ITEMS);
    fill(
      list,
      items.map((item, i) =>
        h(
          'li',
          {
            id: `${id}-${i}`,
            role: 'option',
            'aria-selected': 'false',
            // mousedown, not click: the field must keep the focus (and its caret).
            onmousedown: (ev: Event) => {
              ev.preventDefault();
              take(i);
            },
          },
          item,
        ),
      ),
    );
    list.style.top = `${o.top}px`;
    list.style.left = `${o.left}px`;
    list.hidden = false;
    field.setAttribute('aria-expanded', 'true');
    highlight(0);
  };

  field.addEventListener('keydown', (ev: Event) => {
    const e = ev as KeyboardEvent;
    if (!isOpen()) {
      // Ctrl+Space asks for suggestions where the caret is.
      if (e.key === ' ' && e.ctrlKey) {
        e.preventDefault();
        update();
      }
      return;
    }
    if (e.key === 'ArrowDown') highlight((active + 1) % items.length);
    else if (e.key === 'ArrowUp') highlight((active - 1 + items.length) % items.length);
    else if ((e.key === 'Enter' && !e.ctrlKey && !e.metaKey) || e.key === 'Tab') take(active < 0 ? 0 : active);
    else if (e.key === 'Escape') close();
    else return;
    // The list had the key: the field, the form and the page do nothing more with it.
    e.preventDefault();
    e.stopImmediatePropagation();
  });
  field.addEventListener('blur', close);

  return { update, close, isOpen, element: list };
}

/** Where the caret of a monospace textarea is, in pixels from its top-left corner (the line below it). */
export function caretBelow(area: HTMLTextAreaElement): { top: number; left: number } {
  const style = getComputedStyle(area);
  const fontSize = parseFloat(style.fontSize) || 13;
  const lineHeight = parseFloat(style.lineHeight) || fontSize * 1.2;
  // A monospace character is about 0.6 of the font size wide.
  const charWidth = fontSize * 0.6;
  const before = area.value.slice(0, area.selectionStart ?? 0).split('\n');
  const line = before.length;
  const column = before[before.length - 1]!.length;
  const top = parseFloat(style.paddingTop) + line * lineHeight - area.scrollTop + 2;
  const left = Math.min(parseFloat(style.paddingLeft) + column * charWidth - area.scrollLeft, Math.max(area.clientWidth - 200, 0));
  return { top, left };
}
