/*
 * Token files: one secret and a newline in a file of mode 0600, shared by
 * tbcontrollerd (its first admin token) and tbagentd (its node token, its
 * bootstrap token).  A file is written whole or not at all: a temp file
 * beside it is written and synced, then renamed or linked into place, and
 * the directory is synced.  Errors name the file, never its content.
 */
#ifndef TBMESH_TOKENFILE_H
#define TBMESH_TOKENFILE_H

#include <stddef.h>

/* How tokenfile_write() puts the file in place. */
enum tokenfile_how {
	TOKENFILE_REPLACE,       /* over what is there, atomically */
	TOKENFILE_CREATE         /* only when there is nothing there: else EEXIST */
};

/* tokenfile_write() and tokenfile_remove(): done, but the directory is not synced. */
#define TOKENFILE_UNSYNCED 1

/*
 * Write secret and "\n" to path, mode 0600 (the temp file is
 * "<path>.tmp.<pid>").  Returns 0 when it is in place and durable;
 * TOKENFILE_UNSYNCED when it is in place but its directory could not be
 * synced (a crash may lose it); -1 when it is not written (path is as it
 * was).  Both failures set errno and say why in err.
 */
int tokenfile_write(const char *path, const char *secret, enum tokenfile_how how, char *err,
    size_t errlen);

/*
 * Read the token in path into tok (size toklen): the file's first 511
 * bytes, white space around them trimmed, must be 1 to toklen - 1
 * characters of [A-Za-z0-9_-].  Returns 0; or -1 with errno ENOENT when
 * there is no file, EINVAL when it holds no token, another when it cannot
 * be opened, and a reason in err.  The copy read is wiped.
 */
int tokenfile_read(const char *path, char *tok, size_t toklen, char *err, size_t errlen);

/*
 * Remove path and sync its directory.  0 when it is gone (or was never
 * there), TOKENFILE_UNSYNCED when gone but the directory is not synced,
 * -1 when it is still there; errno and err as tokenfile_write().
 */
int tokenfile_remove(const char *path, char *err, size_t errlen);

#endif
