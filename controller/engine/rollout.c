/*
 * The rollout engine (see rollout.h): pure functions over a campaign.
 */
#include "rollout.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int
active(enum ro_step s)
{
	return s >= RO_PREFLIGHT && s <= RO_UNCORDON;
}

int
rollout_in_progress(const struct ro_campaign *c)
{
	int k = 0;

	for (int i = 0; i < c->n; i++)
		if (active(c->nodes[i].step) || c->nodes[i].step == RO_FAILED)
			k++;
	return k;
}

int
rollout_in_window(const struct ro_campaign *c, double now)
{
	time_t t = (time_t)now;
	struct tm tm;

	if (c->window_start < 0)
		return 1;
	gmtime_r(&t, &tm);
	int m = tm.tm_hour * 60 + tm.tm_min;
	if (c->window_start < c->window_end)
		return m >= c->window_start && m < c->window_end;
	return m >= c->window_start || m < c->window_end;   /* over midnight */
}

int
rollout_next(const struct ro_campaign *c, int after, double now)
{
	int limit = c->mode == RO_LOCKSTEP ? c->n : c->max_unavailable;

	if (c->state != RO_RUNNING || c->n == 0)
		return -1;
	if (rollout_in_progress(c) < limit && rollout_in_window(c, now))
		for (int i = 0; i < c->n; i++)
			if (c->nodes[i].step == RO_PENDING)
				return i;
	for (int k = 1; k <= c->n; k++) {
		int i = ((after < 0 ? -1 : after) + k) % c->n;
		if (active(c->nodes[i].step))
			return i;
	}
	return -1;
}

void
rollout_begin(struct ro_campaign *c, int i, double now)
{
	struct ro_node *n = &c->nodes[i];

	if (n->step == RO_PENDING)
		n->step = RO_PREFLIGHT;
	if (!n->running) {
		n->running = 1;
		n->since = now;
	}
	c->updated_at = now;
}

static void
finish_if_done(struct ro_campaign *c, double now)
{
	for (int i = 0; i < c->n; i++)
		if (c->nodes[i].step != RO_DONE && c->nodes[i].step != RO_SKIPPED)
			return;
	c->state = RO_FINISHED;
	c->updated_at = now;
}

void
rollout_outcome(struct ro_campaign *c, int i, enum ro_outcome out, const char *reason,
    double now)
{
	struct ro_node *n = &c->nodes[i];

	if (out == RO_OUT_NOT_YET)
		return;
	n->running = 0;
	n->since = now;
	c->updated_at = now;
	if (out == RO_OUT_AT_TARGET) {
		n->step = RO_SKIPPED;
		snprintf(n->reason, sizeof(n->reason), "already at %s", c->target);
	} else if (out == RO_OUT_FAIL) {
		n->failed_step = n->step;
		n->step = RO_FAILED;
		snprintf(n->reason, sizeof(n->reason), "%s", reason != NULL ? reason : "failed");
		c->state = RO_HALTED;
		snprintf(c->reason, sizeof(c->reason), "%s: %s: %s", n->node,
		    ro_step_str(n->failed_step), n->reason);
		return;
	} else if (active(n->step)) {
		n->step = (enum ro_step)(n->step + 1);
		n->reason[0] = '\0';
	}
	finish_if_done(c, now);
}

int
rollout_pause(struct ro_campaign *c, double now, char *err, size_t errlen)
{
	if (c->state != RO_RUNNING) {
		snprintf(err, errlen, "rollout %" PRId64 " is %s, not running", c->id,
		    ro_state_str(c->state));
		return -1;
	}
	c->state = RO_PAUSED;
	c->updated_at = now;
	return 0;
}

int
rollout_resume(struct ro_campaign *c, double now, char *err, size_t errlen)
{
	if (c->state != RO_PAUSED) {
		snprintf(err, errlen, "rollout %" PRId64 " is %s, not paused%s", c->id,
		    ro_state_str(c->state), c->state == RO_HALTED ?
		    " (a halted rollout goes on with retry NODE)" : "");
		return -1;
	}
	c->state = RO_RUNNING;
	c->updated_at = now;
	return 0;
}

int
rollout_abort(struct ro_campaign *c, double now, char *err, size_t errlen)
{
	if (c->state == RO_ABORTED || c->state == RO_FINISHED) {
		snprintf(err, errlen, "rollout %" PRId64 " is already %s", c->id,
		    ro_state_str(c->state));
		return -1;
	}
	c->state = RO_ABORTED;
	snprintf(c->reason, sizeof(c->reason), "aborted by the operator");
	c->updated_at = now;
	return 0;
}

int
rollout_retry(struct ro_campaign *c, const char *node, double now, char *err, size_t errlen)
{
	for (int i = 0; i < c->n; i++) {
		struct ro_node *n = &c->nodes[i];
		if (strcmp(n->node, node) != 0)
			continue;
		if (n->step != RO_FAILED || c->state != RO_HALTED) {
			snprintf(err, errlen, "%s has not failed in rollout %" PRId64 " (it is at "
			    "%s, the rollout %s)", node, c->id, ro_step_str(n->step),
			    ro_state_str(c->state));
			return -1;
		}
		n->step = n->failed_step;
		/* a Mac that did not restart after its install: install again,
		 * unless it restarted meanwhile (the install step checks) */
		if (n->step == RO_WAIT)
			n->step = RO_INSTALL;
		n->install_at = NAN;
		n->running = 0;
		n->since = now;
		n->reason[0] = '\0';
		c->state = RO_RUNNING;
		c->reason[0] = '\0';
		c->updated_at = now;
		return 0;
	}
	snprintf(err, errlen, "%s is not in rollout %" PRId64, node, c->id);
	return -1;
}

int
rollout_commands(const struct ro_campaign *c, enum ro_step step, const char *user,
    char cmds[][RO_CMD_MAX + 1], int max)
{
	char label[RO_LABEL_MAX + 32];
	int k = 0;

	if (c->label[0] != '\0')
		snprintf(label, sizeof(label), "%s", c->label);
	else
		snprintf(label, sizeof(label), "<label of %s>", c->target);
#define ADD(...) do { if (k < max) snprintf(cmds[k++], RO_CMD_MAX + 1, __VA_ARGS__); } while (0)
	switch (step) {
	case RO_PREFLIGHT:
		ADD("sw_vers");
		ADD("softwareupdate --list");
		ADD("df -k /");
		ADD(ROLLOUT_SUDO "true; dscl . -read /Users/'%s' GeneratedUID; diskutil "
		    "apfs listcryptousers /  (sudo works, the user is a volume owner)",
		    user != NULL && user[0] != '\0' ? user : "<user>");
		break;
	case RO_DOWNLOAD:
		ADD(ROLLOUT_SUDO "softwareupdate --download '%s'", label);
		break;
	case RO_INSTALL:
		ADD("sw_vers");
		ADD(ROLLOUT_SUDO "softwareupdate --install '%s' --restart --agree-to-license "
		    "--no-scan --user '%s' --stdinpass  (password on standard input; detached, its "
		    "output in ~/Library/Logs/tbmesh-softwareupdate.log)", label,
		    user != NULL && user[0] != '\0' ? user : "<user>");
		break;
	default:
		break;
	}
#undef ADD
	return k;
}

/* The "Size: 123KiB" of a Title line, in KiB; -1 when none. */
static int64_t
title_size(const char *line)
{
	const char *p = strstr(line, "Size: ");
	char *end;

	if (p == NULL)
		return -1;
	long long v = strtoll(p + 6, &end, 10);
	if (end == p + 6 || v < 0)
		return -1;
	if (strncmp(end, "KiB", 3) == 0 || strncmp(end, "K", 1) == 0)
		return v;
	if (strncmp(end, "MiB", 3) == 0)
		return v * 1024;
	return -1;
}

static int
label_matches(const char *label, const char *title, const char *target, const char *want)
{
	if (want != NULL && want[0] != '\0')
		return strcmp(label, want) == 0;
	if (strncmp(label, "macOS", 5) != 0)
		return 0;
	const char *dash = strrchr(label, '-');
	if (dash != NULL && strcmp(dash + 1, target) == 0)
		return 1;
	char v[RO_TARGET_MAX + 16];
	snprintf(v, sizeof(v), "Version: %s,", target);
	return strstr(title, v) != NULL;
}

int
rollout_find_update(const char *list, const char *target, const char *want_label,
    char *label, size_t labelsize, int64_t *size_kib, char *err, size_t errlen)
{
	const char *p = list;

	while (p != NULL && *p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(n < 511 ? n : 511), p);
		const char *lab = strstr(line, "* Label: ");
		if (lab != NULL) {
			char name[RO_LABEL_MAX + 1], title[512] = "";
			snprintf(name, sizeof(name), "%s", lab + 9);
			if (eol != NULL) {
				const char *t = eol + 1, *teol = strchr(t, '\n');
				snprintf(title, sizeof(title), "%.*s", (int)(teol != NULL ?
				    (size_t)(teol - t) : strlen(t)), t);
			}
			if (label_matches(name, title, target, want_label)) {
				snprintf(label, labelsize, "%s", name);
				*size_kib = title_size(title);
				return 0;
			}
		}
		p = eol != NULL ? eol + 1 : NULL;
	}
	if (want_label != NULL && want_label[0] != '\0')
		snprintf(err, errlen, "softwareupdate --list does not show the label \"%s\"",
		    want_label);
	else
		snprintf(err, errlen, "softwareupdate --list shows no macOS update to %s", target);
	return -1;
}

int
rollout_df_avail(const char *df, int64_t *kib)
{
	const char *l2 = strchr(df, '\n');
	char dev[256];
	long long blocks, used, avail;

	if (l2 == NULL || sscanf(l2 + 1, "%255s %lld %lld %lld", dev, &blocks, &used, &avail) != 4)
		return -1;
	*kib = avail;
	return 0;
}

int
rollout_at_target(const char *target, const char *version, const char *build)
{
	return (version != NULL && version[0] != '\0' && strcmp(target, version) == 0) ||
	    (build != NULL && build[0] != '\0' && strcmp(target, build) == 0);
}

int
rollout_shell_word_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '\'' || *s == '\n' || *s == '\r' || *s == '\\')
			return 0;
	return 1;
}

int
rollout_dscl_guid(const char *out, char *guid, size_t size)
{
	const char *p = strstr(out, "GeneratedUID:");
	size_t n;

	if (p == NULL)
		return -1;
	p += strlen("GeneratedUID:");
	p += strspn(p, " \t");
	n = strcspn(p, " \t\r\n");
	if (n == 0 || n >= size)
		return -1;
	memcpy(guid, p, n);
	guid[n] = '\0';
	return 0;
}

int
rollout_volume_owner(const char *list, const char *guid)
{
	int in = 0, found = 0;

	for (const char *l = list; l != NULL && *l != '\0'; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl != NULL ? (size_t)(nl - l) : strlen(l);
		const char *t = l;

		while (t < l + len && (*t == '|' || *t == ' ' || *t == '\t'))
			t++;
		if (strncmp(t, "+-- ", 4) == 0) {
			const char *u = t + 4;
			size_t ulen = (size_t)(l + len - u);

			while (ulen > 0 && (u[ulen - 1] == ' ' || u[ulen - 1] == '\r'))
				ulen--;
			in = ulen == strlen(guid) && strncasecmp(u, guid, ulen) == 0;
			found |= in;
		} else if (in && strncmp(t, "Volume Owner: Yes", 17) == 0) {
			return 1;
		}
		l = nl != NULL ? nl + 1 : NULL;
	}
	return found ? 0 : -1;
}

int
rollout_install_ended(const char *log, char *last, size_t size)
{
	const char *end = NULL, *prev = NULL;

	last[0] = '\0';
	for (const char *l = log; l != NULL && *l != '\0'; ) {
		const char *nl = strchr(l, '\n');

		if (strncmp(l, ROLLOUT_INSTALL_END, strlen(ROLLOUT_INSTALL_END)) == 0)
			end = l;
		else if (l[0] != '\n' && l[0] != '\r')
			prev = l;
		if (end != NULL)
			break;
		l = nl != NULL ? nl + 1 : NULL;
	}
	if (prev != NULL) {
		size_t n = strcspn(prev, "\r\n");
		snprintf(last, size, "%.*s", (int)(n < size ? n : size - 1), prev);
	}
	if (end == NULL)
		return -1;
	return atoi(end + strlen(ROLLOUT_INSTALL_END));
}
