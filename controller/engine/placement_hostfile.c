/*
 * The mlx.launch hostfile of a plan and the command lines around it, after
 * MLX's launcher and mlx-lm as they are (ml-explore/mlx at 846d176,
 * python/mlx/_distributed_utils/; ml-explore/mlx-lm 0.32.0 at d78bf58).
 * tests/unit/test_mlx_launch.c runs the launcher's rules over these files.
 *
 *   jaccl, jaccl-ring  launch.py:383-386 reads hosts[0].ips[0] alone and
 *               gives every rank MLX_JACCL_COORDINATOR=<it>:<port> (port
 *               --starting-port, 32323 by default, launch.py:507-513);
 *               rank 0 binds it and the others dial it (jaccl rdma.cpp:
 *               331-333, 352-354).  So it is rank 0's LAN address (Ethernet,
 *               else Wi-Fi), which every rank reaches, or the address rank 0
 *               is reached at over SSH when no LAN address is known; the
 *               other hosts list no ips (MLX's docs, distributed.rst:261-293).
 *   jaccl       rdma[i][j] is the device on i cabled to j, or the list of
 *               them when several cables join the two (jaccl.cpp:42-53); the
 *               mesh uses the first (jaccl.cpp:190).
 *   jaccl-ring  rdma toward the two neighbours only, every entry with as
 *               many devices as rdma[0][1] (jaccl.cpp:157-175), at most 4
 *               (ring_impl.h:11): the fewest cables of any hop of the ring.
 *   ring        rank r listens on each address of its ips, in order, and
 *               rank r-1 connects to them (ring.cpp:297-309, 360-374): ips
 *               are rank r's own addresses on its cables to rank r-1.
 *
 * The command after "--" is exec'd as given (launch.py:108-160: nothing is
 * prepended since MLX #3536), so it names the interpreter and mlx-lm's
 * module entry point: "python3 -m mlx_lm chat|server" (mlx-lm cli.py:8-26),
 * --pipeline for pipeline plans (chat.py:83-87, server.py:1851-1855);
 * --max-kv-size exists for chat only (chat.py:65-70).  mlx-lm loads the
 * model from the same path on every host, so the plan names one path and
 * the step that puts the files there.
 */
#include "placement_int.h"

#include <stdio.h>
#include <string.h>

#define HOSTFILE_NAME "hostfile.json"
#define JACCL_PORT 32323          /* mlx.launch --starting-port's default */
#define MODEL_DIR "/Users/Shared/tbmesh/models"
#define MLX_LM_RULES "mlx-lm 0.32.0"

/* Node a's device and address on cable c (0: the first) of its link to b. */
static int
side(const struct pctx *c, int a, int b, int cable, const char **dev, const char **ip)
{
	const struct place_link *l = place_pair(c, a, b);
	int mine;

	*dev = *ip = "";
	if (l == NULL || cable > l->n_extra)
		return -1;
	mine = l->a == a;
	if (cable == 0) {
		*dev = mine ? l->dev_a : l->dev_b;
		*ip = mine ? l->ipv4_a : l->ipv4_b;
	} else {
		*dev = mine ? l->extra[cable - 1].dev_a : l->extra[cable - 1].dev_b;
		*ip = mine ? l->extra[cable - 1].ipv4_a : l->extra[cable - 1].ipv4_b;
	}
	return 0;
}

/* Cables between a and b (0 when not linked). */
static int
cables(const struct pctx *c, int a, int b)
{
	const struct place_link *l = place_pair(c, a, b);

	return l == NULL ? 0 : 1 + l->n_extra;
}

static void
add_ip(struct plan_host *h, const char *ip)
{
	if (ip[0] && h->n_ips < PLAN_RANKS_MAX)
		snprintf(h->ips[h->n_ips++], sizeof(h->ips[0]), "%s", ip);
}

/* h->rdma[j]: up to max of a's devices on its cables to b. */
static void
add_devices(const struct pctx *c, struct plan_host *h, int j, int a, int b, int max)
{
	const char *dev, *ip;

	h->n_rdma[j] = 0;
	for (int k = 0; k < max && k < PLAN_CABLES_MAX; k++)
		if (side(c, a, b, k, &dev, &ip) == 0 && dev[0])
			snprintf(h->rdma[j][h->n_rdma[j]++], sizeof(h->rdma[j][0]), "%s", dev);
}

static void
mesh_host(const struct pctx *c, const struct pcand *cd, int i, struct plan_host *h)
{
	for (int j = 0; j < cd->k; j++)
		if (j != i)
			add_devices(c, h, j, cd->order[i], cd->order[j], PLAN_CABLES_MAX);
}

/* The fewest cables of any hop of the ring (what every rdma entry lists). */
static int
ring_width(const struct pctx *c, const struct pcand *cd)
{
	int w = PLAN_CABLES_MAX;

	for (int i = 0; i < cd->k; i++) {
		int n = cables(c, cd->order[i], cd->order[(i + 1) % cd->k]);
		if (n < w)
			w = n;
	}
	return w;
}

static void
ring_host(const struct pctx *c, const struct pcand *cd, int i, int rdma, struct plan_host *h)
{
	const char *dev, *ip;
	int k = cd->k, next = (i + 1) % k, prev = (i + k - 1) % k;
	int me = cd->order[i], width = rdma ? ring_width(c, cd) : 0;

	if (k == 1)
		return;
	/* ring: my own addresses on my cables to the rank before me */
	for (int n = 0; !rdma && n < cables(c, me, cd->order[prev]); n++)
		if (side(c, me, cd->order[prev], n, &dev, &ip) == 0)
			add_ip(h, ip);
	if (!rdma)
		return;
	add_devices(c, h, next, me, cd->order[next], width);
	if (prev != next)
		add_devices(c, h, prev, me, cd->order[prev], width);
}

/* The address every rank dials (jaccl): rank 0's LAN address, else its SSH one. */
static void
coordinator(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	const struct place_node *n0 = &c->in->nodes[cd->order[0]];
	const char *addr = "";

	if (n0->lan_ipv4[0]) {
		addr = n0->lan_ipv4;
		snprintf(p->coordinator_from, sizeof(p->coordinator_from),
		    "%s's LAN address (%s)", n0->name, n0->lan_from);
	} else if (n0->ssh_host[0]) {
		addr = n0->ssh_host;
		snprintf(p->coordinator_from, sizeof(p->coordinator_from), "%s's SSH address: "
		    "it reports no LAN address (Ethernet or Wi-Fi)", n0->name);
	} else {
		snprintf(p->coordinator_from, sizeof(p->coordinator_from), "none: %s reports no "
		    "LAN address and has no SSH address (tbctl node ssh)", n0->name);
		return;
	}
	snprintf(p->coordinator, sizeof(p->coordinator), "%s:%d", addr, JACCL_PORT);
	add_ip(&p->hosts[0], addr);
}

static void
note(struct plan *p, const char *text)
{
	if (p->n_notes < PLAN_NOTES_MAX)
		snprintf(p->notes[p->n_notes++], sizeof(p->notes[0]), "%s", text);
}

/* prepare: the model's files at p->model_path on rank 0's Mac; copy: on the others. */
static void
model_steps(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	const struct catalog_model *m = c->m;
	const struct catalog_variant *v = c->v;
	const char *host0 = p->hosts[0].ssh;
	size_t len;

	snprintf(p->model_path, sizeof(p->model_path), MODEL_DIR "/%s-%s", m->name, v->quant);
	if (v->mlx_repo[0])
		snprintf(p->prepare, sizeof(p->prepare), "ssh %s hf download %s --local-dir %s",
		    host0, v->mlx_repo, p->model_path);
	else if (strcmp(v->quant, "bf16") == 0)
		snprintf(p->prepare, sizeof(p->prepare), "ssh %s python3 -m mlx_lm convert "
		    "--hf-path %s --dtype bfloat16 --mlx-path %s", host0, m->hf_repo,
		    p->model_path);
	else
		snprintf(p->prepare, sizeof(p->prepare), "ssh %s python3 -m mlx_lm convert "
		    "--hf-path %s -q --q-bits %d --mlx-path %s", host0, m->hf_repo,
		    (int)v->bits_per_weight, p->model_path);
	p->copy[0] = '\0';
	for (int i = 1; i < cd->k; i++) {
		len = strlen(p->copy);
		snprintf(p->copy + len, sizeof(p->copy) - len, "%sssh %s mkdir -p %s && ssh %s "
		    "rsync -a %s/ %s:%s/", i > 1 ? "; " : "", p->hosts[i].ssh, p->model_path, host0,
		    p->model_path, p->hosts[i].ssh, p->model_path);
	}
	if (cd->k > 1)
		note(p, "mlx-lm loads the model from the same path on every Mac: run the "
		    "prepare step, then the copy step (or put the same files at that path "
		    "another way)");
}

static void
commands(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	const char *entry = c->o->entry[0] ? c->o->entry : "chat";
	char tail[256];

	model_steps(c, cd, p);
	if (strcmp(entry, "chat") == 0)
		snprintf(tail, sizeof(tail), " --max-kv-size %lld", (long long)c->o->context);
	else
		snprintf(tail, sizeof(tail), " --host 0.0.0.0 --port 8080");
	if (cd->strategy == PLAN_SINGLE)
		snprintf(p->launch, sizeof(p->launch), "ssh %s python3 -m mlx_lm %s --model %s%s",
		    p->hosts[0].ssh, entry, p->model_path, tail);
	else
		snprintf(p->launch, sizeof(p->launch), "mlx.launch --backend %s --hostfile %s -- "
		    "python3 -m mlx_lm %s --model %s%s%s", cd->backend, HOSTFILE_NAME, entry,
		    p->model_path, cd->strategy == PLAN_PIPELINE ? " --pipeline" : "", tail);
	note(p, "the launch line follows " MLX_LM_RULES " and MLX's mlx.launch; python3 is "
	    "the one with mlx-lm on every Mac (mlx.launch --python PATH names another)");
	if (strcmp(entry, "server") == 0)
		note(p, "mlx_lm server takes no --max-kv-size: the KV cache grows with the "
		    "requests up to the context the plan was sized for only if clients keep "
		    "to it");
}

void
place_hostfile(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	int jaccl = strcmp(cd->backend, "jaccl") == 0;
	int rdma = jaccl || strcmp(cd->backend, "jaccl-ring") == 0;

	snprintf(p->backend, sizeof(p->backend), "%s", cd->backend);
	p->runtime = c->o->runtime;
	p->n_envs = 0;
	if (rdma && c->o->fast_synch)
		snprintf(p->envs[p->n_envs++], sizeof(p->envs[0]), "MLX_METAL_FAST_SYNCH=1");
	for (int i = 0; i < cd->k; i++) {
		struct plan_host *h = &p->hosts[i];
		const struct place_node *n = &c->in->nodes[cd->order[i]];
		memset(h, 0, sizeof(*h));
		if (n->ssh_host[0] && n->ssh_user[0])
			snprintf(h->ssh, sizeof(h->ssh), "%s@%s", n->ssh_user, n->ssh_host);
		else
			snprintf(h->ssh, sizeof(h->ssh), "%s", n->ssh_host[0] ? n->ssh_host :
			    n->name);
		if (jaccl)
			mesh_host(c, cd, i, h);
		else
			ring_host(c, cd, i, rdma, h);
	}
	if (rdma && cd->k > 1)
		coordinator(c, cd, p);
	if (p->runtime == PLAN_RT_EXO) {
		p->launch[0] = p->prepare[0] = p->copy[0] = '\0';
		note(p, "exo places and starts the model itself (its own placement rules, the "
		    "same strategy and nodes); this plan checks that exo supports it");
		return;
	}
	commands(c, cd, p);
}

/* The first difference of two hostfiles' host i, in words; 0 when none. */
static int
host_diff(const struct plan *a, const struct plan *b, int i, char *why, size_t n)
{
	const struct plan_host *x = &a->hosts[i], *y = &b->hosts[i];

	if (strcmp(x->ssh, y->ssh) != 0)
		return snprintf(why, n, "rank %d is %s, now %s", i, x->ssh, y->ssh), 1;
	for (int k = 0; k < x->n_ips || k < y->n_ips; k++)
		if (k >= x->n_ips || k >= y->n_ips || strcmp(x->ips[k], y->ips[k]) != 0)
			return snprintf(why, n, "%s's address %s is now %s", x->ssh,
			    k < x->n_ips ? x->ips[k] : "(none)", k < y->n_ips ? y->ips[k] : "(none)"), 1;
	for (int j = 0; j < a->n_ranks; j++)
		for (int k = 0; k < x->n_rdma[j] || k < y->n_rdma[j]; k++)
			if (k >= x->n_rdma[j] || k >= y->n_rdma[j] ||
			    strcmp(x->rdma[j][k], y->rdma[j][k]) != 0)
				return snprintf(why, n, "%s's RDMA device toward %s %s is now %s",
				    x->ssh, a->hosts[j].ssh, k < x->n_rdma[j] ? x->rdma[j][k] :
				    "(none)", k < y->n_rdma[j] ? y->rdma[j][k] : "(none)"), 1;
	return 0;
}

int
place_hostfile_diff(const struct plan *was, const struct plan *now, char *why, size_t n)
{
	if (strcmp(was->backend, now->backend) != 0) {
		snprintf(why, n, "the backend %s is now %s", was->backend, now->backend);
		return 1;
	}
	if (was->n_ranks != now->n_ranks) {
		snprintf(why, n, "%d ranks are now %d", was->n_ranks, now->n_ranks);
		return 1;
	}
	for (int i = 0; i < was->n_ranks; i++)
		if (host_diff(was, now, i, why, n))
			return 1;
	return 0;
}
