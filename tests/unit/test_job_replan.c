/*
 * A job whose placement cannot run (job_replan.h): run, wait or move, from
 * the placement's state and reason as the controller's own writers leave
 * them in a real inventory (a rollout's drain and lockstep stop,
 * placement_rollout.c; a node lost, placement_ctrl.c); the reason a job
 * waits with; the request that plans the model again; the plans a job
 * cannot run; tbctl run's --replan and --server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctrl.h"
#include "inventory.h"
#include "inventory_placement.h"
#include "job_int.h"
#include "job_replan.h"
#include "placement_ctrl.h"
#include "rollout_api.h"

struct fx {
	char dir[64], path[128];
	struct ctrl c;
	struct inv *inv;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/tbmesh-replan-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/inv.db", f->dir);
	if ((f->inv = inv_open(f->path, err, sizeof(err))) == NULL ||
	    store_init(&f->c.store, f->inv) != 0 || inv_cluster_add(f->inv, "studio", 100) != 0)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char p[200];

	store_fini(&f->c.store);
	inv_close(f->inv);
	for (const char *const *s = (const char *const[]){ "", "-wal", "-shm", NULL }; *s; s++) {
		snprintf(p, sizeof(p), "%s%s", f->path, *s);
		unlink(p);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

/* An active placement of studio on nodes (rank order), as tbctl place --apply stores it. */
static int64_t
add_placement(struct inv *inv, const char *a, const char *b)
{
	const char *nodes[2] = { a, b };
	const int64_t bytes[2] = { 1 << 20, 1 << 20 };
	struct inv_placement_in in = { "llama-3.3-70b:4bit", "studio", "tensor", "active",
		1763782800.0, "{}", 2, nodes, bytes };
	int64_t id = 0;

	assert_int_equal(inv_placement_add(inv, &in, &id), 0);
	return id;
}

/* What a job with replan does about placement id, as the runner reads it. */
static enum job_route
route(struct fx *f, int64_t id, enum job_replan replan, char *why, size_t whylen)
{
	char state[16], reason[API_REASON_MAX + 1];
	int found = -1;

	assert_int_equal(job_placement_state(&f->c, id, &found, state, sizeof(state), reason,
	    sizeof(reason)), 0);
	job_wait_why(id, found, state, reason, why, whylen);
	return job_route_of(found, state, reason, replan);
}

static void
test_active_runs(void **state)
{
	struct fx *f = *state;
	int64_t id = add_placement(f->inv, "a1", "a2");
	char why[600];

	assert_int_equal(route(f, id, JOB_REPLAN_NEVER, why, sizeof(why)), JOB_ROUTE_RUN);
	assert_int_equal(route(f, id, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_RUN);
}

/* A node lost: wait, or move with replan auto; the reason names the node. */
static void
test_node_lost(void **state)
{
	struct fx *f = *state;
	int64_t id = add_placement(f->inv, "a1", "a2"), other = add_placement(f->inv, "a1", "a3");
	char why[600], want[64];

	placement_node_lost(&f->c, "a2", NODE_UNREACHABLE, 1763782900.0);
	assert_int_equal(route(f, id, JOB_REPLAN_NEVER, why, sizeof(why)), JOB_ROUTE_WAIT);
	snprintf(want, sizeof(want), "placement %lld is degraded: a2 is unreachable",
	    (long long)id);
	assert_string_equal(why, want);
	assert_int_equal(route(f, id, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_REPLAN);
	assert_int_equal(route(f, other, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_RUN);
	/* a cordon degrades it too (no new placements there): moved as well */
	placement_node_lost(&f->c, "a3", NODE_CORDONED, 1763782901.0);
	assert_int_equal(route(f, other, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_REPLAN);
	assert_non_null(strstr(why, "a3 is cordoned"));
}

/* A rollout's drain (rolling) and stop (lockstep): wait, whatever the policy. */
static void
test_rollout_waits(void **state)
{
	struct fx *f = *state;
	int64_t id = add_placement(f->inv, "a1", "a2"), other;
	struct ro_campaign *camp = calloc(1, sizeof(*camp));
	char why[600], what[400], err[256];

	assert_non_null(camp);
	camp->id = 5;
	snprintf(camp->cluster, sizeof(camp->cluster), "studio");
	snprintf(camp->target, sizeof(camp->target), "26.2");
	camp->mode = RO_ROLLING;
	assert_int_equal(placement_rollout_drain(&f->c, camp, "a2", what, sizeof(what), err,
	    sizeof(err)), 0);
	assert_int_equal(route(f, id, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_WAIT);
	assert_non_null(strstr(why, "is degraded: drained by rollout 5: a2 updates to 26.2"));
	assert_int_equal(route(f, id, JOB_REPLAN_NEVER, why, sizeof(why)), JOB_ROUTE_WAIT);

	/* the campaign's end finds a2 not ready: no longer the rollout's, moved */
	assert_int_equal(placement_rollout_restore(&f->c, camp, 1763783000.0), 0);
	assert_int_equal(route(f, id, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_REPLAN);
	assert_non_null(strstr(why, "not restored after rollout 5"));
	assert_int_equal(job_rollout_of(strstr(why, "not restored")), 0);

	other = add_placement(f->inv, "a3", "a4");
	camp->id = 6;
	camp->mode = RO_LOCKSTEP;
	assert_int_equal(placement_rollout_drain(&f->c, camp, "a3", what, sizeof(what), err,
	    sizeof(err)), 0);
	assert_int_equal(route(f, other, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_WAIT);
	assert_non_null(strstr(why, "stopped by rollout 6"));
	free(camp);
}

static void
test_removed_waits(void **state)
{
	struct fx *f = *state;
	int64_t id = add_placement(f->inv, "a1", "a2");
	char why[600], want[64];

	assert_int_equal(inv_placement_remove(f->inv, id), 0);
	assert_int_equal(route(f, id, JOB_REPLAN_AUTO, why, sizeof(why)), JOB_ROUTE_WAIT);
	snprintf(want, sizeof(want), "placement %lld was removed", (long long)id);
	assert_string_equal(why, want);
}

static void
test_rollout_of(void **state)
{
	(void)state;
	assert_int_equal(job_rollout_of("drained by rollout 12: a2 updates to 26.2"), 12);
	assert_int_equal(job_rollout_of("stopped by rollout 3 (lockstep): the nodes"), 3);
	assert_int_equal(job_rollout_of("drained by rollout x: a2"), 0);
	assert_int_equal(job_rollout_of("drained by rollout 0: a2"), 0);
	assert_int_equal(job_rollout_of("a2 is down"), 0);
	assert_int_equal(job_rollout_of(""), 0);
	/* stale: another reason than a node lost, moved all the same */
	assert_int_equal(job_route_of(1, "stale", "a1's address change en2: ...",
	    JOB_REPLAN_AUTO), JOB_ROUTE_REPLAN);
	assert_int_equal(job_route_of(1, "stale", "", JOB_REPLAN_NEVER), JOB_ROUTE_WAIT);
}

/* A two-node tensor plan with the server entry point and fast synch. */
static void
old_plan(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->model, sizeof(p->model), "llama-3.3-70b:4bit");
	snprintf(p->cluster, sizeof(p->cluster), "studio");
	p->strategy = PLAN_TENSOR;
	p->context = 32768;
	p->batch = 2;
	p->runtime = PLAN_RT_MLX_LM;
	p->n_ranks = 2;
	snprintf(p->ranks[0].node, sizeof(p->ranks[0].node), "a1");
	snprintf(p->ranks[1].node, sizeof(p->ranks[1].node), "a2");
	snprintf(p->backend, sizeof(p->backend), "jaccl");
	snprintf(p->coordinator, sizeof(p->coordinator), "127.0.0.2:32323");
	p->n_envs = 1;
	snprintf(p->envs[0], sizeof(p->envs[0]), "MLX_METAL_FAST_SYNCH=1");
	snprintf(p->launch, sizeof(p->launch), "mlx.launch --backend jaccl --hostfile "
	    "hostfile.json -- python3 -m mlx_lm server --model /m");
}

static void
test_request(void **state)
{
	struct plan *p = malloc(sizeof(*p));
	struct plan_request req;

	(void)state;
	assert_non_null(p);
	old_plan(p);
	job_replan_request(p, &req);
	assert_string_equal(req.model, "llama-3.3-70b:4bit");
	assert_string_equal(req.cluster, "studio");
	assert_int_equal(req.strategy, PLAN_TENSOR);
	assert_int_equal(req.context, 32768);
	assert_int_equal(req.batch, 2);
	assert_int_equal(req.runtime, PLAN_RT_MLX_LM);
	assert_string_equal(req.entry, "server");
	assert_int_equal(req.fast_synch, 1);
	assert_int_equal(req.n_nodes, 0);      /* any node: the planner takes those ready */
	p->strategy = PLAN_PIPELINE;
	p->n_envs = 0;
	job_replan_request(p, &req);
	assert_int_equal(req.strategy, PLAN_PIPELINE);
	assert_int_equal(req.fast_synch, 0);
	free(p);
}

static void
test_runnable(void **state)
{
	struct plan *p = malloc(sizeof(*p));
	char err[256];

	(void)state;
	assert_non_null(p);
	old_plan(p);
	assert_int_equal(job_plan_runnable(p, err, sizeof(err)), 0);
	p->coordinator[0] = '\0';
	snprintf(p->coordinator_from, sizeof(p->coordinator_from), "a1 has no LAN address");
	assert_int_equal(job_plan_runnable(p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a1 has no LAN address"));
	p->n_ranks = 1;                        /* one node: no coordinator needed */
	assert_int_equal(job_plan_runnable(p, err, sizeof(err)), 0);
	p->runtime = PLAN_RT_EXO;
	assert_int_equal(job_plan_runnable(p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exo"));
	p->runtime = PLAN_RT_MLX_LM;
	p->n_ranks = JOB_RANKS_MAX + 1;
	assert_int_equal(job_plan_runnable(p, err, sizeof(err)), -1);
	free(p);
}

static void
test_ctl_replan(void **state)
{
	struct ctl_args a;
	struct job_request req;
	char err[256];

	(void)state;
	memset(&a, 0, sizeof(a));
	a.pos[0] = "3";
	a.npos = 1;
	assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.replan, JOB_REPLAN_NEVER);
	a.replan = "auto";
	a.server = 1;
	assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.replan, JOB_REPLAN_AUTO);
	a.replan = "never";
	assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.replan, JOB_REPLAN_NEVER);
	a.replan = "sometimes";
	assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), -1);
	assert_string_equal(err, "run: --replan \"sometimes\" is not never or auto");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_active_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollout_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_waits, setup, teardown),
		cmocka_unit_test(test_rollout_of),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_runnable),
		cmocka_unit_test(test_ctl_replan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
