/* See api_read.h. */
#include "api_read.h"

#include <stdlib.h>

#include "api_json.h"
#include "api_server.h"
#include "ctrl.h"
#include "inventory_placement.h"
#include "prom.h"
#include "store.h"

struct read_call {
	enum api_read_what what;
	const struct api_read_filter *f;
	void *rows;
	int *n;
};

/* store_fn: the list c->what. */
static int
read_rows(struct inv *inv, void *arg)
{
	struct read_call *c = arg;
	const struct api_read_filter *f = c->f;

	switch (c->what) {
	case API_READ_NODES:
		return inv_node_list(inv, c->rows, c->n);
	case API_READ_CLUSTERS:
		return inv_cluster_list(inv, c->rows, c->n);
	case API_READ_TOKENS:
		return inv_token_list(inv, c->rows, c->n);
	case API_READ_SD_NODES:
		return inv_sd_nodes(inv, c->rows, c->n);
	case API_READ_PLACEMENTS:
		return inv_placement_list(inv, c->rows, c->n);
	case API_READ_EVENTS:
		return inv_event_list(inv, f->node, f->since, f->limit, c->rows, c->n);
	case API_READ_SAMPLES:
		return inv_samples_list(inv, f->node, f->since, f->step, f->limit, c->rows, c->n);
	}
	return -1;
}

int
api_read(struct ctrl *c, enum api_read_what what, const struct api_read_filter *f, void *rows,
    int *n)
{
	struct read_call call = { what, f, rows, n };

	return store_with(&c->store, read_rows, &call);
}

void
api_read_answer(struct api_req *rq, struct api_resp *rs, enum api_read_what what)
{
	union {                  /* read into the member of what's row type */
		struct api_node *nodes;
		struct api_cluster *clusters;
		struct api_token *tokens;
	} v = { NULL };
	int n = 0;

	if (api_read(rq->c, what, NULL, &v, &n) != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	api_body(rs, 200, what == API_READ_NODES ? api_json_nodes(v.nodes, n) :
	    what == API_READ_CLUSTERS ? api_json_clusters(v.clusters, n) :
	    api_json_tokens(v.tokens, n));
	free(v.nodes);           /* pointers to structures are alike: any member frees it */
}
