/*
 * The dashboard's static files: those compiled into the controller
 * (embedded.h) when no web root is configured, else the regular files
 * under web_root (--web-root, to serve a dashboard of one's own), reached
 * without a symbolic link (open_beneath).  GET and HEAD only, "/" is
 * index.html, paths limited to [A-Za-z0-9._/-] without "..", "//" or a
 * leading "." in a segment (so no way out of web_root and no hidden file), a
 * content type by extension, 404 (JSON, as the API's) for anything else.
 *
 * Caching: the files are not fingerprinted (no build step), so every answer
 * says "Cache-Control: no-cache" (a browser keeps the file and asks again
 * each time) with an ETag (inode, size and modification time) and a
 * Last-Modified; a request whose If-None-Match matches, or whose
 * If-Modified-Since is not older than the file, gets 304 without a body.
 * An upgrade (make install) is therefore seen at the next load, and an
 * unchanged page costs one small request per file.  A compiled-in file's
 * ETag is its CRC and length, computed when it was compiled in; it has no
 * Last-Modified.
 */
#include <fcntl.h>
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "embedded.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

int api_static(struct MHD_Connection *conn, const char *root, const char *url, int *handled);

static const char *
content_type(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".json", "application/json" },
		{ ".ico", "image/x-icon" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return "application/octet-stream";
}

static int
safe_path(const char *url)
{
	if (url[0] != '/' || strstr(url, "..") != NULL || strstr(url, "//") != NULL ||
	    strstr(url, "/.") != NULL)
		return 0;
	for (const char *p = url; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("._/-", *p)))
			return 0;
	return 1;
}

/* The HTTP date of t (RFC 9110 IMF-fixdate) into buf (at least 32 bytes). */
static void
http_date(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

/* Parse an IMF-fixdate; -1 when it is not one. */
static time_t
parse_http_date(const char *s)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char mon[4];
	struct tm tm = { 0 };

	if (s == NULL || sscanf(s, "%*3s, %d %3s %d %d:%d:%d GMT", &tm.tm_mday, mon, &tm.tm_year,
	    &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	mon[3] = '\0';
	const char *m = strstr(months, mon);
	if (m == NULL || (m - months) % 3 != 0)
		return -1;
	tm.tm_mon = (int)((m - months) / 3);
	tm.tm_year -= 1900;
	return timegm(&tm);
}

/* Does the request already hold this version of the file? */
static int
not_modified(struct MHD_Connection *conn, const char *etag, time_t mtime)
{
	const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_IF_NONE_MATCH);
	const char *ims = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_IF_MODIFIED_SINCE);

	if (inm != NULL)
		return strstr(inm, etag) != NULL || strcmp(inm, "*") == 0;
	time_t since = parse_http_date(ims);
	return since != -1 && mtime <= since;
}

static MHD_RESULT
queue(struct MHD_Connection *conn, struct MHD_Response *r, unsigned int status,
    const char *ctype, const char *etag, const char *lastmod)
{
	if (ctype != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
	if (lastmod != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, lastmod);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* the dashboard is never framed by another page (clickjacking) */
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Content-Security-Policy", "frame-ancestors 'none'");
	MHD_RESULT ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Serve rel from the files compiled in, as api_static does from a root. */
static int
static_embedded(struct MHD_Connection *conn, const char *rel, int *handled)
{
	const struct embedded_file *f = embedded_find(embedded_web, embedded_web_n, rel);
	const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_IF_NONE_MATCH);
	struct MHD_Response *r;
	unsigned int status = MHD_HTTP_OK;

	if (f == NULL)
		return MHD_NO;
	if (inm != NULL && (strstr(inm, f->etag) != NULL || strcmp(inm, "*") == 0)) {
		status = MHD_HTTP_NOT_MODIFIED;
		r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
	} else
		r = MHD_create_response_from_buffer(f->len, (void *)f->data,
		    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	*handled = 1;
	return queue(conn, r, status, status == MHD_HTTP_OK ? content_type(rel) : NULL, f->etag,
	    NULL);
}

/*
 * Open root/rel for reading, one component at a time from root: none may be
 * a symbolic link (a link could lead out of root, to the admin token file),
 * and nothing blocks (a FIFO opened without O_NONBLOCK would hold the one
 * HTTP thread, and every route with it).  The caller checks it is a regular
 * file.  The fd, or -1.
 */
static int
open_beneath(const char *root, const char *rel)
{
	char comp[256];
	const char *p = rel;
	int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	while (dir != -1) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0 || n >= sizeof(comp))
			break;
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		int last = *p == '\0';
		int fd = openat(dir, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
		    (last ? 0 : O_DIRECTORY));
		close(dir);
		if (last || fd == -1)
			return fd;
		dir = fd;
	}
	if (dir != -1)
		close(dir);
	return -1;
}

/*
 * Serve url from root when it names a regular file there, or from the files
 * compiled in when root is NULL: *handled = 1 and the result of queueing
 * the answer.  Otherwise *handled = 0 and the caller answers (404).
 */
int
api_static(struct MHD_Connection *conn, const char *root, const char *url, int *handled)
{
	char etag[80], lastmod[40];
	struct stat st;
	struct MHD_Response *r;
	int fd;

	*handled = 0;
	if (!safe_path(url) || strncmp(url, "/v1/", 4) == 0)
		return MHD_NO;
	const char *rel = strcmp(url, "/") == 0 ? "/index.html" : url;
	if (root == NULL)
		return static_embedded(conn, rel, handled);
	if ((fd = open_beneath(root, rel)) == -1)
		return MHD_NO;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return MHD_NO;
	}
	snprintf(etag, sizeof(etag), "\"%llx-%llx-%llx\"", (unsigned long long)st.st_ino,
	    (unsigned long long)st.st_size, (unsigned long long)st.st_mtime);
	http_date(st.st_mtime, lastmod, sizeof(lastmod));
	if (not_modified(conn, etag, st.st_mtime)) {
		close(fd);
		if ((r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT)) == NULL)
			return MHD_NO;
		*handled = 1;
		return queue(conn, r, MHD_HTTP_NOT_MODIFIED, NULL, etag, lastmod);
	}
	if ((r = MHD_create_response_from_fd((uint64_t)st.st_size, fd)) == NULL) {
		close(fd);
		return MHD_NO;
	}
	*handled = 1;
	return queue(conn, r, MHD_HTTP_OK, content_type(rel), etag, lastmod);
}
