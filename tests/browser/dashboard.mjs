// The dashboard's browser tests, one case per run (dashboard.sh starts the
// controller and the simulated agents, then runs each case):
//   node dashboard.mjs mesh4 URL TOKEN SHOTDIR AGENT_PID CTRL_PID
//     four nodes, their figures, six passing links (when the controller has
//     the wiring API), a wrong token refused, an agent stopped (SIGTERM to
//     AGENT_PID) shown unreachable without a reload, the controller stopped
//     (SIGTERM to CTRL_PID) shown unreachable.
//   node dashboard.mjs degraded URL TOKEN SHOTDIR
//     the 40 Gb/s cable drawn as degraded; its fix shown on keyboard focus.
import { launch, ok, skip, failures, loggedIn, shot, api } from './lib.mjs';

const [, , which, url, token, shots, agentPid, ctrlPid] = process.argv;
const T = 20000;

async function rows(page) {
  return page.$$eval('#fleet-list tbody tr', (trs) => trs.map((tr) => ({
    name: tr.dataset.node,
    cells: [...tr.children].map((c) => c.textContent.trim()),
    meter: !!tr.querySelector('svg.bar[role=img]'),
    spark: !!tr.querySelector('svg.spark polyline'),
  })));
}

async function hasWiring(cluster) {
  const r = await api(url, `/v1/clusters/${cluster}/wiring`, token);
  return r.status === 200 ? r.body : null;
}

async function wrongToken(browser) {
  const ctx = await browser.newContext({ bypassCSP: true });
  const page = await ctx.newPage();
  await page.goto(url + '/');
  await page.fill('#token', 'tbm_000000000000_' + 'x'.repeat(43));
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#login-msg:not([hidden])', { timeout: T });
  const msg = await page.textContent('#login-msg');
  ok(/refused/i.test(msg) && /invalid, expired or revoked/.test(msg), 'a wrong token is refused with a clear message', msg);
  ok(await page.isHidden('#dashboard'), 'the dashboard stays hidden after a wrong token');
  ok((await page.evaluate(() => sessionStorage.length)) === 0, 'a refused token is not kept');
  ok(!(await page.content()).includes('x'.repeat(43)), 'the page does not show the token typed');
  await shot(page, shots, 'wrong-token');
  await ctx.close();
}

async function mesh4(browser) {
  await wrongToken(browser);
  const page = await loggedIn(browser, url, token);
  await page.evaluate(() => { window.__sameDocument = true; });
  await page.waitForFunction(() => document.querySelectorAll('#fleet-list tbody tr').length === 4, null, { timeout: T });
  ok(!(await page.content()).includes(token), 'the page never shows the token');
  await page.waitForFunction(() => document.querySelectorAll('#fleet-list svg.spark polyline').length === 4, null, { timeout: T });
  await page.waitForFunction(() => [...document.querySelectorAll('#fleet-list tbody tr')].every((tr) => /°C/.test(tr.textContent)), null, { timeout: T });
  const r = await rows(page);
  ok(r.map((x) => x.name).join(',') === 'mac1,mac2,mac3,mac4', 'four nodes, mac1 to mac4', r.map((x) => x.name).join(','));
  ok(r.every((x) => x.cells[1].startsWith('ready')), 'all four ready', r.map((x) => x.cells[1]).join('|'));
  ok(r.every((x) => /Apple M3 Ultra/.test(x.cells[2])), 'model and chip shown', r[0] && r[0].cells[2]);
  ok(r.every((x) => x.meter && /GiB \/ (512|256) GiB/.test(x.cells[3])), 'memory used/total as a bar', r.map((x) => x.cells[3]).join('|'));
  ok(r.every((x) => / W/.test(x.cells[5]) && x.spark), 'power now and its sparkline', r.map((x) => x.cells[5]).join('|'));
  ok(r.every((x) => /°C/.test(x.cells[6])), 'temperature shown', r.map((x) => x.cells[6]).join('|'));
  ok(r.every((x) => x.cells[8] === 'enabled'), 'RDMA enabled on all', r.map((x) => x.cells[8]).join('|'));
  ok(r.every((x) => /^\d+ s$/.test(x.cells[9])), 'last report age in seconds', r.map((x) => x.cells[9]).join('|'));
  const mem = await page.$$eval('#fleet-list tbody tr', (trs) => trs.map((tr) => tr.children[3].textContent));
  ok(mem[0].includes('512 GiB') && mem[2].includes('256 GiB'), 'mac1 has 512 GiB, mac3 256 GiB', mem.join('|'));
  ok(await page.isVisible('#events') && (await page.$$('#event-list li')).length > 0, 'events listed');
  const w = await hasWiring('studio4');
  if (w) {
    await page.waitForSelector('section[data-cluster=studio4] svg.topo .link', { timeout: T });
    const v = await page.$$eval('section[data-cluster=studio4] svg.topo .link', (gs) => gs.map((g) => g.dataset.verdict));
    ok(v.length === 6 && v.every((x) => x === 'pass'), 'six passing links drawn', v.join(','));
    const verdict = await page.textContent('section[data-cluster=studio4] .verdict');
    ok(/tensor-ready/.test(verdict), 'cluster verdict tensor-ready on top', verdict);
  } else skip('wiring checks: this controller has no GET /v1/clusters/{name}/wiring yet');
  await shot(page, shots, 'mesh4');

  // an agent stops: its node turns unreachable without a reload
  process.kill(Number(agentPid), 'SIGTERM');
  const t0 = Date.now();
  await page.waitForFunction(() => {
    const tr = document.querySelector('#fleet-list tr[data-node=mac4]');
    return tr && tr.children[1].textContent.startsWith('unreachable');
  }, null, { timeout: T });
  ok(true, `mac4 shown unreachable ${((Date.now() - t0) / 1000).toFixed(1)} s after its agent stopped`);
  ok(await page.evaluate(() => window.__sameDocument === true), 'without a reload');
  await shot(page, shots, 'mac4-unreachable');

  // the controller stops: the page says so
  process.kill(Number(ctrlPid), 'SIGTERM');
  await page.waitForSelector('#unreachable:not([hidden])', { timeout: T });
  const b = await page.textContent('#unreachable');
  ok(/Controller unreachable/.test(b), 'the page says the controller is unreachable', b);
  ok((await rows(page)).length === 4, 'and keeps showing the last figures');
  await shot(page, shots, 'controller-unreachable');
}

async function degraded(browser) {
  const page = await loggedIn(browser, url, token);
  await page.waitForFunction(() => document.querySelectorAll('#fleet-list tbody tr').length > 0, null, { timeout: T });
  const cluster = await page.$eval('#fleet-list section.cluster', (s) => s.dataset.cluster);
  const w = await hasWiring(cluster);
  if (!w) {
    skip('degraded-link checks: this controller has no GET /v1/clusters/{name}/wiring yet');
    ok(true, 'the page rendered the 40 Gb/s cluster');
    await shot(page, shots, 'degraded-40g');
    return;
  }
  const bad = (w.links || []).find((l) => l.verdict === 'degraded');
  ok(!!bad, 'the API calls one link degraded', JSON.stringify((w.links || []).map((l) => l.verdict)));
  if (!bad) return;
  const sel = `section[data-cluster="${cluster}"] svg.topo .link[data-verdict=degraded]`;
  await page.waitForSelector(sel, { timeout: T });
  const n = await page.$$eval(sel, (gs) => gs.length);
  ok(n === 1, 'one link drawn as degraded', n);
  const look = await page.$eval(sel, (g) => ({
    dash: getComputedStyle(g.querySelector('.wire')).strokeDasharray,
    text: g.querySelector('.lbl').textContent,
    label: g.getAttribute('aria-label'),
  }));
  ok(look.dash !== 'none' && /degraded/.test(look.text) && /40/.test(look.text), 'drawn dashed and labelled "degraded 40G"', JSON.stringify(look));
  // keyboard: tab through the page until the degraded link has the focus
  let focused = false;
  for (let i = 0; i < 60 && !focused; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), sel);
  }
  ok(focused, 'the degraded link is reached with the keyboard');
  const panel = `section[data-cluster="${cluster}"] .link-detail`;
  await page.waitForFunction((p) => /Fix:/.test(document.querySelector(p).textContent), panel, { timeout: T });
  const detail = await page.textContent(panel);
  ok(bad.fix && detail.includes(bad.fix), 'its fix is shown on focus', detail);
  ok(/degraded/.test(detail) && (!bad.evidence || !bad.evidence.a || detail.includes(bad.evidence.a)), 'with its evidence', detail);
  await shot(page, shots, 'degraded-40g');
}

const browser = await launch();
try {
  if (which === 'mesh4') await mesh4(browser);
  else if (which === 'degraded') await degraded(browser);
  else throw new Error('unknown case ' + which);
} catch (e) {
  ok(false, 'case ' + which + ' ran to its end', e.message.split('\n')[0]);
} finally {
  await browser.close();
}
process.exit(failures() ? 1 : 0);
