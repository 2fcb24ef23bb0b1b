/*
 * The provisioning API's objects (DESIGN.md "Provisioning") and their JSON
 * (prov_json.c), shared by tbcontrollerd and tbctl.
 *
 *   POST /v1/provisions              (admin) body: a request   -> 202 a status
 *   POST /v1/nodes/{name}/deprovision (admin) body: a deprovision request -> 202 a status
 *   GET  /v1/provisions/{id}         (admin)                    -> a status
 *
 * A request:
 *   {"host":"10.0.0.5", "port":22, "user":"admin", "key_file":null,
 *    "cluster":"studio4", "node":null, "fingerprint":"SHA256:..."|null,
 *    "accept_new":false, "dry_run":false, "agent_binary":null,
 *    "wired_limit_mb":null, "ip_base":null|"10.254.0.0"}
 * ip_base: the /16 the cables' /30s come from, "A.B.0.0" (cable k is
 * A.B.k.0/30); null: 192.168.0.0.
 * A deprovision request: {"network":false, "dry_run":false}
 * A status:
 *   {"id":1, "kind":"add"|"deprovision", "host":"10.0.0.5", "port":22,
 *    "user":"admin"|null, "key_file":null, "node":"mac1"|null,
 *    "cluster":"studio4"|null, "state":"running"|"ready"|"waiting"|"failed"|"done",
 *    "dry_run":false, "fingerprint":"SHA256:..."|null,
 *    "preflight":[{"what":"macOS","verdict":"pass"|"warn"|"fail","text":"..."}],
 *    "steps":[{"step":"pmset-sleep","title":"no system sleep",
 *              "outcome":"applied"|"done already"|"not applicable"|"would apply"|"FAILED"|"undone"|
 *                        "undo FAILED"|"cannot be undone",
 *              "command":"pmset -a sleep 0","detail":null}],
 *    "failed_step":null, "reason":null, "manual":null|"boot into Recovery, ...",
 *    "started_at":1763782801.2, "finished_at":null}
 * "waiting": the steps are done and the controller waits for the agent's
 * first report; "ready": it came; "done": a dry run or a deprovision ended.
 */
#ifndef TBMESH_PROV_API_H
#define TBMESH_PROV_API_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define PROV_API_LINES_MAX 8
#define PROV_API_STEPS_MAX 160
#define PROV_API_WIRED_MAX (16 * 1024 * 1024)   /* MB */

struct prov_api_request {
	char host[256];
	int port;                  /* 0: 22 */
	char user[64];             /* "": the controller's default */
	char key_file[1024];       /* "": the controller's key */
	api_name cluster;          /* "": none */
	api_name node;             /* "": the name the agent reports (its hostname) */
	char fingerprint[80];      /* "": none given */
	int accept_new;
	int dry_run;
	char agent_binary[1024];   /* "": the controller's configured copy */
	int wired_limit_mb;        /* -1: not given */
	char ip_base[16];          /* "A.B.0.0"; "": the controller's default */
};

struct prov_api_deprov {
	int network;
	int dry_run;
};

struct prov_api_line {
	char what[32];
	char verdict[8];
	char text[256];
};

struct prov_api_step {
	char step[48];
	char title[128];
	char outcome[24];
	char command[1024];
	char detail[256];
};

struct prov_api_status {
	int64_t id;
	char kind[16];
	char host[256];
	int port;                  /* 0: 22 */
	char user[64];
	char key_file[1024];
	api_name node;
	api_name cluster;
	char state[16];
	int dry_run;
	char fingerprint[80];
	int n_preflight;
	struct prov_api_line preflight[PROV_API_LINES_MAX];
	int n_steps;
	struct prov_api_step steps[PROV_API_STEPS_MAX];
	char failed_step[48];
	char reason[256];
	char manual[256];
	double started_at;
	double finished_at;        /* NAN: not yet */
};

/* 1 when s is "SHA256:" and 43 unpadded base64 characters, as OpenSSH prints it. */
int prov_api_fp_valid(const char *s);

/* A request with nothing given (port 0, wired_limit_mb -1). */
void prov_api_request_init(struct prov_api_request *r);

/*
 * Encoders: a malloc'd JSON text (the caller frees), NULL when out of
 * memory.  Decoders: 0, or -1 with a message naming the bad key in err;
 * requests are validated (host a name or address, port 0-65535, user and
 * names well formed, paths absolute, fingerprint well formed and not with
 * accept_new, wired_limit_mb 0 to PROV_API_WIRED_MAX).
 */
char *prov_json_request(const struct prov_api_request *r);
int prov_json_decode_request(const char *json, size_t len, struct prov_api_request *r,
    char *err, size_t errlen);
char *prov_json_deprov(const struct prov_api_deprov *d);
int prov_json_decode_deprov(const char *json, size_t len, struct prov_api_deprov *d, char *err,
    size_t errlen);
char *prov_json_status(const struct prov_api_status *s);
/* *s is large: allocate it (calloc). */
int prov_json_decode_status(const char *json, size_t len, struct prov_api_status *s, char *err,
    size_t errlen);

#endif
