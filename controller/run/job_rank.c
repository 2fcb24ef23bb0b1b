/*
 * A job's ranks on their nodes, over SSH (see job_rank.h).
 */
#include "job_rank.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "log.h"
#include "node_ssh.h"
#include "ssh.h"
#include "textbuf.h"

/* Seconds a stop line may take: the grace, SIGKILL's check, and room. */
#define STOP_TIMEOUT(c) ((c)->ssh_command_timeout > JOB_STOP_GRACE + 20 ? \
	(c)->ssh_command_timeout : JOB_STOP_GRACE + 20)

/*
 * Run line on node with in as its standard input.  0 with *res (free it),
 * -1 with why in err (no connection, the session failed, timed out).
 */
static int
run_on(struct ctrl *c, const char *node, const char *line, const char *in, double timeout,
    struct ssh_result *res, char *err, size_t errlen)
{
	char why[512];
	struct ssh_conn *conn = node_ssh_connect(c, node, why, sizeof(why));
	int rc;

	memset(res, 0, sizeof(*res));
	if (conn == NULL) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	rc = ssh_run(conn, line, in, in ? strlen(in) : 0, timeout, res, why, sizeof(why));
	ssh_close(conn);
	if (rc == -1) {
		snprintf(err, errlen, "%s: %s", node, why);
		ssh_result_free(res);
		return -1;
	}
	if (res->timed_out) {
		snprintf(err, errlen, "%s: no answer within %g s", node, timeout);
		ssh_result_free(res);
		return -1;
	}
	return 0;
}

/* res's last line, from stdout, else stderr. */
static void
last_line(const struct ssh_result *res, char *buf, size_t size)
{
	ssh_last_line(res->out ? res->out : "", buf, size);
	if (buf[0] == '\0')
		ssh_last_line(res->err ? res->err : "", buf, size);
}

int
job_rank_stop(struct ctrl *c, const struct job *j, int r, char *err, size_t errlen)
{
	const struct job_rank *k = &j->ranks[r];
	struct ssh_result res;
	char line[256];
	char *cmd = job_env_stop_line(j->id, r, JOB_STOP_GRACE);
	int rc;

	if (cmd == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = run_on(c, k->node, cmd, NULL, STOP_TIMEOUT(c), &res, err, errlen);
	free(cmd);
	if (rc == -1)
		return -1;
	last_line(&res, line, sizeof(line));
	rc = res.status == 0 ? 0 : -1;
	if (res.status == 4)
		snprintf(err, errlen, "rank %d's pid %s on %s would not die", r,
		    strncmp(line, "alive ", 6) == 0 ? line + 6 : "?", k->node);
	else if (res.status != 0)
		snprintf(err, errlen, "rank %d on %s: the stop line ended with status %d: %s",
		    r, k->node, res.status, line);
	ssh_result_free(&res);
	return rc;
}

/* Run the start line once: 0 started (*pid), 3 running already (*pid, *gen), -1 failed. */
static int
start_once(struct ctrl *c, const struct job *j, const struct job_env *e, int r, int64_t *pid,
    int *gen, char *err, size_t errlen)
{
	const struct job_rank *k = &j->ranks[r];
	struct ssh_result res;
	char line[256];
	long long p = 0;
	char *cmd = job_env_start_line(e, j->id, j->generation, r);
	int rc;

	if (cmd == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = run_on(c, k->node, cmd, e->file, c->ssh_command_timeout, &res, err, errlen);
	free(cmd);
	if (rc == -1)
		return -1;
	last_line(&res, line, sizeof(line));
	rc = -1;
	if (res.status == 0 && sscanf(line, "started %lld", &p) == 1 && p > 0) {
		*pid = p;
		rc = 0;
	} else if (res.status == 3 && sscanf(line, "running %lld %d", &p, gen) == 2 && p > 0) {
		*pid = p;
		rc = 3;
	} else
		snprintf(err, errlen, "%s: status %d: %s", k->node, res.status,
		    line[0] ? line : "no output");
	ssh_result_free(&res);
	return rc;
}

int
job_rank_start(struct ctrl *c, const struct job *j, const struct job_env *e, int r,
    int64_t *pid, char *err, size_t errlen)
{
	int gen = 0, rc = start_once(c, j, e, r, pid, &gen, err, errlen);

	if (rc != 3)
		return rc;
	if (gen == j->generation) {
		log_info("job %" PRId64 ": rank %d's pid %" PRId64 " on %s is already this "
		    "generation's: adopted", j->id, r, *pid, j->ranks[r].node);
		return 0;
	}
	/* a copy from another generation: it goes first, no second copy */
	log_warnx("job %" PRId64 ": rank %d's pid %" PRId64 " on %s is of generation %d: "
	    "stopping it", j->id, r, *pid, j->ranks[r].node, gen);
	if (job_rank_stop(c, j, r, err, errlen) == -1)
		return -1;
	rc = start_once(c, j, e, r, pid, &gen, err, errlen);
	if (rc == 3) {
		snprintf(err, errlen, "%s: rank %d's pid %" PRId64 " came back", j->ranks[r].node, r,
		    *pid);
		return -1;
	}
	return rc;
}

/* The ranks of j on node, their pids into pids (those known). */
static int
pids_on(const struct job *j, const char *node, int64_t *pids)
{
	int n = 0;

	for (int r = 0; r < j->n_ranks; r++)
		if (strcmp(j->ranks[r].node, node) == 0 && j->ranks[r].pid > 0)
			pids[n++] = j->ranks[r].pid;
	return n;
}

/* Read node's ranks of j: 0, or -1 with why in err. */
static int
ps_node(struct ctrl *c, struct job *j, const char *node, double now, int *runnable, char *err,
    size_t errlen)
{
	int64_t pids[JOB_RANKS_MAX];
	struct ssh_result res;
	int n = pids_on(j, node, pids);
	char *cmd;

	if (n == 0)
		return 0;
	if ((cmd = job_env_ps_line(pids, n)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = run_on(c, node, cmd, NULL, c->ssh_command_timeout, &res, err, errlen);
	free(cmd);
	if (rc == -1)
		return -1;
	for (int r = 0; r < j->n_ranks; r++) {
		struct job_rank *k = &j->ranks[r];
		double cpu;
		int64_t rss;
		if (strcmp(k->node, node) != 0 || k->pid <= 0)
			continue;
		int found = job_env_ps_find(res.out ? res.out : "", k->pid, &cpu, &rss);
		if (runnable != NULL)
			runnable[r] = found == 2;
		if (found) {
			k->alive = 1;
			k->cpu_seconds = cpu;
			k->rss_bytes = rss;
		} else
			k->alive = 0;
		k->seen_at = now;
		snprintf(k->seen_by, sizeof(k->seen_by), "ssh");
	}
	ssh_result_free(&res);
	return 0;
}

int
job_rank_ps(struct ctrl *c, struct job *j, double now, int *runnable, char *err, size_t errlen)
{
	int failed = 0;

	for (int r = 0; r < j->n_ranks; r++) {
		int first = 1;
		for (int q = 0; q < r; q++)
			if (strcmp(j->ranks[q].node, j->ranks[r].node) == 0)
				first = 0;
		if (first && ps_node(c, j, j->ranks[r].node, now, runnable, err, errlen) == -1)
			failed++;
	}
	return failed;
}

int
job_rank_log(struct ctrl *c, const struct job *j, int r, int64_t from, int max_lines,
    struct job_log *l, char *err, size_t errlen)
{
	struct ssh_result res;
	char *cmd = job_env_tail_line(j->id, r, from, JOB_LOG_BYTES_MAX);
	int rc;

	if (cmd == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = run_on(c, j->ranks[r].node, cmd, NULL, c->ssh_command_timeout, &res, err, errlen);
	free(cmd);
	if (rc == -1)
		return -1;
	if (res.status != 0) {
		char line[160];
		last_line(&res, line, sizeof(line));
		snprintf(err, errlen, "%s: reading rank %d's log ended with status %d%s%s",
		    j->ranks[r].node, r, res.status, line[0] ? ": " : "", line);
		rc = -1;
	} else if (job_env_tail_read(res.out ? res.out : "", res.out ? res.out_len : 0, from,
	    max_lines, l, err, errlen) == -1)
		rc = -1;
	ssh_result_free(&res);
	return rc;
}

int
job_rank_tail(struct ctrl *c, const struct job *j, int r, int lines, char **out, char *err,
    size_t errlen)
{
	struct job_log *l = calloc(1, sizeof(*l));
	struct textbuf b = { 0 };

	*out = NULL;
	if (l == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (job_rank_log(c, j, r, -1, lines, l, err, errlen) == -1) {
		job_logs_free(l, 1);
		return -1;
	}
	textbuf_printf(&b, "%s", "");
	for (int k = 0; k < l->n_lines; k++)
		textbuf_printf(&b, "%s\n", l->lines[k]);
	if (l->partial != NULL)
		textbuf_printf(&b, "%s", l->partial);
	job_logs_free(l, 1);
	if ((*out = textbuf_take(&b)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
