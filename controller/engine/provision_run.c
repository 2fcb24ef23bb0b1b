/*
 * provision_run: runs the survey and a plan through a struct prov_exec
 * (how commands reach the Mac: the SSH layer in the controller), checking
 * each step right before applying it and again after, recording every step,
 * and undoing this run's steps in reverse when one fails.  Commands go out
 * as the plan wrote them: those that need root already carry "sudo -n".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision.h"

static void
output_free(struct prov_output *o)
{
	free(o->out);
	free(o->err);
	memset(o, 0, sizeof(*o));
}

/* What separates an apply's output from its check's (two RS characters). */
#define PROV_AFTER "\\036\\036"

/* Run cmd; 0 with *o filled, or -1 with a reason in err. */
static int
run(const struct prov_exec *ex, const char *cmd, const void *in, size_t inlen,
    int timeout_s, struct prov_output *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (ex->run(ex->ctx, cmd, in, inlen, timeout_s, o, err, errlen) != 0) {
		output_free(o);
		return -1;
	}
	if (o->out == NULL && (o->out = strdup("")) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The script that runs cmds[0..n) one after the other (see batch()). */
static char *
batch_script(const char *const *cmds, int n)
{
	size_t size = 1, o = 0;
	char *s;

	for (int i = 0; i < n; i++)
		size += strlen(cmds[i]) + 64;
	if ((s = malloc(size)) == NULL)
		return NULL;
	s[0] = '\0';
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, size - o,
		    "( %s ) </dev/null 2>/dev/null; printf '\\036%%d:%d\\036' $?\n", cmds[i], i);
	return s;
}

/*
 * Run cmds[0..n) in one session command (the round trips of SSH are what a
 * run waits for): "sh -s" reads them as a script on its standard input;
 * each command's standard output is followed by RS STATUS:INDEX RS.
 * outs[i] (malloc'd) and status[i] get each one's.  0, or -1 with err.
 */
static int
batch(const struct prov_exec *ex, const char *const *cmds, int n, int timeout_s,
    char **outs, int *status, char *err, size_t errlen)
{
	char *script = batch_script(cmds, n);
	struct prov_output o;
	const char *p;
	int rc = -1, i = 0;

	memset(outs, 0, sizeof(*outs) * (size_t)n);
	if (script == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (run(ex, "sh -s", script, strlen(script), timeout_s, &o, err, errlen) != 0) {
		free(script);
		return -1;
	}
	for (p = o.out; i < n; i++) {
		const char *m = strchr(p, '\036');
		int st, idx, len;

		if (m == NULL || sscanf(m + 1, "%d:%d%n", &st, &idx, &len) != 2 || idx != i ||
		    m[1 + len] != '\036' || (outs[i] = strndup(p, (size_t)(m - p))) == NULL)
			break;
		status[i] = st;
		p = m + 2 + len;
	}
	if (i == n)
		rc = 0;
	else
		snprintf(err, errlen, "the checks' output was cut short at command %d (exit status "
		    "%d)", i + 1, o.status);
	if (rc != 0)
		for (int k = 0; k < n; k++) {
			free(outs[k]);
			outs[k] = NULL;
		}
	output_free(&o);
	free(script);
	return rc;
}

int
prov_survey(const struct prov_exec *ex, int timeout_s, struct prov_facts *f, char *err,
    size_t errlen)
{
	const char *cmds[PROV_F_COUNT];
	char *outs[PROV_F_COUNT];
	int status[PROV_F_COUNT];

	prov_facts_init(f);
	for (int i = 0; i < PROV_F_COUNT; i++)
		cmds[i] = prov_survey_cmd(i);
	if (batch(ex, cmds, PROV_F_COUNT, timeout_s, outs, status, err, errlen) != 0)
		return -1;
	for (int i = 0; i < PROV_F_COUNT; i++) {
		prov_facts_parse(f, i, outs[i], status[i]);
		free(outs[i]);
	}
	return 0;
}

const char *
prov_outcome_name(enum prov_outcome o)
{
	static const char *names[] = {
		[PROV_DONE_ALREADY] = "done already", [PROV_NOT_APPLICABLE] = "not applicable",
		[PROV_APPLIED] = "applied",
		[PROV_WOULD_APPLY] = "would apply", [PROV_FAILED] = "FAILED",
		[PROV_UNDONE] = "undone", [PROV_UNDO_FAILED] = "undo FAILED",
		[PROV_NOT_UNDOABLE] = "cannot be undone",
	};
	return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}

/* Tell ex about the last record, once it is complete. */
static void
told(const struct prov_exec *ex, const struct prov_result *r)
{
	if (ex->recorded != NULL && r->n > 0)
		ex->recorded(ex->ctx, &r->records[r->n - 1]);
}

static struct prov_record *
record(struct prov_result *r, const struct prov_step *s, enum prov_outcome oc,
    const char *command)
{
	struct prov_record *rec;

	if (r->n == (int)(sizeof(r->records) / sizeof(r->records[0])))
		return &r->records[r->n - 1];
	rec = &r->records[r->n++];
	memset(rec, 0, sizeof(*rec));
	snprintf(rec->step, sizeof(rec->step), "%s", s->id);
	snprintf(rec->title, sizeof(rec->title), "%s", s->title);
	rec->outcome = oc;
	snprintf(rec->command, sizeof(rec->command), "%s", command != NULL ? command : "");
	return rec;
}

/* The first line of a command's stderr (or stdout) for a failure's reason. */
static void
why(const struct prov_output *o, char *buf, size_t size)
{
	const char *t = o->err != NULL && o->err[0] != '\0' ? o->err : o->out;
	size_t len = t != NULL ? strcspn(t, "\n") : 0;

	if (len == 0)
		snprintf(buf, size, "exit status %d", o->status);
	else
		snprintf(buf, size, "exit status %d: %.*s", o->status, (int)(len > 200 ? 200 : len),
		    t);
}

/* What this run applied: the step and what its check printed before. */
struct applied {
	const struct prov_step *s;
	struct prov_output before;
};

static void
undo_all(const struct prov_exec *ex, struct applied *a, int n, int timeout_s,
    struct prov_result *r)
{
	for (int i = n - 1; i >= 0; i--) {
		char cmd[PROV_CMD_MAX], e[PROV_LINE_MAX];
		const char *in;
		size_t inlen;
		struct prov_output o;
		struct prov_record *rec;

		if (prov_step_undo(a[i].s, a[i].before.out, a[i].before.status, cmd, sizeof(cmd),
		    &in, &inlen) != 0) {
			record(r, a[i].s, PROV_NOT_UNDOABLE, NULL);
			told(ex, r);
			continue;
		}
		if (run(ex, cmd, in, inlen, timeout_s, &o, e, sizeof(e)) != 0) {
			rec = record(r, a[i].s, PROV_UNDO_FAILED, cmd);
			snprintf(rec->detail, sizeof(rec->detail), "%s", e);
			told(ex, r);
			continue;
		}
		rec = record(r, a[i].s, o.status == 0 ? PROV_UNDONE : PROV_UNDO_FAILED, cmd);
		if (o.status != 0)
			why(&o, rec->detail, sizeof(rec->detail));
		told(ex, r);
		output_free(&o);
	}
}

/* The standard input of s's apply. */
static void
apply_input(const struct prov_step *s, const struct prov_blob *agent, const char *token,
    const void **in, size_t *inlen)
{
	*in = s->input;
	*inlen = s->input_len;
	if (s->input_binary) {
		*in = agent != NULL ? agent->data : NULL;
		*inlen = agent != NULL ? agent->len : 0;
	} else if (s->input_secret) {
		*in = token;
		*inlen = token != NULL ? strlen(token) : 0;
	}
}

/* Apply s then check it again.  0, or -1 with the reason in r. */
static int
apply_step(const struct prov_exec *ex, const struct prov_step *s, int timeout_s,
    const struct prov_blob *agent, const char *token, struct prov_result *r)
{
	struct prov_output o;
	const void *in;
	size_t inlen;
	char e[200];

	apply_input(s, agent, token, &in, &inlen);
	if ((s->input_binary || s->input_secret) && in == NULL) {
		snprintf(r->reason, sizeof(r->reason), "no %s given",
		    s->input_binary ? "agent binary" : "bootstrap token");
		return -1;
	}
	/* one round trip: the apply, then (when it worked) RS RS and the check */
	char cmd[PROV_CMD_MAX * 2 + 64];
	snprintf(cmd, sizeof(cmd), "{ %s\n} || exit $?; printf '" PROV_AFTER "'; %s", s->apply,
	    s->verify[0] != '\0' ? s->verify : s->check);
	if (run(ex, cmd, in, inlen, timeout_s, &o, e, sizeof(e)) != 0) {
		snprintf(r->reason, sizeof(r->reason), "%s", e);
		return -1;
	}
	char *after = strstr(o.out, "\036\036");
	if (after == NULL) {
		why(&o, r->reason, sizeof(r->reason));
		output_free(&o);
		return -1;
	}
	after += 2;
	int done = s->verify[0] != '\0' ? o.status == 0 : prov_step_done(s, after, o.status);
	output_free(&o);
	if (!done) {
		snprintf(r->reason, sizeof(r->reason),
		    "applied, but its check still says it is not done");
		return -1;
	}
	return 0;
}

/*
 * Step s's check, run right before its apply (what an earlier step of the
 * run changed is seen: the agent's plist step boots the agent out, so the
 * next step's check finds it unloaded).  0 with *o, or -1 with r failed.
 */
static int
check_step(const struct prov_exec *ex, const struct prov_step *s, int timeout_s,
    struct prov_output *o, struct prov_result *r)
{
	char e[200];

	if (run(ex, s->check, NULL, 0, timeout_s, o, e, sizeof(e)) == 0)
		return 0;
	snprintf(r->reason, sizeof(r->reason), "check: %s", e);
	snprintf(record(r, s, PROV_FAILED, s->check)->detail, PROV_LINE_MAX, "%s", r->reason);
	told(ex, r);
	return -1;
}

int
prov_run(const struct prov_exec *ex, const struct prov_plan *p, int dry_run, int timeout_s,
    const struct prov_blob *agent, const char *token, struct prov_result *r)
{
	struct applied a[PROV_STEPS_MAX];
	int na = 0, failed = 0;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < p->n && !failed; i++) {
		const struct prov_step *s = &p->steps[i];
		struct prov_output before;

		if (check_step(ex, s, timeout_s, &before, r) != 0) {
			failed = 1;
			break;
		}
		if (prov_step_not_applicable(s, before.out, before.status) ||
		    prov_step_done(s, before.out, before.status)) {
			record(r, s, prov_step_done(s, before.out, before.status) ? PROV_DONE_ALREADY :
			    PROV_NOT_APPLICABLE, s->check);
			told(ex, r);
			output_free(&before);
			continue;
		}
		if (dry_run) {
			record(r, s, PROV_WOULD_APPLY, s->apply);
			told(ex, r);
			output_free(&before);
			continue;
		}
		if (apply_step(ex, s, timeout_s, agent, token, r) != 0) {
			snprintf(record(r, s, PROV_FAILED, s->apply)->detail, PROV_LINE_MAX, "%s",
			    r->reason);
			told(ex, r);
			output_free(&before);
			failed = 1;
			break;
		}
		record(r, s, PROV_APPLIED, s->apply);
		told(ex, r);
		a[na].s = s;
		a[na++].before = before;
	}
	if (failed) {
		snprintf(r->failed_step, sizeof(r->failed_step), "%s", r->records[r->n - 1].step);
		undo_all(ex, a, na, timeout_s, r);
	}
	for (int i = 0; i < na; i++)
		output_free(&a[i].before);
	r->ok = !failed;
	return failed ? -1 : 0;
}
