/*
 * The inventory's lists as the handlers read them: one call, with the
 * store's lock held (store.h) for just that read.
 */
#ifndef TBMESH_API_READ_H
#define TBMESH_API_READ_H

struct api_req;
struct api_resp;
struct ctrl;

/* What api_read reads, and the type of its rows. */
enum api_read_what {
	API_READ_NODES,          /* struct api_node, every node */
	API_READ_CLUSTERS,       /* struct api_cluster, every cluster */
	API_READ_TOKENS,         /* struct api_token, every token (no secrets) */
	API_READ_SD_NODES,       /* struct prom_sd_node, every node's scrape target */
	API_READ_PLACEMENTS,     /* struct inv_placement, every placement */
	API_READ_EVENTS,         /* struct api_event, filtered by node, since, limit */
	API_READ_SAMPLES,        /* struct api_sample, filtered by all of api_read_filter */
};

/* Which rows of the events and samples. */
struct api_read_filter {
	const char *node;        /* a node's; "" every node's (events) */
	double since;            /* from this time on; NAN from the first (events) */
	double step;             /* samples: at least this many seconds apart */
	int limit;               /* at most this many */
};

/*
 * The rows of what into *rows and their number into *n: rows is the address
 * of the caller's pointer to the row type above; the list is malloc'd, and
 * the caller frees it (placements with inv_placements_free).  f: the filter
 * of events and samples, NULL for the others.  0, or what the inventory's
 * list function returns (INV_NOTFOUND for the samples of an unknown node,
 * -1).
 */
int api_read(struct ctrl *c, enum api_read_what what, const struct api_read_filter *f,
    void *rows, int *n);

/*
 * Answer rq with the whole list what, API_READ_NODES, _CLUSTERS or
 * _TOKENS, as its JSON: 200, or 503 when the inventory cannot be read.
 */
void api_read_answer(struct api_req *rq, struct api_resp *rs, enum api_read_what what);

#endif
