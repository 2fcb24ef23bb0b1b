// The dashboard's browser tests, one case per run (dashboard.sh starts the
// controller and the simulated agents, then runs each case):
//   node dashboard.mjs mesh4 URL TOKEN SHOTDIR AGENT_PID CTRL_PID
//     four nodes, their figures, six passing links, a wrong token refused, an agent stopped (SIGTERM to
//     AGENT_PID) shown unreachable without a reload, the controller stopped
//     (SIGTERM to CTRL_PID) shown unreachable.
//   node dashboard.mjs degraded URL TOKEN SHOTDIR
//     the 40 Gb/s cable drawn as degraded; its fix shown on keyboard focus.
//   node dashboard.mjs osskew URL TOKEN SHOTDIR
//     the node on another macOS build marked, the others not; the rollouts
//     panel shows the halted rollout 1 from GET /v1/rollouts.
//   node dashboard.mjs jobs URL TOKEN SHOTDIR P1 P2 JOB PORT
//     placement P1 with job JOB (rank 0's endpoint on port PORT), P2 with
//     none: P1 shows its job's line, "running" with the endpoint while
//     GET /v1/jobs says so (the real answer with the job's state set to
//     running: no simulated Mac runs a model here), then, without a reload,
//     the job's real state (failed: its node's SSH never answers) with its
//     reason; P2 shows no job line.
//   node dashboard.mjs topology URL - SHOTDIR
//     the wiring view (web/js/topology.js) on answers shaped as the wiring
//     API's contract (tests/browser/topology/*.json): verdicts told apart by
//     dash, marker and words, not colour alone; evidence and fix on focus;
//     two cables between one pair, a missing and an unexpected cable; a
//     link to a Mac with RDMA enabled and no RDMA device (rdma-unavailable,
//     MLX issue 3777) drawn as a fault, apart from degraded, with its fix; a
//     cable in a Mac Studio's port next to Ethernet (bad-port, exo PR 1551)
//     and an RDMA port without an IPv4-mapped GID (no-gid, MLX PR 4191)
//     drawn as faults, a link slow because an end is Thunderbolt 4 as
//     degraded, each with its fix.
import { launch, ok, failures, loggedIn, shot, api } from './lib.mjs';

const [, , which, url, token, shots, agentPid, ctrlPid] = process.argv;
const T = 20000;
// the sim agents report every second (dashboard.sh --interval 1); the page
// must show a change within that plus two seconds (issue 7)
const REPORT_INTERVAL = 1;
const WIRING_BOUND = REPORT_INTERVAL + 2;

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
  } else ok(false, 'the controller answers GET /v1/clusters/studio4/wiring');
  await shot(page, shots, 'mesh4');

  // the wiring is asked for every two seconds, not every four
  const asked = [];
  const onReq = (rq) => { if (/\/v1\/clusters\/studio4\/wiring$/.test(rq.url())) asked.push(Date.now()); };
  page.on('request', onReq);
  await page.waitForTimeout(8500);
  page.off('request', onReq);
  const gaps = asked.slice(1).map((t, i) => (t - asked[i]) / 1000);
  // (two seconds and a poll tick's jitter; the four-second period was a bug)
  ok(gaps.length >= 3 && Math.max(...gaps) <= 2.5, 'the wiring is fetched every two seconds',
    gaps.map((g) => g.toFixed(1)).join(' '));

  // an agent stops: its node turns unreachable without a reload, and its
  // links' new verdicts are drawn within the issue's bound of the API having them
  process.kill(Number(agentPid), 'SIGTERM');
  const t0 = Date.now();
  let tApi = 0;
  for (let i = 0; i < 200 && !tApi; i++) {
    const now = await hasWiring('studio4');
    if (now && now.links.some((l) => (l.a.node === 'mac4' || l.b.node === 'mac4') && !l.pass)) tApi = Date.now();
    else await new Promise((res) => setTimeout(res, 100));
  }
  ok(tApi > 0, `the API stops passing mac4's links ${((tApi - t0) / 1000).toFixed(1)} s after its agent stopped`);
  await page.waitForFunction(() => {
    const gs = [...document.querySelectorAll('section[data-cluster=studio4] svg.topo .link')];
    return gs.length > 0 && gs.some((g) => g.dataset.verdict !== 'pass');
  }, null, { timeout: T });
  const lag = (Date.now() - tApi) / 1000;
  ok(lag <= WIRING_BOUND, `the drawing shows it ${lag.toFixed(1)} s later (bound: report interval + 2 s = ${WIRING_BOUND} s)`);
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

/** In scope (a selector), the one degraded link: drawn dashed with words; its fix and evidence on keyboard focus. */
async function checkDegraded(page, scope, bad) {
  const sel = `${scope} svg.topo .link[data-verdict=degraded]`;
  await page.waitForSelector(sel, { timeout: T });
  const n = await page.$$eval(sel, (gs) => gs.length);
  ok(n === 1, 'one link drawn as degraded', n);
  const look = await page.$eval(sel, (g) => ({
    dash: getComputedStyle(g.querySelector('.wire')).strokeDasharray,
    text: g.querySelector('.lbl').textContent,
    label: g.getAttribute('aria-label'),
  }));
  ok(look.dash !== 'none' && /degraded/.test(look.text) && /40/.test(look.text), 'drawn dashed and labelled "degraded 40G"', JSON.stringify(look));
  ok(/tb2/.test(await page.$eval(sel, (g) => g.textContent)), 'labelled with its receptacles');
  let focused = false;
  for (let i = 0; i < 60 && !focused; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate((q) => document.activeElement && document.activeElement.matches(q), sel);
  }
  ok(focused, 'the degraded link is reached with the keyboard');
  const panel = `${scope} .link-detail`;
  await page.waitForFunction((p) => /Fix:/.test(document.querySelector(p).textContent), panel, { timeout: T });
  const detail = await page.textContent(panel);
  ok(bad.fix && detail.includes(bad.fix), 'its fix is shown on focus', detail);
  ok(/degraded/.test(detail) && (!bad.evidence || !bad.evidence.a || detail.includes(bad.evidence.a)), 'with its evidence', detail);
}

async function degraded(browser) {
  const page = await loggedIn(browser, url, token);
  await page.waitForFunction(() => document.querySelectorAll('#fleet-list tbody tr').length > 0, null, { timeout: T });
  const cluster = await page.$eval('#fleet-list section.cluster', (s) => s.dataset.cluster);
  const w = await hasWiring(cluster);
  if (!ok(!!w, `the controller answers GET /v1/clusters/${cluster}/wiring`)) return;
  const bad = (w.links || []).find((l) => l.verdict === 'degraded');
  ok(!!bad, 'the API calls one link degraded', JSON.stringify((w.links || []).map((l) => l.verdict)));
  if (bad) await checkDegraded(page, `section[data-cluster="${cluster}"]`, bad);
  await shot(page, shots, 'degraded-40g');
}

async function osskew(browser) {
  const page = await loggedIn(browser, url, token);
  await page.waitForFunction(() => document.querySelectorAll('#fleet-list tbody tr').length === 4, null, { timeout: T });
  const marked = await page.$$eval('#fleet-list tbody tr', (trs) => trs.filter((tr) => tr.querySelector('td.skew')).map((tr) => tr.dataset.node));
  ok(marked.join(',') === 'mac4', 'only mac4, on another build, is marked', marked.join(','));
  const cell = await page.$eval('#fleet-list tr[data-node=mac4] td.skew', (td) => td.textContent);
  ok(/25D125/.test(cell) && /differs from the cluster's 25C56/.test(cell), 'in words, naming both builds', cell);
  await page.waitForSelector('#rollouts article.rollout[data-id="1"]', { timeout: T });
  const ro = await page.textContent('#rollouts article.rollout[data-id="1"]');
  ok(/to 26\.3/.test(ro) && /halted/.test(ro) && /Cluster studio4; rolling, at most 1 out at once/.test(ro),
    'the rollouts panel shows rollout 1: target, state, cluster and mode', ro);
  const mac1 = await page.textContent('#rollouts tr[data-node=mac1]');
  ok(/failed at preflight/.test(mac1) && /no SSH key/.test(mac1), "and mac1's failed step with its reason", mac1);
  ok(/of 4 nodes done/.test(ro), 'and how many nodes are done', ro);
  await shot(page, shots, 'os-skew');
}

/** The job line of placement id, as the page shows it (null: none). */
async function jobLine(page, id) {
  return page.evaluate((pid) => {
    const p = document.querySelector(`#placements article.placement[data-id="${pid}"] p.job`);
    return p ? { state: p.dataset.state, job: p.dataset.job, text: p.textContent,
      word: p.querySelector('.state').textContent, reason: (p.querySelector('.reason') || {}).textContent || '' } : null;
  }, id);
}

async function jobs(browser) {
  const [, , , , , , p1, p2, jobId, port] = process.argv;
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, bypassCSP: true });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('# page error: ' + e.message));
  // GET /v1/jobs as the controller answers it, the job's state set to running
  let served = 0;
  const running = async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    for (const j of body.jobs || []) if (String(j.id) === jobId) Object.assign(j, { state: 'running', reason: null });
    served++;
    await route.fulfill({ response: res, json: body });
  };
  await page.route('**/v1/jobs', running);
  await page.goto(url + '/');
  await page.fill('#token', token);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector(`#placements article.placement[data-id="${p1}"] p.job`, { timeout: T });
  await page.evaluate(() => { window.__sameDocument = true; });
  const endpoint = `http://127.0.0.1:${port}/v1`;
  let l = await jobLine(page, p1);
  ok(served > 0 && l && l.state === 'running' && l.word === 'running' && l.job === jobId,
    `placement ${p1} shows job ${jobId} running, in words`, JSON.stringify(l));
  ok(l && l.text.includes(endpoint) && /\b0 restarts\b/.test(l.text) && l.reason === '',
    'with its endpoint and restarts, and no reason while it runs', l && l.text);
  ok(await jobLine(page, p2) === null && !!(await page.$(`#placements article.placement[data-id="${p2}"]`)),
    `placement ${p2}, without a job, shows no job line`);
  await shot(page, shots, 'job-running');

  // the real answer: the job failed (its node's SSH never answers)
  await page.unroute('**/v1/jobs', running);
  const t0 = Date.now();
  try {
    await page.waitForFunction((pid) => {
      const p = document.querySelector(`#placements article.placement[data-id="${pid}"] p.job`);
      return p && p.dataset.state === 'failed';
    }, p1, { timeout: 60000 });
  } catch (e) {
    console.log('# the job as the API has it: ' + JSON.stringify((await api(url, '/v1/jobs', token)).body));
    console.log('# the line: ' + JSON.stringify(await jobLine(page, p1)));
    throw e;
  }
  l = await jobLine(page, p1);
  const real = (await api(url, '/v1/jobs', token)).body;
  const j = ((real && real.jobs) || []).find((x) => String(x.id) === jobId) || {};
  ok(j.state === 'failed' && l.word === 'failed', `the line changes to the API's state, failed, ${((Date.now() - t0) / 1000).toFixed(1)} s later`,
    JSON.stringify({ api: j.state, page: l }));
  ok(!!j.reason && l.reason === j.reason && /did not start/.test(l.reason), 'with the reason the API gives', l.reason);
  ok(l.text.includes(endpoint), 'still naming the endpoint', l.text);
  ok(await page.evaluate(() => window.__sameDocument === true), 'without a reload');
  ok(await jobLine(page, p2) === null, `placement ${p2} still shows no job line`);
  await shot(page, shots, 'job-failed');
}

async function topology(browser) {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 600 }, bypassCSP: true });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('# page error: ' + e.message));
  const load = async (name) => {
    await page.goto(`${url}/topology-test/index.html?fixture=${name}`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: T });
    return (await api(url, `/topology-test/${name}.json`, '')).body;
  };
  let w = await load('degraded');
  const v = await page.$$eval('svg.topo .link', (gs) => gs.map((g) => g.dataset.verdict));
  ok(v.length === 6 && v.filter((x) => x === 'pass').length === 5, 'six links drawn, five passing', v.join(','));
  ok(/ring-only/.test(await page.textContent('.verdict')), 'the cluster verdict on top');
  ok((await page.$$('svg.topo .tnode')).length === 4, 'four nodes on the circle');
  await checkDegraded(page, 'section.cluster', w.links.find((l) => l.verdict === 'degraded'));
  await shot(page, shots, 'topology-degraded');

  w = await load('mixed');
  const links = await page.$$eval('svg.topo .link', (gs) => gs.map((g) => ({
    v: g.dataset.verdict, d: g.querySelector('.wire').getAttribute('d'),
    dash: getComputedStyle(g.querySelector('.wire')).strokeDasharray,
    mark: g.querySelector('.mk').tagName + (g.querySelector('.mk').getAttribute('d') || '').replace(/[0-9.\s-]/g, ''),
    text: g.querySelector('.lbl').textContent, label: g.getAttribute('aria-label'), tab: g.getAttribute('tabindex'),
  })));
  ok(links.length === 5, 'four planned links and one unexpected cable drawn', links.length);
  const pair = links.filter((l) => l.v === 'pass');
  ok(pair.length === 2 && pair[0].d !== pair[1].d, 'two cables between one pair drawn apart', JSON.stringify(pair.map((l) => l.d)));
  const kinds = ['pass', 'missing', 'unknown', 'unexpected'].map((k) => links.find((l) => l.v === k));
  ok(kinds.every(Boolean), 'pass, missing, unknown and unexpected all drawn', links.map((l) => l.v).join(','));
  if (kinds.every(Boolean)) {
    ok(new Set(kinds.map((l) => l.dash)).size === 4, 'each verdict has its own dash pattern', kinds.map((l) => l.dash).join(' | '));
    ok(new Set(kinds.map((l) => l.mark)).size === 4, 'and its own marker shape', kinds.map((l) => l.mark).join(' | '));
    ok(kinds.slice(1).every((l) => l.text.includes(l.v)), 'and says its verdict in words', kinds.map((l) => l.text).join(' | '));
  }
  ok(links.every((l) => l.tab === '0' && /: /.test(l.label)), 'every link focusable, with a spoken label');
  ok(/unusable/.test(await page.textContent('.verdict')) && /not cabled/.test(await page.textContent('.verdict')), 'verdict unusable with its reasons');
  await page.hover('svg.topo .link[data-verdict=unexpected] .hit');
  await page.waitForFunction(() => /Unplug/.test(document.querySelector('.link-detail').textContent), null, { timeout: T });
  ok(true, 'hovering the unexpected cable shows its fix');
  await shot(page, shots, 'topology-mixed');
  await checkRdmaUnavailable(page);
  for (const f of FIELD_FAULTS) await checkFieldFault(page, f);
  await ctx.close();
}

/** Issue 19's faults, as tbctl wiring check gives them on the scenarios named,
 *  put on degraded.json's slow link (mac2 -- mac3). cls: the drawing's class. */
const FIELD_FAULTS = [
  { verdict: 'bad-port', cls: 'bad', speed: 80, scenario: 'bad-port.json',
    // mac2's end moved to its receptacle 1, en2
    side: { receptacle: '1', interface: 'en2', rdma_device: 'rdma_en2' },
    evidence: 'mac2 tb1 (en2) next to Ethernet: connected at 80 Gb/s, peer 5D6E7F80 with RDMA service, ' +
      'IPv4 169.254.2.1, rdma_en2 active; RDMA enabled; build 25C56',
    fix: 'move the cable from mac2 receptacle 1 (next to Ethernet) to a free Thunderbolt 5 port: 4, 6; ' +
      'on a Mac Studio the port next to Ethernet (en2) carries no RDMA' },
  { verdict: 'no-gid', cls: 'bad', speed: 80, scenario: 'no-gid.json',
    evidence: 'mac2 tb2 (en2): connected at 80 Gb/s, peer 5D6E7F80 with RDMA service, IPv4 169.254.2.1, ' +
      'rdma_en2 active without an IPv4-mapped GID; RDMA enabled; build 25C56',
    fix: 'rdma_en2 on mac2 lists no IPv4-mapped GID, which JACCL needs (MLX PR 4191): give en2 its static ' +
      'per-cable address (tbctl node add mac2 --cluster studio4) or run on mac2 ' +
      '"ifconfig en2 inet 169.254.0.1 netmask 255.255.0.0 alias"' },
  { verdict: 'degraded', cls: 'warn', speed: 40, scenario: 'degraded-tb4.json', tb4: true,
    evidence: 'mac2 tb2 (en2): connected at 40 Gb/s, peer 5D6E7F80 with RDMA service, IPv4 169.254.2.1, ' +
      'rdma_en2 active; RDMA enabled; Thunderbolt 4 (free ports up to 40 Gb/s); build 25C56',
    fix: "mac2's port is Thunderbolt 4: RDMA needs Thunderbolt 5 at both ends (the link runs at 40 Gb/s; " +
      'its free ports say "Up to 40 Gb/s")' },
];

/** degraded.json with its slow link turned into fault f, served in place of a
 *  fixture file: drawn with f's class, its word and speed, its fix and
 *  evidence on hover. */
async function checkFieldFault(page, f) {
  const w = (await api(url, '/topology-test/degraded.json', '')).body;
  const l = w.links.find((x) => x.verdict === 'degraded');
  const name = f.tb4 ? 'degraded-tb4' : f.verdict;
  l.verdict = f.verdict;
  l.problems = [f.verdict];
  l.speed_gbps = f.speed;
  l.evidence.a = f.evidence;
  l.fix = f.fix;
  Object.assign(l.a, f.side || {});
  l.actual = `mac2 tb${l.a.receptacle} -- mac3 tb${l.b.receptacle} at ${f.speed} Gb/s`;
  w.verdict_text = `ring only: an RDMA ring through all 4 nodes, not a full mesh`;
  w.reasons = [`mac2 -- mac3: ${f.verdict}`];
  await page.route(`**/topology-test/${name}.json`, (r) =>
    r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(w) }));
  await page.goto(`${url}/topology-test/index.html?fixture=${name}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: T });
  const sel = `svg.topo .link[data-verdict=${f.verdict}]`;
  const look = await page.$$eval(sel, (gs) => gs.map((g) => ({
    cls: g.getAttribute('class'), text: g.querySelector('.lbl').textContent, label: g.getAttribute('aria-label'),
    dash: getComputedStyle(g.querySelector('.wire')).strokeDasharray,
  })));
  ok(look.length === 1, `${name} (${f.scenario}): one link drawn as ${f.verdict}`, JSON.stringify(look));
  if (look.length !== 1) return;
  const pass = await page.$eval('svg.topo .link[data-verdict=pass] .wire', (e) => getComputedStyle(e).strokeDasharray);
  ok(new RegExp(`\\b${f.cls}\\b`).test(look[0].cls) && look[0].dash !== 'none' && look[0].dash !== pass,
    `${name}: drawn as ${f.cls === 'bad' ? 'a fault' : 'degraded'}, not as a passing link`, JSON.stringify(look[0]));
  ok(look[0].text.includes(`${f.verdict} ${f.speed}G`) && look[0].label.includes(f.verdict),
    `${name}: saying ${f.verdict} in words and in its spoken label`, JSON.stringify(look[0]));
  await page.hover(`${sel} .hit`);
  const probe = f.fix.slice(0, 40);
  await page.waitForFunction((t) => document.querySelector('.link-detail').textContent.includes(t), probe, { timeout: T });
  const detail = await page.textContent('.link-detail');
  ok(detail.includes(f.fix) && detail.includes(f.evidence), `${name}: hovering it shows the fix and the evidence`, detail);
  await shot(page, shots, `topology-${name}`);
}

/** degraded.json with mac3 an M4 Mac mini whose rdma_ctl says enabled and whose
 *  ibv_devices lists nothing (ml-explore/mlx issue 3777): its 40 Gb/s link is
 *  rdma-unavailable (and degraded), as tbctl wiring check gives it on
 *  tests/scenarios/rdma-unavailable.json; served in place of a fixture file. */
async function checkRdmaUnavailable(page) {
  const w = (await api(url, '/topology-test/degraded.json', '')).body;
  const l = w.links.find((x) => x.verdict === 'degraded');
  l.verdict = 'rdma-unavailable';
  l.problems = ['rdma-unavailable', 'degraded'];
  l.b.rdma_device = null;
  l.evidence.b = 'mac3 tb3 (en3): connected at 40 Gb/s, peer 5D6E7F80 with RDMA service, IPv4 169.254.3.2, ' +
    'no RDMA device; RDMA enabled, ibv_devices lists none; build 25C56';
  l.fix = 'mac3 reports RDMA enabled but no RDMA device: RDMA over Thunderbolt needs Thunderbolt 5 at both ends ' +
    '(MLX issue 3777); use a Mac with Thunderbolt 5 ports, or, if mac3 has them, restart it and check that ' +
    'ibv_devices lists its rdma_en devices; ' + l.fix;
  w.verdict_text = 'ring only: an RDMA ring through all 4 nodes, not a full mesh';
  w.reasons = ['mac2 -- mac3: rdma-unavailable'];
  await page.route('**/topology-test/rdma-unavailable.json', (r) =>
    r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(w) }));
  await page.goto(`${url}/topology-test/index.html?fixture=rdma-unavailable`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: T });
  const sel = 'svg.topo .link[data-verdict=rdma-unavailable]';
  const look = await page.$$eval(sel, (gs) => gs.map((g) => ({
    cls: g.getAttribute('class'), text: g.querySelector('.lbl').textContent, label: g.getAttribute('aria-label'),
    dash: getComputedStyle(g.querySelector('.wire')).strokeDasharray,
    mark: g.querySelector('.mk').tagName + (g.querySelector('.mk').getAttribute('d') || '').replace(/[0-9.\s-]/g, ''),
  })));
  ok(look.length === 1, 'one link drawn as rdma-unavailable', JSON.stringify(look));
  if (look.length !== 1) return;
  const pass = await page.$eval('svg.topo .link[data-verdict=pass] .wire', (e) => getComputedStyle(e).strokeDasharray);
  ok(/\bbad\b/.test(look[0].cls) && look[0].dash !== 'none' && look[0].dash !== pass && look[0].mark === 'pathMLML',
    'as a fault: dotted, with a cross, not as degraded', JSON.stringify(look[0]));
  ok(/rdma-unavailable 40G/.test(look[0].text) && /rdma-unavailable/.test(look[0].label),
    'saying rdma-unavailable in words and in its spoken label', JSON.stringify(look[0]));
  await page.hover(`${sel} .hit`);
  await page.waitForFunction(() => /Thunderbolt 5 at both ends/.test(document.querySelector('.link-detail').textContent), null, { timeout: T });
  const detail = await page.textContent('.link-detail');
  ok(detail.includes(l.fix) && detail.includes(l.evidence.b) && /Also\s*degraded/.test(detail),
    'hovering it shows the fix, the evidence and the other problem (degraded)', detail);
  await shot(page, shots, 'topology-rdma-unavailable');
}

let browser = null;
try {
  browser = await launch();
  if (which === 'mesh4') await mesh4(browser);
  else if (which === 'degraded') await degraded(browser);
  else if (which === 'osskew') await osskew(browser);
  else if (which === 'jobs') await jobs(browser);
  else if (which === 'topology') await topology(browser);
  else throw new Error('unknown case ' + which);
} catch (e) {
  ok(false, 'case ' + which + ' ran to its end', e.message.split('\n')[0]);
} finally {
  if (browser) await browser.close();
}
process.exit(failures() ? 1 : 0);
