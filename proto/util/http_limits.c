/*
 * Parsing the connection limits, and fitting them to the open-files limit.
 */
#include "http_limits.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __APPLE__
#include <sys/types.h>
#include <sys/sysctl.h>
#endif

#include "log.h"

static int
parse_count(const char *key, const char *v, unsigned long lo, unsigned long hi,
    unsigned int *out, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (end == v || *end != '\0' || errno != 0 || v[0] == '-' || n < lo || n > hi) {
		snprintf(err, errlen, "%s: \"%s\" is not a whole number from %lu to %lu", key, v,
		    lo, hi);
		return -1;
	}
	*out = (unsigned int)n;
	return 0;
}

int
http_limits_set(struct http_limits *lim, const char *key, const char *v, char *err,
    size_t errlen)
{
	if (strcmp(key, "max-connections") == 0)
		return parse_count(key, v, 1, 1000000, &lim->max_connections, err, errlen);
	if (strcmp(key, "max-connections-per-client") == 0)
		return parse_count(key, v, 0, 1000000, &lim->max_per_client, err, errlen);
	if (strcmp(key, "idle-timeout") == 0)
		return parse_count(key, v, 1, 86400, &lim->idle_timeout, err, errlen);
	if (strcmp(key, "request-deadline") != 0)
		return 1;
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end != '\0' || !(d >= 0.5 && d <= 3600)) {
		snprintf(err, errlen, "%s: \"%s\" is not seconds from 0.5 to 3600", key, v);
		return -1;
	}
	lim->request_deadline = d;
	return 0;
}

unsigned int
http_limits_room(unsigned long long files, unsigned int reserve)
{
	unsigned long long room = files >= 2ULL * reserve ? files - reserve : files / 2;

	if (room > UINT_MAX)
		room = UINT_MAX;
	return room > 0 ? (unsigned int)room : 1;
}

/* The most the soft open-files limit may be set to: the hard one (and macOS's own cap). */
static rlim_t
files_ceiling(rlim_t hard)
{
#ifdef __APPLE__
	int per_proc = 0;
	size_t len = sizeof(per_proc);
	if (sysctlbyname("kern.maxfilesperproc", &per_proc, &len, NULL, 0) == 0 &&
	    per_proc > 0 && (hard == RLIM_INFINITY || (rlim_t)per_proc < hard))
		return (rlim_t)per_proc;
#endif
	return hard;
}

void
http_limits_fit(struct http_limits *lim, unsigned int reserve, const char *what)
{
	rlim_t want = (rlim_t)lim->max_connections + reserve;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_msg(LOG_LVL_WARN, what, "open files limit: %s", strerror(errno));
		return;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rlim_t ceiling = files_ceiling(rl.rlim_max);
		struct rlimit nl = { want < ceiling ? want : ceiling, rl.rlim_max };
		if (nl.rlim_cur > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &nl) == 0)
			log_msg(LOG_LVL_DEBUG, what, "open files limit raised from %llu to %llu",
			    (unsigned long long)rl.rlim_cur, (unsigned long long)nl.rlim_cur);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		unsigned int room = http_limits_room(rl.rlim_cur, reserve);
		if (room < lim->max_connections) {
			log_msg(LOG_LVL_WARN, what, "%llu open files at most (hard limit %llu): "
			    "%u connections at once, not the %u asked for",
			    (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max, room,
			    lim->max_connections);
			lim->max_connections = room;
		}
	}
	if (lim->max_per_client > lim->max_connections)
		lim->max_per_client = lim->max_connections;
}
