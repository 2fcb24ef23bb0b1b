/*
 * The registry: two open-addressing hash tables (tokens by id, nodes by
 * name) that grow by doubling, behind one rwlock.
 */
#include "registry.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report_json.h"

struct tok {
	struct api_token t;
	uint8_t hash[AUTH_HASH_LEN];
};

struct table {
	void **slot;      /* struct tok * or struct reg_node * */
	uint64_t *hash;   /* each slot's key's hash: a probe compares it first */
	size_t cap, n;
	const char *(*key)(const void *);
};

struct registry {
	pthread_rwlock_t lock;
	struct table tokens, nodes;
};

static const char *tok_key(const void *p) { return ((const struct tok *)p)->t.id; }
static const char *node_key(const void *p) { return ((const struct reg_node *)p)->name; }

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

/* The slot holding key (hash h), or the empty slot that ends its probe run. */
static size_t
table_find(const struct table *t, const char *key, uint64_t h)
{
	size_t i = h & (t->cap - 1);

	while (t->slot[i] != NULL && (t->hash[i] != h || strcmp(t->key(t->slot[i]), key) != 0))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Put p (hash h) in the empty slot its probe run ends at. */
static void
table_place(struct table *t, void *p, uint64_t h)
{
	size_t i = h & (t->cap - 1);

	while (t->slot[i] != NULL)
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = p;
	t->hash[i] = h;
}

static int
table_grow(struct table *t)
{
	struct table nt = { .cap = t->cap ? t->cap * 2 : 64, .key = t->key };

	nt.slot = calloc(nt.cap, sizeof(void *));
	nt.hash = calloc(nt.cap, sizeof(uint64_t));
	if (nt.slot == NULL || nt.hash == NULL) {
		free(nt.slot);
		free(nt.hash);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i] != NULL) {
			table_place(&nt, t->slot[i], t->hash[i]);
			nt.n++;
		}
	free(t->slot);
	free(t->hash);
	*t = nt;
	return 0;
}

/* Insert or replace; takes ownership of item. */
static void
table_put(struct table *t, void *item)
{
	if ((t->n + 1) * 2 > t->cap && table_grow(t) == -1) {
		log_warnx("out of memory");
		free(item);
		return;
	}
	uint64_t h = hash_str(t->key(item));
	size_t i = table_find(t, t->key(item), h);
	if (t->slot[i] == NULL)
		t->n++;
	free(t->slot[i]);
	t->slot[i] = item;
	t->hash[i] = h;
}

static void *
table_get(const struct table *t, const char *key)
{
	return t->cap ? t->slot[table_find(t, key, hash_str(key))] : NULL;
}

/* Remove by key, re-inserting the rest of the probe run. */
static void
table_del(struct table *t, const char *key)
{
	if (t->cap == 0)
		return;
	size_t i = table_find(t, key, hash_str(key));
	if (t->slot[i] == NULL)
		return;
	free(t->slot[i]);
	t->slot[i] = NULL;
	t->n--;
	for (size_t j = (i + 1) & (t->cap - 1); t->slot[j] != NULL; j = (j + 1) & (t->cap - 1)) {
		void *p = t->slot[j];
		t->slot[j] = NULL;
		table_place(t, p, t->hash[j]);
	}
}

static void
table_clear(struct table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slot[i]);
	free(t->slot);
	free(t->hash);
	t->slot = NULL;
	t->hash = NULL;
	t->cap = t->n = 0;
}

struct registry *
registry_new(void)
{
	struct registry *reg = calloc(1, sizeof(*reg));

	if (reg == NULL)
		return NULL;
	pthread_rwlock_init(&reg->lock, NULL);
	reg->tokens.key = tok_key;
	reg->nodes.key = node_key;
	return reg;
}

void
registry_free(struct registry *reg)
{
	if (reg == NULL)
		return;
	table_clear(&reg->tokens);
	table_clear(&reg->nodes);
	pthread_rwlock_destroy(&reg->lock);
	free(reg);
}

void
registry_put_token(struct registry *reg, const struct api_token *t,
    const uint8_t hash[AUTH_HASH_LEN])
{
	struct tok *k = malloc(sizeof(*k));

	if (k == NULL)
		return;
	k->t = *t;
	memcpy(k->hash, hash, AUTH_HASH_LEN);
	pthread_rwlock_wrlock(&reg->lock);
	table_put(&reg->tokens, k);
	pthread_rwlock_unlock(&reg->lock);
}

void
registry_revoke_token(struct registry *reg, const char *id)
{
	pthread_rwlock_wrlock(&reg->lock);
	struct tok *k = table_get(&reg->tokens, id);
	if (k != NULL)
		k->t.revoked = 1;
	pthread_rwlock_unlock(&reg->lock);
}

void
registry_revoke_node_tokens(struct registry *reg, const char *node)
{
	pthread_rwlock_wrlock(&reg->lock);
	for (size_t i = 0; i < reg->tokens.cap; i++) {
		struct tok *k = reg->tokens.slot[i];
		if (k != NULL && k->t.role == ROLE_NODE && !k->t.pending &&
		    strcmp(k->t.node, node) == 0)
			k->t.revoked = 1;
	}
	pthread_rwlock_unlock(&reg->lock);
}

void
registry_supersede_node_tokens(struct registry *reg, const char *node, const char *keep_id)
{
	pthread_rwlock_wrlock(&reg->lock);
	for (size_t i = 0; i < reg->tokens.cap; i++) {
		struct tok *k = reg->tokens.slot[i];
		if (k == NULL || k->t.role != ROLE_NODE || strcmp(k->t.node, node) != 0)
			continue;
		if (strcmp(k->t.id, keep_id) == 0)
			k->t.pending = 0;
		else
			k->t.revoked = 1;
	}
	pthread_rwlock_unlock(&reg->lock);
}

int
registry_check_token(struct registry *reg, const char *token, double now, struct api_token *t)
{
	char id[API_TOKEN_ID_LEN + 1];
	uint8_t hash[AUTH_HASH_LEN];
	int rc = -1;

	if (auth_token_parse(token, id, hash) == -1)
		return -1;
	pthread_rwlock_rdlock(&reg->lock);
	struct tok *k = table_get(&reg->tokens, id);
	if (k != NULL && auth_hash_equal(k->hash, hash) && !k->t.revoked &&
	    (isnan(k->t.expires_at) || now < k->t.expires_at) &&
	    (k->t.role != ROLE_BOOTSTRAP || isnan(k->t.used_at))) {
		*t = k->t;
		rc = 0;
	}
	pthread_rwlock_unlock(&reg->lock);
	return rc;
}

void
registry_put_node(struct registry *reg, const struct reg_node *n)
{
	struct reg_node *c = malloc(sizeof(*c));

	if (c == NULL)
		return;
	*c = *n;
	pthread_rwlock_wrlock(&reg->lock);
	table_put(&reg->nodes, c);
	pthread_rwlock_unlock(&reg->lock);
}

void
registry_remove_node(struct registry *reg, const char *name)
{
	pthread_rwlock_wrlock(&reg->lock);
	table_del(&reg->nodes, name);
	pthread_rwlock_unlock(&reg->lock);
}

int
registry_get_node(struct registry *reg, const char *name, struct reg_node *out)
{
	pthread_rwlock_rdlock(&reg->lock);
	struct reg_node *n = table_get(&reg->nodes, name);
	if (n != NULL)
		*out = *n;
	pthread_rwlock_unlock(&reg->lock);
	return n != NULL ? 0 : -1;
}

void
registry_set_lc(struct registry *reg, const char *name, const struct lc_node *lc)
{
	pthread_rwlock_wrlock(&reg->lock);
	struct reg_node *n = table_get(&reg->nodes, name);
	if (n != NULL)
		n->lc = *lc;
	pthread_rwlock_unlock(&reg->lock);
}

int
registry_nodes(struct registry *reg, struct reg_node **out, int *n)
{
	int k = 0;

	pthread_rwlock_rdlock(&reg->lock);
	*out = malloc((reg->nodes.n + 1) * sizeof(**out));
	if (*out != NULL)
		for (size_t i = 0; i < reg->nodes.cap; i++)
			if (reg->nodes.slot[i] != NULL)
				(*out)[k++] = *(struct reg_node *)reg->nodes.slot[i];
	pthread_rwlock_unlock(&reg->lock);
	*n = k;
	return *out != NULL ? 0 : -1;
}

int
registry_select(struct registry *reg, int (*pred)(const struct lc_node *, void *), void *arg,
    api_name **out, int *n)
{
	api_name *v = NULL, *nv;
	int k = 0, cap = 0;

	*out = NULL;
	*n = 0;
	pthread_rwlock_rdlock(&reg->lock);
	for (size_t i = 0; i < reg->nodes.cap; i++) {
		const struct reg_node *rn = reg->nodes.slot[i];

		if (rn == NULL || !pred(&rn->lc, arg))
			continue;
		if (k == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = realloc(v, (size_t)cap * sizeof(*v))) == NULL) {
				pthread_rwlock_unlock(&reg->lock);
				free(v);
				return -1;
			}
			v = nv;
		}
		memcpy(v[k++], rn->name, sizeof(api_name));
	}
	pthread_rwlock_unlock(&reg->lock);
	*out = v;
	*n = k;
	return 0;
}

void
registry_count_states(struct registry *reg, int counts[NODE_STATE_COUNT])
{
	memset(counts, 0, NODE_STATE_COUNT * sizeof(int));
	pthread_rwlock_rdlock(&reg->lock);
	for (size_t i = 0; i < reg->nodes.cap; i++) {
		const struct reg_node *n = reg->nodes.slot[i];
		if (n != NULL && n->lc.state < NODE_STATE_COUNT)
			counts[n->lc.state]++;
	}
	pthread_rwlock_unlock(&reg->lock);
}

/*
 * What the inventory holds besides the keys: whether a node was accepted,
 * and whether its latest report was healthy and when it was collected
 * (decoded again from its JSON, so that a restart does not take an
 * unhealthy node for a healthy one, nor an old report for a newer one).
 */
struct load_ctx {
	struct registry *reg;
	struct report *r;
};

static void
load_state(void *arg, const char *name, int accepted, const char *json, size_t len)
{
	struct load_ctx *lc = arg;
	char why[128], err[160];
	double collected_at = NAN;
	int healthy = 0;

	if (json != NULL && report_decode(json, len, lc->r, err, sizeof(err)) == 0) {
		healthy = lc_report_healthy(lc->r, why, sizeof(why));
		collected_at = lc->r->collected_at;
	}
	pthread_rwlock_wrlock(&lc->reg->lock);
	struct reg_node *n = table_get(&lc->reg->nodes, name);
	if (n != NULL) {
		n->lc.accepted = accepted;
		n->lc.last_report_healthy = healthy;
		n->lc.last_collected_at = collected_at;
	}
	pthread_rwlock_unlock(&lc->reg->lock);
}

static int
load_states(struct registry *reg, struct inv *inv)
{
	struct load_ctx lc = { reg, report_new() };
	int rc = -1;

	if (lc.r != NULL)
		rc = inv_node_each_state(inv, load_state, &lc);
	free(lc.r);
	return rc;
}

int
registry_load(struct registry *reg, struct inv *inv)
{
	struct api_token *toks = NULL;
	struct inv_node_key *keys = NULL;
	int nt = 0, nk = 0;

	if (inv_token_list(inv, &toks, &nt) == -1 || inv_node_keys(inv, &keys, &nk) == -1)
		goto fail;
	for (int i = 0; i < nt; i++) {
		struct api_token t;
		uint8_t hash[AUTH_HASH_LEN];
		if (inv_token_get(inv, toks[i].id, &t, hash) == 0)
			registry_put_token(reg, &t, hash);
	}
	struct api_node *list = NULL;
	int nl = 0;
	if (inv_node_list(inv, &list, &nl) == -1)
		goto fail;
	for (int i = 0; i < nk; i++) {
		struct reg_node n = { .id = keys[i].id };
		for (int j = 0; j < nl; j++)
			if (strcmp(list[j].name, keys[i].name) == 0)
				memcpy(n.lc.reason, list[j].reason, sizeof(n.lc.reason));
		memcpy(n.name, keys[i].name, sizeof(n.name));
		memcpy(n.hardware_uuid, keys[i].hardware_uuid, sizeof(n.hardware_uuid));
		n.lc.state = keys[i].state;
		n.lc.boot_time = keys[i].boot_time;
		n.lc.last_report_at = keys[i].last_report_at;
		n.lc.unexpected_reboot = keys[i].unexpected_reboot;
		registry_put_node(reg, &n);
	}
	free(list);
	free(toks);
	free(keys);
	return load_states(reg, inv);
fail:
	free(toks);
	free(keys);
	return -1;
}
