// The /v1 API on the same origin, with the operator's bearer token.
// Every request has a time limit, so that a controller that stopped
// answering is noticed rather than waited for.

import { learnClock } from './util.js';

const KEY = 'tbmesh.token';
const TIMEOUT_MS = 2500;

export function getToken() {
  return sessionStorage.getItem(KEY);
}

export function setToken(t) {
  if (t) sessionStorage.setItem(KEY, t);
  else sessionStorage.removeItem(KEY);
}

/** An error the controller answered with (status and its message). */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** An error on the way: no answer, a time-out, something not HTTP. */
export class NetError extends Error {}

/**
 * GET path; resolves to the parsed JSON, rejects with ApiError (an HTTP
 * error, with the controller's {"error": ...}) or NetError.
 */
export async function get(path, token = getToken()) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), TIMEOUT_MS);
  let res;
  try {
    res = await fetch(path, {
      headers: { Authorization: 'Bearer ' + token, Accept: 'application/json' },
      cache: 'no-store',
      signal: ctl.signal,
    });
  } catch (e) {
    throw new NetError(e.name === 'AbortError' ? 'no answer within ' + TIMEOUT_MS / 1000 + ' s' : e.message);
  } finally {
    clearTimeout(timer);
  }
  learnClock(res);
  let body = null;
  try {
    body = await res.json();
  } catch (e) {
    if (res.ok) throw new NetError('the answer to ' + path + ' is not JSON');
  }
  if (!res.ok) throw new ApiError(res.status, (body && body.error) || 'HTTP ' + res.status);
  return body;
}
