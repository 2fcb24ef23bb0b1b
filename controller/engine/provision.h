/*
 * provision: what turns a fresh Mac into a cluster member (DESIGN.md,
 * "Provisioning"), as a pure engine.
 *
 * 1. The survey: read-only commands (prov_survey_cmds) whose outputs
 *    prov_facts_parse() turns into struct prov_facts.
 * 2. The preflight: prov_preflight() judges the facts, one pass/warn/fail
 *    line each (macOS 26.2 or later, Apple silicon, Thunderbolt 5, free
 *    disk, rdma_ctl status, the Thunderbolt Bridge, root: logged in as root
 *    or `sudo -n true` works).
 * 3. The plan: prov_plan_build() gives the ordered steps for the cluster's
 *    settings; prov_deprov_build() the steps that take tbmesh off a Mac.
 *    Every step has a read-only check command whose output
 *    prov_step_done() judges, an apply command (with its standard input, if
 *    any) and, where it can be undone, prov_step_undo() gives the command
 *    that puts back what the check saw.
 * 4. The run: prov_run() (provision_run.c) executes a plan through a
 *    struct prov_exec (the SSH layer in the controller) and records each step.
 *
 * Privileges (DESIGN.md, "Provisioning"): the survey and the checks run as
 * the login user; with a login user that is not root, every command that
 * changes the Mac is "sudo -n COMMAND" (never a password prompt), one sudo
 * per command so that a sudoers drop-in can allow exactly these commands
 * (prov_sudoers.h prints it); a check that reads what only root may read
 * goes through sudo -n too.  Logged in as root, nothing goes through sudo.
 *
 * No sockets, no files, no clock: every input is passed in.  Commands are
 * for /bin/sh on macOS; every argument that is not a fixed word is quoted
 * with prov_shell_quote().
 */
#ifndef TBMESH_PROVISION_H
#define TBMESH_PROVISION_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define PROV_PORTS_MAX 16
#define PROV_STEPS_MAX 64
#define PROV_LINE_MAX 256
#define PROV_CMD_MAX 1024

#define PROV_MIN_MACOS_MAJOR 26
#define PROV_MIN_MACOS_MINOR 2
#define PROV_MIN_FREE_KB (INT64_C(2) * 1024 * 1024)   /* 2 GiB free on / */

/* Where things go on the Mac. */
#define PROV_AGENT_BIN "/usr/local/sbin/tbagentd"
#define PROV_AGENT_CONF "/usr/local/etc/tbmesh/tbagentd.conf"
#define PROV_AGENT_STATE "/var/lib/tbagentd"
#define PROV_AGENT_BOOTSTRAP PROV_AGENT_STATE "/bootstrap-token"
#define PROV_AGENT_NODE_TOKEN PROV_AGENT_STATE "/node-token"
#define PROV_AGENT_LABEL "com.tbmesh.tbagentd"
#define PROV_AGENT_PLIST "/Library/LaunchDaemons/" PROV_AGENT_LABEL ".plist"
#define PROV_WIRED_LABEL "com.tbmesh.wiredlimit"
#define PROV_WIRED_PLIST "/Library/LaunchDaemons/" PROV_WIRED_LABEL ".plist"
#define PROV_BRIDGE_DEVICE "bridge0"      /* the Thunderbolt Bridge's device */
#define PROV_SERVICE_PREFIX "tbmesh Thunderbolt "  /* + receptacle */
#define PROV_LOCATION "tbmesh"        /* the network location of the port services */
#define PROV_LOCATION_BACK "Automatic" /* where deprovisioning switches back to */
#define PROV_NETMASK "255.255.255.252"               /* one /30 per cable */
#define PROV_SUDO "sudo -n "                         /* before a command that needs root */

/* The manual step when RDMA is off: only a person at the Mac can do it. */
#define PROV_RDMA_MANUAL API_RDMA_MANUAL_STEP

/* The survey: every command is read-only. */
enum prov_fact {
	PROV_F_SW_VERS,        /* sw_vers */
	PROV_F_CPU,            /* sysctl -n machdep.cpu.brand_string */
	PROV_F_THUNDERBOLT,    /* system_profiler SPThunderboltDataType -json */
	PROV_F_HWPORTS,        /* networksetup -listallhardwareports */
	PROV_F_DF,             /* df -k / */
	PROV_F_RDMA,           /* rdma_ctl status */
	PROV_F_BRIDGE,         /* networksetup -listnetworkserviceorder: the service on bridge0 */
	PROV_F_PMSET,          /* pmset -g */
	PROV_F_WIRED,          /* sysctl -n iogpu.wired_limit_mb */
	PROV_F_HOSTNAME,       /* hostname: the name the agent reports */
	PROV_F_UID,            /* id -u: 0 when logged in as root */
	PROV_F_USER,           /* id -un: the login user's name */
	PROV_F_SUDO,           /* sudo -n true 2>&1: root without a password */
	PROV_F_COUNT
};

/* The command that reads fact f. */
const char *prov_survey_cmd(enum prov_fact f);
/* A short name for fact f ("sw_vers", "rdma_ctl"). */
const char *prov_fact_name(enum prov_fact f);

/* A Thunderbolt port of the target. */
struct prov_port {
	char receptacle[8];        /* "2" */
	char device[16];           /* "en3" from networksetup; "" unknown */
};

/* What the survey found.  Strings "" and numbers -1 are unknown. */
struct prov_facts {
	int os_major, os_minor, os_patch;
	char os_version[32], os_build[32];
	char cpu[128];
	int n_ports;               /* -1 unknown */
	struct prov_port ports[PROV_PORTS_MAX];
	int n_tb5;                 /* ports "Up to 120 Gb/s" or linked at 80 or more */
	int64_t free_kb;
	int rdma;                  /* 1 enabled, 0 disabled, -1 unknown */
	int bridge_enabled;        /* 1, 0, -1 unknown (no such service is 0) */
	char bridge_service[64];   /* the network service on device bridge0, whatever its
				      name ("Thunderbolt Bridge" in English); "" none */
	int sleep_min;             /* pmset "sleep"; -1 unknown */
	int autorestart;           /* pmset "autorestart"; -1 unknown */
	int wired_limit_mb;        /* iogpu.wired_limit_mb; -1 unknown */
	char hostname[256];
	int uid;                   /* the login user's; -1 unknown */
	char user[64];             /* its name */
	int sudo_ok;               /* 1 sudo -n true worked, 0 it did not, -1 unknown */
	char sudo_said[PROV_LINE_MAX];  /* what sudo said when it did not */
	char errors[PROV_F_COUNT][PROV_LINE_MAX];  /* why a fact is unknown */
};

/* Every fact unknown. */
void prov_facts_init(struct prov_facts *f);

/*
 * Read fact f from a command's output (NUL-terminated) and exit status.
 * Returns 0, or -1 with the reason in f->errors[fact] (the fact stays
 * unknown).  A missing Thunderbolt Bridge service is "off", not an error.
 */
int prov_facts_parse(struct prov_facts *f, enum prov_fact fact, const char *out, int status);

/* Preflight. */
enum prov_verdict { PROV_PASS, PROV_WARN, PROV_FAIL };

struct prov_check_line {
	char what[32];             /* "macOS", "chip", "thunderbolt5", ... */
	enum prov_verdict verdict;
	char text[PROV_LINE_MAX];  /* "macOS 26.2 (25C56): 26.2 or later" */
};

struct prov_preflight {
	int n;
	struct prov_check_line lines[12];
	int failed;                /* lines with PROV_FAIL */
	int rdma_manual;           /* RDMA disabled: the manual step is due */
};

/* Judge the facts.  min_free_kb 0 means PROV_MIN_FREE_KB. */
void prov_preflight(const struct prov_facts *f, int64_t min_free_kb, struct prov_preflight *p);

/*
 * The privilege line alone (also deprovisioning's only check): pass when
 * logged in as root or sudo -n works; else fail, saying what sudo said and
 * how to grant the rights (tbctl node add --print-sudoers --user USER).
 */
void prov_preflight_root(const struct prov_facts *f, struct prov_check_line *l);

/* 1 when commands that change the Mac must go through sudo -n (not root). */
int prov_needs_sudo(const struct prov_facts *f);
const char *prov_verdict_name(enum prov_verdict v);

/* The cluster's settings for this node. */
struct prov_addr {
	char receptacle[8];        /* "2" */
	char ipv4[16];             /* "192.168.3.1"; the mask is PROV_NETMASK */
};

struct prov_settings {
	const char *root;             /* prefix of every path on the Mac ("" or NULL: /) */
	int sudo;                     /* commands that need root: "sudo -n CMD" */
	const char *controller_url;   /* written into the agent's config */
	const char *node_name;        /* the agent's name; NULL or "": its host name */
	const char *agent_sha256;     /* hex digest of the agent binary to install */
	size_t agent_size;
	int wired_limit_mb;           /* 0: leave the system default */
	const char *ip_base;          /* "A.B.0.0": cable k is A.B.k.0/30; NULL or "": 192.168.0.0 */
	int n_addrs;
	struct prov_addr addrs[PROV_PORTS_MAX];
};

/* One cable of the cluster's plan: a.node's receptacle to b.node's. */
struct prov_cable {
	const char *a_node, *a_receptacle;
	const char *b_node, *b_receptacle;
};

#define PROV_IP_BASE "192.168.0.0"

/*
 * The addresses of node's ports from the cluster's cabling plan: cable k
 * (0-based, in plan order) is the /30 A.B.k.0 of s->ip_base "A.B.0.0"
 * (default PROV_IP_BASE), its a end .1 and its b end .2; an end whose
 * receptacle is "" (any) gets none.  Fills s->addrs and s->n_addrs.
 * Returns the count, or -1 with a reason when the base is not "A.B.0.0",
 * there are more than 256 cables or more than PROV_PORTS_MAX cables at
 * node, or node holds one receptacle twice.
 */
int prov_plan_addresses(const struct prov_cable *cables, int n, const char *node,
    struct prov_settings *s, char *err, size_t errlen);

/* 1 when base is "A.B.0.0" (A 1 to 223, B 0 to 255), with A and B. */
int prov_ip_base_ok(const char *base, int *a, int *b);

/*
 * The cables' subnets against the LAN: cable k's /30 of base (NULL or "":
 * PROV_IP_BASE) must not share its /24 A.B.k.0/24 with any address lan[i]
 * (what node who[i] reports in network.interfaces, or the address SSH
 * reaches it at): a home router's 192.168.1.1 and cable 1's 192.168.1.0/30
 * would fight over the routes.  0, or -1 with the first clash in err.
 */
int prov_lan_check(const char *base, int n_cables, const char *const *lan,
    const char *const *who, int n, char *err, size_t errlen);

/* How a check command's output says the step is done. */
enum prov_judge {
	PROV_J_STATUS_OK,       /* exit 0 */
	PROV_J_STATUS_FAIL,     /* exit non-zero (the thing is gone) */
	PROV_J_EQUALS,          /* stdout equals expect exactly */
	PROV_J_LINE,            /* exit 0 and, trimmed, stdout is expect */
	PROV_J_PMSET,           /* pmset -g: the setting named by key is expect */
	PROV_J_GETINFO,         /* networksetup -getinfo: IP address expect, mask PROV_NETMASK */
	PROV_J_SHA256,          /* shasum -a 256: the digest is expect */
	PROV_J_DISABLED,        /* -getnetworkserviceenabled: Disabled, or no such service */
	PROV_J_HAS_LINE,        /* exit 0 and a line is expect (or "*" expect: disabled) */
	PROV_J_NO_LINE,         /* exit 0 and no line is expect nor "*" expect */
	PROV_J_BRIDGE_ON,       /* -listnetworkserviceorder: bridge0's service, if any, enabled */
};

/* How a step is undone, from what its check saw. */
enum prov_undo {
	PROV_U_NONE,            /* cannot be undone */
	PROV_U_FIXED,           /* the command undo_cmd */
	PROV_U_FILE,            /* put back the file the check printed (cat), or remove it */
	PROV_U_BINARY,          /* put back PROV_AGENT_BIN.prev, or remove it */
	PROV_U_PMSET,           /* pmset -a key with the value the check printed */
	PROV_U_SYSCTL,          /* sysctl key with the value the check printed */
	PROV_U_LOCATION,        /* back to the location the check printed, ours deleted */
};

struct prov_step {
	char id[48];              /* "pmset-sleep", "port-ip-2" */
	char title[128];          /* "no system sleep (pmset -a sleep 0)" */
	char check[PROV_CMD_MAX];
	enum prov_judge judge;
	char key[32];             /* PROV_J_PMSET / PROV_U_PMSET / PROV_U_SYSCTL */
	char expect[128];
	char apply[PROV_CMD_MAX];
	char verify[PROV_CMD_MAX];  /* after apply, when not "": exit 0 says it worked
				       (else the check is asked again) */
	const char *input;        /* apply's standard input (owned by the plan), or NULL */
	size_t input_len;
	int input_secret;         /* apply's input is the bootstrap token: never shown */
	int input_binary;         /* apply's input is the agent binary (the runner gives it) */
	enum prov_undo undo;
	char undo_cmd[PROV_CMD_MAX];
	char undo_path[128];      /* PROV_U_FILE */
	char su[12];              /* PROV_SUDO or "": before the undo's commands */
	int not_applicable;       /* the check says the Mac has no such setting
				     (a laptop's pmset without autorestart) */
};

struct prov_plan {
	int n;
	int sudo;                 /* the commands that need root carry PROV_SUDO */
	struct prov_step steps[PROV_STEPS_MAX];
	int rdma_manual;          /* end with PROV_RDMA_MANUAL */
	char *texts[4];           /* plists and config, owned */
};

/*
 * The provisioning steps for facts f (its ports' devices) and settings s,
 * in order: Thunderbolt Bridge off, no sleep, restart after power failure,
 * the wired-limit LaunchDaemon (when s->wired_limit_mb > 0), with ports to
 * address the network location PROV_LOCATION (made as exo makes its own: a
 * service for every hardware port but the Thunderbolt ones and the bridge,
 * so that the LAN goes on; then switched to) and in it one network service
 * with a static IPv4 per port of s->addrs, the agent binary, its config,
 * its bootstrap token, its LaunchDaemon.  Returns a plan to free
 * with prov_plan_free(), or NULL with a reason (a port of s->addrs the Mac
 * does not have, out of memory).
 */
struct prov_plan *prov_plan_build(const struct prov_facts *f, const struct prov_settings *s,
    char *err, size_t errlen);

/*
 * The steps that take tbmesh off a Mac: the agent stopped and removed, its
 * LaunchDaemon, config and state, the wired-limit LaunchDaemon; with
 * network, also the location PROV_LOCATION (back to PROV_LOCATION_BACK
 * first), which takes its port services with it (networksetup cannot
 * remove a port's only service), port services left in the location in use
 * (for the receptacles of f), and the Thunderbolt Bridge turned back on.
 * NULL when out of memory.
 */
struct prov_plan *prov_deprov_build(const struct prov_facts *f, const char *root, int sudo,
    int network);

void prov_plan_free(struct prov_plan *p);

/* 1 when the check's output and exit status say step s is already done. */
int prov_step_done(const struct prov_step *s, const char *out, int status);

/*
 * 1 when the check's output says the Mac has no such setting, so the step
 * does not apply: `pmset -g` without the key's line (a MacBook has no
 * autorestart).
 */
int prov_step_not_applicable(const struct prov_step *s, const char *out, int status);

/*
 * The command that undoes s (applied after its check printed out with
 * status), with its standard input in *input (NULL: none; points into out).
 * Returns 0, or -1 when s cannot be undone.
 */
int prov_step_undo(const struct prov_step *s, const char *out, int status, char *cmd,
    size_t cmdlen, const char **input, size_t *input_len);

/*
 * The number after the setting key on a line of `pmset -g` (" sleep  0
 * (sleep prevented by ...)" is 0).  Returns 0, or -1 when absent.
 */
int prov_pmset_value(const char *out, const char *key, int *v);

/*
 * From `networksetup -listnetworkserviceorder`: the service on bridge0
 * (name into name, "" when there is none) and whether it is enabled.
 * 0, or -1 when out is no service list.
 */
int prov_bridge_service(const char *out, char *name, size_t size, int *enabled);

/* The value after "key:" on a line of text, trimmed, into buf.  0, or -1 when absent. */
int prov_line_value(const char *text, const char *key, char *buf, size_t size);

/* s in single quotes for /bin/sh, into buf.  -1 when it does not fit. */
int prov_shell_quote(const char *s, char *buf, size_t size);

/*
 * The launchd plists and the agent's config (provision_texts.c), with root
 * before every path; malloc'd (the caller frees), NULL when out of memory.
 */
char *prov_agent_plist(const char *root);
char *prov_wired_plist(int wired_limit_mb);
char *prov_agent_config(const char *root, const char *controller_url, const char *name);

/* The run (provision_run.c). */

/* What one command printed. */
struct prov_output {
	int status;               /* exit status */
	char *out;                /* stdout, NUL-terminated, malloc'd (the caller frees) */
	char *err;                /* stderr, likewise; may be NULL */
};

/*
 * How commands reach the Mac.  run() executes cmd with in (inlen bytes, or
 * none when NULL) as standard input and at most timeout_s seconds; it fills
 * *o and returns 0 when the command ran (whatever its status), or -1 with a
 * reason when it could not be run (connection lost, timed out).
 */
struct prov_record;

struct prov_exec {
	void *ctx;
	int (*run)(void *ctx, const char *cmd, const void *in, size_t inlen, int timeout_s,
	    struct prov_output *o, char *err, size_t errlen);
	/* Called with each record as prov_run makes it (may be NULL). */
	void (*recorded)(void *ctx, const struct prov_record *rec);
};

enum prov_outcome {
	PROV_DONE_ALREADY,        /* the check said so: nothing ran */
	PROV_NOT_APPLICABLE,      /* the check says this Mac has no such setting */
	PROV_APPLIED,
	PROV_WOULD_APPLY,         /* dry run */
	PROV_FAILED,
	PROV_UNDONE,
	PROV_UNDO_FAILED,
	PROV_NOT_UNDOABLE,
};

struct prov_record {
	char step[48];
	char title[128];
	enum prov_outcome outcome;
	char detail[PROV_LINE_MAX];  /* why it failed; what undid it */
	char command[PROV_CMD_MAX];  /* what ran, or would */
};

struct prov_result {
	int ok;                      /* every step done or applied */
	int n;
	struct prov_record records[PROV_STEPS_MAX * 2];
	char failed_step[48];        /* "" when none failed */
	char reason[PROV_LINE_MAX];
};

/* The agent binary, given to the step that installs it. */
struct prov_blob {
	const void *data;
	size_t len;
};

/*
 * Survey the Mac: run every prov_survey_cmd through ex and parse them into
 * *f.  Returns 0, or -1 with a reason when the transport failed (facts that
 * could not be read stay unknown, with their reason).
 */
int prov_survey(const struct prov_exec *ex, int timeout_s, struct prov_facts *f, char *err,
    size_t errlen);

/*
 * Run plan p: for each step in order, its check, right before its apply
 * (so that what an earlier step changed is seen); when not done, its apply
 * (or, with dry_run, only record the command it would run).  The first apply that
 * fails (non-zero status or transport error) stops the run: the steps
 * applied in this run are undone in reverse order where they can be, each
 * recorded.  agent is the binary for the step that takes it; token the
 * one-time bootstrap token for the step that writes it.  Returns 0 when
 * every step is done, -1 otherwise (r says which step and why).
 */
int prov_run(const struct prov_exec *ex, const struct prov_plan *p, int dry_run, int timeout_s,
    const struct prov_blob *agent, const char *token, struct prov_result *r);

const char *prov_outcome_name(enum prov_outcome o);

#endif
