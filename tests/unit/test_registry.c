/*
 * auth and registry: token form, hashing, constant-time equality, bearer
 * headers; token checks (revoked, expired, used bootstrap, wrong secret);
 * the node table through growth and deletion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "registry.h"

static void
test_tokens(void **state)
{
	(void)state;
	char id[API_TOKEN_ID_LEN + 1], tok[API_TOKEN_MAX + 1], id2[API_TOKEN_ID_LEN + 1];
	uint8_t h[AUTH_HASH_LEN], h2[AUTH_HASH_LEN];

	assert_int_equal(auth_token_new(id, tok, h), 0);
	assert_int_equal(strlen(tok), 4 + 12 + 1 + 43);
	assert_int_equal(strncmp(tok, "tbm_", 4), 0);
	assert_int_equal(auth_token_parse(tok, id2, h2), 0);
	assert_string_equal(id, id2);
	assert_true(auth_hash_equal(h, h2));
	tok[30] = tok[30] == 'A' ? 'B' : 'A';
	assert_int_equal(auth_token_parse(tok, id2, h2), 0);
	assert_false(auth_hash_equal(h, h2));
	/* a character outside the id's lowercase hex or the secret's base64url */
	char bad[API_TOKEN_MAX + 1];
	const struct { int at; char c; } subs[] = { { 4, 'A' }, { 15, 'g' }, { 10, ':' },
		{ 17, '+' }, { 40, '/' }, { 59, '=' }, { 30, ' ' } };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		memcpy(bad, tok, sizeof(bad));
		bad[subs[i].at] = subs[i].c;
		assert_int_equal(auth_token_parse(bad, id2, h2), -1);
	}
	memcpy(bad, tok, sizeof(bad));
	bad[17] = '-';
	bad[59] = '_';
	assert_int_equal(auth_token_parse(bad, id2, h2), 0);
	assert_int_equal(auth_token_parse("tbm_short", id2, h2), -1);
	assert_int_equal(auth_token_parse("", id2, h2), -1);
	assert_int_equal(auth_token_parse(NULL, id2, h2), -1);
	assert_string_equal(auth_bearer("Bearer abc"), "abc");
	assert_string_equal(auth_bearer("bearer   abc"), "abc");
	assert_null(auth_bearer("Basic abc"));
	assert_null(auth_bearer("Bearer "));
	assert_null(auth_bearer(NULL));
}

static void
put(struct registry *reg, enum token_role role, double expires, double used, char *tok)
{
	struct api_token t = { .role = role, .expires_at = expires, .used_at = used };
	uint8_t h[AUTH_HASH_LEN];

	assert_int_equal(auth_token_new(t.id, tok, h), 0);
	registry_put_token(reg, &t, h);
}

static void
test_check(void **state)
{
	(void)state;
	struct registry *reg = registry_new();
	char admin[API_TOKEN_MAX + 1], old[API_TOKEN_MAX + 1], used[API_TOKEN_MAX + 1];
	char boot[API_TOKEN_MAX + 1], forged[API_TOKEN_MAX + 1];
	struct api_token t;

	put(reg, ROLE_ADMIN, NAN, NAN, admin);
	put(reg, ROLE_VIEWER, 100, NAN, old);
	put(reg, ROLE_BOOTSTRAP, 1e12, 50, used);
	put(reg, ROLE_BOOTSTRAP, 1e12, NAN, boot);
	assert_int_equal(registry_check_token(reg, admin, 10, &t), 0);
	assert_int_equal(t.role, ROLE_ADMIN);
	assert_int_equal(registry_check_token(reg, old, 99, &t), 0);
	assert_int_equal(registry_check_token(reg, old, 101, &t), -1);
	assert_int_equal(registry_check_token(reg, used, 10, &t), -1);
	assert_int_equal(registry_check_token(reg, boot, 10, &t), 0);
	strcpy(forged, admin);
	forged[40] = forged[40] == 'x' ? 'y' : 'x';
	assert_int_equal(registry_check_token(reg, forged, 10, &t), -1);
	assert_int_equal(auth_token_parse(admin, t.id, (uint8_t[AUTH_HASH_LEN]){ 0 }), 0);
	registry_revoke_token(reg, t.id);
	assert_int_equal(registry_check_token(reg, admin, 10, &t), -1);
	registry_free(reg);
}

static int
is_state(const struct lc_node *lc, void *arg)
{
	return lc->state == *(const enum node_state *)arg;
}

static void
test_nodes(void **state)
{
	(void)state;
	struct registry *reg = registry_new();
	struct reg_node n, got, *all;
	int counts[NODE_STATE_COUNT], cnt;

	for (int i = 0; i < 1000; i++) {
		memset(&n, 0, sizeof(n));
		n.id = i;
		snprintf(n.name, sizeof(n.name), "node%04d", i);
		n.lc.state = i % 2 ? NODE_READY : NODE_CORDONED;
		registry_put_node(reg, &n);
	}
	for (int i = 0; i < 1000; i += 3) {
		snprintf(n.name, sizeof(n.name), "node%04d", i);
		registry_remove_node(reg, n.name);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(n.name, sizeof(n.name), "node%04d", i);
		int rc = registry_get_node(reg, n.name, &got);
		if (i % 3 == 0) {
			assert_int_equal(rc, -1);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(got.id, i);
		}
	}
	assert_int_equal(registry_nodes(reg, &all, &cnt), 0);
	assert_int_equal(cnt, 1000 - 334);
	free(all);
	registry_count_states(reg, counts);
	assert_int_equal(counts[NODE_READY] + counts[NODE_CORDONED], 666);
	/* only the selected names come back: the ready ones left, odd i */
	api_name *names;
	enum node_state ready = NODE_READY;
	assert_int_equal(registry_select(reg, is_state, &ready, &names, &cnt), 0);
	assert_int_equal(cnt, counts[NODE_READY]);
	for (int i = 0; i < cnt; i++) {
		int k = atoi(names[i] + 4);
		assert_true(k % 2 == 1 && k % 3 != 0);
	}
	free(names);
	struct lc_node lc = { .state = NODE_DOWN };
	registry_set_lc(reg, "node0001", &lc);
	assert_int_equal(registry_get_node(reg, "node0001", &got), 0);
	assert_int_equal(got.lc.state, NODE_DOWN);
	registry_free(reg);
}

/* node_token: a node token of node mac1 (pending or not) into tok; its id into id. */
static void
node_token(struct registry *reg, int pending, char *tok, char *id)
{
	struct api_token t = { .role = ROLE_NODE, .node = "mac1", .expires_at = NAN,
		.used_at = NAN, .pending = pending };
	uint8_t h[AUTH_HASH_LEN];

	assert_int_equal(auth_token_new(t.id, tok, h), 0);
	strcpy(id, t.id);
	registry_put_token(reg, &t, h);
}

/*
 * A pending re-enrolment's token survives the revocation of the node's
 * tokens; accepting it (supersede) revokes the others and clears pending.
 */
static void
test_supersede(void **state)
{
	(void)state;
	struct registry *reg = registry_new();
	char old[API_TOKEN_MAX + 1], req[API_TOKEN_MAX + 1], other[API_TOKEN_MAX + 1];
	char old_id[API_TOKEN_ID_LEN + 1], req_id[API_TOKEN_ID_LEN + 1];
	char other_id[API_TOKEN_ID_LEN + 1];
	struct api_token t;

	node_token(reg, 0, old, old_id);
	node_token(reg, 1, req, req_id);
	node_token(reg, 1, other, other_id);
	assert_int_equal(registry_check_token(reg, req, 10, &t), 0);
	assert_true(t.pending);
	registry_revoke_node_tokens(reg, "mac1");
	assert_int_equal(registry_check_token(reg, old, 10, &t), -1);
	assert_int_equal(registry_check_token(reg, req, 10, &t), 0);
	registry_supersede_node_tokens(reg, "mac1", req_id);
	assert_int_equal(registry_check_token(reg, req, 10, &t), 0);
	assert_false(t.pending);
	assert_int_equal(registry_check_token(reg, other, 10, &t), -1);
	registry_supersede_node_tokens(reg, "mac1", "");
	assert_int_equal(registry_check_token(reg, req, 10, &t), -1);
	registry_free(reg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_supersede),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
