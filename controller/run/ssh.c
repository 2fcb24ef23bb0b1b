/*
 * SSH to a node over libssh (see ssh.h).  Nothing here reads ~/.ssh: the
 * host key is checked against the fingerprint the caller pins, and the
 * identity is the key file the caller names.
 */
#include "ssh.h"

#include <libssh/libssh.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

struct ssh_conn {
	ssh_session s;
};

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
ssh_fp_valid(const char *s)
{
	size_t n;

	if (s == NULL || strncmp(s, "SHA256:", 7) != 0)
		return 0;
	s += 7;
	n = strlen(s);
	if (n != 43)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") == n;
}

void
ssh_last_line(const char *text, char *buf, size_t size)
{
	const char *end, *start;

	buf[0] = '\0';
	if (text == NULL || size == 0)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' ||
	    end[-1] == '\t'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	size_t n = (size_t)(end - start);
	if (n >= size)
		n = size - 1;
	memcpy(buf, start, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20)
			buf[i] = ' ';
}

/* A session to host:port with a connect timeout; NULL with err. */
static ssh_session
session_new(const char *host, int port, const char *user, double timeout, char *err,
    size_t errlen)
{
	ssh_session s = ssh_new();
	long secs = (long)ceil(timeout > 0 ? timeout : 10);
	int p = port > 0 ? port : 22, no = 0;

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (ssh_options_set(s, SSH_OPTIONS_HOST, host) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_PORT, &p) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &secs) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, "/dev/null") < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null") < 0 ||
	    (user != NULL && ssh_options_set(s, SSH_OPTIONS_USER, user) < 0)) {
		snprintf(err, errlen, "%s: %s", host, ssh_get_error(s));
		ssh_free(s);
		return NULL;
	}
	if (ssh_connect(s) != SSH_OK) {
		snprintf(err, errlen, "cannot connect to %s port %d: %s", host, p,
		    ssh_get_error(s));
		ssh_free(s);
		return NULL;
	}
	return s;
}

/* The connected server's host key fingerprint into fp; 0 or -1. */
static int
server_fp(ssh_session s, char *fp, char *err, size_t errlen)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *str;

	if (ssh_get_server_publickey(s, &key) != SSH_OK ||
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) != 0) {
		ssh_key_free(key);
		snprintf(err, errlen, "cannot read the host key: %s", ssh_get_error(s));
		return -1;
	}
	ssh_key_free(key);
	str = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	ssh_clean_pubkey_hash(&hash);
	if (str == NULL || strlen(str) >= SSH_FP_MAX) {
		ssh_string_free_char(str);
		snprintf(err, errlen, "cannot format the host key fingerprint");
		return -1;
	}
	snprintf(fp, SSH_FP_MAX, "%s", str);
	ssh_string_free_char(str);
	return 0;
}

int
ssh_fingerprint(const char *host, int port, double timeout, char *fp, char *err, size_t errlen)
{
	ssh_session s = session_new(host, port, NULL, timeout, err, errlen);
	int rc;

	if (s == NULL)
		return -1;
	rc = server_fp(s, fp, err, errlen);
	ssh_disconnect(s);
	ssh_free(s);
	return rc;
}

/* The pinned-key rule; 0 when fp is the pinned one, else -1 with err. */
static int
check_pin(const struct ssh_target *t, const char *fp, char *err, size_t errlen)
{
	if (t->pinned == NULL || t->pinned[0] == '\0') {
		snprintf(err, errlen, "%s: unknown host key %s: nothing is pinned for this node "
		    "(check it, then: tbctl node trust NODE --fingerprint %s)", t->host, fp, fp);
		return -1;
	}
	if (strcmp(t->pinned, fp) != 0) {
		snprintf(err, errlen, "%s: host key changed: pinned %s, offered %s; refused "
		    "(if the change is expected: tbctl node trust NODE --fingerprint %s)",
		    t->host, t->pinned, fp, fp);
		return -1;
	}
	return 0;
}

static int
authenticate(ssh_session s, const struct ssh_target *t, char *err, size_t errlen)
{
	ssh_key key = NULL;
	int rc;

	if (ssh_pki_import_privkey_file(t->key_file, NULL, NULL, NULL, &key) != SSH_OK) {
		snprintf(err, errlen, "cannot read the SSH key %s", t->key_file);
		return -1;
	}
	rc = ssh_userauth_publickey(s, NULL, key);
	ssh_key_free(key);
	if (rc != SSH_AUTH_SUCCESS) {
		snprintf(err, errlen, "%s: key authentication as %s refused: %s", t->host,
		    t->user != NULL ? t->user : "?", ssh_get_error(s));
		return -1;
	}
	return 0;
}

struct ssh_conn *
ssh_open(const struct ssh_target *t, char *seen, char *err, size_t errlen)
{
	char fp[SSH_FP_MAX];
	struct ssh_conn *c;
	ssh_session s;

	if (seen != NULL)
		seen[0] = '\0';
	s = session_new(t->host, t->port, t->user, t->connect_timeout, err, errlen);
	if (s == NULL)
		return NULL;
	if (server_fp(s, fp, err, errlen) == -1)
		goto fail;
	if (seen != NULL)
		snprintf(seen, SSH_FP_MAX, "%s", fp);
	if (check_pin(t, fp, err, errlen) == -1 || authenticate(s, t, err, errlen) == -1)
		goto fail;
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	c->s = s;
	return c;
fail:
	ssh_disconnect(s);
	ssh_free(s);
	return NULL;
}

void
ssh_close(struct ssh_conn *c)
{
	if (c == NULL)
		return;
	ssh_disconnect(c->s);
	ssh_free(c->s);
	free(c);
}

void
ssh_result_free(struct ssh_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
	res->status = -1;
}

/* Append n bytes to *buf (bounded by SSH_OUT_MAX); 0 or -1 out of memory. */
static int
append(char **buf, size_t *len, const char *p, size_t n)
{
	if (*len + n > SSH_OUT_MAX)
		n = SSH_OUT_MAX - *len;
	char *nb = realloc(*buf, *len + n + 1);
	if (nb == NULL)
		return -1;
	memcpy(nb + *len, p, n);
	*len += n;
	nb[*len] = '\0';
	*buf = nb;
	return 0;
}

/* Read what is there on both streams until EOF or the deadline. */
static int
drain(ssh_channel ch, double deadline, struct ssh_result *res, char *err, size_t errlen)
{
	char buf[4096];

	while (!ssh_channel_is_eof(ch)) {
		if (mono_now() >= deadline) {
			res->timed_out = 1;
			return 0;
		}
		int got = 0;
		for (int is_err = 0; is_err <= 1; is_err++) {
			int n = ssh_channel_read_timeout(ch, buf, sizeof(buf), is_err, is_err ? 0 : 100);
			if (n == SSH_ERROR) {
				snprintf(err, errlen, "reading the command's output failed");
				return -1;
			}
			if (n > 0) {
				got = 1;
				if (append(is_err ? &res->err : &res->out,
				    is_err ? &res->err_len : &res->out_len, buf, (size_t)n) == -1) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
			}
		}
		(void)got;
	}
	/* What is left after EOF on stdout. */
	for (int is_err = 0; is_err <= 1; is_err++) {
		int n;
		while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), is_err)) > 0)
			if (append(is_err ? &res->err : &res->out, is_err ? &res->err_len :
			    &res->out_len, buf, (size_t)n) == -1)
				return -1;
	}
	return 0;
}

int
ssh_run(struct ssh_conn *c, const char *cmd, const char *in, size_t in_len, double timeout,
    struct ssh_result *res, char *err, size_t errlen)
{
	double deadline = mono_now() + timeout;
	ssh_channel ch;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	res->status = -1;
	res->out = calloc(1, 1);
	res->err = calloc(1, 1);
	if (res->out == NULL || res->err == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((ch = ssh_channel_new(c->s)) == NULL || ssh_channel_open_session(ch) != SSH_OK ||
	    ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		snprintf(err, errlen, "cannot start a command: %s", ssh_get_error(c->s));
		goto done;
	}
	if (in != NULL && in_len > 0 && ssh_channel_write(ch, in, (uint32_t)in_len) !=
	    (int)in_len) {
		snprintf(err, errlen, "cannot write the command's input: %s", ssh_get_error(c->s));
		goto done;
	}
	ssh_channel_send_eof(ch);
	if (drain(ch, deadline, res, err, errlen) == -1)
		goto done;
	if (!res->timed_out)
		res->status = ssh_channel_get_exit_status(ch);
	rc = 0;
done:
	if (ch != NULL) {
		ssh_channel_close(ch);
		ssh_channel_free(ch);
	}
	return rc;
}
