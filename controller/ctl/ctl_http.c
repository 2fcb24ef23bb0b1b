/*
 * tbctl's HTTP client: one libcurl easy handle, one request per run.
 * The bearer token lives only in the header list and is wiped on free;
 * it never reaches an error message.
 */
#include "ctl_http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "version.h"

#define ERRMSG_MAX 512

struct ctl_client {
	const struct ctl_global *g;
	CURL *curl;
	char *auth;                 /* "Authorization: Bearer <token>", or NULL */
};

struct sink {
	struct ctl_reply *r;
	size_t cap;
	int too_big;
};

static void
wipe(char *s)
{
	volatile char *p = s;

	while (p != NULL && *p != '\0')
		*p++ = '\0';
}

struct ctl_client *
ctl_client_new(const struct ctl_global *g, const char *token)
{
	struct ctl_client *cl = calloc(1, sizeof(*cl));
	size_t n;

	if (cl == NULL)
		return NULL;
	cl->g = g;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(cl);
		return NULL;
	}
	if ((cl->curl = curl_easy_init()) == NULL)
		goto fail;
	if (token != NULL) {
		n = strlen("Authorization: Bearer ") + strlen(token) + 1;
		if ((cl->auth = malloc(n)) == NULL)
			goto fail;
		snprintf(cl->auth, n, "Authorization: Bearer %s", token);
	}
	return cl;
fail:
	ctl_client_free(cl);
	return NULL;
}

void
ctl_client_free(struct ctl_client *cl)
{
	if (cl == NULL)
		return;
	wipe(cl->auth);
	free(cl->auth);
	if (cl->curl != NULL)
		curl_easy_cleanup(cl->curl);
	curl_global_cleanup();
	free(cl);
}

int
ctl_path(struct ctl_client *cl, char *buf, size_t size, const char *prefix, const char *part,
    const char *suffix)
{
	char *esc = curl_easy_escape(cl->curl, part, 0);
	int n;

	if (esc == NULL)
		return -1;
	n = snprintf(buf, size, "%s%s%s", prefix, esc, suffix);
	curl_free(esc);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static size_t
on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;
	char *b;

	if (n > CTL_REPLY_MAX - s->r->len) {
		s->too_big = 1;
		return 0;
	}
	if (s->r->len + n + 1 > s->cap) {
		size_t cap = s->cap == 0 ? 8192 : s->cap;
		while (cap < s->r->len + n + 1)
			cap *= 2;
		if ((b = realloc(s->r->body, cap)) == NULL)
			return 0;
		s->r->body = b;
		s->cap = cap;
	}
	memcpy(s->r->body + s->r->len, data, n);
	s->r->len += n;
	s->r->body[s->r->len] = '\0';
	return n;
}

static struct curl_slist *
headers_new(const struct ctl_client *cl, const char *body)
{
	struct curl_slist *h = NULL, *t;
	const char *lines[] = {
		"Accept: application/json",
		body != NULL ? "Content-Type: application/json" : NULL,
		cl->auth,
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (lines[i] == NULL)
			continue;
		if ((t = curl_slist_append(h, lines[i])) == NULL) {
			curl_slist_free_all(h);
			return NULL;
		}
		h = t;
	}
	return h;
}

/* The base URL without its trailing slashes, then path: malloc'd. */
static char *
full_url(const char *base, const char *path)
{
	size_t n = strlen(base);
	char *u;

	while (n > 0 && base[n - 1] == '/')
		n--;
	if ((u = malloc(n + strlen(path) + 1)) == NULL)
		return NULL;
	memcpy(u, base, n);
	strcpy(u + n, path);
	return u;
}

static void
set_options(struct ctl_client *cl, const char *method, const char *body, struct sink *s,
    char *errbuf)
{
	CURL *c = cl->curl;

	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, CTL_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, CTL_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (cl->g->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, cl->g->ca_file);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "tbctl/" TBMESH_VERSION);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)CTL_REPLY_MAX);
	/* one client may send several requests (node add follows its run): a GET
	 * after a POST must not be sent as a POST again */
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, (char *)NULL);
	curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	if (strcmp(method, "POST") == 0 || (body != NULL && strcmp(method, "GET") != 0)) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body != NULL ? body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(body != NULL ? strlen(body) : 0));
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);   /* PUT and DELETE */
}

/* Replace what would break the one-line message: control characters. */
static void
one_line(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static int
transport_error(const struct ctl_client *cl, CURLcode rc, const struct sink *s, char *errbuf)
{
	if (s->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return ctl_fail("the reply of the controller at %s is larger than %zu MiB",
		    cl->g->url, CTL_REPLY_MAX >> 20);
	if (errbuf[0] == '\0')
		snprintf(errbuf, CURL_ERROR_SIZE, "%s", curl_easy_strerror(rc));
	one_line(errbuf);
	if (rc == CURLE_SSL_CACERT_BADFILE && cl->g->ca_file != NULL)
		return ctl_fail("cannot use the CA file %s: %s", cl->g->ca_file, errbuf);
	return ctl_fail("cannot reach the controller at %s: %s", cl->g->url, errbuf);
}

static int
status_error(const struct ctl_client *cl, const struct ctl_reply *r, const char *what)
{
	char msg[ERRMSG_MAX];
	const char *hint = "";

	if (r->len == 0 || api_json_decode_error(r->body, r->len, msg, sizeof(msg)) == -1 ||
	    msg[0] == '\0')
		snprintf(msg, sizeof(msg), "request failed");
	one_line(msg);
	if (r->status == 401 && cl->auth == NULL)
		hint = "; no token was sent, see --token-file";
	/* No "node mac9: node mac9: ..." when the message names it already. */
	if (what != NULL && strncmp(msg, what, strlen(what)) == 0 && msg[strlen(what)] == ':')
		what = NULL;
	return ctl_fail("%s%s%s (%ld%s)", what != NULL ? what : "", what != NULL ? ": " : "",
	    msg, r->status, hint);
}

int
ctl_call(struct ctl_client *cl, const char *method, const char *path, const char *body,
    const char *what, struct ctl_reply *r)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct sink s = { r, 0, 0 };
	struct curl_slist *h;
	CURLcode rc;
	char *url;

	memset(r, 0, sizeof(*r));
	if ((url = full_url(cl->g->url, path)) == NULL || (h = headers_new(cl, body)) == NULL) {
		free(url);
		return ctl_fail("out of memory");
	}
	curl_easy_setopt(cl->curl, CURLOPT_URL, url);
	curl_easy_setopt(cl->curl, CURLOPT_HTTPHEADER, h);
	set_options(cl, method, body, &s, errbuf);
	rc = curl_easy_perform(cl->curl);
	curl_easy_setopt(cl->curl, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(h);
	free(url);
	if (r->body == NULL && (r->body = calloc(1, 1)) == NULL)
		return ctl_fail("out of memory");
	if (rc != CURLE_OK)
		return transport_error(cl, rc, &s, errbuf);
	curl_easy_getinfo(cl->curl, CURLINFO_RESPONSE_CODE, &r->status);
	if (r->status < 200 || r->status > 299)
		return status_error(cl, r, what);
	return CTL_EXIT_OK;
}

/* Wiped: the reply of token create holds a secret. */
void
ctl_reply_free(struct ctl_reply *r)
{
	if (r->body != NULL) {
		volatile char *p = r->body;
		for (size_t i = 0; i < r->len; i++)
			p[i] = '\0';
	}
	free(r->body);
	memset(r, 0, sizeof(*r));
}
