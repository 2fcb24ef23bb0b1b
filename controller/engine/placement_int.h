/* Placement's internals, shared by placement*.c only. */
#ifndef TBMESH_PLACEMENT_INT_H
#define TBMESH_PLACEMENT_INT_H

#include "placement.h"
#include "placement_estimate.h"

#define PLACE_SUBSETS_ALL 12    /* eligible nodes up to which every subset is tried */

struct pctx {
	const struct catalog_model *m;
	const struct catalog_variant *v;
	const struct place_input *in;
	const struct place_opts *o;
	int n;                                  /* eligible nodes */
	int idx[PLACE_NODES_MAX];               /* eligible -> input index, by input order */
	int64_t usable[PLACE_NODES_MAX];        /* by input index */
	double bw[PLACE_NODES_MAX];             /* bytes/s, by input index */
	short link[PLACE_NODES_MAX][PLACE_NODES_MAX];   /* link index, -1 none */
	int64_t weights;                        /* the variant's bytes */
	int64_t embed;                          /* one vocab x hidden matrix */
	int64_t repl;                           /* embeddings + output head */
	int64_t body;                           /* weights - repl: the layers */
	double kv_total;                        /* bytes at the full context and batch */
};

/* A candidate being built: ranks in order (input indexes). */
struct pcand {
	enum plan_strategy strategy;
	int k;
	int order[PLACE_NODES_MAX];
	char backend[16];
	double seconds;                         /* per decode step */
	int64_t min_free;
	struct plan_rank ranks[PLACE_NODES_MAX];
};

const struct place_link *place_pair(const struct pctx *c, int a, int b);
double place_link_speed(const struct pctx *c, int a, int b);

/* Ring order of the nodes in sel (k of them) along links (rdma: passing RDMA
 * links only; else links with IPv4 on both ends).  0 and order filled, or -1. */
int place_ring_order(const struct pctx *c, const int *sel, int k, int rdma, int *order);

/* Evaluate one candidate on the nodes already in cd->order; 0 fits, or -1
 * with the reason in why. */
int place_try_single(const struct pctx *c, struct pcand *cd, char *why, size_t n);
int place_try_tensor(const struct pctx *c, struct pcand *cd, char *why, size_t n);
int place_try_pipeline(const struct pctx *c, struct pcand *cd, char *why, size_t n);


/* Fill p's hostfile, launch and prepare lines from the candidate. */
void place_hostfile(const struct pctx *c, const struct pcand *cd, struct plan *p);

#endif
