/*
 * Linux power and temperature: RAPL energy counters and thermal zones.
 *
 * Power: the zones /sys/class/powercap/intel-rapl:* (the top-level
 * "package-N" and "psys" zones and the "dram" sub-zones; AMD exposes the
 * same interface) each count energy in microjoules in energy_uj, wrapping
 * at max_energy_range_uj.  Watts are the energy between two samples over
 * the time between them:
 *   cpu_watts    the sum of the package-N zones
 *   dram_watts   the sum of the dram zones
 *   system_watts psys, null when the platform has none
 *   gpu_watts, ane_watts null
 * The previous collection's sample is kept (static state), so the daemon
 * reports the average over its interval; a collection with no usable
 * previous sample (the first, --once, another root, a zone set that
 * changed) takes two samples linux_set_rapl_gap_ms() apart.
 * energy_uj is readable by root only on current kernels: when the zones
 * exist but cannot be read, power stays null and the error is recorded
 * (source "rapl").  No zones at all is not an error: power is null.
 *
 * Temperature: cpu_celsius is the hottest /sys/class/thermal/thermal_zone*
 * whose type is x86_pkg_temp, cpu-thermal or cpu_thermal (millidegrees in
 * temp); null when there is none.  gpu_celsius is null.
 */
#include "backend_linux.h"
#include "sysfs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define RAPL_ZONES_MAX 16
#define RAPL_MIN_WINDOW 0.01    /* seconds: a shorter window takes a new pair */

enum rapl_role { ROLE_CPU, ROLE_DRAM, ROLE_SYSTEM };

struct rapl_zone {
	char id[32];            /* "intel-rapl:0" */
	enum rapl_role role;
	uint64_t energy_uj;
	uint64_t range_uj;      /* 0: unknown */
};

struct rapl_sample {
	int n;
	double t;               /* CLOCK_MONOTONIC seconds */
	struct rapl_zone z[RAPL_ZONES_MAX];
};

static int rapl_gap_ms = 200;
static int prev_valid;
static char prev_root[SYSFS_PATH_MAX];
static struct rapl_sample prev;

void
linux_set_rapl_gap_ms(int ms)
{
	rapl_gap_ms = ms < 0 ? 0 : ms;
}

void
linux_rapl_reset(void)
{
	prev_valid = 0;
}

double
linux_rapl_watts(uint64_t e0_uj, uint64_t e1_uj, uint64_t max_range_uj, double seconds)
{
	uint64_t uj;

	if (!(seconds > 0.0))
		return NAN;
	if (max_range_uj != 0 && (e0_uj > max_range_uj || e1_uj > max_range_uj))
		return NAN;
	if (e1_uj >= e0_uj)
		uj = e1_uj - e0_uj;
	else if (max_range_uj == 0)
		return NAN;
	else
		uj = (max_range_uj - e0_uj) + e1_uj;
	return (double)uj / 1e6 / seconds;
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The role of a zone by its name; -1 for zones not reported (core, uncore). */
static int
zone_role(const char *name)
{
	if (strncmp(name, "package", 7) == 0)
		return ROLE_CPU;
	if (strcmp(name, "dram") == 0)
		return ROLE_DRAM;
	if (strcmp(name, "psys") == 0)
		return ROLE_SYSTEM;
	return -1;
}

/*
 * Read one zone's counters.  Returns 1 read, 0 not a zone we report, -1
 * energy_uj exists but cannot be read or parsed (errno; EINVAL: garbage).
 */
static int
zone_read(const char *root, const char *id, struct rapl_zone *z)
{
	char path[SYSFS_PATH_MAX], name[64];
	int64_t v;
	int role;

	if (sysfs_path(path, sizeof(path), "", "/sys/class/powercap/%s/name", id) == -1 ||
	    sysfs_read_line(root, path, name, sizeof(name)) == -1 ||
	    (role = zone_role(name)) == -1 || strlen(id) >= sizeof(z->id))
		return 0;
	snprintf(z->id, sizeof(z->id), "%s", id);
	z->role = (enum rapl_role)role;
	if (sysfs_path(path, sizeof(path), "", "/sys/class/powercap/%s/energy_uj", id) == -1 ||
	    sysfs_read_i64(root, path, &v) == -1)
		return -1;
	if (v < 0) {
		errno = EINVAL;
		return -1;
	}
	z->energy_uj = (uint64_t)v;
	z->range_uj = 0;
	if (sysfs_path(path, sizeof(path), "", "/sys/class/powercap/%s/max_energy_range_uj",
	    id) == 0 && sysfs_read_i64(root, path, &v) == 0 && v > 0)
		z->range_uj = (uint64_t)v;
	return 1;
}

/*
 * Take one sample of every reported zone.  Returns the zone count (0: no
 * RAPL here), or -1 with the failure recorded in r.
 */
static int
rapl_sample(const char *root, struct rapl_sample *s, struct report *r)
{
	struct sysfs_list l;
	int rc = 0;

	s->n = 0;
	if (sysfs_list(root, "/sys/class/powercap", "intel-rapl:", &l) == -1)
		return 0;
	for (size_t i = 0; i < l.n && s->n < RAPL_ZONES_MAX; i++) {
		int zr = zone_read(root, l.names[i], &s->z[s->n]);
		if (zr == -1) {
			report_add_error(r, "rapl", "%s/energy_uj: %s", l.names[i],
			    errno == EINVAL ? "not a number" : strerror(errno));
			rc = -1;
			break;
		}
		s->n += zr;
	}
	s->t = now_mono();
	sysfs_list_free(&l);
	return rc == -1 ? -1 : s->n;
}

/* Whether the kept sample can start this collection's window. */
static int
prev_usable(const char *root, const struct rapl_sample *cur)
{
	if (!prev_valid || strcmp(prev_root, root) != 0 || prev.n != cur->n ||
	    cur->t - prev.t < RAPL_MIN_WINDOW)
		return 0;
	for (int i = 0; i < cur->n; i++)
		if (strcmp(prev.z[i].id, cur->z[i].id) != 0)
			return 0;
	return 1;
}

static void
rapl_fill(const struct rapl_sample *a, const struct rapl_sample *b, struct report *r)
{
	double sum[3] = { 0.0, 0.0, 0.0 };
	int seen[3] = { 0, 0, 0 };
	double dt = b->t - a->t;

	for (int i = 0; i < b->n; i++) {
		const struct rapl_zone *z = &b->z[i];
		double w = linux_rapl_watts(a->z[i].energy_uj, z->energy_uj, z->range_uj, dt);
		if (isnan(w) || w > REPORT_WATTS_MAX) {
			report_add_error(r, "rapl", "%s: implausible energy reading", z->id);
			w = NAN;
		}
		sum[z->role] += w;
		seen[z->role] = 1;
	}
	struct report_power *p = &r->power;
	p->cpu_watts = seen[ROLE_CPU] ? sum[ROLE_CPU] : NAN;
	p->dram_watts = seen[ROLE_DRAM] ? sum[ROLE_DRAM] : NAN;
	p->system_watts = seen[ROLE_SYSTEM] ? sum[ROLE_SYSTEM] : NAN;
	if (!isnan(p->cpu_watts) || !isnan(p->dram_watts) || !isnan(p->system_watts))
		REPORT_SET(p->source, "rapl");
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

void
linux_collect_power(const char *root, struct report *r)
{
	struct rapl_sample cur, first;

	if (rapl_sample(root, &cur, r) <= 0) {
		prev_valid = 0;
		return;
	}
	if (!prev_usable(root, &cur)) {
		first = cur;
		sleep_ms(rapl_gap_ms);
		if (rapl_sample(root, &cur, r) <= 0 || cur.n != first.n) {
			prev_valid = 0;
			return;
		}
		prev = first;
	}
	rapl_fill(&prev, &cur, r);
	prev = cur;
	snprintf(prev_root, sizeof(prev_root), "%s", root);
	prev_valid = 1;
}

static int
cpu_zone_type(const char *type)
{
	return strcmp(type, "x86_pkg_temp") == 0 || strcmp(type, "cpu-thermal") == 0 ||
	    strcmp(type, "cpu_thermal") == 0;
}

/*
 * The temperature of a CPU thermal zone in *c.  Returns 1 read, 0 not a CPU
 * zone, -1 a CPU zone whose temp cannot be read or makes no sense
 * (recorded in r).
 */
static int
zone_temp(const char *root, const char *zone, double *c, struct report *r)
{
	char path[SYSFS_PATH_MAX], type[64];
	int64_t mc;

	if (sysfs_path(path, sizeof(path), "", "/sys/class/thermal/%s/type", zone) == -1 ||
	    sysfs_read_line(root, path, type, sizeof(type)) == -1 || !cpu_zone_type(type))
		return 0;
	if (sysfs_path(path, sizeof(path), "", "/sys/class/thermal/%s/temp", zone) == -1)
		return 0;
	if (sysfs_read_i64(root, path, &mc) == -1) {
		report_add_error(r, "thermal", "%s/temp: %s", zone,
		    errno == EINVAL ? "not a number" : strerror(errno));
		return -1;
	}
	*c = (double)mc / 1000.0;
	if (*c < REPORT_CELSIUS_MIN || *c > REPORT_CELSIUS_MAX) {
		report_add_error(r, "thermal", "%s/temp: %lld is out of range", zone,
		    (long long)mc);
		return -1;
	}
	return 1;
}

void
linux_collect_thermal(const char *root, struct report *r)
{
	struct sysfs_list l;
	double c;

	if (sysfs_list(root, "/sys/class/thermal", "thermal_zone", &l) == -1)
		return;
	for (size_t i = 0; i < l.n; i++)
		if (zone_temp(root, l.names[i], &c, r) == 1 &&
		    (isnan(r->thermal.cpu_celsius) || c > r->thermal.cpu_celsius))
			r->thermal.cpu_celsius = c;
	sysfs_list_free(&l);
}
