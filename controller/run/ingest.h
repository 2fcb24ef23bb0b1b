/*
 * Report ingestion with group commit.  Request handlers submit decoded
 * reports; one writer thread stores everything queued in one transaction,
 * commits (durable: synchronous=FULL), and only then calls each item's done
 * callback with its HTTP status, so a 2xx means the report is on disk.
 * The writer is where a report meets its node: it finds the node in the
 * registry, checks the Mac and the report's time against it, decides what
 * the report changes and applies it (ctrl_apply_store), each once.  The
 * registry learns what a batch stored once it is committed, so a report is
 * checked against what the batches before its own stored.
 * The queue is bounded: when full, submit refuses (the client gets 503 and
 * retries).
 */
#ifndef TBMESH_INGEST_H
#define TBMESH_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "lifecycle.h"

#define INGEST_QUEUE_MAX 4096
#define INGEST_BATCH_MAX 1024
#define INGEST_LINGER_BATCH 64   /* fewer queued: the writer waits a little for more */
#define INGEST_LINGER_US 1000

struct ctrl;
struct ingest;
struct wmon_staged;

/*
 * A report on its way to the inventory: what the writer needs of it (its
 * node and Mac, its summary, whether it is healthy) and its JSON, not the
 * decoded report.
 */
struct ingest_item {
	struct ingest_item *next;
	char node[64];               /* the node its token is for */
	report_str hardware_uuid;    /* the Mac it comes from */
	double received_at;
	struct inv_report_summary sum;
	int healthy;                 /* lc_report_healthy() of the report */
	struct wmon_staged *wiring;  /* its wiring, applied once stored (owned) */
	const char *json;            /* the report to store: not owned (json_owned
					aside), and it must stay valid until done()
					is called */
	size_t json_len;
	char *json_owned;            /* when json is a copy: freed with the item */
	int status;                  /* set before done(): 204, or an error status */
	char error[384];             /* message when status is not 2xx */
	void (*done)(struct ingest_item *it, void *arg); /* called on the writer thread */
	void *arg;
};

struct ingest *ingest_start(struct ctrl *c);
/*
 * Stop taking items (submit then fails), store and answer everything queued,
 * and end the writer thread.  The ingest stays allocated for the request
 * handlers still running: release it with ingest_free() once the server has
 * stopped.  Both accept NULL.
 */
void ingest_stop(struct ingest *in);
void ingest_free(struct ingest *in);

/* Queue it; on -1 (queue full or stopping) the caller keeps ownership. */
int ingest_submit(struct ingest *in, struct ingest_item *it);

/*
 * A zeroed item, from a free list kept by in (or malloc); give it back
 * with ingest_item_free (which accepts NULL).  NULL when out of memory.
 */
struct ingest_item *ingest_item_new(struct ingest *in);
void ingest_item_free(struct ingest *in, struct ingest_item *it);

struct reg_node;

/*
 * The node a report with node's token is from, into *n: 0, or the HTTP
 * status that refuses the report with the reason in err (404 no such node,
 * 403 the report is from another Mac than the node's hardware_uuid).
 */
int ingest_node_check(struct ctrl *c, const char *node, const char *hardware_uuid,
    struct reg_node *n, char *err, size_t errlen);
/*
 * What a report of node collected at collected_at (NAN unknown) arriving at
 * now is to lc (the node's view, or a new node's): 0 with *when current or
 * stale, or the HTTP status that refuses it with the reason in err (400
 * collected too far ahead of the controller's clock, 409 older than the
 * node's stored report).
 */
int ingest_report_time(const struct lc_node *lc, const char *node, double collected_at,
    double now, double unreachable_after, enum lc_report_time *when, char *err,
    size_t errlen);

#endif
