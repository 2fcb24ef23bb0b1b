/*
 * provision_job: the controller's provisioning runs.  Each run (tbctl node
 * add, tbctl node deprovision) is a thread that connects to the Mac through
 * struct prov_session_ops (the SSH layer), surveys it, judges the
 * preflight, runs the plan (provision.h) and stores every line and step in
 * the inventory as it happens; node add then waits for the agent's first
 * report.  The API answers 202 with the run's id at once; GET
 * /v1/provisions/{id} follows it.
 */
#ifndef TBMESH_PROVISION_JOB_H
#define TBMESH_PROVISION_JOB_H

#include <stddef.h>

#include "provision.h"

struct ctrl;
struct prov_api_request;
struct prov_api_deprov;
struct prov_api_status;

/* Where a session goes. */
struct prov_target {
	const char *host;
	int port;                  /* 0: 22 */
	const char *user;          /* "": the configured user */
	const char *key_file;      /* "": the configured key */
	const char *pinned;        /* the host key to expect, "SHA256:..."; "" none */
	int accept_new;            /* with nothing pinned: pin the key offered */
};

#define PROV_FP_MAX 80       /* a host key fingerprint, "SHA256:..." */

/*
 * How sessions are made.  open() connects and checks the host key: it
 * fills fp (PROV_FP_MAX bytes) with the key offered (also when refused) and returns
 * the session, or NULL with the reason.  run() is struct prov_exec's run
 * with the session as ctx.  close() accepts NULL.
 */
struct prov_session_ops {
	void *ctx;
	void *(*open)(void *ctx, const struct prov_target *t, char *fp, char *err, size_t errlen);
	int (*run)(void *sess, const char *cmd, const void *in, size_t inlen, int timeout_s,
	    struct prov_output *o, char *err, size_t errlen);
	void (*close)(void *sess);
	/*
	 * After a node add is ready (may be NULL): keep how node was reached
	 * (t, host key fp) where other SSH actions (OS updates) find it.
	 */
	void (*provisioned)(void *ctx, const char *node, const struct prov_target *t,
	    const char *fp);
};

struct prov_jobs_config {
	const char *agent_binary;      /* the macOS tbagentd the controller installs */
	const char *agent_url;         /* the controller's URL as agents reach it */
	double report_wait;            /* seconds to wait for the first report */
	int command_timeout;           /* seconds per command */
	const char *root;              /* prefix of paths on the Mac ("" on a real one);
					  "%h" in it is the run's host */
	int sudo;                      /* run commands under sudo -n */
};

struct prov_jobs;

/* provision_ssh.c: sessions over the SSH layer, for c. */
void prov_ssh_ops(struct ctrl *c, struct prov_session_ops *ops);

/* NULL when out of memory.  ops and cfg are copied (their strings are not). */
struct prov_jobs *prov_jobs_new(struct ctrl *c, const struct prov_session_ops *ops,
    const struct prov_jobs_config *cfg);
/* Stop: runs under way end after their current command; joins them; accepts NULL. */
void prov_jobs_free(struct prov_jobs *j);

/*
 * Start a run of req (node add) or of deprovisioning node.  Returns 0 with
 * its first status in *st (state "running", its id), or an HTTP status
 * (404 no such node or cluster, 409 the node has no provisioning to find
 * it by, 503) with the reason in err.
 */
int prov_jobs_add(struct prov_jobs *j, const struct prov_api_request *req, double now,
    struct prov_api_status *st, char *err, size_t errlen);
int prov_jobs_deprovision(struct prov_jobs *j, const char *node,
    const struct prov_api_deprov *d, double now, struct prov_api_status *st, char *err,
    size_t errlen);

#endif
