// Placements (GET /v1/placements) each with its job's line (GET
// /v1/jobs), rollouts (GET /v1/rollouts) and the live list of events (GET
// /v1/events).  A panel whose endpoint the controller does not have (404)
// stays hidden.

import { get, ApiError, NetError } from './api.js';
import { esc, gib, clock, $ } from './util.js';

const EVENTS_KEPT = 200;

// ---- placements ----

function ranksTable(ranks) {
  if (!ranks || !ranks.length) return '';
  const rows = ranks.map((r) =>
    `<tr><td>${esc(r.rank)}</td><th scope="row">${esc(r.node)}</th>` +
    `<td>${esc(r.layer_start)}–${esc(r.layer_end)}</td><td>${gib(r.weights_bytes)}</td><td>${gib(r.kv_cache_bytes)}</td>` +
    `<td>${gib(r.total_bytes)} / ${gib(r.usable_bytes)}</td><td>${gib(r.free_after_bytes)}</td></tr>`).join('');
  return (
    `<table class="ranks"><thead><tr><th scope="col">Rank</th><th scope="col">Node</th><th scope="col">Layers</th>` +
    `<th scope="col">Weights</th><th scope="col">KV cache</th><th scope="col">Total / usable</th><th scope="col">Free after</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>`
  );
}

// ---- a placement's job (GET /v1/jobs: proto/job_api.h's shape) ----
//   {"jobs":[{"id","placement","state","reason","restarts","endpoint",...}]}

/** The newest job of each placement, by placement id. */
function jobsByPlacement(jobs) {
  const by = new Map();
  for (const j of jobs || []) {
    const had = by.get(j.placement);
    if (!had || j.id > had.id) by.set(j.placement, j);
  }
  return by;
}

function jobLine(j) {
  if (!j) return '';
  const st = j.state || 'unknown';
  const restarts = typeof j.restarts === 'number' ? `${j.restarts} restart${j.restarts === 1 ? '' : 's'}` : '';
  const parts = [restarts, j.endpoint ? `endpoint <code>${esc(j.endpoint)}/v1</code>` : ''].filter(Boolean);
  return `<p class="job" data-job="${esc(j.id)}" data-state="${esc(st)}">Job ${esc(j.id)} ` +
    `<span class="state s-${esc(st)}">${esc(st)}</span>` + (parts.length ? '; ' + parts.join('; ') : '') +
    (st !== 'running' && j.reason ? `. <span class="reason">${esc(j.reason)}</span>` : '') + `</p>`;
}

export function placementsHtml(list, jobs = []) {
  if (!list.length) return '<p class="muted">No placements.</p>';
  const by = jobsByPlacement(jobs);
  return list.map((p) => {
    const st = p.state || 'proposed';
    const range = p.estimate_high > 0 ? ` (${p.estimate_low.toFixed(0)}-${p.estimate_high.toFixed(0)})` : '';
    const est = typeof p.estimate_tokens_per_second === 'number' ? p.estimate_tokens_per_second.toFixed(1) + ' tokens/s' + range : '—';
    return (
      `<article class="placement" data-id="${esc(p.id)}"><h3>${esc(p.model)} <span class="muted">on ${esc(p.cluster)}</span> ` +
      `<span class="state s-${esc(st)}">${esc(st)}</span></h3>` +
      `<p>Strategy <strong>${esc(p.strategy)}</strong>; estimate ${esc(est)}; context ${esc(p.context)}, batch ${esc(p.batch)}.` +
      (p.why ? ` <span class="muted">${esc(p.why)}</span>` : '') + `</p>` +
      jobLine(by.get(p.id)) + ranksTable(p.ranks) + `</article>`
    );
  }).join('');
}

// ---- rollouts (GET /v1/rollouts: proto/rollout_json.c's shape) ----
//   {"rollouts":[{"id","cluster","target","label","mode","max_unavailable",
//     "window","state","reason","created_at","updated_at",
//     "nodes":[{"node","step","running","since","last_line","reason","failed_step",...}]}]}
// Strings that are empty come as null.

const FINISHED_STEPS = new Set(['done', 'skipped']);

function rolloutProgress(nodes) {
  if (!nodes.length) return '';
  const done = nodes.filter((n) => FINISHED_STEPS.has(n.step)).length;
  const pct = Math.round((done / nodes.length) * 100);
  return `<progress max="${nodes.length}" value="${done}" aria-label="nodes done">${pct}%</progress> ` +
    `${done} of ${nodes.length} nodes done`;
}

function rolloutNodeRow(n) {
  const step = n.step === 'failed' && n.failed_step ? `failed at ${n.failed_step}` : n.step;
  const since = typeof n.since === 'number' && isFinite(n.since) ? clock(n.since) : '';
  const note = n.reason || n.last_line || '';
  return `<tr data-node="${esc(n.node)}"><th scope="row">${esc(n.node)}</th>` +
    `<td class="step s-${esc(n.step)}">${esc(step)}${n.running ? ' <span class="muted">(running)</span>' : ''}</td>` +
    `<td>${esc(since)}</td><td>${esc(note)}</td></tr>`;
}

export function rolloutsHtml(list) {
  if (!list.length) return '<p class="muted">No rollouts.</p>';
  return list.map((r) => {
    const nodes = Array.isArray(r.nodes) ? r.nodes : [];
    const rows = nodes.map(rolloutNodeRow).join('');
    const mode = r.mode === 'rolling' ? `rolling, at most ${esc(r.max_unavailable)} out at once` : esc(r.mode);
    return (
      `<article class="rollout" data-id="${esc(r.id)}"><h3>Rollout ${esc(r.id)} <span class="muted">to ${esc(r.target)}` +
      (r.label ? ` (${esc(r.label)})` : '') + `</span> <span class="state s-${esc(r.state)}">${esc(r.state)}</span></h3>` +
      `<p>Cluster ${esc(r.cluster)}; ${mode}${r.window ? '; window ' + esc(r.window) + ' UTC' : ''}. ${rolloutProgress(nodes)}</p>` +
      (r.reason ? `<p class="reason">${esc(r.reason)}</p>` : '') +
      (rows ? `<table><thead><tr><th scope="col">Node</th><th scope="col">Step</th><th scope="col">Since</th><th scope="col">Last line</th></tr></thead><tbody>${rows}</tbody></table>` : '') +
      `</article>`
    );
  }).join('');
}

/** Poll one optional panel: hidden on 404, shown with html(list) otherwise. */
export async function refreshPanel(id, path, key, html, onError) {
  const sec = $(id);
  try {
    const r = await get(path);
    const text = JSON.stringify(r);
    if (sec.dataset.text !== text) {
      sec.dataset.text = text;
      sec.querySelector('.body').innerHTML = html(r[key] || []);
    }
    sec.hidden = false;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) sec.hidden = true;
    else if (e instanceof ApiError) sec.querySelector('.body').innerHTML = `<p class="error">${esc(e.message)}</p>`;
    else onError(e);
  }
}

/**
 * The placements panel: the placements and their jobs, asked together.
 * A controller without jobs (404), or a token that may not read them,
 * shows the placements alone.
 */
export async function refreshPlacements(onError) {
  const sec = $('placements');
  let r;
  let jobs = [];
  try {
    const [pl, js] = await Promise.all([get('/v1/placements'), get('/v1/jobs').catch((e) => e)]);
    r = pl;
    if (js instanceof NetError) throw js;
    if (!(js instanceof Error)) jobs = js.jobs || [];
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) sec.hidden = true;
    else if (e instanceof ApiError) sec.querySelector('.body').innerHTML = `<p class="error">${esc(e.message)}</p>`;
    else onError(e);
    return;
  }
  const text = JSON.stringify([r, jobs]);
  if (sec.dataset.text !== text) {
    sec.dataset.text = text;
    sec.querySelector('.body').innerHTML = placementsHtml(r.placements || [], jobs);
  }
  sec.hidden = false;
}

// ---- events ----

let lastEventTime = null;
const seen = new Set();

export async function refreshEvents(onError) {
  const q = lastEventTime === null ? '?limit=50' : '?limit=500&since=' + lastEventTime;
  let r;
  try {
    r = await get('/v1/events' + q);
  } catch (e) {
    if (!(e instanceof ApiError)) onError(e);
    return;
  }
  const ol = $('event-list');
  const fresh = (r.events || []).filter((e) => !seen.has(e.id));
  if (!fresh.length) return;
  let html = '';
  for (const e of fresh) {
    seen.add(e.id);
    if (lastEventTime === null || e.time > lastEventTime) lastEventTime = e.time;
    html = `<li><time datetime="${new Date(e.time * 1000).toISOString()}">${esc(clock(e.time))}</time> ` +
      (e.node ? `<strong>${esc(e.node)}</strong> ` : '') + `${esc(e.what)}` +
      (e.reason ? ` <span class="reason">${esc(e.reason)}</span>` : '') + ` <span class="muted">by ${esc(e.actor)}</span></li>` + html;
  }
  ol.insertAdjacentHTML('afterbegin', html);
  while (ol.children.length > EVENTS_KEPT) ol.lastElementChild.remove();
}

export function resetEvents() {
  lastEventTime = null;
  seen.clear();
  $('event-list').innerHTML = '';
}
