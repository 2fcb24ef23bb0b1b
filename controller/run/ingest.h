/*
 * Report ingestion with group commit.  Request handlers submit decoded
 * reports; one writer thread stores everything queued in one transaction,
 * commits (durable: synchronous=FULL), and only then calls each item's done
 * callback with its HTTP status, so a 2xx means the report is on disk.
 * The queue is bounded: when full, submit refuses (the client gets 503 and
 * retries).
 */
#ifndef TBMESH_INGEST_H
#define TBMESH_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "inventory.h"

#define INGEST_QUEUE_MAX 4096
#define INGEST_BATCH_MAX 1024
#define INGEST_LINGER_BATCH 64   /* fewer queued: the writer waits a little for more */
#define INGEST_LINGER_US 1000

struct ctrl;
struct ingest;
struct wmon_staged;

/*
 * A report on its way to the inventory: what the writer needs of it (its
 * summary, whether it is healthy) and its JSON, not the decoded report.
 */
struct ingest_item {
	struct ingest_item *next;
	char node[64];
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
	char error[128];             /* message when status is not 2xx */
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

#endif
