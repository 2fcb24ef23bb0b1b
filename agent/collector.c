/*
 * The backend table and what every collection shares, whatever the backend.
 */
#include "collector.h"

#include <string.h>
#include <unistd.h>

#include "jobprocs.h"
#include "version.h"

static const struct backend *const backends[] = {
	&backend_darwin,
	&backend_linux,
	&backend_sim,
};

const struct backend *
backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

const struct backend *
backend_default(void)
{
#ifdef __APPLE__
	return &backend_darwin;
#else
	return &backend_linux;
#endif
}

void *
collector_state_new(const struct backend *b)
{
	return b == &backend_darwin ? darwin_state_new() : NULL;
}

void
collector_state_free(const struct backend *b, void *state)
{
	if (b == &backend_darwin)
		darwin_state_free(state);
}

int
collector_run(const struct backend *b, const struct collect_opts *o, struct report *r)
{
	report_init(r);
	r->collected_at = o->now;
	int rc = b->collect(o, r);
	REPORT_SET(r->node.agent_version, TBMESH_VERSION);
	if (o->name != NULL && o->name[0] != '\0')
		REPORT_SET(r->node.hostname, o->name);
	if (o->listen != NULL)
		REPORT_SET(r->agent.listen, o->listen);
	if (rc == 0)
		jobprocs_collect(o->jobs_dir, o->cmd_timeout_ms, o->now, r);
	return rc;
}
