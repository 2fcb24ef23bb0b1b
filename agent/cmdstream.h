/*
 * cmdstream: a command that runs on and prints a record per interval
 * (`macmon pipe`, `powermetrics -i`), read without ever blocking.
 *
 * The child is started through runcmd_spawn() (PATH, its own process
 * group, stdin from /dev/null).  cmdstream_poll() reads what it printed so
 * far and keeps the last complete record: the text before a separator
 * ("\n" for macmon's JSON lines; "*** Sampled" for powermetrics, whose
 * header before its first sample is no record when skip_first is set).  A
 * record longer than CMDSTREAM_RECORD_MAX bytes (its separator not
 * counted) is dropped.  The first bytes of its stderr are kept for the
 * error message.  When the child exits, what is left of its process group
 * is killed; cmdstream_free() kills the group of one still running.  Both
 * reap the child.
 *
 * Used from one thread at a time (the collector).
 */
#ifndef TBMESH_CMDSTREAM_H
#define TBMESH_CMDSTREAM_H

#include <stddef.h>

#define CMDSTREAM_RECORD_MAX (64u << 10)

struct cmdstream;

/*
 * Start argv (NULL-terminated; copied).  sep: the record separator
 * (copied; an empty one is refused).  Returns NULL when it could not be
 * started, with the reason in err and *notfound 1 when argv[0] is not on
 * PATH.
 */
struct cmdstream *cmdstream_start(char *const argv[], const char *sep, int skip_first,
    char *err, size_t errlen, int *notfound);

/*
 * Read what the child printed, without blocking, and reap it when it has
 * exited.  Returns the number of records completed by this call.
 */
int cmdstream_poll(struct cmdstream *s);

/*
 * Wait until a record completes, the child exits or timeout_ms pass,
 * whichever comes first.  Returns the number of records completed.
 */
int cmdstream_wait(struct cmdstream *s, int timeout_ms);

/* The last complete record (NUL-terminated), or NULL before the first. */
const char *cmdstream_record(const struct cmdstream *s);

/* Records completed since the start. */
unsigned long cmdstream_records(const struct cmdstream *s);

/* 1 while the child runs (as far as the last poll knows). */
int cmdstream_running(const struct cmdstream *s);

/*
 * How the child ended, in the words of runcmd_failure() ("exited 1: <first
 * stderr line>", "killed by signal 9"); NULL while it runs.
 */
const char *cmdstream_failure(const struct cmdstream *s, char *buf, size_t buflen);

/* Kill the child's process group, reap it, free s.  Accepts NULL. */
void cmdstream_free(struct cmdstream *s);

#endif
