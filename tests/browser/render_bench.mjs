// The dashboard's first render in headless Chromium, for tests/bench/dashboard.sh:
//   node render_bench.mjs URL TOKEN RUNS
// Prints one line of figures (medians over RUNS cold loads, each in a new
// browser context, so nothing is cached):
//   dashboard_ms=  navigation start to the first frame painted with every
//                  node's row (the page's mark "tbmesh-first-frame")
//   static_ms=     the same for /static.html, a plain page holding the same
//                  node table as HTML (mark "static-first-frame")
//   weight_bytes=  HTML + CSS + JS the dashboard loaded (the API's JSON not counted)
//   rows=          rows the dashboard drew
import { launch } from './lib.mjs';

const [, , url, token, runsArg] = process.argv;
const runs = Number(runsArg || 5);
const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];

async function once(browser, path, mark, withToken) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, bypassCSP: true });
  if (withToken) await ctx.addInitScript((t) => sessionStorage.setItem('tbmesh.token', t), token);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('# page error: ' + e.message));
  await page.goto(url + path);
  await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, mark, { timeout: 30000, polling: 50 });
  if (process.env.BENCH_DEBUG) console.log('# ' + path + ' ' + JSON.stringify(await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    const o = { resp: n.responseEnd, dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd };
    for (const e of performance.getEntriesByType('mark')) o[e.name] = e.startTime;
    for (const e of performance.getEntriesByType('resource')) o[new URL(e.name).pathname] = [e.startTime, e.responseEnd].map(Math.round);
    return o;
  })));
  const r = await page.evaluate((m) => ({
    t: performance.getEntriesByName(m)[0].startTime,
    rows: document.querySelectorAll('tbody tr[data-node]').length,
    bytes: performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
      .filter((e) => !new URL(e.name).pathname.startsWith('/v1/'))
      .reduce((s, e) => s + e.encodedBodySize, 0),
  }), mark);
  await ctx.close();
  return r;
}

const browser = await launch();
const dash = [], stat = [];
let weight = 0, rows = 0;
try {
  await once(browser, '/', 'tbmesh-first-frame', true); // warm the controller and the disk cache
  for (let i = 0; i < runs; i++) {
    const d = await once(browser, '/', 'tbmesh-first-frame', true);
    const s = await once(browser, '/static.html', 'static-first-frame', false);
    dash.push(d.t);
    stat.push(s.t);
    weight = d.bytes;
    rows = d.rows;
  }
} finally {
  await browser.close();
}
console.log(`dashboard_ms=${median(dash).toFixed(0)} static_ms=${median(stat).toFixed(0)} weight_bytes=${weight} rows=${rows}`);
