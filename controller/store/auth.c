/*
 * Token generation, parsing and hashing with GnuTLS (random bytes and
 * SHA-256).
 */
#include "auth.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"

#define SECRET_BYTES 32
#define SECRET_LEN 43 /* base64url of 32 bytes, unpadded */

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void
encode_b64url(const uint8_t *in, size_t n, char *out)
{
	size_t i, j = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[j++] = b64url[v >> 18 & 63];
		out[j++] = b64url[v >> 12 & 63];
		out[j++] = b64url[v >> 6 & 63];
		out[j++] = b64url[v & 63];
	}
	if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		out[j++] = b64url[v >> 18 & 63];
		out[j++] = b64url[v >> 12 & 63];
		out[j++] = b64url[v >> 6 & 63];
	} else if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;
		out[j++] = b64url[v >> 18 & 63];
		out[j++] = b64url[v >> 12 & 63];
	}
	out[j] = '\0';
}

int
auth_sha256(const void *data, size_t len, uint8_t hash[AUTH_HASH_LEN])
{
	return gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, hash) != 0 ? -1 : 0;
}

static int
hash_secret(const char *secret, size_t len, uint8_t hash[AUTH_HASH_LEN])
{
	if (auth_sha256(secret, len, hash) != 0) {
		log_warnx("SHA-256 failed");
		return -1;
	}
	return 0;
}

int
auth_token_new(char id[API_TOKEN_ID_LEN + 1], char token[API_TOKEN_MAX + 1],
    uint8_t hash[AUTH_HASH_LEN])
{
	uint8_t idb[API_TOKEN_ID_LEN / 2], sec[SECRET_BYTES];
	char secret[SECRET_LEN + 1];

	if (gnutls_rnd(GNUTLS_RND_RANDOM, idb, sizeof(idb)) != 0 ||
	    gnutls_rnd(GNUTLS_RND_KEY, sec, sizeof(sec)) != 0) {
		log_warnx("no random bytes");
		return -1;
	}
	for (size_t i = 0; i < sizeof(idb); i++) {
		id[2 * i] = "0123456789abcdef"[idb[i] >> 4];
		id[2 * i + 1] = "0123456789abcdef"[idb[i] & 15];
	}
	id[API_TOKEN_ID_LEN] = '\0';
	encode_b64url(sec, sizeof(sec), secret);
	snprintf(token, API_TOKEN_MAX + 1, "tbm_%s_%s", id, secret);
	gnutls_memset(sec, 0, sizeof(sec));
	int rc = hash_secret(secret, SECRET_LEN, hash);
	gnutls_memset(secret, 0, sizeof(secret));
	return rc;
}

/* Character classes without a search of the alphabet (every request parses a token). */
static int
is_hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int
is_b64url(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '-' || c == '_';
}

int
auth_token_parse(const char *token, char id[API_TOKEN_ID_LEN + 1], uint8_t hash[AUTH_HASH_LEN])
{
	if (token == NULL || strlen(token) != 4 + API_TOKEN_ID_LEN + 1 + SECRET_LEN ||
	    strncmp(token, "tbm_", 4) != 0 || token[4 + API_TOKEN_ID_LEN] != '_')
		return -1;
	for (int i = 0; i < API_TOKEN_ID_LEN; i++)
		if (!is_hex_lower(token[4 + i]))
			return -1;
	const char *secret = token + 4 + API_TOKEN_ID_LEN + 1;
	for (int i = 0; i < SECRET_LEN; i++)
		if (!is_b64url(secret[i]))
			return -1;
	memcpy(id, token + 4, API_TOKEN_ID_LEN);
	id[API_TOKEN_ID_LEN] = '\0';
	return hash_secret(secret, SECRET_LEN, hash);
}

int
auth_hash_equal(const uint8_t a[AUTH_HASH_LEN], const uint8_t b[AUTH_HASH_LEN])
{
	volatile uint8_t diff = 0;

	for (int i = 0; i < AUTH_HASH_LEN; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

const char *
auth_bearer(const char *header)
{
	if (header == NULL || strncasecmp(header, "Bearer ", 7) != 0)
		return NULL;
	header += 7;
	while (*header == ' ')
		header++;
	return *header ? header : NULL;
}
