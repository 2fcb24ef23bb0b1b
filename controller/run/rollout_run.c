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

struct campaign_get {
	int64_t id;
	struct ro_campaign *camp;
};

/* store_fn: campaign id as stored now. */
static int
campaign_get(struct inv *inv, void *arg)
{
	struct campaign_get *a = arg;

	return inv_rollout_get(inv, a->id, a->camp);
}

static struct ro_campaign *
load(struct ctrl *c, int64_t id)
{
	struct campaign_get a = { id, malloc(sizeof(*a.camp)) };

	if (a.camp == NULL)
		return NULL;
	if (store_with(&c->store, campaign_get, &a) != 0) {
		free(a.camp);
		return NULL;
	}
	return a.camp;
}

struct step_record {
	struct ctrl *c;
	struct ro_campaign *camp;    /* begin: the campaign the runner has */
	const struct ro_campaign *ran; /* end: the campaign the step ran with */
	struct ro_campaign *cur;     /* the campaign as stored now (malloc'd) */
	int i;
	double now;
	const struct ro_step_result *res;
	enum ro_state before;        /* end: cur's state before the step's outcome */
	int cordoned;                /* end: the failure cordoned rn */
	struct reg_node rn;          /* end: the node the failure cordoned, as it is now */
};

/*
 * store_fn: node i's step start, unless the campaign as stored now is no
 * longer running (1: nothing begins).
 */
static int
begin_tx(struct inv *inv, void *arg)
{
	struct step_record *x = arg;
	struct ro_campaign *camp = x->camp;
	struct ro_node *n = &camp->nodes[x->i];

	if (inv_rollout_get(inv, camp->id, x->cur) != 0)
		return -1;
	if (x->cur->state != RO_RUNNING)
		return 1;
	ro_step_prepare(x->c, camp, x->i);
	rollout_begin(camp, x->i, x->now);
	if (inv_rollout_save(inv, camp) != 0 ||
	    inv_rollout_log(inv, camp->id, n->node, n->step, "begin", x->now, -1, NULL) != 0)
		return -1;
	return 0;
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
	struct step_record x = { .c = r->c, .camp = camp, .cur = malloc(sizeof(*x.cur)),
		.i = i, .now = ctrl_now() };
	int rc;

	if (x.cur == NULL)
		return -1;
	rc = store_txn(&r->c->store, begin_tx, &x);
	free(x.cur);
	if (rc != 0)
		return rc == 1 ? 1 : -1;
	log_info("rollout %" PRId64 ": %s: %s", camp->id, camp->nodes[i].node,
	    ro_step_str(camp->nodes[i].step));
	recorded(r);
	return 0;
}

static int
outcome_status(enum ro_outcome o)
{
	return o == RO_OUT_OK ? 0 : o == RO_OUT_FAIL ? 1 : 2;
}

/* store_fn: the end of node i's step, on the campaign as stored now. */
static int
end_tx(struct inv *inv, void *arg)
{
	struct step_record *x = arg;
	struct ro_campaign *cur = x->cur;
	const struct ro_step_result *res = x->res;
	int i = x->i;

	if (inv_rollout_get(inv, x->ran->id, cur) != 0)
		return -1;
	x->before = cur->state;
	cur->nodes[i] = x->ran->nodes[i];
	if (res->label_found)
		snprintf(cur->label, sizeof(cur->label), "%s", x->ran->label);
	snprintf(cur->nodes[i].last_line, sizeof(cur->nodes[i].last_line), "%s", res->last_line);
	rollout_outcome(cur, i, res->outcome, res->reason, x->now);
	if (x->before == RO_ABORTED)
		cur->state = RO_ABORTED;
	if (inv_rollout_save(inv, cur) != 0 ||
	    inv_rollout_log(inv, cur->id, cur->nodes[i].node, x->ran->nodes[i].step, "end",
	    x->now, outcome_status(res->outcome), res->output) != 0)
		return -1;
	if (res->outcome == RO_OUT_FAIL)
		x->cordoned = ro_step_fail_cordon(x->c, cur, i, x->now, &x->rn);
	if (cur->state == RO_FINISHED && x->before != RO_FINISHED) {
		ctrl_event(x->c, x->now, "controller", "", "rollout-finished", cur->target);
		return placement_rollout_restore(x->c, cur, x->now);
	}
	return 0;
}

/*
 * Record the end of node i's step on the campaign as stored now (an
 * operator may have paused or aborted it meanwhile); once it is committed,
 * the registry learns of the node a failure cordoned.
 */
static int
record_end(struct rollout_runner *r, const struct ro_campaign *ran, int i,
    const struct ro_step_result *res)
{
	struct ctrl *c = r->c;
	struct step_record x = { .c = c, .ran = ran, .cur = malloc(sizeof(*x.cur)), .i = i,
		.now = ctrl_now(), .res = res };
	enum ro_step step = ran->nodes[i].step;
	int rc;

	if (x.cur == NULL)
		return -1;
	if ((rc = store_txn(&c->store, end_tx, &x)) == 0) {
		if (x.cordoned)
			registry_set_lc(c->reg, x.rn.name, &x.rn.lc);
		log_info("rollout %" PRId64 ": %s: %s %s%s%s", x.cur->id, x.cur->nodes[i].node,
		    ro_step_str(step), res->outcome == RO_OUT_FAIL ? "failed" : "done",
		    res->outcome == RO_OUT_FAIL ? ": " : "", res->outcome == RO_OUT_FAIL ?
		    res->reason : "");
		recorded(r);
	}
	free(x.cur);
	return rc == 0 ? 0 : -1;
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

/* store_fn: the nodes the open campaigns left installing or waiting expect a reboot. */
static int
rearm_reboots(struct inv *inv, void *arg)
{
	struct ctrl *c = arg;
	struct ro_campaign *camp = malloc(sizeof(*camp));
	int64_t ids[IDS_MAX];
	int n = 0;

	if (camp == NULL)
		return -1;
	if (inv_rollout_ids(inv, 0, ids, IDS_MAX, &n) != 0)
		n = 0;
	for (int k = 0; k < n; k++) {
		if (inv_rollout_get(inv, ids[k], camp) != 0 || camp->state == RO_FINISHED ||
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
	free(camp);
	return 0;
}

void
rollout_rearm_reboots(struct ctrl *c)
{
	store_with(&c->store, rearm_reboots, c);
}

struct running_ids {
	int64_t ids[IDS_MAX];
	int n;
};

/* store_fn: the running campaigns' ids. */
static int
running_ids(struct inv *inv, void *arg)
{
	struct running_ids *a = arg;

	return inv_rollout_ids(inv, 1, a->ids, IDS_MAX, &a->n);
}

static void *
runner_main(void *arg)
{
	struct rollout_runner *r = arg;
	struct running_ids run;

	while (!atomic_load(&r->stop)) {
		int did = 0;
		int rc = store_with(&r->c->store, running_ids, &run);
		for (int k = 0; rc == 0 && k < run.n && !atomic_load(&r->stop); k++)
			did |= tick_campaign(r, run.ids[k]);
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
	if (inv_node_get(c->store.inv, n->node, &an) == 0 &&
	    rollout_at_target(camp->target, an.os_version, an.os_build)) {
		n->step = RO_SKIPPED;
		snprintf(n->reason, sizeof(n->reason), "already at %s", camp->target);
		return;
	}
	snprintf(scope, sizeof(scope), "node:%s", n->node);
	if (inv_cred_get(c->store.inv, scope, user, sizeof(user)) != 0) {
		snprintf(scope, sizeof(scope), "cluster:%s", camp->cluster);
		inv_cred_get(c->store.inv, scope, user, sizeof(user));
	}
#define ADD(...) do { if (n->ncmds < RO_CMDS_MAX) \
	snprintf(n->cmds[n->ncmds++], RO_CMD_MAX + 1, __VA_ARGS__); } while (0)
	int k = rollout_commands(camp, RO_PREFLIGHT, user, cmds, 4);
	for (int j = 0; j < k; j++)
		ADD("preflight: %.360s", cmds[j]);
	ADD("cordon: tbctl node cordon %s (unless cordoned already)", name);
	if (camp->mode == RO_LOCKSTEP)
		ADD("drain: stop every placement of %s and its jobs (marked degraded, memory "
		    "kept; restored and started again when every node passes)", camp->cluster);
	else
		ADD("drain: stop the placements on %s and their jobs (marked degraded, memory "
		    "kept; restored and started again when the rollout finishes)", name);
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
