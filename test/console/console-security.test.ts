/**
 * The web console on a node with security on: its files load without
 * credentials, the first API answer (401) makes it ask the user to sign in,
 * and from then on it reads the cluster with those credentials.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/server.ts';
import { buildConsole, launch, skipReason } from './browser.ts';

const ELASTIC_PASSWORD = 'console-elastic-pw';
const skip = skipReason();

describe('web console with security on', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    buildConsole();
    server = await startServer(['--xpack.security.enabled', 'true'], undefined, { ELASTIC_PASSWORD });
    browser = await launch();
    page = await browser.newPage();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the console files load without credentials, the API needs them', async () => {
    assert.equal((await fetch(`${server.url}/_console/`)).status, 200);
    assert.equal((await fetch(`${server.url}/_console/app.js`)).status, 200);
    assert.equal((await fetch(`${server.url}/_console/api/traces`)).status, 401);
    assert.equal((await fetch(`${server.url}/_cluster/health`)).status, 401);
  });

  test('a wrong password is asked again; the right one shows the cluster', async () => {
    await page.goto(`${server.url}/_console/#/cluster`);
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.getByLabel('User').fill('elastic');
    await dialog.getByLabel('Password').fill('wrong');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#signin-message', { hasText: 'Wrong user or password.' }).waitFor({ timeout: 10_000 });
    await page.getByRole('dialog', { name: 'Sign in' }).getByLabel('User').fill('elastic');
    await page.getByRole('dialog', { name: 'Sign in' }).getByLabel('Password').fill(ELASTIC_PASSWORD);
    await page.getByRole('dialog', { name: 'Sign in' }).getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#nodes tbody tr').first().waitFor({ timeout: 10_000 });
    assert.deepEqual(await page.locator('#nodes tbody tr td:first-child').allInnerTexts(), ['test-node']);
    // One wrong password cost one failed login: the node still takes the right one from this address.
    assert.equal((await fetch(`${server.url}/_cluster/health`, { headers: { authorization: `Basic ${Buffer.from(`elastic:${ELASTIC_PASSWORD}`).toString('base64')}` } })).status, 200);
    assert.equal(await page.getByRole('dialog').count(), 0);
  });
});
