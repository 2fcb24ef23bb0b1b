/*
 * The passwords OS updates give to `softwareupdate --user U --stdinpass`.
 * They are kept outside the inventory: one file per scope under
 * STATE_DIR/credentials/ (directory 0700, files 0600, owned by the
 * controller's user), or printed by a configured command.  The inventory
 * keeps only which user each scope has (inv_cred_*).  A password is never
 * logged, never put in an event, an argv, an API answer or the dashboard.
 *
 * Scopes: "node:NAME" and "cluster:NAME"; a node's own credentials win over
 * its cluster's.
 */
#ifndef TBMESH_CREDENTIALS_H
#define TBMESH_CREDENTIALS_H

#include <stddef.h>

#define CRED_PASSWORD_MAX 1024

/* Store password for scope under state_dir (replacing it atomically); 0 or -1 with err. */
int cred_store(const char *state_dir, const char *scope, const char *password, char *err,
    size_t errlen);

/*
 * The password of scope into pw (size bytes): from the command when
 * command is not NULL (run by /bin/sh with the scope's kind, name and user
 * as $1 $2 $3, at most 10 s; its first line), else from the file.  0, or -1
 * with err (which never holds the password).
 */
int cred_load(const char *state_dir, const char *command, const char *scope, const char *user,
    char *pw, size_t size, char *err, size_t errlen);

/* Overwrite a password buffer (not optimised away). */
void cred_wipe(char *pw, size_t size);

#endif
