/*
 * The darwin collector's cadence: see darwin_sched.h.
 */
#include "darwin_sched.h"

#include <math.h>
#include <string.h>

#define BACKOFF_FIRST 1.0
#define BACKOFF_MAX 60.0

/*
 * kern.boottime moves without a restart: it is the wall clock minus the
 * time since boot, and setting the clock moves it by the same step
 * (apple/darwin-xnu, osfmk/kern/clock.c, clock_set_calendar_microtime():
 * "Adjust the boottime based on the delta"), so a time sync that sets the
 * clock by a fraction of a second moves it as much.  A restart moves it by
 * at least the uptime it ended, far more than this; a step of the clock
 * larger than this reads the identity again, which costs two commands.
 */
#define BOOT_SLACK 5.0

/*
 * A source read at `at` is due again after `every` seconds.  Collections
 * come every `interval` seconds with some jitter: half an interval (a
 * second at most) of slack keeps a 60 s cadence at 60 s, not 65.
 */
static int
elapsed(const struct darwin_sched_in *in, double at, double every)
{
	double slack = in->interval / 2 < 1.0 ? in->interval / 2 : 1.0;

	return isnan(at) || in->now - at + slack >= every;
}

int
darwin_same_boot(double boot, double boot_before)
{
	return fabs(boot - boot_before) <= BOOT_SLACK;	/* 0 when either is NAN */
}

unsigned
darwin_sched_due(const struct darwin_sched_in *in)
{
	unsigned due = 0;
	int rebooted = !isnan(in->boot) && !isnan(in->boot_before) &&
	    !darwin_same_boot(in->boot, in->boot_before);

	if (isnan(in->identity_at) || rebooted ||
	    (!in->identity_ok && elapsed(in, in->identity_at, in->topology_interval)))
		due |= DARWIN_DUE_IDENTITY;
	if (isnan(in->hwports_at) || in->ifset_changed ||
	    (!in->hwports_ok && elapsed(in, in->hwports_at, in->topology_interval)))
		due |= DARWIN_DUE_HWPORTS;
	if ((due & DARWIN_DUE_HWPORTS) || in->link_changed ||
	    elapsed(in, in->topology_at, in->topology_interval))
		due |= DARWIN_DUE_TOPOLOGY;
	return due;
}

/* FNV-1a, 64 bits. */
static uint64_t
fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

static uint64_t
fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s, strlen(s) + 1);	/* with the NUL: "a","bc" != "ab","c" */
}

static uint64_t
fnv_int(uint64_t h, int v)
{
	return fnv(h, &v, sizeof(v));
}

#define FNV_START UINT64_C(14695981039346656037)

static uint64_t
hash_if(uint64_t h, const struct darwin_iflist *l, const char *name)
{
	const struct darwin_ifconfig *ifc = darwin_iflist_find(l, name);

	h = fnv_str(h, name);
	if (ifc == NULL)
		return fnv_int(h, -1);
	h = fnv_int(h, ifc->up);
	h = fnv_int(h, (int)ifc->active);
	h = fnv_int(h, ifc->n_ipv4);
	for (int i = 0; i < ifc->n_ipv4; i++)
		h = fnv_str(h, ifc->ipv4[i]);
	h = fnv_int(h, ifc->n_members);
	for (int i = 0; i < ifc->n_members; i++)
		h = fnv_str(h, ifc->members[i]);
	return h;
}

uint64_t
darwin_link_signature(const struct darwin_iflist *l, const struct darwin_hwports *hp)
{
	uint64_t h = FNV_START;

	for (int i = 0; i < hp->n; i++)
		h = hash_if(h, l, hp->tb[i].device);
	return hash_if(h, l, hp->bridge[0] != '\0' ? hp->bridge : "bridge0");
}

uint64_t
darwin_ifset_signature(const struct darwin_iflist *l)
{
	uint64_t h = FNV_START;

	for (int i = 0; i < l->n; i++)
		h = fnv_str(h, l->ifc[i].name);
	return fnv_int(h, l->n);
}

double
darwin_section_wall(double now_wall, double now_mono, double read_mono)
{
	double w;

	if (isnan(read_mono))
		return NAN;
	w = now_wall - (now_mono - read_mono);
	return w < now_wall ? w : now_wall;
}

double
darwin_stream_silence(double interval)
{
	return 10 * interval > 30 ? 10 * interval : 30;
}

double
darwin_stream_backoff(double prev)
{
	if (!(prev >= BACKOFF_FIRST))
		return BACKOFF_FIRST;
	return 2 * prev < BACKOFF_MAX ? 2 * prev : BACKOFF_MAX;
}
