/* The pusher's tokens on disk (see push_token.h). */
#include "push_token.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "log.h"
#include "tokenfile.h"

int
push_token_valid(const char *tok)
{
	size_t n = strlen(tok);

	if (n == 0 || n > API_TOKEN_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)tok[i]) && tok[i] != '_' && tok[i] != '-')
			return 0;
	return 1;
}

int
push_token_read(const char *path, char *tok, size_t toklen, char *err, size_t errlen)
{
	return tokenfile_read(path, tok, toklen < API_TOKEN_MAX + 1 ? toklen : API_TOKEN_MAX + 1,
	    err, errlen);
}

static int
token_path(const char *dir, char *path, size_t len, char *err, size_t errlen)
{
	if ((size_t)snprintf(path, len, "%s/%s", dir, PUSH_TOKEN_FILE) < len)
		return 0;
	snprintf(err, errlen, "%s: path too long", dir);
	return -1;
}

int
push_token_load(const char *dir, char *tok, size_t toklen, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (token_path(dir, path, sizeof(path), err, errlen) == -1)
		return -1;
	return push_token_read(path, tok, toklen, err, errlen);
}

int
push_token_mkdir(const char *dir)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (size_t n = strlen(buf); n > 1 && buf[n - 1] == '/'; n--)
		buf[n - 1] = '\0';
	for (char *s = buf + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(buf, 0700) == -1 && errno != EEXIST ? -1 : 0;
}

int
push_token_save(const char *dir, const char *tok, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int rc;

	if (!push_token_valid(tok)) {
		snprintf(err, errlen, "not a well-formed token");
		return -1;
	}
	if (token_path(dir, path, sizeof(path), err, errlen) == -1)
		return -1;
	if (push_token_mkdir(dir) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if ((rc = tokenfile_write(path, tok, TOKENFILE_REPLACE, err, errlen)) == TOKENFILE_UNSYNCED)
		log_warnx("%s", err);
	return rc == -1 ? -1 : 0;
}

int
push_token_delete(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int rc;

	if (token_path(dir, path, sizeof(path), err, errlen) == -1)
		return -1;
	if ((rc = tokenfile_remove(path, err, errlen)) == TOKENFILE_UNSYNCED)
		log_warnx("%s", err);
	return rc == -1 ? -1 : 0;
}
