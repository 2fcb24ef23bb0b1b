// Small helpers shared by the dashboard's modules: escaping, formatting,
// and the clock of the controller (ages are measured on its clock, not the
// browser's).

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML and SVG markup (null and undefined give ""). */
export function esc(v) {
  return v === null || v === undefined ? '' : String(v).replace(/[&<>"']/g, (c) => ESC[c]);
}

const GIB = 1024 ** 3;

/** Bytes as GiB ("511.8 GiB"), or "—" when unknown. */
export function gib(b) {
  if (typeof b !== 'number' || !isFinite(b)) return '—';
  const g = b / GIB;
  return (g >= 100 ? g.toFixed(0) : g.toFixed(1)) + ' GiB';
}

/** A number with a unit, or "—" when unknown. */
export function num(v, unit, digits = 0) {
  return typeof v === 'number' && isFinite(v) ? v.toFixed(digits) + ' ' + unit : '—';
}

let offset = 0; // controller clock minus browser clock, in ms

/** Learn the controller's clock from a response's Date header. */
export function learnClock(res) {
  const d = Date.parse(res.headers.get('Date') || '');
  if (!isNaN(d)) {
    const o = d - Date.now();
    // Date has a resolution of one second: ignore what that explains.
    offset = Math.abs(o) > 1500 ? o : 0;
  }
}

/** Now on the controller's clock, in unix seconds. */
export function now() {
  return (Date.now() + offset) / 1000;
}

/** How long ago a unix time was: "4 s", "3 min", "2 h", "5 d"; "never" for null. */
export function age(t) {
  if (typeof t !== 'number' || !isFinite(t)) return 'never';
  const s = Math.max(0, now() - t);
  if (s < 90) return Math.round(s) + ' s';
  if (s < 5400) return Math.round(s / 60) + ' min';
  if (s < 129600) return Math.round(s / 3600) + ' h';
  return Math.round(s / 86400) + ' d';
}

/** A unix time as local HH:MM:SS (with the date when not today). */
export function clock(t) {
  const d = new Date(t * 1000);
  const hms = d.toLocaleTimeString([], { hour12: false });
  return d.toDateString() === new Date().toDateString() ? hms : d.toLocaleDateString() + ' ' + hms;
}

/** Element by id. */
export const $ = (id) => document.getElementById(id);
