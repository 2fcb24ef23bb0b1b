/*
 * What keeps a client without a token from taking an HTTP server down,
 * shared by the controller's API (controller/api/api_server.c) and the agent's
 * /metrics (agent/httpd.c): both are libmicrohttpd daemons polled by one
 * thread, and both get
 *
 *  - the epoll backend where libmicrohttpd has it (Linux), poll elsewhere:
 *    neither has select's FD_SETSIZE ceiling, and epoll's cost follows the
 *    connections that have something to do, not all those open.  With
 *    10,000 agents each on its connection and 10,000 reports/s offered
 *    (tests/bench/controller_fleet.sh), the controller took 9,300/s with
 *    poll, busy 1.2 cores, p99 4.7 s; with epoll all of them, busy 0.6 of a
 *    core, p99 under 0.1 s.  With epoll the daemon runs on a thread of
 *    this module, not on its own (below);
 *  - a limit on connections at once (MHD_OPTION_CONNECTION_LIMIT), with the
 *    open-files limit raised to hold it (http_limits_fit).  At the limit
 *    libmicrohttpd stops accepting: new clients wait in the listen queue;
 *  - a limit on connections at once from one client address
 *    (MHD_OPTION_PER_IP_CONNECTION_LIMIT): a connection over it is accepted
 *    and closed at once, before a byte is read, so one address cannot fill
 *    the server;
 *  - a deadline for each request: a new connection's first request (its
 *    line, headers and body) must have arrived request_deadline seconds
 *    after the connection was accepted; a later request on a kept-alive
 *    connection, request_deadline seconds after its first byte.  Between
 *    requests a kept-alive connection may stay silent for idle_timeout
 *    seconds (MHD_OPTION_CONNECTION_TIMEOUT); a request being answered (a
 *    report waiting for its commit, a response being sent) is out of the
 *    deadline, and only the idle timeout applies to it.  Sending a byte now
 *    and then, which resets an idle timeout, does not move the deadline.
 *  - libmicrohttpd's messages through log.h, five every 10 s and then a
 *    count of the others (each connection over a limit is one: a client
 *    must not be able to fill the log).
 *
 * How the deadline is kept.  libmicrohttpd has no deadline of its own (its
 * timeout is reset by every byte read) and calls nothing while a request's
 * line and headers trickle in, so a thread of this module (the sweeper)
 * looks at every connection each second (a tenth of the deadline when that
 * is shorter) and shuts down, with shutdown(2), the socket of one past its
 * deadline.  libmicrohttpd then reads the end of the stream and closes the
 * connection its usual way, on the thread that polls.  What the sweeper knows:
 *  - from libmicrohttpd's callbacks, on the server's thread: a connection
 *    started (MHD_OPTION_NOTIFY_CONNECTION), a request line arrived
 *    (MHD_OPTION_URI_LOG_CALLBACK), a request arrived whole (the server's
 *    handler calls http_guard_received at its last call), a request was
 *    answered (the server's completion callback calls
 *    http_guard_completed); each is one atomic store into the connection's
 *    record, no lock;
 *  - from the kernel, for a kept-alive connection waiting for its next
 *    request line: when the next request's first bytes came.  Linux:
 *    TCP_INFO's tcpi_last_data_recv (the time since the last data segment)
 *    is later than when the last answer went out; the request is taken to
 *    have started then (at most one sweep late).  macOS: tcp_connection_info
 *    has no such time, so its tcpi_rxbytes are compared from one sweep to
 *    the next: a request is seen to start at the first sweep that finds
 *    more bytes than the one before (bytes that came before the first sweep
 *    of a wait, then nothing, leave the connection to the idle timeout).
 *
 * Why the epoll daemon runs on this module's thread.  libmicrohttpd's own
 * polling thread can sleep with connections ready to be served: when one
 * epoll_wait() returns MAX_EVENTS (128) events, MHD_epoll() calls it again
 * with the same timeout (up to the idle timeout), and the connections the
 * first batch made ready wait in its ready list until some other event
 * comes (daemon.c, MHD_epoll(), "while (MAX_EVENTS == num_events)", in
 * 0.9.75 and in 1.0.1).  Under the ingestion benchmark (192 connections,
 * each sending its next report once answered) the API stood still for the
 * clients' 10 s timeout in half the rounds.  So the daemon is started
 * without MHD_USE_INTERNAL_POLLING_THREAD and this module's thread polls
 * libmicrohttpd's epoll descriptor (MHD_DAEMON_INFO_EPOLL_FD) for the time
 * MHD_get_timeout() gives, which is 0 while a connection is ready, then
 * calls MHD_run(), whose epoll_wait() calls never wait.  A daemon without
 * a thread of its own has no inter-thread channel either (MHD_start_daemon
 * drops MHD_USE_ITC): a connection is resumed with http_guard_resume, which
 * wakes this thread through a pipe of its own.
 *
 * Why shutdown(2) from another thread never touches a reused descriptor
 * (libmicrohttpd 0.9.75, src/microhttpd/daemon.c; the same in 1.0.1):
 *  - MHD_CONNECTION_NOTIFY_STARTED is called by new_connection_process_()
 *    once the connection is in the daemon's list, its socket open;
 *  - the socket is closed in one place for a started connection,
 *    MHD_cleanup_connections() (or new_connection_process_()'s own error
 *    path), and both call MHD_CONNECTION_NOTIFY_CLOSED before they close
 *    it (MHD_socket_close_chk_).  MHD_connection_close_() and
 *    MHD_connection_mark_closed_() only shut the socket down for writing;
 *    MHD_stop_daemon() ends in MHD_cleanup_connections() too.
 * The CLOSED callback removes the record under its stripe's lock, and the
 * sweeper shuts a socket down only under that lock, for a record still
 * there: the descriptor is then still the connection's, open.  Stripes
 * (by descriptor) keep the server's thread from waiting on a whole sweep.
 */
#ifndef TBMESH_HTTP_GUARD_H
#define TBMESH_HTTP_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "http_limits.h"

/*
 * The flags of the polling backend, for MHD_start_daemon: MHD_USE_EPOLL
 * (the daemon then runs on the guard's thread, see http_guard_serve) where
 * there is epoll, else MHD_USE_POLL with MHD_USE_INTERNAL_POLLING_THREAD.
 * The server adds neither of these flags itself.
 */
unsigned int http_guard_flags(void);

struct http_guard;

/* Options items http_guard_options fills at most, MHD_OPTION_END included. */
#define HTTP_GUARD_NOPTS 7

/*
 * A guard for one daemon with lim (copied), and its sweeper thread; what
 * names the server in the log.  NULL when out of memory or threads.
 */
struct http_guard *http_guard_new(const struct http_limits *lim, const char *what);

/*
 * Fill opt (HTTP_GUARD_NOPTS items) with the options of MHD_start_daemon
 * that hook g in: the limits, the idle timeout, the connection and request
 * line callbacks, the logger; ends with MHD_OPTION_END.  Pass it as
 * MHD_start_daemon's first option, MHD_OPTION_ARRAY (the logger must come
 * before any other option).  The daemon must not set these options itself.
 */
void http_guard_options(struct http_guard *g, struct MHD_OptionItem *opt);

/*
 * From the server's access handler, at its last call for a request (the
 * body, if any, all read): the request has arrived and is being answered.
 */
void http_guard_received(struct MHD_Connection *conn);

/*
 * From the server's MHD_OPTION_NOTIFY_COMPLETED callback: a request ended;
 * with MHD_REQUEST_TERMINATED_COMPLETED_OK a kept-alive connection waits
 * for its next request.
 */
void http_guard_completed(struct MHD_Connection *conn, enum MHD_RequestTerminationCode toe);

/*
 * Serve d, started with http_guard_flags(): on the guard's thread when d
 * has none of its own.  0, or -1 when that thread cannot be had.
 */
int http_guard_serve(struct http_guard *g, struct MHD_Daemon *d);

/*
 * Resume c, suspended with MHD_suspend_connection, from any thread: and
 * wake the thread that polls the daemon, which MHD_resume_connection alone
 * does not do when that thread is the guard's.
 */
void http_guard_resume(struct http_guard *g, struct MHD_Connection *c);

/*
 * Stop serving: the guard's threads, then d (MHD_stop_daemon; d may be
 * NULL), then free g.  Accepts a NULL g (then d alone is stopped).
 */
void http_guard_stop(struct http_guard *g, struct MHD_Daemon *d);

#endif
