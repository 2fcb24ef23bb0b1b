/*
 * Reading a Mac's process list and install log for an install under way
 * (see rollout_probe.h).
 */
#include "rollout_probe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "civil.h"

/* One line of s starting at *p into buf (cut to size); 0 at the end. */
static int
next_line(const char **p, char *buf, size_t size)
{
	const char *s = *p, *e;
	size_t n;

	if (*s == '\0')
		return 0;
	e = strchr(s, '\n');
	n = e != NULL ? (size_t)(e - s) : strlen(s);
	*p = e != NULL ? e + 1 : s + n;
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 1;
}

/* The word at *p (whitespace ends it) into w; 0 when none is left. */
static int
next_word(const char **p, char *w, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return 0;
	while (*s != '\0' && *s != ' ' && *s != '\t') {
		if (n + 1 < size)
			w[n++] = *s;
		s++;
	}
	w[n] = '\0';
	*p = s;
	return 1;
}

static int
names_softwareupdate(const char *word)
{
	const char *base = strrchr(word, '/');

	return strcmp(base != NULL ? base + 1 : word, "softwareupdate") == 0;
}

int
rollout_probe_ps(const char *ps, struct ro_install_seen *seen)
{
	char line[4096], w[1024], etime[sizeof(seen->etime)];
	const char *p = ps != NULL ? ps : "";

	while (next_line(&p, line, sizeof(line))) {
		const char *q = line;
		char *end;
		long pid;
		int named = 0, install = 0;

		if (!next_word(&q, w, sizeof(w)))
			continue;
		pid = strtol(w, &end, 10);
		if (*end != '\0' || pid <= 0 || !next_word(&q, etime, sizeof(etime)))
			continue;
		while (!install && next_word(&q, w, sizeof(w))) {
			if (names_softwareupdate(w))
				named = 1;
			else if (named)
				install = strcmp(w, "--install") == 0 || strcmp(w, "-i") == 0;
		}
		if (install) {
			seen->pid = pid;
			snprintf(seen->etime, sizeof(seen->etime), "%s", etime);
			return 0;
		}
	}
	return -1;
}

double
rollout_probe_log_time(const char *line)
{
	int y, mo, d, h, mi, s, n = 0, zh = 0, zm = 0, sign;
	const char *z;

	if (sscanf(line, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 ||
	    n != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return -1;
	z = line + n;
	if (*z != '+' && *z != '-')
		return -1;
	sign = *z == '-' ? -1 : 1;
	z++;
	if (!isdigit((unsigned char)z[0]) || !isdigit((unsigned char)z[1]))
		return -1;
	zh = (z[0] - '0') * 10 + (z[1] - '0');
	z += 2;
	if (*z == ':')
		z++;
	if (isdigit((unsigned char)z[0]) && isdigit((unsigned char)z[1]))
		zm = (z[0] - '0') * 10 + (z[1] - '0'), z += 2;
	if (*z != ' ' || zh > 14 || zm > 59)
		return -1;
	return (double)civil_days(y, mo, d) * 86400.0 + h * 3600 + mi * 60 + s -
	    sign * (zh * 3600 + zm * 60);
}

/* "softwareupdated[455]:" or "softwareupdate[9]:" names the updater. */
static int
updater_process(const char *word)
{
	size_t n = strcspn(word, "[");

	return word[n] == '[' && ((n == 14 && strncmp(word, "softwareupdate", 14) == 0) ||
	    (n == 15 && strncmp(word, "softwareupdated", 15) == 0));
}

int
rollout_probe_log(const char *log, double since, struct ro_install_seen *seen)
{
	char line[1024], w[256];
	const char *p = log != NULL ? log : "";

	while (next_line(&p, line, sizeof(line))) {
		double t = rollout_probe_log_time(line);
		const char *q = line + 19;

		if (t < 0 || t < since)
			continue;
		/* the zone, the host, then the process */
		if (!next_word(&q, w, sizeof(w)) || !next_word(&q, w, sizeof(w)) ||
		    !next_word(&q, w, sizeof(w)) || !updater_process(w))
			continue;
		seen->log_lines++;
		if (t >= seen->log_last) {
			seen->log_last = t;
			while (*q == ' ')
				q++;
			snprintf(seen->log_text, sizeof(seen->log_text), "%s", q);
		}
	}
	return seen->log_lines;
}

void
rollout_probe_str(const struct ro_install_seen *seen, char *buf, size_t size)
{
	char proc[96] = "", log[256] = "";

	if (seen->pid > 0)
		snprintf(proc, sizeof(proc), "softwareupdate --install is running (pid %ld, for %s)",
		    seen->pid, seen->etime);
	if (seen->log_lines > 0)
		snprintf(log, sizeof(log), "install.log has %d line%s of softwareupdate since, the "
		    "last: %.120s", seen->log_lines, seen->log_lines == 1 ? "" : "s",
		    seen->log_text);
	if (proc[0] == '\0' && log[0] == '\0')
		snprintf(buf, size, "no softwareupdate process or install.log line since");
	else
		snprintf(buf, size, "%s%s%s", proc, proc[0] != '\0' && log[0] != '\0' ? "; " : "",
		    log);
}
