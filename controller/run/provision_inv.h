/*
 * What a provisioning run (provision_job.c) reads and writes in the
 * inventory.  Each function takes the store's lock (store_with): the caller
 * must not hold it.  Each returns what the inventory call it wraps returns:
 * 0, INV_NOTFOUND, or -1.
 */
#ifndef TBMESH_PROVISION_INV_H
#define TBMESH_PROVISION_INV_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "provision.h"

struct ctrl;
struct prov_api_status;
struct prov_api_step;

/* A new run: st stored, its id set in st->id. */
int prov_inv_add(struct ctrl *c, struct prov_api_status *st);
/* The run's header (state, reason, times, ...) again. */
int prov_inv_save(struct ctrl *c, const struct prov_api_status *st);
/* Step record ord of run id. */
int prov_inv_step(struct ctrl *c, int64_t id, int ord, const struct prov_api_step *s);
/* The preflight's lines of run id, in order (a line that cannot be stored is left out). */
void prov_inv_preflight(struct ctrl *c, int64_t id, const struct prov_preflight *p);
/* An event of the run (ctrl_event, by "provisioning"). */
void prov_inv_event(struct ctrl *c, double now, const char *node, const char *what,
    const char *reason);

/* A token (its hash), stored or revoked; the caller tells the registry. */
int prov_inv_token_add(struct ctrl *c, const struct api_token *t, const uint8_t *hash);
int prov_inv_token_revoke(struct ctrl *c, const char *id);

/* Cluster name exists (its row into *out). */
int prov_inv_cluster(struct ctrl *c, const char *name, struct api_cluster *out);
/* The host key pinned for host:port ("" none) into fp (size bytes). */
int prov_inv_host_key(struct ctrl *c, const char *host, int port, char *fp, size_t size);
/* The cluster's wiring: topology, its plan (*dot malloc'd, or NULL) and when. */
int prov_inv_wiring(struct ctrl *c, const char *cluster, char *topo, size_t topolen,
    char **dot, double *at);
/*
 * The latest node add of node into *st: its id (> 0), 0 when there is none,
 * or -1 when the inventory could not say.
 */
int64_t prov_inv_last_add(struct ctrl *c, const char *node, struct prov_api_status *st);

#endif
