/*
 * What the API says about SSH access, credentials and OS update campaigns
 * (rollouts): the plain structs shared by the controller (the rollout
 * engine, the inventory, the API) and tbctl, and their JSON
 * (rollout_json.c).  Strings "" are null.
 *
 * JSON shapes:
 *   ssh:        {"node","host","port","user","host_key"}  (POST /v1/nodes/N/ssh
 *               takes host, port, user; POST /v1/nodes/N/trust takes
 *               {"fingerprint"})
 *   credentials request: {"node" | "cluster", "user", "password"}; the
 *               answer never holds the password: {"scope","user","stored"}
 *   rollout request: {"cluster","target","label","mode","max_unavailable",
 *               "window","dry_run"}
 *   rollout:    {"id","cluster","target","label","mode","max_unavailable",
 *               "window","state","reason","created_at","updated_at",
 *               "nodes":[{"node","step","running","since","cordoned_before",
 *               "cordoned_by_us","last_line","reason","failed_step",
 *               "commands":[...] (dry run only)}]}
 */
#ifndef TBMESH_ROLLOUT_API_H
#define TBMESH_ROLLOUT_API_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define RO_TARGET_MAX 63
#define RO_LABEL_MAX 127
#define RO_LINE_MAX 255
#define RO_HOST_MAX 255
#define RO_FP_MAX 63
#define RO_PASSWORD_MAX 1023
#define RO_NODES_MAX 64
#define RO_CMDS_MAX 12
#define RO_CMD_MAX 383

enum ro_step {
	RO_PENDING, RO_PREFLIGHT, RO_CORDON, RO_DRAIN, RO_DOWNLOAD, RO_INSTALL, RO_WAIT,
	RO_VERIFY, RO_UNCORDON, RO_DONE, RO_SKIPPED, RO_FAILED, RO_STEP_COUNT
};
enum ro_state { RO_RUNNING, RO_PAUSED, RO_HALTED, RO_ABORTED, RO_FINISHED, RO_STATE_COUNT };
enum ro_mode { RO_ROLLING, RO_LOCKSTEP, RO_MODE_COUNT };

struct ro_node {
	api_name node;
	enum ro_step step;
	int running;                 /* the step's start is recorded, its end is not */
	double since;                /* when the step started (or the node last changed) */
	int cordoned_before;         /* -1 unknown (not yet at cordon), 0, 1 */
	int cordoned_by_us;
	double boot_before;          /* the boot time when install began; NAN */
	double install_at;           /* when softwareupdate --install was sent in that boot;
	                                NAN not sent, or it ended and said how */
	int64_t wired_before;        /* GPU wired limit bytes at preflight; REPORT_NULL_I64 */
	int links_before;            /* the node's links passed at preflight: -1 unknown, 0, 1 */
	enum ro_step failed_step;    /* the step that failed (step is RO_FAILED) */
	char last_line[RO_LINE_MAX + 1];
	char reason[API_REASON_MAX + 1];
	int ncmds;                   /* dry run: what each step would run */
	char cmds[RO_CMDS_MAX][RO_CMD_MAX + 1];
};

struct ro_campaign {
	int64_t id;
	api_name cluster;
	char target[RO_TARGET_MAX + 1];   /* a version ("26.3") or a build ("25D125") */
	char label[RO_LABEL_MAX + 1];     /* softwareupdate label; "" found at preflight */
	enum ro_mode mode;
	int max_unavailable;
	int window_start, window_end;     /* minutes of the day, UTC; -1 no window */
	int dry_run;
	enum ro_state state;
	char reason[API_REASON_MAX + 1];
	double created_at, updated_at;
	int n;
	struct ro_node nodes[RO_NODES_MAX];
};

struct ro_ssh {
	api_name node;
	char host[RO_HOST_MAX + 1];
	int port;
	api_name user;
	char host_key[RO_FP_MAX + 1];
};

struct ro_credentials {
	api_name node;               /* one of node and cluster */
	api_name cluster;
	api_name user;
	char password[RO_PASSWORD_MAX + 1];
};

const char *ro_step_str(enum ro_step s);
int ro_step_parse(const char *s, enum ro_step *out);
const char *ro_state_str(enum ro_state s);
int ro_state_parse(const char *s, enum ro_state *out);
const char *ro_mode_str(enum ro_mode m);
int ro_mode_parse(const char *s, enum ro_mode *out);
/* "HH:MM-HH:MM" into minutes of the day; 0, or -1. */
int ro_window_parse(const char *s, int *start, int *end);
/* The window as "HH:MM-HH:MM" ("" when start is -1). */
void ro_window_str(int start, int end, char *buf, size_t size);

/* Encoders return malloc'd JSON or NULL (out of memory). */
char *ro_json_campaign(const struct ro_campaign *c);
char *ro_json_campaigns(const struct ro_campaign *c, int n);   /* without nodes */
char *ro_json_ssh(const struct ro_ssh *s);
char *ro_json_ssh_request(const struct ro_ssh *s);
char *ro_json_fingerprint(const char *fp);
char *ro_json_credentials(const struct ro_credentials *cr);   /* tbctl's request */
char *ro_json_credentials_stored(const char *scope, const char *user);
char *ro_json_request(const struct ro_campaign *c);           /* tbctl's rollout start */
char *ro_json_node_request(const char *node);                 /* retry */

/* Decoders: 0, or -1 with the problem in err.  They validate names and ranges. */
int ro_json_decode_campaign(const char *json, size_t len, struct ro_campaign *c, char *err,
    size_t errlen);
/* {"rollouts":[...]}: *out malloc'd. */
int ro_json_decode_campaigns(const char *json, size_t len, struct ro_campaign **out, int *n,
    char *err, size_t errlen);
int ro_json_decode_request(const char *json, size_t len, struct ro_campaign *c, char *err,
    size_t errlen);
int ro_json_decode_ssh_request(const char *json, size_t len, struct ro_ssh *s, char *err,
    size_t errlen);
int ro_json_decode_fingerprint(const char *json, size_t len, char *fp, size_t size, char *err,
    size_t errlen);
int ro_json_decode_credentials(const char *json, size_t len, struct ro_credentials *cr,
    char *err, size_t errlen);
int ro_json_decode_node_request(const char *json, size_t len, api_name node, char *err,
    size_t errlen);

#endif
