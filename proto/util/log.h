/*
 * Logging for the daemons and tools: to stderr by default, or to syslog.
 * Messages carry the calling function's name (log_warnx("...") in f()
 * prints "f: ...").  Never pass a secret to these functions.
 */
#ifndef TBMESH_LOG_H
#define TBMESH_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* ident: program name; use_syslog: 0 stderr, 1 syslog; level: most verbose shown. */
void log_init(const char *ident, int use_syslog, enum log_level level);
void log_setlevel(enum log_level level);
/* "error", "warning", "info", "debug"; "?" for anything else. */
const char *log_level_name(int level);
/* The --log-level / log-level value v into *out: 0, or -1 with
 * "log-level: "v" is not error, warning, info or debug" in err. */
int log_level_parse(const char *v, int *out, char *err, size_t errlen);
enum log_level log_getlevel(void);

void log_msg(enum log_level lvl, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_fatal(const char *func, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

#define log_warnx(...) log_msg(LOG_LVL_WARN, __func__, __VA_ARGS__)
#define log_errx(...) log_msg(LOG_LVL_ERR, __func__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __func__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __func__, __VA_ARGS__)
/* Only at start-up or on a broken invariant: logs and exits 1. */
#define fatalx(...) log_fatal(__func__, __VA_ARGS__)

#endif
