/*
 * SSH to a node (libssh; this is the only module that includes it): connect
 * with a timeout, check the server's host key against the one pinned in the
 * inventory, authenticate with the controller's private key, run commands
 * with an optional standard input and a timeout, and capture their output
 * and exit status.  Used by OS updates (rollout_run.c) and provisioning.
 *
 * Host keys are named by their fingerprint as OpenSSH prints it:
 * "SHA256:" followed by the unpadded base64 of the key's SHA-256.
 *
 * A struct ssh_conn is one session, used by one thread at a time.
 */
#ifndef TBMESH_SSH_H
#define TBMESH_SSH_H

#include <stddef.h>

#define SSH_FP_MAX 64           /* "SHA256:" + 43 base64 characters, and room */
#define SSH_OUT_MAX (256 * 1024) /* output kept per stream; the rest is dropped */

struct ssh_target {
	const char *host;       /* address or name */
	int port;               /* 0: 22 */
	const char *user;
	const char *key_file;   /* the controller's private key (OpenSSH format, no passphrase) */
	const char *pinned;     /* "SHA256:..." pinned for this node, or NULL/"" for none */
	double connect_timeout; /* seconds */
};

/* What a command did.  out and err are malloc'd, NUL-terminated (free with ssh_result_free). */
struct ssh_result {
	int status;             /* exit status; -1 when unknown (killed, timed out) */
	int timed_out;
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

struct ssh_conn;

/*
 * Connect to t, check the host key, authenticate.  The server's fingerprint
 * goes into seen (SSH_FP_MAX bytes; may be NULL) as soon as it is known,
 * also when the key is refused.  Refused: no key pinned ("unknown host key
 * SHA256:..."), or another key pinned ("host key changed: pinned SHA256:...,
 * offered SHA256:..."), both with the way to accept it.  Returns the
 * connection, or NULL with the reason in err.
 */
struct ssh_conn *ssh_open(const struct ssh_target *t, char *seen, char *err, size_t errlen);
void ssh_close(struct ssh_conn *c);   /* accepts NULL */

/*
 * Only the server's host key fingerprint (no authentication, nothing
 * pinned needed): what `tbctl node trust` shows.  0, or -1 with err.
 */
int ssh_fingerprint(const char *host, int port, double timeout, char *fp, char *err,
    size_t errlen);

/*
 * Run cmd (a shell command line on the node) with in (may be NULL: empty
 * standard input) written to its standard input, then end of file.  Waits
 * at most timeout seconds, then closes the channel (res->timed_out).
 * Returns 0 when the command ran (whatever its status, in res), -1 when the
 * session failed (err says why).  Free res with ssh_result_free either way.
 */
int ssh_run(struct ssh_conn *c, const char *cmd, const char *in, size_t in_len, double timeout,
    struct ssh_result *res, char *err, size_t errlen);
void ssh_result_free(struct ssh_result *res);

/* The last non-blank line of text (into buf, at most size-1 bytes), "" if none. */
void ssh_last_line(const char *text, char *buf, size_t size);

/* 1 when s is a well-formed "SHA256:<43 base64 characters>". */
int ssh_fp_valid(const char *s);

#endif
