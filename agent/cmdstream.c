/*
 * cmdstream: see cmdstream.h.  The output is kept in a buffer that holds
 * at most one record being printed; each separator found closes a record,
 * which replaces the last one.
 */
#include "cmdstream.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runcmd.h"

struct cmdstream {
	pid_t pid;
	int fds[2];              /* stdout, stderr; -1 once closed */
	int running;
	int wstatus;             /* once !running */
	char *sep;
	size_t seplen;
	int skip;                /* the text before the first separator is no record */
	char *acc;               /* the record being printed */
	size_t acclen;
	int overflow;            /* acc passed the cap: drop up to the next separator */
	char *last;              /* the last complete record */
	unsigned long records;
	char err[256];           /* first bytes of stderr */
	size_t errlen;
};

struct cmdstream *
cmdstream_start(char *const argv[], const char *sep, int skip_first, char *err,
    size_t errlen, int *notfound)
{
	struct cmdstream *s = calloc(1, sizeof(*s));
	int rc;

	*notfound = 0;
	if (sep[0] == '\0') {
		snprintf(err, errlen, "empty record separator");
		goto fail;
	}
	/* room for a record of CMDSTREAM_RECORD_MAX and its separator */
	if (s == NULL || (s->sep = strdup(sep)) == NULL ||
	    (s->acc = malloc(CMDSTREAM_RECORD_MAX + strlen(sep))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	s->seplen = strlen(sep);
	s->skip = skip_first;
	rc = runcmd_spawn(argv, &s->pid, s->fds);
	if (rc != 0) {
		*notfound = rc == ENOENT || rc == EACCES;
		snprintf(err, errlen, "%s", *notfound ? "not found on PATH" : strerror(rc));
		goto fail;
	}
	s->running = 1;
	return s;

fail:
	if (s != NULL) {
		free(s->sep);
		free(s->acc);
		free(s);
	}
	return NULL;
}

/* A record ends at acc[n]: keep it as the last one, unless it is to be skipped. */
static int
close_record(struct cmdstream *s, size_t n)
{
	char *rec;

	if (s->skip || s->overflow) {
		s->skip = 0;
		s->overflow = 0;
		return 0;
	}
	if ((rec = malloc(n + 1)) == NULL)
		return 0;
	memcpy(rec, s->acc, n);
	rec[n] = '\0';
	free(s->last);
	s->last = rec;
	s->records++;
	return 1;
}

/* Append what was read to acc, closing every record a separator ends. */
static int
take(struct cmdstream *s, const char *data, size_t n)
{
	int done = 0;

	for (size_t i = 0; i < n; i++) {
		if (s->acclen == CMDSTREAM_RECORD_MAX + s->seplen) {
			/*
			 * Full, and it ends in no separator: the record passes
			 * the cap and is dropped, but a separator across the
			 * cut is still seen.
			 */
			memmove(s->acc, s->acc + s->acclen - (s->seplen - 1), s->seplen - 1);
			s->acclen = s->seplen - 1;
			s->overflow = 1;
		}
		s->acc[s->acclen++] = data[i];
		if (s->acclen >= s->seplen &&
		    memcmp(s->acc + s->acclen - s->seplen, s->sep, s->seplen) == 0) {
			done += close_record(s, s->acclen - s->seplen);
			s->acclen = 0;
		}
	}
	return done;
}

/* Drain fd; 1 at EOF. */
static int
drain(struct cmdstream *s, int i, int *done)
{
	char buf[8192];
	ssize_t n;

	for (;;) {
		n = read(s->fds[i], buf, sizeof(buf));
		if (n > 0) {
			if (i == 0) {
				*done += take(s, buf, (size_t)n);
			} else if (s->errlen < sizeof(s->err) - 1) {
				size_t k = sizeof(s->err) - 1 - s->errlen;
				memcpy(s->err + s->errlen, buf, (size_t)n < k ? (size_t)n : k);
				s->errlen += (size_t)n < k ? (size_t)n : k;
				s->err[s->errlen] = '\0';
			}
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		return n == 0 || (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK);
	}
}

int
cmdstream_poll(struct cmdstream *s)
{
	int done = 0;

	for (int i = 0; i < 2; i++)
		if (s->fds[i] >= 0 && drain(s, i, &done))
			runcmd_close_fd(&s->fds[i]);
	if (s->running && runcmd_reap_exited(s->pid, &s->wstatus)) {
		s->running = 0;
		for (int i = 0; i < 2; i++)
			if (s->fds[i] >= 0 && drain(s, i, &done))
				runcmd_close_fd(&s->fds[i]);
	}
	return done;
}

/*
 * Steps of 50 ms at most: the child's exit is seen by cmdstream_poll(),
 * not by poll() on its stdout (a child of its own may hold that open).
 */
int
cmdstream_wait(struct cmdstream *s, int timeout_ms)
{
	double deadline = runcmd_mono() + timeout_ms / 1000.0, left;
	int done = cmdstream_poll(s);

	while (done == 0 && s->running && (left = deadline - runcmd_mono()) > 0) {
		struct pollfd p = { .fd = s->fds[0], .events = POLLIN };
		int step = left * 1000 < 50 ? (int)(left * 1000) + 1 : 50;

		if (s->fds[0] >= 0)
			poll(&p, 1, step);
		else
			poll(NULL, 0, step);
		done = cmdstream_poll(s);
	}
	return done;
}

const char *
cmdstream_record(const struct cmdstream *s)
{
	return s->last;
}

unsigned long
cmdstream_records(const struct cmdstream *s)
{
	return s->records;
}

int
cmdstream_running(const struct cmdstream *s)
{
	return s->running;
}

const char *
cmdstream_failure(const struct cmdstream *s, char *buf, size_t buflen)
{
	struct runcmd_result res;

	if (s->running)
		return NULL;
	memset(&res, 0, sizeof(res));
	runcmd_set_status(&res, s->wstatus);
	memcpy(res.err, s->err, s->errlen + 1);
	if (runcmd_failure(&res, 0, buf, buflen) == NULL)
		snprintf(buf, buflen, "exited 0");
	return buf;
}

void
cmdstream_free(struct cmdstream *s)
{
	if (s == NULL)
		return;
	if (s->running)
		runcmd_kill(s->pid, NULL);
	for (int i = 0; i < 2; i++)
		runcmd_close_fd(&s->fds[i]);
	free(s->sep);
	free(s->acc);
	free(s->last);
	free(s);
}
