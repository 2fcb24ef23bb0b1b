/*
 * The darwin collector's cadence (DESIGN.md, "What the agent costs the
 * Mac"), as pure functions of times and what the cheap checks saw, so that
 * it is tested without a clock or a command.
 *
 * Every collection runs three commands: `sysctl` of several names (memory,
 * boot time, host name), `vm_stat`, and `ifconfig -a` (every interface's
 * status and addresses: the Thunderbolt ports', bridge0's, the LAN's).
 * Besides them:
 *   identity  system_profiler SPHardwareDataType, sw_vers: at the first
 *             collection and when the boot time changes by more than a
 *             few seconds (an OS update needs a restart); after a
 *             failed read, again a topology interval later;
 *   hwports   networksetup -listallhardwareports: at the first collection
 *             and when the set of interfaces ifconfig lists changes;
 *             after a failed read, a topology interval later;
 *   topology  system_profiler SPThunderboltDataType, rdma_ctl status,
 *             ibv_devinfo -v: every topology interval, and at once when
 *             the Thunderbolt interfaces' status, addresses or bridge
 *             members changed (a cable pulled or plugged), the hardware
 *             ports were read again, or `ifconfig -a` works again after
 *             a failure (what changed in between is not known).
 * Power and temperature come from one long-lived child (a stream); when it
 * exits it is started again after a backoff, and when it stays silent too
 * long it is killed and started again.
 */
#ifndef TBMESH_DARWIN_SCHED_H
#define TBMESH_DARWIN_SCHED_H

#include <stdint.h>

#include "darwin_parse.h"

enum {
	DARWIN_DUE_IDENTITY = 1 << 0,
	DARWIN_DUE_HWPORTS = 1 << 1,
	DARWIN_DUE_TOPOLOGY = 1 << 2,
};

/* Times in seconds on one clock; NAN: never (read) or unknown (boot times). */
struct darwin_sched_in {
	double now;
	double interval;           /* between collections */
	double topology_interval;
	double identity_at;        /* last identity read */
	int identity_ok;           /* ... and it had no error */
	double boot_before;        /* the boot time last known */
	double boot;               /* the boot time read now; more than a few
				      seconds from boot_before: a restart */
	double hwports_at;
	int hwports_ok;
	int ifset_changed;         /* ifconfig -a lists other interfaces than last time */
	double topology_at;
	int link_changed;          /* the Thunderbolt interfaces changed since last
				      time, or were seen again after a failed read */
};

/*
 * 1 when two kern.boottime values are of the same boot: a few seconds
 * apart at most (the clock's steps move it too: darwin_sched.c says
 * where); 0 when either is NAN.
 */
int darwin_same_boot(double boot, double boot_before);

/* Which of DARWIN_DUE_* this collection reads. */
unsigned darwin_sched_due(const struct darwin_sched_in *in);

/*
 * What the cheap check compares from one collection to the next: the
 * status, addresses and members of the Thunderbolt interfaces (hp's
 * "Thunderbolt N" devices and its bridge, bridge0 when it names none) as
 * l lists them, and whether each is listed at all.
 */
uint64_t darwin_link_signature(const struct darwin_iflist *l, const struct darwin_hwports *hp);

/* The names of the interfaces l lists, in order. */
uint64_t darwin_ifset_signature(const struct darwin_iflist *l);

/*
 * The wall-clock time of a section read at read_mono (monotonic seconds),
 * seen from now (now_wall, now_mono): now_wall - (now_mono - read_mono),
 * never later than now_wall; NAN when read_mono is.  Each report derives
 * its sections' times again, so a step of the wall clock never makes a
 * section later than its report (which the controller refuses).
 */
double darwin_section_wall(double now_wall, double now_mono, double read_mono);

/*
 * Seconds a stream may print nothing before it is killed and started
 * again: max(10 x interval, 30), exo's rule for its macmon child
 * (exo-explore/exo, src/exo/utils/info_gatherer/info_gatherer.py L592 at
 * b5375f8c: read_timeout = max(macmon_interval * 10, 30)).
 */
double darwin_stream_silence(double interval);

/* The wait before the next start after a stream failed: 1 s, doubled each time, 60 s at most. */
double darwin_stream_backoff(double prev);

#endif
