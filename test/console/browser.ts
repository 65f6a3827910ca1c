/**
 * Headless Chromium for the console's tests: Debian's `chromium` (installed
 * by .ci/run) driven by playwright-core, which never downloads a browser.
 * CHROMIUM_PATH names another binary. When none is found the tests skip
 * and say why (a machine without the package); CI installs it, so there
 * they run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export function chromiumPath(): string | null {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
    return found || null;
  } catch {
    return null;
  }
}

/** Why the browser tests cannot run here, or false when they can. */
export function skipReason(): string | false {
  return chromiumPath() === null
    ? 'Chromium is not installed (Debian package `chromium`; .ci/run installs it, or set CHROMIUM_PATH): the console browser tests are skipped'
    : false;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath()!,
    // Flags for a closed network and a root user (see /usr/share/doc/chromium): no sandbox, no background connections.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Builds the console into the folder a node run from the sources serves (dist/console-app). */
export function buildConsole(): void {
  const root = new URL('../../', import.meta.url).pathname;
  const run = spawnSync(process.execPath, [join(root, 'scripts/build-console.mjs'), join(root, 'dist', 'console-app')], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`building the console failed: ${run.stderr}`);
}

/** Messages of errors the page logged (CSP violations, failed loads, exceptions). */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

/** Waits until `fn` returns true (polling), or fails with `what`. */
export async function eventually(what: string, fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for: ${what}`);
}
