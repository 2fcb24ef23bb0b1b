/*
 * SSH to a node as the inventory says (see node_ssh.h).
 */
#include "node_ssh.h"

#include <stdio.h>

#include "ctrl.h"
#include "inventory.h"
#include "ssh.h"

struct ssh_of {
	const char *node;
	struct ro_ssh s;
};

/* store_fn: how node is reached (tbctl node ssh). */
static int
ssh_of(struct inv *inv, void *arg)
{
	struct ssh_of *a = arg;

	return inv_ssh_get(inv, a->node, &a->s);
}

int
node_ssh_get(struct ctrl *c, const char *node, int need_key, struct ro_ssh *out,
    char *err, size_t errlen)
{
	struct ssh_of a = { .node = node };

	if (store_with(&c->store, ssh_of, &a) != 0 || a.s.host[0] == '\0') {
		snprintf(err, errlen, "%s has no SSH address (tbctl node ssh %s --host HOST)", node,
		    node);
		return -1;
	}
	if (need_key && a.s.host_key[0] == '\0') {
		snprintf(err, errlen, "%s has no pinned host key (tbctl node trust %s "
		    "--fingerprint SHA256:...)", node, node);
		return -1;
	}
	*out = a.s;
	return 0;
}

struct ssh_conn *
node_ssh_connect(struct ctrl *c, const char *node, char *err, size_t errlen)
{
	struct ro_ssh s;

	if (node_ssh_get(c, node, 0, &s, err, errlen) == -1)
		return NULL;
	if (c->ssh_key == NULL) {
		snprintf(err, errlen, "the controller has no SSH key (tbcontrollerd --ssh-key FILE)");
		return NULL;
	}
	struct ssh_target t = { s.host, s.port, s.user, c->ssh_key, s.host_key,
		c->ssh_connect_timeout };
	return ssh_open(&t, NULL, err, errlen);
}
