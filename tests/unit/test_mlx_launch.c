/*
 * MLX's launcher and mlx-lm as they are, run over the plans tbmesh makes.
 * The rules below are coded from their source (ml-explore/mlx at 846d176,
 * python/mlx/_distributed_utils/launch.py and the C++ backends; ml-explore/
 * mlx-lm 0.32.0 at d78bf58), each with the file and line it comes from.
 *
 * For 2-, 3-, 4- and 5-node clusters in a full mesh (every cable with its
 * own link-local /30, every Mac with a LAN address), the planner's jaccl,
 * jaccl-ring and ring hostfiles are checked: every rank can reach every
 * address it dials, every address a rank binds is its own, and the RDMA
 * device matrix names devices on the right cables.  Then every launch
 * line is checked against mlx-lm's entry points and their flags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "place_fixture.h"

/* The model the tests plan (pf_test_model): every size 1 to 5 can split it. */
static struct catalog_model model;
static struct catalog_variant variant;

/* ---- the cluster: n Macs in a full mesh ---- */

/* The addresses of node i on its cable to j (a /30 per cable, per pair). */
static void
cable_ip(int i, int j, char *out, size_t n)
{
	int lo = i < j ? i : j, hi = i < j ? j : i;

	snprintf(out, n, "169.254.%d.%d", lo * 10 + hi, i < j ? 1 : 2);
}

/* Is addr one of node x's own addresses (its LAN one, or on one of its cables)? */
static int
own(int x, const char *addr)
{
	char ip[16];

	if (strcmp(in->nodes[x].lan_ipv4, addr) == 0)
		return 1;
	for (int y = 0; y < in->n_nodes; y++) {
		if (y == x)
			continue;
		cable_ip(x, y, ip, sizeof(ip));
		if (strcmp(ip, addr) == 0)
			return 1;
	}
	return 0;
}

/*
 * Can node x reach addr?  Its own; any LAN address (one subnet); a cable's
 * address only from the Mac at the other end of that cable (a link-local
 * /30 is not routed anywhere else).
 */
static int
reaches(int x, const char *addr)
{
	char ip[16];

	if (own(x, addr))
		return 1;
	for (int y = 0; y < in->n_nodes; y++)
		if (strcmp(in->nodes[y].lan_ipv4, addr) == 0)
			return in->nodes[x].lan_ipv4[0] != '\0';
	for (int y = 0; y < in->n_nodes; y++) {
		if (y == x)
			continue;
		cable_ip(y, x, ip, sizeof(ip));   /* y's end of the cable x-y */
		if (strcmp(ip, addr) == 0)
			return 1;
	}
	return 0;
}

/* Is dev node x's device on its cable to y (as pf_mesh() names them)? */
static int
device_toward(int x, int y, const char *dev)
{
	char want[32];

	snprintf(want, sizeof(want), "rdma_en%d", 2 + y);
	(void)x;
	return strcmp(dev, want) == 0;
}

/* ---- the launcher's rules ---- */

/*
 * jaccl and jaccl-ring (launch.py:373-400): the coordinator is hosts[0].ips[0]
 * (l.383; no ips there is an error, "Rank 0 should have an IP reachable"),
 * every rank gets MLX_JACCL_COORDINATOR=<it>:<port> (l.386); rank 0 binds and
 * listens on it (jaccl rdma.cpp:331-333, tcp.cpp:110), the others connect to
 * it (rdma.cpp:352-354).  The device matrix: N rows of N entries, the
 * diagonal null (launch.py:378-381), an entry null, a name or a list of
 * names (jaccl.cpp:42-53).
 */
static void
check_jaccl_common(void)
{
	int n = plan->n_ranks;

	assert_true(plan->hosts[0].n_ips >= 1);
	const char *coord = plan->hosts[0].ips[0];
	assert_true(own(pf_node_of(0), coord));                 /* rank 0 can bind it */
	for (int r = 0; r < n; r++)
		assert_true(reaches(pf_node_of(r), coord));     /* every rank dials it */
	for (int r = 0; r < n; r++)
		assert_int_equal(plan->hosts[r].n_rdma[r], 0);
	char want[64];
	snprintf(want, sizeof(want), "%s:32323", coord);     /* --starting-port's default */
	assert_string_equal(plan->coordinator, want);
	/* MLX_METAL_FAST_SYNCH is left unset: MLX's docs say it can wedge the GPU
	 * (docs/src/usage/distributed.rst:341-352) */
	for (int e = 0; e < plan->n_envs; e++)
		assert_null(strstr(plan->envs[e], "MLX_METAL_FAST_SYNCH"));
}

/* jaccl (mesh): every pair has a device on its cable (the mesh uses the
 * first of a list: jaccl.cpp:190). */
static void
check_jaccl_mesh(void)
{
	int n = plan->n_ranks;

	check_jaccl_common();
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			if (i == j)
				continue;
			assert_true(plan->hosts[i].n_rdma[j] >= 1);
			for (int k = 0; k < plan->hosts[i].n_rdma[j]; k++)
				assert_true(device_toward(pf_node_of(i), pf_node_of(j),
				    plan->hosts[i].rdma[j][k]));
		}
}

/* jaccl-ring: devices toward the two neighbours only, every entry with the
 * count of rdma[0][1] (jaccl.cpp:157-175), at most 4 (ring_impl.h:11). */
static void
check_jaccl_ring(void)
{
	int n = plan->n_ranks, width = plan->hosts[0].n_rdma[1];

	check_jaccl_common();
	assert_true(width >= 1 && width <= 4);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int neighbour = j == (i + 1) % n || j == (i + n - 1) % n;
			if (i == j)
				continue;
			assert_int_equal(plan->hosts[i].n_rdma[j], neighbour ? width : 0);
			for (int k = 0; k < plan->hosts[i].n_rdma[j]; k++)
				assert_true(device_toward(pf_node_of(i), pf_node_of(j),
				    plan->hosts[i].rdma[j][k]));
		}
}

/*
 * ring (TCP): every host needs ips (launch.py:300-303); rank r listens on
 * each of its own (ring.cpp:297-309, bound to that IP: utils.cpp:98-124)
 * and connects to every address of rank r+1 (ring.cpp:360-374:
 * connect_to = (rank_+1) % size_), so rank r-1 dials rank r's ips; the
 * connections to the left and to the right must be as many
 * (ring.cpp:390-396).  No rdma in the hostfile.
 */
static void
check_ring(void)
{
	int n = plan->n_ranks;

	for (int r = 0; r < n; r++) {
		const struct plan_host *h = &plan->hosts[r];
		int left = pf_node_of((r + n - 1) % n);
		assert_true(h->n_ips >= 1);
		assert_int_equal(h->n_ips, plan->hosts[(r + 1) % n].n_ips);
		for (int k = 0; k < h->n_ips; k++) {
			assert_true(own(pf_node_of(r), h->ips[k]));      /* r can bind it */
			assert_true(reaches(left, h->ips[k]));        /* r-1 can dial it */
		}
		for (int j = 0; j < n; j++)
			assert_int_equal(h->n_rdma[j], 0);
	}
	char *json = plan_json_hostfile(plan);
	assert_null(strstr(json, "\"rdma\""));
	free(json);
}

static void
plan_on(int n, int rdma, enum plan_strategy st)
{
	struct place_opts o;
	char err[1024];

	pf_mesh(n, rdma);
	place_opts_init(&o);
	o.strategy = st;
	o.exact = 1;
	int rc = place_plan(&model, &variant, in, &o, plan, err, sizeof(err));
	if (rc != 0)
		fail_msg("%d nodes, %s: %s", n, plan_strategy_str(st), err);
	assert_int_equal(plan->n_ranks, n);
}

static void
test_jaccl_every_size(void **state)
{
	(void)state;
	for (int n = 2; n <= 5; n++) {
		plan_on(n, 1, PLAN_TENSOR);
		assert_string_equal(plan->backend, "jaccl");
		check_jaccl_mesh();
	}
}

static void
test_jaccl_ring_every_size(void **state)
{
	(void)state;
	for (int n = 2; n <= 5; n++) {
		plan_on(n, 1, PLAN_PIPELINE);
		assert_string_equal(plan->backend, "jaccl-ring");
		check_jaccl_ring();
	}
}

static void
test_ring_every_size(void **state)
{
	(void)state;
	for (int n = 2; n <= 5; n++) {
		plan_on(n, 0, PLAN_PIPELINE);
		assert_string_equal(plan->backend, "ring");
		check_ring();
	}
}

/* Without a LAN address rank 0's SSH address is the coordinator, and the plan
 * says so; with neither, it says there is none. */
static void
test_coordinator_fallback(void **state)
{
	struct place_opts o;
	char err[512];

	(void)state;
	pf_mesh(3, 1);
	for (int i = 0; i < 3; i++) {
		in->nodes[i].lan_ipv4[0] = '\0';
		snprintf(in->nodes[i].ssh_host, sizeof(in->nodes[i].ssh_host), "10.9.0.%d", i + 1);
	}
	place_opts_init(&o);
	o.strategy = PLAN_TENSOR;
	o.exact = 1;
	assert_int_equal(place_plan(&model, &variant, in, &o, plan, err, sizeof(err)), 0);
	assert_string_equal(plan->hosts[0].ips[0], "10.9.0.1");
	assert_non_null(strstr(plan->coordinator_from, "mac1's SSH address"));
	assert_string_equal(plan->hosts[0].ssh, "10.9.0.1");
	for (int i = 0; i < 3; i++)
		in->nodes[i].ssh_host[0] = '\0';
	assert_int_equal(place_plan(&model, &variant, in, &o, plan, err, sizeof(err)), 0);
	assert_int_equal(plan->hosts[0].n_ips, 0);
	assert_non_null(strstr(plan->coordinator_from, "none"));
}

/* ---- mlx-lm's entry points and their flags ---- */

struct entry {
	const char *name;
	const char *flags[32];
};

/*
 * mlx-lm 0.32.0 (d78bf58): the subcommands of python -m mlx_lm (mlx_lm/cli.py:
 * 8-26) that tbmesh prints, with the flags their argparse takes: chat
 * (mlx_lm/chat.py: --model l.26, --max-kv-size l.66, --pipeline l.84) and
 * server (mlx_lm/server.py: --model l.1723, --host l.1733, --port l.1739,
 * --pipeline l.1852); convert (mlx_lm/convert.py: --hf-path l.191,
 * --mlx-path l.197, -q l.200, --q-bits l.209, --dtype l.229).
 */
static const struct entry entries[] = {
	{ "chat", { "--model", "--trust-remote-code", "--adapter-path", "--temp", "--top-p",
	    "--xtc-probability", "--xtc-threshold", "--seed", "--max-kv-size", "--max-tokens",
	    "--system-prompt", "--pipeline", NULL } },
	{ "server", { "--model", "--adapter-path", "--host", "--port", "--allowed-origins",
	    "--draft-model", "--num-draft-tokens", "--trust-remote-code", "--log-level",
	    "--chat-template", "--use-default-chat-template", "--temp", "--top-p", "--top-k",
	    "--min-p", "--max-tokens", "--chat-template-args", "--decode-concurrency",
	    "--prompt-concurrency", "--prefill-step-size", "--prompt-cache-size",
	    "--prompt-cache-bytes", "--pipeline", NULL } },
	{ "convert", { "--hf-path", "--mlx-path", "-q", "--quantize", "--q-group-size",
	    "--q-bits", "--q-mode", "--quant-predicate", "--dtype", "--upload-repo", "-d",
	    "--trust-remote-code", NULL } },
};

/* The mlx.launch options (launch.py:464-527) tbmesh may use before "--". */
static const char *launch_flags[] = { "--backend", "--hostfile", "--hosts", "--env",
	"--starting-port", "--cwd", "--python", "--verbose", NULL };

static int
in_list(const char *const *list, const char *w)
{
	for (int i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], w) == 0)
			return 1;
	return 0;
}

/* Every "--flag" of line after "-m mlx_lm ENTRY" is one ENTRY takes, and
 * those before "--" are mlx.launch's: 0, or -1 with why. */
static int
line_ok(const char *line, char *why, size_t n)
{
	char buf[PLAN_LAUNCH_MAX + 1], *save = NULL;
	const struct entry *e = NULL;
	int after_m = 0, past = strncmp(line, "mlx.launch ", 11) != 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		if (!past) {
			past = strcmp(w, "--") == 0;
			if (!past && w[0] == '-' && !in_list(launch_flags, w))
				return snprintf(why, n, "mlx.launch has no option %s", w), -1;
			continue;
		}
		if (after_m == 0 && strcmp(w, "-m") == 0) {
			after_m = 1;
		} else if (after_m == 1) {      /* the module */
			if (strcmp(w, "mlx_lm") != 0)
				return snprintf(why, n, "the module is %s, not mlx_lm", w), -1;
			after_m = 2;
		} else if (after_m == 2) {      /* the subcommand */
			for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
				if (strcmp(entries[i].name, w) == 0)
					e = &entries[i];
			if (e == NULL)
				return snprintf(why, n, "mlx_lm has no entry point %s", w), -1;
			after_m = 3;
		} else if (e != NULL && w[0] == '-' && !in_list(e->flags, w)) {
			return snprintf(why, n, "mlx_lm %s has no option %s", e->name, w), -1;
		}
	}
	if (e == NULL)
		return snprintf(why, n, "no mlx-lm entry point"), -1;
	return 0;
}

static void
check_line(const char *line)
{
	char why[128];

	if (line_ok(line, why, sizeof(why)) == -1)
		fail_msg("%s: %s", why, line);
}

static void
test_launch_lines(void **state)
{
	static const char *ents[] = { "", "chat", "server" };
	struct place_opts o;
	char err[512];

	(void)state;
	for (size_t k = 0; k < 3; k++)
		for (int st = PLAN_TENSOR; st <= PLAN_SINGLE; st++) {
			pf_mesh(st == PLAN_SINGLE ? 1 : 4, 1);
			place_opts_init(&o);
			o.strategy = (enum plan_strategy)st;
			o.exact = 1;
			snprintf(o.entry, sizeof(o.entry), "%s", ents[k]);
			assert_int_equal(place_plan(&model, &variant, in, &o, plan, err,
			    sizeof(err)), 0);
			check_line(plan->launch);
			/* python3 -m: mlx.launch execs the command as given (launch.py:
			 * 108-160; MLX #3536 dropped the python it used to prepend) */
			assert_non_null(strstr(plan->launch, "python3 -m mlx_lm "));
			const char *conv = strstr(plan->prepare, "python3 -m mlx_lm convert");
			if (conv != NULL)
				check_line(conv);
			assert_int_equal(strstr(plan->launch, " --pipeline") != NULL,
			    st == PLAN_PIPELINE);
		}
	/* the checker itself refuses what mlx-lm and mlx.launch would */
	assert_int_equal(line_ok("mlx.launch --backend jaccl -- python3 -m mlx_lm server "
	    "--model m --max-kv-size 8", err, sizeof(err)), -1);
	assert_string_equal(err, "mlx_lm server has no option --max-kv-size");
	assert_int_equal(line_ok("mlx.launch --backend jaccl --hostfile h -- "
	    "sharded_generate.py --model m", err, sizeof(err)), -1);
	assert_int_equal(line_ok("mlx.launch --backend jaccl -- python3 -m mlx_lm "
	    "pipeline_generate --model m", err, sizeof(err)), -1);
	assert_int_equal(line_ok("mlx.launch --max-kv-size 1 -- python3 -m mlx_lm chat",
	    err, sizeof(err)), -1);
}

/* fast_synch: MLX_METAL_FAST_SYNCH=1 only when asked. */
static void
test_fast_synch_option(void **state)
{
	struct place_opts o;
	char err[512];

	(void)state;
	pf_mesh(2, 1);
	place_opts_init(&o);
	o.strategy = PLAN_TENSOR;
	o.fast_synch = 1;
	assert_int_equal(place_plan(&model, &variant, in, &o, plan, err, sizeof(err)), 0);
	assert_int_equal(plan->n_envs, 1);
	assert_string_equal(plan->envs[0], "MLX_METAL_FAST_SYNCH=1");
}

static int
setup(void **state)
{
	pf_test_model(&model, &variant);
	return pf_setup(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jaccl_every_size),
		cmocka_unit_test(test_jaccl_ring_every_size),
		cmocka_unit_test(test_ring_every_size),
		cmocka_unit_test(test_coordinator_fallback),
		cmocka_unit_test(test_launch_lines),
		cmocka_unit_test(test_fast_synch_option),
	};
	return cmocka_run_group_tests(tests, setup, pf_teardown);
}
