/**
 * The console's entry: a page per hash route (`#/cluster`, `#/console`,
 * `#/traces[/{id}]`; `#/passes` when the pass-record service serves it), the
 * navigation's current page, and the sign-in dialog that api.ts asks for
 * when the node answers 401.
 */
import { onSignInNeeded } from './api.ts';
import { clusterPage } from './cluster.ts';
import { consolePage } from './devtools.ts';
import { h } from './dom.ts';
import { tracesPage } from './traces.ts';
import { passesPage } from './passes.ts';

let stop: () => void = () => {};
/** Served by the pass-record service (its `/_console/api/app` says so): only the pass-record pages, which call its API. */
let passinfo = false;

function route(): void {
  const root = document.getElementById('page');
  if (!root) return;
  stop();
  const [asked = '', arg] = location.hash.replace(/^#\/?/, '').split('/');
  const page = passinfo ? 'passes' : asked === 'passes' || asked === '' ? 'cluster' : asked;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  switch (page) {
    case 'console':
      document.title = 'Console · logsearch';
      stop = consolePage(root);
      break;
    case 'traces':
      document.title = 'Traces · logsearch';
      stop = tracesPage(root, arg);
      break;
    case 'passes':
      document.title = 'Pass records · logsearch';
      stop = passesPage(root);
      break;
    default:
      document.title = 'Cluster · logsearch';
      stop = clusterPage(root);
  }
}

onSignInNeeded(
  (message) =>
    new Promise((resolve) => {
      const user = h('input', { id: 'signin-user', name: 'username', autocomplete: 'username', required: true });
      const password = h('input', { id: 'signin-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
      const dialog = h(
        'dialog',
        { class: 'confirm', 'aria-label': 'Sign in' },
        h(
          'form',
          { method: 'dialog' },
          h('p', { id: 'signin-message' }, message),
          h('label', { for: 'signin-user' }, 'User'),
          user,
          h('label', { for: 'signin-password' }, 'Password'),
          password,
          h('div', { class: 'buttons' }, h('button', { value: 'cancel', formnovalidate: true }, 'Cancel'), h('button', { value: 'ok' }, 'Sign in')),
        ),
      );
      dialog.addEventListener('close', () => {
        dialog.remove();
        resolve(dialog.returnValue === 'ok' ? { user: user.value, password: password.value } : null);
      });
      document.body.appendChild(dialog);
      dialog.showModal();
    }),
);

async function start(): Promise<void> {
  try {
    const res = await fetch('/_console/api/app', { credentials: 'omit' });
    passinfo = res.ok && ((await res.json()) as { app?: string }).app === 'passinfo';
  } catch {
    passinfo = false;
  }
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a')) a.hidden = (a.dataset.page === 'passes') !== passinfo;
  window.addEventListener('hashchange', route);
  route();
}

void start();
