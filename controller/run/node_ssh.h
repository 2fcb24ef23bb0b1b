/*
 * SSH to a node as the inventory says (tbctl node ssh, tbctl node trust):
 * its address, port and user, its pinned host key, the controller's key.
 * Shared by OS updates (rollout_steps.c) and jobs (job_run.c).
 */
#ifndef TBMESH_NODE_SSH_H
#define TBMESH_NODE_SSH_H

#include <stddef.h>

#include "rollout_api.h"

struct ctrl;
struct ssh_conn;

/*
 * How node is reached (the store's lock taken here): 0 with *out; -1 with
 * the way to set it in err (no SSH address; with need_key, no host key
 * pinned either).
 */
int node_ssh_get(struct ctrl *c, const char *node, int need_key, struct ro_ssh *out,
    char *err, size_t errlen);
/*
 * Connect to node, its host key checked against the pinned one, with the
 * controller's key (the store's lock taken here).  NULL with why in err.
 */
struct ssh_conn *node_ssh_connect(struct ctrl *c, const char *node, char *err, size_t errlen);

#endif
