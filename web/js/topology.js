// A cluster's Thunderbolt wiring (GET /v1/clusters/{name}/wiring) as an SVG
// drawing: the nodes on a circle, one line per cable.  A link's verdict is
// shown by colour AND by the line's dash pattern, a marker shape and words,
// so that it reads without colour.  Hovering or focusing a link (each one is
// focusable) shows its evidence and fix in the panel beside the drawing.
// An os-skew a running rollout expects (expected_during_rollout) is drawn as
// expected ("os-skew, expected (rollout 3)", grey, data-verdict="expected"),
// not as a fault.
//
// mountWiring(el) and renderWiring(el, w) work on an element holding
// .verdict, .topo-wrap, .topo-box and .link-detail (a cluster's section).

import { esc } from './util.js';

const SIZE = 400;
const C = SIZE / 2;
const RING = 140;          // radius of the circle the nodes sit on
const NODE_R = 30;
const PORT_AT = 50;        // distance from a node's centre to its receptacle label

// verdict -> [style class, symbol, short words]
const STYLE = {
  pass: ['ok', '✓', 'pass'],
  degraded: ['warn', '▲', 'degraded'],
  unknown: ['unknown', '?', 'unknown'],
  unexpected: ['extra', '◆', 'unexpected'],
  // os-skew that the open rollout expects (expected_during_rollout): not a fault
  expected: ['unknown', '⧖', 'os-skew, expected'],
};
// every other verdict (missing, miswired, via-hub, bad-port, rdma-off,
// rdma-unavailable, no-gid, ...) is a fault: drawn dotted with a cross and its
// word; degraded's fix says when an end is Thunderbolt 4
const FAIL = ['bad', '✗'];

export function linkStyle(verdict) {
  const s = STYLE[verdict];
  return s ? { cls: s[0], sym: s[1], words: s[2] } : { cls: FAIL[0], sym: FAIL[1], words: verdict || 'unknown' };
}

/** The label of an end: "mac1 tb2" (or without a receptacle when unknown). */
function endName(e) {
  if (!e) return '?';
  return e.node + (e.receptacle ? ' tb' + e.receptacle : '');
}

function gbps(v) {
  return typeof v === 'number' ? v + ' Gb/s' : 'speed unknown';
}

/** Positions of the nodes on the circle, the first at the top. */
function layout(names) {
  const pos = new Map();
  const n = names.length;
  names.forEach((name, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(n, 1);
    pos.set(name, n === 1 ? [C, C] : [C + RING * Math.cos(a), C + RING * Math.sin(a)]);
  });
  return pos;
}

/** Every link and unexpected cable, as drawable items. */
function items(w) {
  const out = [];
  (w.links || []).forEach((l, i) =>
    out.push({ key: l.id || 'link' + i, l, verdict: l.expected_during_rollout ? 'expected' : l.verdict }));
  (w.unexpected || []).forEach((u, i) => out.push({ key: 'unexpected' + i, l: u, verdict: 'unexpected' }));
  return out;
}

/** Quadratic curve control point: cables between one pair fan out. */
function curve(p, q, k, m) {
  const mx = (p[0] + q[0]) / 2, my = (p[1] + q[1]) / 2;
  const dx = q[0] - p[0], dy = q[1] - p[1];
  const len = Math.hypot(dx, dy) || 1;
  const off = (k - (m - 1) / 2) * 48;
  return [mx - (dy / len) * off, my + (dx / len) * off];
}

function at(p, c, q, t) {
  const u = 1 - t;
  return [u * u * p[0] + 2 * u * t * c[0] + t * t * q[0], u * u * p[1] + 2 * u * t * c[1] + t * t * q[1]];
}

function marker(cls, x, y) {
  const f = (v) => v.toFixed(1);
  if (cls === 'ok') return `<circle class="mk" cx="${f(x)}" cy="${f(y)}" r="6"/>`;
  if (cls === 'warn')
    return `<path class="mk" d="M${f(x)} ${f(y - 8)}L${f(x + 7)} ${f(y + 5)}L${f(x - 7)} ${f(y + 5)}Z"/>`;
  if (cls === 'extra')
    return `<path class="mk" d="M${f(x)} ${f(y - 7)}L${f(x + 7)} ${f(y)}L${f(x)} ${f(y + 7)}L${f(x - 7)} ${f(y)}Z"/>`;
  if (cls === 'unknown') return `<rect class="mk" x="${f(x - 5)}" y="${f(y - 5)}" width="10" height="10"/>`;
  return `<path class="mk" d="M${f(x - 6)} ${f(y - 6)}L${f(x + 6)} ${f(y + 6)}M${f(x + 6)} ${f(y - 6)}L${f(x - 6)} ${f(y + 6)}"/>`;
}

/** Where a label of width wd goes along a link: the first spot, along the
 *  link or beside it, whose box (with the marker above it) overlaps none of
 *  the labels already placed. */
function placeLabel(p, c, q, wd, taken) {
  const free = (xy) => taken.every((o) => Math.abs(o[0] - xy[0]) > (o[2] + wd) / 2 + 4 || Math.abs(o[1] - xy[1]) > 28);
  const dx = q[0] - p[0], dy = q[1] - p[1], len = Math.hypot(dx, dy) || 1;
  for (const side of [0, 30, -30])
    for (const t of [0.5, 0.38, 0.62, 0.3, 0.7]) {
      const m = at(p, c, q, t);
      const xy = [m[0] - (dy / len) * side, m[1] + (dx / len) * side];
      if (free(xy)) {
        taken.push([xy[0], xy[1], wd]);
        return xy;
      }
    }
  const xy = at(p, c, q, 0.5);
  taken.push([xy[0], xy[1], wd]);
  return xy;
}

/** A point at distance d from p towards the curve. */
function near(p, c, d) {
  const dx = c[0] - p[0], dy = c[1] - p[1];
  const len = Math.hypot(dx, dy) || 1;
  return [p[0] + (dx / len) * d, p[1] + (dy / len) * d];
}

function linkSvg(it, pos, k, m, taken) {
  const l = it.l;
  const a = l.a || {}, b = l.b || {};
  const p = pos.get(a.node), q = pos.get(b.node);
  if (!p || !q) return '';
  const c = curve(p, q, k, m);
  const st = linkStyle(it.verdict);
  const words = it.verdict === 'pass' ? gbps(l.speed_gbps)
    : it.verdict === 'expected' ? `${st.words} (rollout ${l.expected_during_rollout})`
    : st.words + (typeof l.speed_gbps === 'number' ? ' ' + l.speed_gbps + 'G' : '');
  const mid = placeLabel(p, c, q, (words.length + 2) * 6.5, taken);
  const pa = near(p, c, PORT_AT), pb = near(q, c, PORT_AT);
  const f = (v) => v.toFixed(1);
  const label = `${endName(a)} to ${endName(b)}: ` +
    (it.verdict === 'expected' ? `os-skew, expected during rollout ${l.expected_during_rollout}` : st.words) +
    `, ${gbps(l.speed_gbps)}`;
  return (
    `<g class="link ${st.cls}" tabindex="0" role="button" data-key="${esc(it.key)}" data-verdict="${esc(it.verdict)}" aria-label="${esc(label)}">` +
    `<path class="hit" d="M${f(p[0])} ${f(p[1])}Q${f(c[0])} ${f(c[1])} ${f(q[0])} ${f(q[1])}"/>` +
    `<path class="wire" d="M${f(p[0])} ${f(p[1])}Q${f(c[0])} ${f(c[1])} ${f(q[0])} ${f(q[1])}"/>` +
    marker(st.cls, mid[0], mid[1] - 14) +
    `<text class="lbl" x="${f(mid[0])}" y="${f(mid[1] + 6)}">${esc(st.sym + ' ' + words)}</text>` +
    (a.receptacle ? `<text class="port" x="${f(pa[0])}" y="${f(pa[1] + 4)}">tb${esc(a.receptacle)}</text>` : '') +
    (b.receptacle ? `<text class="port" x="${f(pb[0])}" y="${f(pb[1] + 4)}">tb${esc(b.receptacle)}</text>` : '') +
    `</g>`
  );
}

/** The SVG markup of a wiring answer. */
export function topologySvg(w, title) {
  const names = (w.nodes || []).slice();
  for (const it of items(w))
    for (const e of [it.l.a, it.l.b]) if (e && e.node && !names.includes(e.node)) names.push(e.node);
  const pos = layout(names);
  const pairs = new Map();
  const all = items(w);
  for (const it of all) {
    const k = [it.l.a && it.l.a.node, it.l.b && it.l.b.node].sort().join('\u0000');
    if (!pairs.has(k)) pairs.set(k, []);
    pairs.get(k).push(it);
  }
  const taken = [];
  let links = '';
  for (const group of pairs.values()) group.forEach((it, k) => (links += linkSvg(it, pos, k, group.length, taken)));
  let nodes = '';
  for (const [name, [x, y]] of pos)
    nodes += `<g class="tnode"><circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${NODE_R}"/><text x="${x.toFixed(1)}" y="${(y + 4).toFixed(1)}">${esc(name)}</text></g>`;
  return (
    `<svg class="topo" viewBox="0 0 ${SIZE} ${SIZE}" role="group" aria-label="${esc(title)}">` +
    `<g class="links">${links}</g><g class="nodes">${nodes}</g></svg>`
  );
}

/** The details of one link, as HTML for the panel beside the drawing. */
export function linkDetail(w, key) {
  const it = items(w).find((x) => x.key === key);
  if (!it) return '';
  const l = it.l, st = linkStyle(it.verdict);
  const ev = l.evidence || {};
  const probs = (l.problems || []).filter((p) => p !== it.verdict && !(it.verdict === 'expected' && p === 'os-skew'));
  const row = (k, v) => (v ? `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>` : '');
  return (
    `<h4><span class="badge ${st.cls}">${esc(st.sym + ' ' + (it.verdict === 'expected' ? `os-skew, expected during rollout ${l.expected_during_rollout}` : st.words))}</span> ${esc(endName(l.a))} — ${esc(endName(l.b))}</h4>` +
    `<dl>` +
    row('Also', probs.join(', ')) +
    row('Speed', gbps(l.speed_gbps)) +
    row('Expected', l.expected) +
    row('Actual', l.actual) +
    row('Evidence ' + ((l.a && l.a.node) || 'a'), ev.a) +
    row('Evidence ' + ((l.b && l.b.node) || 'b'), ev.b) +
    row('Interfaces', [l.a, l.b].filter(Boolean).map((e) => `${e.node}: ${e.interface || '?'} ${e.rdma_device || ''} ${e.ipv4 || 'no IPv4'}`).join('; ')) +
    `</dl>` +
    (l.fix && it.verdict === 'expected' ? `<p class="fix none">${esc(l.fix)}</p>`
      : l.fix ? `<p class="fix"><strong>Fix:</strong> ${esc(l.fix)}</p>` : `<p class="fix none">Nothing to fix.</p>`)
  );
}

// ---- a cluster's wiring view ----

const views = new WeakMap();   // element -> {wiring, shown}

/** The cluster's verdict, reasons and drawing, from a wiring answer w. */
export function renderWiring(el, w) {
  const v = views.get(el) || {};
  views.set(el, v);
  v.wiring = w;
  const box = el.querySelector('.topo-box');
  const cls = { 'tensor-ready': 'ok', 'ring-only': 'warn', 'pipeline-only': 'warn' }[w.verdict] || 'bad';
  const sym = { ok: '✓', warn: '▲', bad: '✗' }[cls];
  const pass = (w.links || []).filter((l) => l.pass).length;
  el.querySelector('.verdict').innerHTML =
    `<p><span class="badge ${cls}" data-verdict="${esc(w.verdict)}">${sym} ${esc(w.verdict)}</span> ${esc(w.verdict_text || '')}` +
    ` <span class="muted">(${pass} of ${(w.links || []).length} links pass; topology ${esc(w.topology || '?')})</span></p>` +
    ((w.reasons || []).length ? `<ul class="reasons">${w.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : '');
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  box.innerHTML = topologySvg(w, 'Thunderbolt cabling of ' + (w.cluster || ''));
  el.querySelector('.topo-wrap').hidden = false;
  if (focused) {
    const again = [...box.querySelectorAll('.link')].find((g) => g.dataset.key === focused);
    if (again) again.focus();
  }
  if (v.shown) showDetail(el, v.shown);
}

function showDetail(el, key) {
  const v = views.get(el);
  if (!v || !v.wiring) return;
  v.shown = key;
  const html = linkDetail(v.wiring, key);
  const panel = el.querySelector('.link-detail');
  if (html && panel.innerHTML !== html) panel.innerHTML = html;
  for (const g of el.querySelectorAll('.link')) g.classList.toggle('active', g.dataset.key === key);
}

/** Show a link's details when it is hovered, focused, or pressed with Enter or Space. */
export function mountWiring(el) {
  const box = el.querySelector('.topo-box');
  const pick = (e) => {
    const g = e.target.closest && e.target.closest('.link');
    if (g) showDetail(el, g.dataset.key);
  };
  box.addEventListener('mouseover', pick);
  box.addEventListener('focusin', pick);
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      pick(e);
      e.preventDefault();
    }
  });
}
