/*
 * The pusher's tokens on disk: the node token the controller gave at
 * enrolment, kept as <state-dir>/node-token (the state directory mode 0700,
 * the file 0600, replaced atomically: proto/util/tokenfile.h), and the
 * bootstrap token read from the file the operator names.  Tokens are never
 * logged, nor put in an error message.
 */
#ifndef TBMESH_AGENT_PUSH_TOKEN_H
#define TBMESH_AGENT_PUSH_TOKEN_H

#include <stddef.h>

#define PUSH_TOKEN_FILE "node-token"

/* 1 when tok is a well-formed token (safe to put in a header). */
int push_token_valid(const char *tok);

/*
 * Read a token from a file: surrounding white space trimmed; it must be
 * 1..API_TOKEN_MAX characters of [A-Za-z0-9_-].  Returns 0, or -1 with a
 * reason in err (which never holds the token); errno ENOENT when absent.
 */
int push_token_read(const char *path, char *tok, size_t toklen, char *err, size_t errlen);

/* The node token saved in dir, as push_token_read() reads it. */
int push_token_load(const char *dir, char *tok, size_t toklen, char *err, size_t errlen);

/*
 * Save tok as <dir>/node-token: dir created 0700 (parents 0755) if missing,
 * a 0600 temp file beside it, fsync, rename, fsync of dir (a failure of
 * that last one is only logged).  0, or -1 with a reason in err.
 */
int push_token_save(const char *dir, const char *tok, char *err, size_t errlen);

/* Remove <dir>/node-token; 0 when it is gone (or was not there). */
int push_token_delete(const char *dir, char *err, size_t errlen);

/* Create the state directory dir, 0700, and its missing parents, 0755.  0, or -1 with errno. */
int push_token_mkdir(const char *dir);

#endif
