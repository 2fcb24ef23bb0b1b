// The fleet: one section per cluster (and one for the nodes in none), each
// with its wiring verdict, its topology drawing and a table of its nodes.
// Rows are kept by node name and rewritten only when what they show
// changed.  What the node list does not carry (temperature, wired limit:
// GET /v1/nodes/{name}; the power sparkline: GET /v1/nodes/{name}/samples)
// is fetched only for the rows on screen, so a fleet of a thousand nodes
// costs a few dozen small requests, not a thousand.

import { get, ApiError } from './api.js';
import { esc, gib, num, age, now, $ } from './util.js';
import { mountWiring, renderWiring } from './topology.js';

const NONE = '\u0000none';          // the key of the "no cluster" section
const DETAIL_EVERY = 5;             // s between two detail fetches of a row
const SPARK_EVERY = 30;             // s between two sparkline fetches of a row
const WIRING_EVERY = 2;             // s between two wiring fetches of a cluster
const SPAN = 3600;                  // the sparkline's hour
const MAX_INFLIGHT = 6;

const sections = new Map();         // cluster key -> {el, tbody, rows: Map, order}
const nodesByName = new Map();      // name -> node from /v1/nodes
const extra = new Map();            // name -> {detail, detailAt, spark, sparkAt, reportAt}
const visible = new Set();          // names of the rows on screen
const visibleClusters = new Set();
let inflight = 0;
let wiringMissing = 0;              // when the controller answered that it has no wiring API

const rowObserver = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const n = e.target.dataset.node;
    if (e.isIntersecting) visible.add(n);
    else visible.delete(n);
  }
}, { rootMargin: '200px' });

const clusterObserver = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const c = e.target.dataset.cluster;
    if (e.isIntersecting) visibleClusters.add(c);
    else visibleClusters.delete(c);
  }
}, { rootMargin: '200px' });

function sectionHtml(key, n) {
  const id = 'c-' + (key === NONE ? 'none' : key);
  const title = key === NONE ? 'Nodes in no cluster' : 'Cluster ' + key;
  const wiring = key === NONE ? '' :
    `<div class="wiring"><div class="verdict" aria-live="polite"><p class="muted">Wiring: loading…</p></div>` +
    `<div class="topo-wrap"><div class="topo-box"></div><div class="link-detail" aria-live="polite"><p class="muted">Hover over or focus a cable to see its evidence and fix.</p></div></div></div>`;
  return (
    `<h2 id="${esc(id)}-h">${esc(title)} <span class="count">${n} node${n === 1 ? '' : 's'}</span></h2>` + wiring +
    `<div class="table-wrap"><table class="nodes" aria-labelledby="${esc(id)}-h"><thead><tr>` +
    `<th scope="col">Node</th><th scope="col">State</th><th scope="col">Model, chip</th>` +
    `<th scope="col">Memory used / total</th><th scope="col">Wired limit</th><th scope="col">Power, last hour</th>` +
    `<th scope="col">Temp.</th><th scope="col">OS build</th><th scope="col">RDMA</th><th scope="col">Last report</th>` +
    `</tr></thead><tbody></tbody></table></div>`
  );
}

/** The record of a section element (new, or from the first render's markup). */
function adopt(el, key) {
  const s = { el, tbody: el.querySelector('tbody'), rows: new Map(), order: '', html: new Map(), wiringText: null, wiring: null, wiringAt: 0 };
  sections.set(key, s);
  if (key !== NONE) {
    clusterObserver.observe(el);
    mountWiring(el);
  }
  return s;
}

function getSection(key, n) {
  let s = sections.get(key);
  if (s) {
    const c = s.el.querySelector('h2 .count');
    const txt = n + ' node' + (n === 1 ? '' : 's');
    if (c.textContent !== txt) c.textContent = txt;
    return s;
  }
  const el = document.createElement('section');
  el.className = 'cluster';
  el.dataset.cluster = key;
  el.innerHTML = sectionHtml(key, n);
  return adopt(el, key);
}

/**
 * The first render: every section and row in one piece of markup (one
 * parse instead of one per section and row), then the records adopted.
 */
function firstRender(root, keys, groups) {
  const rowsOf = new Map();
  let html = '';
  for (const k of keys) {
    const list = groups.get(k);
    const major = k === NONE ? null : majorityBuild(list);
    const rows = list.map((n) => rowHtml(n, major));
    rowsOf.set(k, rows);
    html += `<section class="cluster" data-cluster="${esc(k)}">` +
      sectionHtml(k, list.length).replace('<tbody></tbody>', '<tbody>' +
        list.map((n, i) => `<tr data-node="${esc(n.name)}" class="st-${esc(n.state)}">${rows[i]}</tr>`).join('') + '</tbody>') +
      '</section>';
  }
  root.innerHTML = html;
  [...root.children].forEach((el, j) => {
    const k = keys[j], list = groups.get(k), rows = rowsOf.get(k);
    const s = adopt(el, k);
    [...s.tbody.rows].forEach((tr, i) => {
      s.rows.set(list[i].name, tr);
      s.html.set(list[i].name, rows[i]);
      rowObserver.observe(tr);
    });
    s.order = list.map((n) => n.name).join('\n');
  });
}

/** The OS build most nodes of a cluster run (null when none is known). */
function majorityBuild(nodes) {
  const count = new Map();
  for (const n of nodes) if (n.os_build) count.set(n.os_build, (count.get(n.os_build) || 0) + 1);
  let best = null, k = 0;
  for (const [b, c] of count) if (c > k || (c === k && b > best)) [best, k] = [b, c];
  return count.size > 1 ? best : null;
}

function sparkSvg(samples, nowW) {
  const pts = samples.filter((s) => typeof s.power_watts === 'number').map((s) => [s.t, s.power_watts]);
  if (typeof nowW === 'number') pts.push([now(), nowW]);
  if (pts.length < 2) return '';
  const t1 = now(), t0 = t1 - SPAN;
  let lo = Infinity, hi = -Infinity;
  for (const p of pts) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); }
  const span = hi - lo || 1;
  const d = pts.map((p) => `${(((p[0] - t0) / SPAN) * 80).toFixed(1)},${(18 - ((p[1] - lo) / span) * 16).toFixed(1)}`).join(' ');
  return `<svg class="spark" viewBox="0 0 80 20" role="img" aria-label="power over the last hour, ${lo.toFixed(0)} to ${hi.toFixed(0)} W"><polyline points="${d}"/></svg>`;
}

/** Used/total as a bar: an SVG (a <meter> costs a shadow tree per row). */
function memBar(f) {
  const pct = Math.round(Math.min(Math.max(f, 0), 1) * 100);
  const cls = pct >= 90 ? 'hi' : pct >= 75 ? 'mid' : 'lo';
  return `<svg class="bar ${cls}" viewBox="0 0 100 10" role="img" aria-label="${pct}% used"><rect class="bg" width="100" height="10"/><rect width="${pct}" height="10"/></svg>`;
}

function rowHtml(n, major) {
  const x = extra.get(n.name) || {};
  const d = x.detail;
  const used = n.memory_used_bytes, total = n.memory_total_bytes;
  const mem = typeof used === 'number' && typeof total === 'number' && total > 0
    ? memBar(used / total) + ` <span>${gib(used)} / ${gib(total)}</span>`
    : '—';
  let wired = '…';
  let temp = '…';
  if (d) {
    const wl = d.memory && d.memory.gpu_wired_limit_bytes;
    wired = wl === 0 ? 'default' : gib(wl);
    const th = d.thermal || {};
    temp = num(th.cpu_celsius, '°C') + (typeof th.gpu_celsius === 'number' ? ' / ' + num(th.gpu_celsius, '°C') : '');
  } else if (x.detailFailed) {
    wired = temp = '—';
  }
  const os = (n.os_version || '') + (n.os_build ? ' (' + n.os_build + ')' : '');
  const skew = major && n.os_build && n.os_build !== major;
  const osCell = skew
    ? `<td class="skew" title="differs from ${esc(major)}, the build most nodes of this cluster run">⚠ ${esc(os)} <span class="sr">differs from the cluster's ${esc(major)}</span></td>`
    : `<td>${esc(os || '—')}</td>`;
  const rdma = n.rdma || 'unknown';
  return (
    `<th scope="row">${esc(n.name)}</th>` +
    `<td><span class="state s-${esc(n.state)}">${esc(n.state)}</span>${n.reason ? ' <span class="reason">' + esc(n.reason) + '</span>' : ''}${n.unexpected_reboot ? ' <span class="reason">rebooted unexpectedly</span>' : ''}</td>` +
    `<td>${esc(n.model || '—')}<br><span class="muted">${esc(n.chip || '')}</span></td>` +
    `<td class="mem">${mem}</td>` +
    `<td>${esc(wired)}</td>` +
    `<td class="power">${esc(num(n.power_watts, 'W'))} ${x.spark ? sparkSvg(x.spark, n.power_watts) : ''}</td>` +
    `<td>${esc(temp)}</td>` + osCell +
    `<td><span class="rdma r-${esc(rdma)}">${esc(rdma)}</span></td>` +
    `<td data-age="${typeof n.last_report_at === 'number' ? n.last_report_at : ''}">${esc(age(n.last_report_at))}</td>`
  );
}

function renderSection(s, list) {
  const major = s.el.dataset.cluster === NONE ? null : majorityBuild(list);
  const order = list.map((n) => n.name).join('\n');
  if (s.order === '' && list.length) {
    // a new section: every row in one piece of markup
    const html = list.map((n) => rowHtml(n, major));
    s.tbody.innerHTML = list.map((n, i) => `<tr data-node="${esc(n.name)}" class="st-${esc(n.state)}">${html[i]}</tr>`).join('');
    [...s.tbody.rows].forEach((tr, i) => {
      s.rows.set(list[i].name, tr);
      s.html.set(list[i].name, html[i]);
      rowObserver.observe(tr);
    });
    s.order = order;
    return;
  }
  if (order !== s.order) {
    const seen = new Set(list.map((n) => n.name));
    for (const [name, tr] of s.rows) if (!seen.has(name)) { rowObserver.unobserve(tr); tr.remove(); s.rows.delete(name); s.html.delete(name); }
    const frag = document.createDocumentFragment();
    const fresh = [];
    for (const n of list) {
      let tr = s.rows.get(n.name);
      if (!tr) {
        tr = document.createElement('tr');
        tr.dataset.node = n.name;
        s.rows.set(n.name, tr);
        fresh.push(tr);
      }
      frag.appendChild(tr);
    }
    s.tbody.appendChild(frag);
    for (const tr of fresh) rowObserver.observe(tr);
    s.order = order;
  }
  for (const n of list) {
    const h = rowHtml(n, major);
    if (s.html.get(n.name) !== h) {
      const tr = s.rows.get(n.name);
      tr.innerHTML = h;
      tr.className = 'st-' + n.state;
      s.html.set(n.name, h);
    }
  }
}

/** Draw the fleet from GET /v1/nodes and GET /v1/clusters. */
export function renderFleet(nodes, clusters) {
  nodesByName.clear();
  const groups = new Map();
  for (const c of clusters) groups.set(c.name, []);
  for (const n of nodes) {
    nodesByName.set(n.name, n);
    const k = n.cluster || NONE;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(n);
  }
  const keys = [...groups.keys()].filter((k) => k !== NONE).sort();
  if (groups.has(NONE) && groups.get(NONE).length) keys.push(NONE);
  const root = $('fleet-list');
  for (const k of keys) groups.get(k).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (sections.size === 0) firstRender(root, keys, groups);
  let prev = null;
  for (const k of keys) {
    const list = groups.get(k);
    const s = getSection(k, list.length);
    renderSection(s, list);
    const want = prev ? prev.nextSibling : root.firstChild;
    if (want !== s.el) root.insertBefore(s.el, want);
    prev = s.el;
  }
  for (const [k, s] of sections)
    if (!groups.has(k) || (k === NONE && !groups.get(k).length)) {
      clusterObserver.unobserve(s.el);
      for (const tr of s.rows.values()) rowObserver.unobserve(tr);
      s.el.remove();
      sections.delete(k);
    }
  const counts = {};
  for (const n of nodes) counts[n.state] = (counts[n.state] || 0) + 1;
  $('summary').textContent = `${nodes.length} node${nodes.length === 1 ? '' : 's'} in ${clusters.length} cluster${clusters.length === 1 ? '' : 's'}` +
    (nodes.length ? ': ' + Object.keys(counts).sort().map((k) => counts[k] + ' ' + k).join(', ') : '');
}

/** Refresh the "last report" ages (every second). */
export function tickAges() {
  for (const s of sections.values())
    for (const name of s.rows.keys()) {
      if (!visible.has(name)) continue;
      const td = s.rows.get(name).querySelector('td[data-age]');
      if (td && td.dataset.age) td.textContent = age(Number(td.dataset.age));
    }
}

async function limited(fn) {
  inflight++;
  try {
    await fn();
  } finally {
    inflight--;
  }
}

function rerenderRow(name) {
  const n = nodesByName.get(name);
  if (!n) return;
  const s = sections.get(n.cluster || NONE);
  if (!s) return;
  const list = [...s.rows.keys()].map((k) => nodesByName.get(k)).filter(Boolean);
  const major = s.el.dataset.cluster === NONE ? null : majorityBuild(list);
  const h = rowHtml(n, major);
  if (s.html.get(name) !== h) {
    s.rows.get(name).innerHTML = h;
    s.html.set(name, h);
  }
}

/** Fetch what the visible rows lack or hold too old; at most a few at once. */
export function refreshVisible(onError) {
  const t = now();
  for (const name of visible) {
    if (inflight >= MAX_INFLIGHT) return;
    const n = nodesByName.get(name);
    if (!n) continue;
    const x = extra.get(name) || {};
    extra.set(name, x);
    const path = '/v1/nodes/' + encodeURIComponent(name);
    if ((!x.detailAt || (t - x.detailAt > DETAIL_EVERY && x.reportAt !== n.last_report_at)) && !x.detailBusy) {
      x.detailBusy = true;
      limited(async () => {
        try {
          const d = await get(path);
          x.detail = d.report || {};
          x.detailFailed = false;
        } catch (e) {
          x.detailFailed = true;
          if (!(e instanceof ApiError)) onError(e);
        }
        x.detailAt = now();
        x.reportAt = n.last_report_at;
        x.detailBusy = false;
        rerenderRow(name);
      });
    } else if ((!x.sparkAt || t - x.sparkAt > SPARK_EVERY) && !x.sparkBusy) {
      x.sparkBusy = true;
      limited(async () => {
        try {
          const r = await get(path + '/samples?step=60&since=' + Math.floor(now() - SPAN));
          x.spark = r.samples || [];
        } catch (e) {
          if (!(e instanceof ApiError)) onError(e);
        }
        x.sparkAt = now();
        x.sparkBusy = false;
        rerenderRow(name);
      });
    }
  }
}

// ---- wiring ----

function wiringUnavailable(s, msg) {
  s.el.querySelector('.verdict').innerHTML = `<p class="muted">${esc(msg)}</p>`;
  s.el.querySelector('.topo-box').innerHTML = '';
  s.el.querySelector('.topo-wrap').hidden = true;
  s.wiringText = null;
}

/** Fetch the wiring of the clusters on screen (every WIRING_EVERY s each). */
export function refreshWiring(onError) {
  const t = now();
  if (wiringMissing && t - wiringMissing < 30) return;
  for (const key of visibleClusters) {
    const s = sections.get(key);
    // (a tick's jitter must not make a 2 s period skip to the next tick)
    if (!s || s.busy || t - s.wiringAt < WIRING_EVERY - 0.5) continue;
    s.busy = true;
    s.wiringAt = t;   // when asked, not when answered: the period stays WIRING_EVERY
    get('/v1/clusters/' + encodeURIComponent(key) + '/wiring')
      .then((w) => {
        wiringMissing = 0;
        const text = JSON.stringify(w);
        if (text !== s.wiringText) {
          s.wiringText = text;
          renderWiring(s.el, w);
        }
      })
      .catch((e) => {
        if (e instanceof ApiError && e.status === 404 && /no such path/.test(e.message)) {
          wiringMissing = now();
          for (const x of sections.values()) if (x.el.dataset.cluster !== NONE) wiringUnavailable(x, 'Wiring validation is not available on this controller.');
        } else if (e instanceof ApiError) {
          wiringUnavailable(s, 'Wiring: ' + e.message);
        } else onError(e);
      })
      .finally(() => {
        s.busy = false;
      });
  }
}

