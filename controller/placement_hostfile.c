/*
 * The mlx.launch hostfile of a plan (MLX's format: {"backend", "envs",
 * "hosts": [{"ssh", "ips", "rdma"}]}) and the command lines around it.
 *
 *   jaccl       (tensor over a full RDMA mesh) rdma[i][j] is the device on
 *               host i cabled to host j, null on the diagonal; rank 0's ips
 *               are its addresses on its links to ranks 1..N-1, in rank
 *               order, so that every rank reaches rank 0 over its own cable;
 *               the other ranks list their address on the link to rank 0.
 *   jaccl-ring  (pipeline over an RDMA ring) rdma only towards the two
 *               neighbours; ips: the address towards the next rank, then the
 *               previous one.
 *   ring        (pipeline over TCP on Thunderbolt) no rdma; ips as above.
 */
#include "placement_int.h"

#include <stdio.h>
#include <string.h>

#define HOSTFILE_NAME "hostfile.json"

/* Node a's device and address on its link to b. */
static void
side(const struct pctx *c, int a, int b, const char **dev, const char **ip)
{
	const struct place_link *l = place_pair(c, a, b);

	*dev = *ip = "";
	if (l == NULL)
		return;
	*dev = l->a == a ? l->dev_a : l->dev_b;
	*ip = l->a == a ? l->ipv4_a : l->ipv4_b;
}

static void
add_ip(struct plan_host *h, const char *ip)
{
	if (ip[0] && h->n_ips < PLAN_RANKS_MAX)
		snprintf(h->ips[h->n_ips++], sizeof(h->ips[0]), "%s", ip);
}

static void
mesh_host(const struct pctx *c, const struct pcand *cd, int i, struct plan_host *h)
{
	const char *dev, *ip;

	for (int j = 0; j < cd->k; j++) {
		if (j == i)
			continue;
		side(c, cd->order[i], cd->order[j], &dev, &ip);
		snprintf(h->rdma[j], sizeof(h->rdma[j]), "%s", dev);
		if (i == 0 || j == 0)
			add_ip(h, ip);
	}
}

static void
ring_host(const struct pctx *c, const struct pcand *cd, int i, int rdma, struct plan_host *h)
{
	const char *dev, *ip;
	int k = cd->k, next = (i + 1) % k, prev = (i + k - 1) % k;

	if (k == 1)
		return;
	side(c, cd->order[i], cd->order[next], &dev, &ip);
	add_ip(h, ip);
	if (rdma)
		snprintf(h->rdma[next], sizeof(h->rdma[next]), "%s", dev);
	if (prev == next)
		return;
	side(c, cd->order[i], cd->order[prev], &dev, &ip);
	add_ip(h, ip);
	if (rdma)
		snprintf(h->rdma[prev], sizeof(h->rdma[prev]), "%s", dev);
}

static void
commands(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	const struct catalog_model *m = c->m;
	const struct catalog_variant *v = c->v;
	char path[128];
	int bits = (int)v->bits_per_weight;

	snprintf(path, sizeof(path), "./%s-%s", m->name, v->quant);
	if (strcmp(v->quant, "bf16") == 0)
		snprintf(p->prepare, sizeof(p->prepare), "mlx_lm.convert --hf-path %s --dtype "
		    "bfloat16 --mlx-path %s", m->hf_repo, path);
	else
		snprintf(p->prepare, sizeof(p->prepare), "mlx_lm.convert --hf-path %s -q "
		    "--q-bits %d --mlx-path %s", m->hf_repo, bits, path);
	if (cd->strategy == PLAN_SINGLE)
		snprintf(p->launch, sizeof(p->launch), "ssh %s mlx_lm.generate --model %s "
		    "--max-kv-size %lld --prompt \"Hello\"", cd->ranks[0].node, path,
		    (long long)c->o->context);
	else
		snprintf(p->launch, sizeof(p->launch), "mlx.launch --backend %s --hostfile %s "
		    "-- %s --model %s --max-kv-size %lld --prompt \"Hello\"", cd->backend,
		    HOSTFILE_NAME, cd->strategy == PLAN_TENSOR ? "sharded_generate.py" :
		    "pipeline_generate.py", path, (long long)c->o->context);
}

void
place_hostfile(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	int jaccl = strcmp(cd->backend, "jaccl") == 0;
	int rdma = jaccl || strcmp(cd->backend, "jaccl-ring") == 0;

	snprintf(p->backend, sizeof(p->backend), "%s", cd->backend);
	p->n_envs = 0;
	if (rdma)
		snprintf(p->envs[p->n_envs++], sizeof(p->envs[0]), "MLX_METAL_FAST_SYNCH=1");
	for (int i = 0; i < cd->k; i++) {
		struct plan_host *h = &p->hosts[i];
		memset(h, 0, sizeof(*h));
		snprintf(h->ssh, sizeof(h->ssh), "%s", c->in->nodes[cd->order[i]].name);
		if (jaccl)
			mesh_host(c, cd, i, h);
		else
			ring_host(c, cd, i, rdma, h);
	}
	commands(c, cd, p);
}
