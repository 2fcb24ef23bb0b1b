/*
 * What every tbctl command shares: its one-line messages on stderr, the
 * time now, the checks of a name and of a reason, and a GET whose reply
 * goes to the output.
 */
#include "ctl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "ctl_http.h"

static void
ctl_verrx(const char *fmt, va_list ap)
{
	fputs("tbctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
ctl_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_verrx(fmt, ap);
	va_end(ap);
}

int
ctl_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_verrx(fmt, ap);
	va_end(ap);
	return CTL_EXIT_FAIL;
}

int
ctl_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_verrx(fmt, ap);
	va_end(ap);
	return CTL_EXIT_USAGE;
}

double
ctl_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		return NAN;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
ctl_name_check(const char *cmd, const char *kind, const char *name)
{
	if (api_name_valid(name))
		return CTL_EXIT_OK;
	return ctl_usage("%s: \"%s\" is not a valid %s name (1 to %d of A-Z a-z 0-9 . _ -, "
	    "not starting with . or -)", cmd, name, kind, API_NAME_MAX);
}

int
ctl_reason_check(const char *cmd, const char *usage, const char *text, const char *opt)
{
	const char *p = text;

	if (text != NULL)
		while (*p == ' ' || *p == '\t')
			p++;
	if (text == NULL || *p == '\0')
		return ctl_usage("%s: %s is required (usage: tbctl %s %s)", cmd, opt, cmd, usage);
	if (strlen(text) > API_REASON_MAX)
		return ctl_usage("%s: %s is longer than %d bytes", cmd, opt, API_REASON_MAX);
	for (p = text; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return ctl_usage("%s: %s holds a control character", cmd, opt);
	return CTL_EXIT_OK;
}

int
ctl_get(struct ctl_client *cl, const struct ctl_args *a, const char *path, ctl_reply_fn *show)
{
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_call(cl, "GET", path, NULL, NULL, &r)) == CTL_EXIT_OK)
		rc = show(&r, a);
	ctl_reply_free(&r);
	return rc;
}
