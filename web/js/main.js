// The dashboard's entry: login with an admin or viewer token (kept in
// sessionStorage, never shown), then a poll loop.  Every second the node
// and cluster lists; every two seconds the events and the wiring of the
// clusters on screen; every five the placements with their jobs, and the
// rollouts.  A request
// that gets no answer marks the controller unreachable until one does.

import { get, getToken, setToken, ApiError, NetError } from './api.js';
import { clock, now, $ } from './util.js';
import { renderFleet, refreshVisible, refreshWiring, tickAges } from './fleet.js';
import { refreshEvents, resetEvents, refreshPanel, refreshPlacements, rolloutsHtml } from './panels.js';

performance.mark('tbmesh-modules-loaded');
const POLL_MS = 1000;
let timer = null;
let tick = 0;
let lastOk = null;
let downSince = null;
let firstRender = true;
let lastText = '';

function showLogin(msg) {
  stop();
  setToken(null);
  $('dashboard').hidden = true;
  $('logout').hidden = true;
  $('login').hidden = false;
  const m = $('login-msg');
  m.textContent = msg || '';
  m.hidden = !msg;
  $('token').focus();
}

function setLive(ok, err) {
  const banner = $('unreachable');
  if (ok) {
    lastOk = now();
    downSince = null;
    banner.hidden = true;
    document.body.dataset.controller = 'up';
    $('live').textContent = 'Live: updated ' + clock(lastOk);
    return;
  }
  if (downSince === null) downSince = now();
  document.body.dataset.controller = 'down';
  banner.hidden = false;
  $('unreachable-text').textContent =
    `The controller is unreachable since ${clock(downSince)} (${err.message}). ` +
    (lastOk ? `What is shown is as of ${clock(lastOk)}. ` : '') + 'Retrying every second.';
  $('live').textContent = 'Not live';
}

function onError(e) {
  if (e instanceof ApiError && e.status === 401) showLogin('The controller no longer accepts this token (' + e.message + '). Log in again.');
  else if (e instanceof NetError) setLive(false, e);
}

async function poll() {
  tick++;
  try {
    const [n, c] = await Promise.all([get('/v1/nodes'), get('/v1/clusters')]);
    setLive(true);
    if (firstRender) performance.mark('tbmesh-first-answer');
    const text = JSON.stringify([n, c]);
    if (text !== lastText) {
      lastText = text;
      renderFleet(n.nodes || [], c.clusters || []);
    }
    if (firstRender) {
      firstRender = false;
      document.body.dataset.rendered = String(n.nodes.length);
      performance.mark('tbmesh-first-render');
      // and once that frame has been laid out and painted
      requestAnimationFrame(() => setTimeout(() => performance.mark('tbmesh-first-frame')));
    }
  } catch (e) {
    if (e instanceof ApiError && e.status !== 401 && e.status !== 403) setLive(false, e);
    else onError(e);
    return;
  }
  tickAges();
  refreshVisible(onError);
  refreshWiring(onError);   // every tick; it keeps each cluster's own 2 s period
  if (tick % 2 === 1) refreshEvents(onError);
  if (tick % 5 === 1) {
    refreshPlacements(onError);
    refreshPanel('rollouts', '/v1/rollouts', 'rollouts', rolloutsHtml, onError);
  }
}

function loop() {
  const t0 = performance.now();
  poll().finally(() => {
    if (timer === null) return;
    timer = setTimeout(loop, Math.max(100, POLL_MS - (performance.now() - t0)));
  });
}

function start() {
  $('login').hidden = true;
  $('dashboard').hidden = false;
  $('logout').hidden = false;
  if (timer === null) {
    timer = 0;
    loop();
  }
}

function stop() {
  if (timer) clearTimeout(timer);
  timer = null;
}

async function login(ev) {
  ev.preventDefault();
  const input = $('token');
  const tok = input.value.trim();
  input.value = '';
  const m = $('login-msg');
  if (!tok) {
    m.textContent = 'Paste an admin or viewer token (tbctl token create --role viewer).';
    m.hidden = false;
    return;
  }
  try {
    await get('/v1/clusters', tok);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) m.textContent = 'Token refused: the controller says "' + e.message + '".';
    else if (e instanceof ApiError && e.status === 403) m.textContent = 'Token refused: only an admin or a viewer token may open the dashboard.';
    else m.textContent = 'Cannot check the token: ' + e.message + '.';
    m.hidden = false;
    document.body.dataset.login = 'refused';
    input.focus();
    return;
  }
  setToken(tok);
  m.hidden = true;
  resetEvents();
  start();
}

$('login-form').addEventListener('submit', login);
$('logout').addEventListener('click', () => showLogin('Logged out.'));
if (getToken()) start();
else showLogin('');
