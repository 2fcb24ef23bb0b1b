#!/usr/bin/env python3
"""Slow and idle HTTP clients, for controller_slowclients.sh.

Opens connections from one source address (--source) to HOST:PORT and keeps
them as their kind says, until --seconds have passed or every one was closed:

  idle N       connect, send nothing
  trickle N    send a request line, then a header line every --every seconds
               and never the blank line that ends the headers
  stall N      send a request line, then nothing
  kept N       send a whole GET of --path (kept alive), read the answer, stay
               silent --wait seconds, then trickle the next request's header
               lines as trickle does
  kept_idle N  the same whole GET, then silent to the end (a kept-alive
               connection between requests)

Prints one JSON object: for each kind, "opened" (connected), "refused"
(closed by the server within --refused seconds of connecting, before it was
sent anything it answered), "held" (the others), and "closed": for each held
connection the server closed, seconds from the connection's start, or for
kept from its first trickled byte, to the end of the stream.  "answered": the
status of each kept and kept_idle GET.  Kept_idle connections still open at
the end send one more GET, whose status goes in "second".  With --ready FILE,
FILE is written once every connection is open.
"""
import argparse
import json
import selectors
import socket
import time


class Conn:
    def __init__(self, kind, sock, t0):
        self.kind = kind
        self.sock = sock
        self.t0 = t0          # connected
        self.mark = t0        # what "closed" is measured from
        self.step = "connecting"
        self.next_send = None
        self.buf = b""
        self.closed_at = None
        self.status = None


def request(path, host):
    return ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode()


def read_answer(c):
    """A whole answer in c.buf (204/200 with Content-Length): its status, or None."""
    head, sep, rest = c.buf.partition(b"\r\n\r\n")
    if not sep:
        return None
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    if len(rest) < length:
        return None
    c.buf = rest[length:]
    return int(head.split(b" ")[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("--source", default="127.0.0.1")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--every", type=float, default=1.0)
    ap.add_argument("--wait", type=float, default=3.0)
    ap.add_argument("--refused", type=float, default=0.5)
    ap.add_argument("--path", default="/healthz")
    ap.add_argument("--ready", help="file written once every connection is open")
    for k in ("idle", "trickle", "stall", "kept", "kept_idle"):
        ap.add_argument("--" + k.replace("_", "-"), type=int, default=0)
    a = ap.parse_args()

    sel = selectors.DefaultSelector()
    conns = []
    start = time.monotonic()
    # the slow ones first: the idle ones fill what is left of the address's share
    for kind in ("trickle", "stall", "kept", "kept_idle", "idle"):
        for _ in range(getattr(a, kind)):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((a.source, 0))
            s.settimeout(5)
            s.connect((a.host, a.port))
            s.setblocking(False)
            c = Conn(kind, s, time.monotonic())
            if kind in ("trickle", "stall"):
                s.send(b"GET %s HTTP/1.1\r\n" % a.path.encode())
                c.step = "trickling" if kind == "trickle" else "stalled"
                c.next_send = c.t0 + a.every if kind == "trickle" else None
            elif kind in ("kept", "kept_idle"):
                s.send(request(a.path, a.host))
                c.step = "first"
            else:
                c.step = "idle"
            sel.register(s, selectors.EVENT_READ, c)
            conns.append(c)
    if a.ready:
        with open(a.ready, "w") as f:
            f.write("%d\n" % len(conns))
    while time.monotonic() - start < a.seconds:
        if all(c.closed_at is not None for c in conns):
            break
        now = time.monotonic()
        wake = [c.next_send for c in conns if c.closed_at is None and c.next_send]
        timeout = max(0.0, min(wake) - now) if wake else 0.2
        for key, _ in sel.select(min(timeout, 0.2)):
            c = key.data
            try:
                data = c.sock.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            if data and c.step == "first":
                c.buf += data
                st = read_answer(c)
                if st is not None:
                    c.status = st
                    if c.kind == "kept":
                        c.step = "waiting"
                        c.next_send = time.monotonic() + a.wait
                    else:
                        c.step = "kept"
                continue
            if data:
                continue
            c.closed_at = time.monotonic()
            sel.unregister(c.sock)
            c.sock.close()
        now = time.monotonic()
        for c in conns:
            if c.closed_at is not None or not c.next_send or now < c.next_send:
                continue
            if c.step == "waiting":
                c.step = "trickling"
                c.mark = now
                line = b"GET %s HTTP/1.1\r\n" % a.path.encode()
            else:
                line = b"X-Slow: %d\r\n" % int((now - c.t0) * 1000)
            try:
                c.sock.send(line)
            except OSError:
                pass
            c.next_send = now + a.every
    out = {}
    for kind in ("idle", "trickle", "stall", "kept", "kept_idle"):
        mine = [c for c in conns if c.kind == kind]
        refused = [c for c in mine if c.closed_at is not None and c.status is None
                   and c.closed_at - c.t0 < a.refused]
        held = [c for c in mine if c not in refused]
        out[kind] = {
            "opened": len(mine),
            "refused": len(refused),
            "held": len(held),
            "closed": sorted(round(c.closed_at - c.mark, 2) for c in held
                             if c.closed_at is not None),
            "answered": [c.status for c in mine if c.status is not None],
        }
    second = []
    for c in conns:
        if c.kind == "kept_idle" and c.closed_at is None:
            c.sock.setblocking(True)
            c.sock.settimeout(5)
            c.buf = b""
            try:
                c.sock.send(request(a.path, a.host))
                st = None
                while st is None:
                    data = c.sock.recv(65536)
                    if not data:
                        break
                    c.buf += data
                    st = read_answer(c)
                second.append(st)
            except OSError:
                second.append(None)
    out["kept_idle"]["second"] = second
    print(json.dumps(out))


if __name__ == "__main__":
    main()
