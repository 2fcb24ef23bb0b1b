/*
 * tbcontrollerd's configuration: the command line, and the file -f names
 * ("key = value" lines, keys the long option names; conf.h), read in two
 * passes so that a flag wins over the file wherever it stands.  -n stops
 * after the checks.  Strings are owned by the struct: ctrl_config_free()
 * releases them.
 */
#ifndef TBMESH_CTRL_CONFIG_H
#define TBMESH_CTRL_CONFIG_H

#include <stddef.h>

#include "http_limits.h"

#define CTRL_DEFAULT_DB "/var/lib/tbcontrollerd/inventory.db"
#define CTRL_DEFAULT_LISTEN "127.0.0.1:9470"
#define CTRL_DEFAULT_ADMIN_TOKEN_FILE "/var/lib/tbcontrollerd/admin-token"

struct ctrl_config {
	char *db, *listen, *admin_token_file, *web_root, *tls_cert, *tls_key, *catalog;
	char *state_dir, *ssh_key, *password_command;
	char *provision_agent, *provision_url, *provision_root;
	double provision_report_wait;
	double unreachable_after, retention, headroom_gib;
	double ssh_timeout, ssh_command_timeout, install_timeout, boot_timeout;
	double job_check_interval, job_probe_timeout, job_hang_after, job_start_timeout;
	struct http_limits http;
	int log_level;                /* enum log_level */
	int use_syslog, check_only;   /* --syslog, -n */
};

/*
 * The defaults, then the file named by -f (if any), then the flags.  0, or
 * -1 with the reason in err; either way c holds strings for
 * ctrl_config_free().
 */
int ctrl_config_load(struct ctrl_config *c, int argc, char **argv, char *err, size_t errlen);

/*
 * What the flags and the file left unset filled in (the database, the
 * listening address, the admin token file, the state directory), and the
 * checks beyond syntax: the address parses, the files named can be read,
 * --tls-cert and --tls-key go together.  0, or -1 with the reason in err.
 */
int ctrl_config_check(struct ctrl_config *c, char *err, size_t errlen);

void ctrl_config_free(struct ctrl_config *c);

/* The usage text for --help. */
extern const char ctrl_config_usage[];

#endif
