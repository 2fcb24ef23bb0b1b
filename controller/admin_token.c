/* The first admin token (see admin_token.h). */
#include "admin_token.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "ctrl.h"
#include "log.h"
#include "tokenfile.h"

static int
register_admin(struct ctrl *c, const char *id, const uint8_t *hash, const char *label)
{
	struct api_token t = { .role = ROLE_ADMIN, .created_at = ctrl_now(),
		.expires_at = NAN, .used_at = NAN };

	report_strset(t.id, sizeof(t.id), id);
	report_strset(t.label, sizeof(t.label), label);
	if (inv_token_add(c->store.inv, &t, hash) != 0)
		return -1;
	ctrl_event(c, t.created_at, "controller", "", "admin token created", label);
	return 0;
}

/* Admin tokens that work now: neither revoked nor expired; -1 on error. */
static int
valid_admins(struct ctrl *c, double now)
{
	struct api_token *t;
	int n, valid = 0;

	if (inv_token_list(c->store.inv, &t, &n) == -1)
		return -1;
	for (int i = 0; i < n; i++)
		valid += t[i].role == ROLE_ADMIN && !t[i].revoked &&
		    (isnan(t[i].expires_at) || now < t[i].expires_at);
	free(t);
	return valid;
}

/*
 * The admin token file names a token the inventory knows but that no longer
 * works (revoked or expired): fine when other admin tokens work (a
 * warning), fatal when none does.  0, or -1.
 */
static int
check_file_token(struct ctrl *c, const char *path, const char *id, int valid, double now)
{
	struct api_token t;
	uint8_t hash[AUTH_HASH_LEN];
	const char *why;

	if (inv_token_get(c->store.inv, id, &t, hash) != 0)
		return 0;
	if (t.revoked)
		why = "revoked";
	else if (!isnan(t.expires_at) && now >= t.expires_at)
		why = "expired";
	else
		return 0;
	if (valid > 0) {
		log_warnx("%s holds admin token %s, which is %s; %d other admin token%s "
		    "work%s", path, id, why, valid, valid == 1 ? "" : "s", valid == 1 ? "s" : "");
		return 0;
	}
	log_errx("%s holds admin token %s, which is %s, and no other admin token works: "
	    "remove %s to have a new one made at the next start", path, id, why, path);
	return -1;
}

/*
 * The token the admin token file holds, its id and hash: 1; 0 when the
 * file holds none; -1 when there is no file to read.
 */
static int
file_token(const char *path, char id[API_TOKEN_ID_LEN + 1], uint8_t hash[AUTH_HASH_LEN])
{
	char token[API_TOKEN_MAX + 1], err[512];

	if (tokenfile_read(path, token, sizeof(token), err, sizeof(err)) == -1)
		return errno == EINVAL ? 0 : -1;
	int ok = auth_token_parse(token, id, hash) == 0;
	memset(token, 0, sizeof(token));
	return ok;
}

/* A new admin token, written to path (where there must be no file) and registered. */
static int
make_admin(struct ctrl *c, const char *path)
{
	char id[API_TOKEN_ID_LEN + 1], token[API_TOKEN_MAX + 1], err[PATH_MAX + 128];
	uint8_t hash[AUTH_HASH_LEN];

	if (auth_token_new(id, token, hash) == -1)
		return -1;
	int rc = tokenfile_write(path, token, TOKENFILE_CREATE, err, sizeof(err));
	memset(token, 0, sizeof(token));
	if (rc == TOKENFILE_UNSYNCED) {
		log_errx("%s: cannot sync its directory: %s", path, strerror(errno));
		unlink(path);
	} else if (rc == -1) {
		log_errx("%s", err);
	}
	if (rc != 0) {
		log_errx("%s: could not write the admin token", path);
		return -1;
	}
	log_info("first start: admin token written to %s", path);
	return register_admin(c, id, hash, "made at first start");
}

int
admin_token_ensure(struct ctrl *c, const char *path)
{
	char id[API_TOKEN_ID_LEN + 1];
	uint8_t hash[AUTH_HASH_LEN];
	double now = ctrl_now();
	int admins = valid_admins(c, now);

	if (admins < 0) {
		log_errx("cannot read the admin tokens of the inventory");
		return -1;
	}
	int held = file_token(path, id, hash);
	if (held == 1 && check_file_token(c, path, id, admins, now) == -1)
		return -1;
	if (admins > 0)
		return 0;
	if (held == 0) {
		log_errx("%s holds no valid token; remove it to have a new one made", path);
		return -1;
	}
	/* a fresh inventory beside an old file: the file's token is the admin's */
	if (held == 1)
		return register_admin(c, id, hash, "from the existing admin token file");
	return make_admin(c, path);
}
