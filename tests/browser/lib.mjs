// Shared by the browser tests and the benchmark: Chromium from the system
// (Debian's /usr/bin/chromium, or $TBMESH_CHROMIUM) driven headless by
// playwright-core, and TAP-like output the shell side counts.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';

export function chromiumPath() {
  const c = [process.env.TBMESH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser',
    '/Applications/Chromium.app/Contents/MacOS/Chromium'].filter(Boolean);
  return c.find((p) => existsSync(p)) || null;
}

export async function launch() {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
      '--disable-background-networking', '--disable-component-update'],
  });
}

let failed = 0;
export function ok(cond, what, detail) {
  if (cond) console.log('ok - ' + what);
  else {
    failed++;
    console.log('NOT OK - ' + what + (detail !== undefined ? ' (' + detail + ')' : ''));
  }
  return cond;
}
export const skip = (what) => console.log('skip - ' + what);
export const failures = () => failed;

/** A new page logged in with token through the login form. */
export async function loggedIn(browser, url, token) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, bypassCSP: true });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('# page error: ' + e.message));
  await page.goto(url + '/');
  await page.fill('#token', token);
  await page.click('#login-form button[type=submit]');
  return page;
}

export async function shot(page, dir, name) {
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  console.log('# screenshot ' + path);
}

/** GET an API path with a token, from node (to compare the page with the API). */
export async function api(url, path, token) {
  const r = await fetch(url + path, { headers: { Authorization: 'Bearer ' + token } });
  return { status: r.status, body: await r.json().catch(() => null) };
}
