/*
 * Tokens: "tbm_<id>_<secret>", <id> 12 hex digits (public: it names the
 * token in lists, events and revocation), <secret> 43 base64url characters
 * of 32 random bytes.  Only SHA-256(secret) is stored; checks compare
 * hashes in constant time.  This is the only module that includes GnuTLS.
 */
#ifndef TBMESH_AUTH_H
#define TBMESH_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define AUTH_HASH_LEN 32

/* A new random token: its id, the whole token text, and its secret's hash. */
int auth_token_new(char id[API_TOKEN_ID_LEN + 1], char token[API_TOKEN_MAX + 1],
    uint8_t hash[AUTH_HASH_LEN]);

/*
 * Split a presented token into its id and the hash of its secret.
 * Returns -1 when it is not of the token's form.
 */
int auth_token_parse(const char *token, char id[API_TOKEN_ID_LEN + 1],
    uint8_t hash[AUTH_HASH_LEN]);

/* 1 when equal; time independent of where they differ. */
/* SHA-256 of data: 0, or -1 (the library failed). */
int auth_sha256(const void *data, size_t len, uint8_t hash[AUTH_HASH_LEN]);
int auth_hash_equal(const uint8_t a[AUTH_HASH_LEN], const uint8_t b[AUTH_HASH_LEN]);

/* The token of an "Authorization: Bearer <token>" header value, or NULL. */
const char *auth_bearer(const char *header);

#endif
