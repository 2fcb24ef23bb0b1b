/*
 * What the steps of an OS update (rollout_steps.c) and its download and
 * install (rollout_install.c) share: the result's reason and output, SSH
 * to the node and its commands, the node's OS version, the registry's copy
 * of a node, the update's credentials.
 */
#ifndef TBMESH_ROLLOUT_STEPS_INT_H
#define TBMESH_ROLLOUT_STEPS_INT_H

#include <stddef.h>

#include "rollout_steps.h"

struct ctrl;
struct reg_node;
struct ssh_conn;

/* res failed for the reason fmt says (res->reason may be one of its arguments). */
void ro_fail(struct ro_step_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append s to res->output (bounded). */
void ro_out_add(struct ro_step_result *res, const char *s);
/* t (unix seconds) as "2026-11-26 19:50:01 UTC". */
void ro_utc_str(double t, char *buf, size_t size);
/* An SSH connection to node as the inventory says, or NULL (res->reason). */
struct ssh_conn *ro_connect_node(struct ctrl *c, const char *node, struct ro_step_result *res);
/*
 * What goes before a command that needs root on node: "" when its SSH user
 * is root (root may log in where an operator allows it), else "sudo -n ".
 * The SSH user's name into user (may be NULL).
 */
const char *ro_node_su(struct ctrl *c, const char *node, char *user, size_t size);
/*
 * Run cmd on the node; its output goes to res->output (the password
 * scrubbed).  0 and *status, or -1 when the session failed (res->reason).
 */
int ro_run(struct ssh_conn *conn, const char *cmd, const char *in, double timeout,
    struct ro_step_result *res, int *status, char **out);
/* The node's version and build over SSH (sw_vers); 0, or -1 (res->reason). */
int ro_remote_os(struct ctrl *c, struct ssh_conn *conn, struct ro_step_result *res, char *ver,
    char *build, size_t size);
/* node's registry copy into *out: 0, or -1 when there is none. */
int ro_reg_node(struct ctrl *c, const char *node, struct reg_node *out);
/* The password and user for node (node's scope, then its cluster's). */
int ro_credentials(struct ctrl *c, const struct ro_campaign *camp, const char *node, char *user,
    char *pw, size_t pwsize, struct ro_step_result *res);

/*
 * rollout_install.c: softwareupdate --download of the campaign's label;
 * the install (sent once: its time is stored before it goes out, so that a
 * controller restarted meanwhile waits for it instead of sending it again).
 */
void ro_step_download(struct ctrl *c, struct ro_campaign *camp, int i,
    struct ro_step_result *res);
void ro_step_install(struct ctrl *c, struct ro_campaign *camp, int i, int resumed,
    struct ro_step_result *res);

#endif
