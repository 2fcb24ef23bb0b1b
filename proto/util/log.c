/*
 * Logging: one line per message, "ident[pid]: func: message" on stderr or
 * to syslog.  Thread-safe (each message is one write).
 */
#include "log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static const char *log_ident = "tbmesh";
static int log_syslog;
/* read by every thread, set by the one handling SIGHUP */
static atomic_int log_level = LOG_LVL_INFO;

void
log_init(const char *ident, int use_syslog, enum log_level level)
{
	log_ident = ident;
	log_syslog = use_syslog;
	atomic_store(&log_level, (int)level);
	if (use_syslog)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_setlevel(enum log_level level)
{
	atomic_store(&log_level, (int)level);
}

enum log_level
log_getlevel(void)
{
	return (enum log_level)atomic_load(&log_level);
}

static void
log_vmsg(enum log_level lvl, const char *func, const char *fmt, va_list ap)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	static const char *name[] = { "error", "warning", "info", "debug" };
	char msg[1024], line[1200];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_syslog) {
		syslog(prio[lvl], "%s: %s", func, msg);
		return;
	}
	int n = snprintf(line, sizeof(line), "%s[%ld]: %s: %s: %s\n", log_ident,
	    (long)getpid(), name[lvl], func, msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	ssize_t w = write(STDERR_FILENO, line, (size_t)n);
	(void)w;
}

void
log_msg(enum log_level lvl, const char *func, const char *fmt, ...)
{
	va_list ap;

	if ((int)lvl > atomic_load_explicit(&log_level, memory_order_relaxed))
		return;
	va_start(ap, fmt);
	log_vmsg(lvl, func, fmt, ap);
	va_end(ap);
}

void
log_fatal(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LVL_ERR, func, fmt, ap);
	va_end(ap);
	exit(1);
}

static const char *const level_names[] = { "error", "warning", "info", "debug" };

const char *
log_level_name(int level)
{
	return level >= 0 && level <= LOG_LVL_DEBUG ? level_names[level] : "?";
}

int
log_level_parse(const char *v, int *out, char *err, size_t errlen)
{
	for (int i = 0; i <= LOG_LVL_DEBUG; i++)
		if (strcmp(v, level_names[i]) == 0) {
			*out = i;
			return 0;
		}
	snprintf(err, errlen, "log-level: \"%s\" is not error, warning, info or debug", v);
	return -1;
}
