/*
 * The campaign runner's thread (see rollout_run.h).
 *
 * For testing crash recovery, the environment variable
 * TBMESH_TEST_CRASH_AFTER=N makes the process kill itself (SIGKILL) right
 * after its Nth step record is committed, and TBMESH_TEST_CRASH_MIDSTEP=1
 * right after its first step has run but before its end is recorded.
 */
#include "rollout_run.h"

#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "inventory.h"
#include "log.h"
#include "placement_ctrl.h"
#include "registry.h"
#include "rollout_steps.h"

#define IDS_MAX 64

struct rollout_runner {
	struct ctrl *c;
	const struct rollout_adapters *ad;
	pthread_t th;
	atomic_int stop;
	int cursor;
	long crash_after;       /* test hook: records before SIGKILL; 0 off */
	int crash_midstep;
	long records;
};

/* A step record was committed (test hook). */
static void
recorded(struct rollout_runner *r)
{
	r->records++;
	if (r->crash_after > 0 && r->records >= r->crash_after) {
		log_warnx("TBMESH_TEST_CRASH_AFTER=%ld: killing myself", r->crash_after);
		raise(SIGKILL);
	}
}

static struct ro_campaign *
load(struct ctrl *c, int64_t id)
{
	struct ro_campaign *camp = malloc(sizeof(*camp));

	if (camp == NULL)
		return NULL;
	pthread_mutex_lock(&c->inv_mu);
	int rc = inv_rollout_get(c->inv, id, camp);
	pthread_mutex_unlock(&c->inv_mu);
	if (rc != 0) {
		free(camp);
		return NULL;
	}
	return camp;
}

/*
 * Record node i's step start: the node's row and a "begin" line.  Nothing
 * begins, and 1 is returned, when the campaign as stored now is no longer
 * running: an operator paused or aborted it after camp was loaded, and
 * saving camp would undo that.
 */
static int
record_begin(struct rollout_runner *r, struct ro_campaign *camp, int i)
{
	struct ctrl *c = r->c;
	struct ro_node *n = &camp->nodes[i];
	struct ro_campaign *cur = malloc(sizeof(*cur));
	double now = ctrl_now();
	int rc;

	if (cur == NULL)
		return -1;
	pthread_mutex_lock(&c->inv_mu);
	rc = inv_rollout_get(c->inv, camp->id, cur);
	if (rc != 0 || cur->state != RO_RUNNING) {
		pthread_mutex_unlock(&c->inv_mu);
		free(cur);
		return rc != 0 ? -1 : 1;
	}
	free(cur);
	ro_step_prepare(c, camp, i);
	rollout_begin(camp, i, now);
	rc = inv_begin(c->inv);
	if (rc == 0)
		rc = inv_rollout_save(c->inv, camp);
	if (rc == 0)
		rc = inv_rollout_log(c->inv, camp->id, n->node, n->step, "begin", now, -1, NULL);
	if (rc == 0)
		rc = inv_commit(c->inv);
	else
		inv_rollback(c->inv);
	pthread_mutex_unlock(&c->inv_mu);
	if (rc != 0)
		return -1;
	log_info("rollout %" PRId64 ": %s: %s", camp->id, n->node, ro_step_str(n->step));
	recorded(r);
	return 0;
}

static int
outcome_status(enum ro_outcome o)
{
	return o == RO_OUT_OK ? 0 : o == RO_OUT_FAIL ? 1 : 2;
}

/*
 * Record the end of node i's step on the campaign as stored now (an
 * operator may have paused or aborted it meanwhile).
 */
static int
record_end(struct rollout_runner *r, const struct ro_campaign *ran, int i,
    const struct ro_step_result *res)
{
	struct ctrl *c = r->c;
	struct ro_campaign *cur = malloc(sizeof(*cur));
	double now = ctrl_now();
	int rc;

	if (cur == NULL)
		return -1;
	pthread_mutex_lock(&c->inv_mu);
	if (inv_rollout_get(c->inv, ran->id, cur) != 0) {
		pthread_mutex_unlock(&c->inv_mu);
		free(cur);
		return -1;
	}
	enum ro_state before = cur->state;
	enum ro_step step = ran->nodes[i].step;
	cur->nodes[i] = ran->nodes[i];
	if (res->label_found)
		snprintf(cur->label, sizeof(cur->label), "%s", ran->label);
	snprintf(cur->nodes[i].last_line, sizeof(cur->nodes[i].last_line), "%s", res->last_line);
	rollout_outcome(cur, i, res->outcome, res->reason, now);
	if (before == RO_ABORTED)
		cur->state = RO_ABORTED;
	rc = inv_begin(c->inv);
	if (rc == 0)
		rc = inv_rollout_save(c->inv, cur);
	if (rc == 0)
		rc = inv_rollout_log(c->inv, cur->id, cur->nodes[i].node, step, "end", now,
		    outcome_status(res->outcome), res->output);
	if (rc == 0 && res->outcome == RO_OUT_FAIL)
		ro_step_fail_cordon(c, cur, i, now);
	if (rc == 0 && cur->state == RO_FINISHED && before != RO_FINISHED) {
		ctrl_event(c, now, "controller", "", "rollout-finished", cur->target);
		rc = placement_rollout_restore(c, cur, now);
	}
	if (rc == 0)
		rc = inv_commit(c->inv);
	else
		inv_rollback(c->inv);
	pthread_mutex_unlock(&c->inv_mu);
	if (rc == 0)
		log_info("rollout %" PRId64 ": %s: %s %s%s%s", cur->id, cur->nodes[i].node,
		    ro_step_str(step), res->outcome == RO_OUT_FAIL ? "failed" : "done",
		    res->outcome == RO_OUT_FAIL ? ": " : "", res->outcome == RO_OUT_FAIL ?
		    res->reason : "");
	free(cur);
	if (rc == 0)
		recorded(r);
	return rc;
}

/* One step of campaign id; 1 when something was recorded. */
static int
tick_campaign(struct rollout_runner *r, int64_t id)
{
	struct ro_campaign *camp = load(r->c, id);
	struct ro_step_result *res = NULL;
	int i, did = 0;

	if (camp == NULL)
		return 0;
	i = rollout_next(camp, r->cursor, ctrl_now());
	if (i < 0 || (res = malloc(sizeof(*res))) == NULL)
		goto done;
	r->cursor = i;
	int resumed = camp->nodes[i].running;
	if (!resumed) {
		if (record_begin(r, camp, i) != 0)
			goto done;
		did = 1;
	}
	ro_step_run(r->c, r->ad, camp, i, resumed, res);
	if (res->outcome == RO_OUT_NOT_YET)
		goto done;
	if (r->crash_midstep) {
		log_warnx("TBMESH_TEST_CRASH_MIDSTEP: killing myself before recording the end");
		raise(SIGKILL);
	}
	did = record_end(r, camp, i, res) == 0 || did;
done:
	free(res);
	free(camp);
	return did;
}

void
rollout_rearm_reboots(struct ctrl *c)
{
	int64_t ids[IDS_MAX];
	int n = 0;
	struct ro_campaign *camp = malloc(sizeof(*camp));

	if (camp == NULL)
		return;
	pthread_mutex_lock(&c->inv_mu);
	if (inv_rollout_ids(c->inv, 0, ids, IDS_MAX, &n) != 0)
		n = 0;
	for (int k = 0; k < n; k++) {
		if (inv_rollout_get(c->inv, ids[k], camp) != 0 || camp->state == RO_FINISHED ||
		    camp->state == RO_ABORTED)
			continue;
		for (int i = 0; i < camp->n; i++) {
			const struct ro_node *rn = &camp->nodes[i];
			struct reg_node node;
			if (!((rn->step == RO_INSTALL && !isnan(rn->install_at)) ||
			    rn->step == RO_WAIT) || registry_get_node(c->reg, rn->node, &node) != 0)
				continue;
			node.lc.reboot_expected = 1;
			registry_set_lc(c->reg, node.name, &node.lc);
		}
	}
	pthread_mutex_unlock(&c->inv_mu);
	free(camp);
}

static void *
runner_main(void *arg)
{
	struct rollout_runner *r = arg;
	int64_t ids[IDS_MAX];
	int n;

	while (!atomic_load(&r->stop)) {
		int did = 0;
		pthread_mutex_lock(&r->c->inv_mu);
		int rc = inv_rollout_ids(r->c->inv, 1, ids, IDS_MAX, &n);
		pthread_mutex_unlock(&r->c->inv_mu);
		for (int k = 0; rc == 0 && k < n && !atomic_load(&r->stop); k++)
			did |= tick_campaign(r, ids[k]);
		if (!did)
			poll(NULL, 0, 200);
	}
	return NULL;
}

struct rollout_runner *
rollout_runner_start(struct ctrl *c, const struct rollout_adapters *ad)
{
	struct rollout_runner *r = calloc(1, sizeof(*r));
	const char *crash = getenv("TBMESH_TEST_CRASH_AFTER");
	const char *mid = getenv("TBMESH_TEST_CRASH_MIDSTEP");

	if (r == NULL)
		return NULL;
	r->c = c;
	r->ad = ad;
	r->cursor = -1;
	r->crash_after = crash != NULL ? strtol(crash, NULL, 10) : 0;
	r->crash_midstep = mid != NULL && strcmp(mid, "1") == 0;
	if (pthread_create(&r->th, NULL, runner_main, r) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

void
rollout_runner_stop(struct rollout_runner *r)
{
	if (r == NULL)
		return;
	atomic_store(&r->stop, 1);
	pthread_join(r->th, NULL);
	free(r);
}

static void
dry_node(struct ctrl *c, struct ro_campaign *camp, struct ro_node *n)
{
	char cmds[4][RO_CMD_MAX + 1], user[sizeof(api_name)] = "", scope[128];
	api_name name;
	struct api_node an;

	snprintf(name, sizeof(name), "%s", n->node);
	if (inv_node_get(c->inv, n->node, &an) == 0 &&
	    rollout_at_target(camp->target, an.os_version, an.os_build)) {
		n->step = RO_SKIPPED;
		snprintf(n->reason, sizeof(n->reason), "already at %s", camp->target);
		return;
	}
	snprintf(scope, sizeof(scope), "node:%s", n->node);
	if (inv_cred_get(c->inv, scope, user, sizeof(user)) != 0) {
		snprintf(scope, sizeof(scope), "cluster:%s", camp->cluster);
		inv_cred_get(c->inv, scope, user, sizeof(user));
	}
#define ADD(...) do { if (n->ncmds < RO_CMDS_MAX) \
	snprintf(n->cmds[n->ncmds++], RO_CMD_MAX + 1, __VA_ARGS__); } while (0)
	int k = rollout_commands(camp, RO_PREFLIGHT, user, cmds, 4);
	for (int j = 0; j < k; j++)
		ADD("preflight: %.360s", cmds[j]);
	ADD("cordon: tbctl node cordon %s (unless cordoned already)", name);
	if (camp->mode == RO_LOCKSTEP)
		ADD("drain: stop every placement of %s (marked degraded, memory kept; restored "
		    "when every node passes)", camp->cluster);
	else
		ADD("drain: stop the placements on %s (marked degraded, memory kept; restored "
		    "when the rollout finishes)", name);
	k = rollout_commands(camp, RO_DOWNLOAD, user, cmds, 4);
	for (int j = 0; j < k; j++)
		ADD("download: %.360s", cmds[j]);
	k = rollout_commands(camp, RO_INSTALL, user, cmds, 4);
	ADD("install: %.360s", cmds[k - 1]);
	ADD("wait: a report with a new boot time, at most %.0f s", c->boot_timeout);
	ADD("verify: build is %s, RDMA enabled, links pass, GPU wired limit as before",
	    camp->target);
	ADD("uncordon: only if this rollout cordoned it");
#undef ADD
}

void
rollout_dry_run(struct ctrl *c, struct ro_campaign *camp)
{
	for (int i = 0; i < camp->n; i++)
		dry_node(c, camp, &camp->nodes[i]);
}
