/*
 * Files compiled into tbcontrollerd (packaging/embed.sh writes them as C
 * arrays at build time): the dashboard, served at / when no --web-root is
 * given, and the model catalog, used when no --catalog is given.  So a
 * controller run from the build tree, installed anywhere or copied alone
 * has both.  Read-only, static storage: nothing to free.
 */
#ifndef TBMESH_EMBEDDED_H
#define TBMESH_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *path;		/* "/index.html", "/js/app.js", "/catalog.json" */
	const unsigned char *data;	/* len bytes, then a NUL */
	size_t len;
	const char *etag;		/* "\"CRC-LEN\"", quotes included */
};

extern const struct embedded_file embedded_web[];
extern const int embedded_web_n;
extern const struct embedded_file embedded_catalog[];
extern const int embedded_catalog_n;

/* The entry of files[0..n) at path, or NULL. */
const struct embedded_file *embedded_find(const struct embedded_file *files, int n,
    const char *path);

#endif
