/*
 * Static files of the dashboard under web_root: GET only, "/" is
 * index.html, paths limited to [A-Za-z0-9._/-] without "..", a content
 * type by extension, and cache headers (index.html revalidates; the rest is
 * kept five minutes).
 */
#include <fcntl.h>
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	if (url[0] != '/' || strstr(url, "..") != NULL || strstr(url, "//") != NULL)
		return 0;
	for (const char *p = url; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("._/-", *p)))
			return 0;
	return 1;
}

int
api_static(struct MHD_Connection *conn, const char *root, const char *url, int *handled)
{
	char path[1024];
	struct stat st;
	int fd;

	*handled = 0;
	if (root == NULL || !safe_path(url) || strncmp(url, "/v1/", 4) == 0)
		return MHD_NO;
	const char *rel = strcmp(url, "/") == 0 ? "/index.html" : url;
	if ((size_t)snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path))
		return MHD_NO;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return MHD_NO;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return MHD_NO;
	}
	struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (r == NULL) {
		close(fd);
		return MHD_NO;
	}
	*handled = 1;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(rel));
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
	    strcmp(rel, "/index.html") == 0 ? "no-cache" : "public, max-age=300");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_RESULT ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}
