/*
 * The darwin collector: runs the macOS commands of DESIGN.md ("Where the
 * darwin backend reads it") through runcmd(), each looked up on PATH with
 * the per-command timeout, and parses what they print (darwin_parse.c for
 * text, proto/macos_json.c for JSON).  It changes nothing on the Mac.
 *
 * Cadence (darwin_sched.h; DESIGN.md, "What the agent costs the Mac"): a
 * collection runs `sysctl` of several names, `vm_stat` and `ifconfig -a`;
 * identity, hardware ports and topology are read again only when due, and
 * kept in struct darwin_state in between, each with the time it was read.
 * Power and temperature come from a child that runs on (backend_darwin_power.h).
 * At the default 5 s interval that is 3 commands a collection and 3 more
 * a minute for the topology: 39 a minute, one of them system_profiler.
 *
 * Sections and their collected_at: memory and network are read every
 * collection; thunderbolt and rdma when the topology was (a port's
 * addresses and the bridge come from this collection's ifconfig, the
 * ports and peers from the last system_profiler: the older time is the
 * section's); node when the identity was read, or now when this
 * collection's boot time is the one it was read under (model, serial and
 * OS do not change without a restart; host name and boot time are read
 * every collection).  A source keeps the monotonic time it was read at;
 * each report derives the wall-clock time from it (darwin_section_wall()),
 * so that a step of the Mac's clock never puts a section after its report.
 * The errors of a source that was not read again are those of its last
 * read, repeated in every report that shows its values.
 *
 * A command that is missing, exits non-zero, times out or prints what the
 * parser rejects adds one error to the report: source is the command's
 * name ("system_profiler", "sysctl"), message is its arguments, if any,
 * then what went wrong ("SPThunderboltDataType -json: timed out after 5
 * s").  Its fields stay null and the collection carries on.
 *
 * Time budget: once 4 commands have timed out in one collection, no
 * further command is started; each one left gets the error "not run: ...".
 *
 * Network interfaces (network.interfaces, the LAN address): `ifconfig -a`
 * joined with networksetup's hardware port names (darwin_join.h says which
 * kind each name gives); without networksetup, which interfaces are
 * Thunderbolt is not known: network stays null.  bridge0 missing from
 * `ifconfig -a` is the bridge reported as absent.
 *
 * With no state from the caller (collect_opts.state NULL: tbagentd --once)
 * everything is read once, and power waits up to the command timeout for
 * a first sample of a 1 s interval.
 */
#include "collector.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_join.h"
#include "darwin_parse.h"
#include "backend_darwin_power.h"
#include "darwin_sched.h"
#include "darwin_sysctl.h"
#include "macos_json.h"
#include "runcmd.h"

#define DEFAULT_TIMEOUT_MS 5000
#define TIMEOUTS_MAX 4		/* timed-out commands before the rest are skipped */
#define WHY_MAX 256
#define KEPT_ERRORS_MAX 8

/* The errors of one source's last read, repeated while its values are shown. */
struct kept_errors {
	int n;
	struct report_error e[KEPT_ERRORS_MAX];
};

struct darwin_state {
	/* identity: system_profiler SPHardwareDataType, sw_vers */
	double identity_mono;                    /* monotonic; NAN: never */
	int identity_ok;
	struct report_node node;
	int64_t hw_memory;                       /* SPHardware's physical_memory */
	struct kept_errors identity_err;
	double boot_before;                      /* the boot time last read */
	/* hardware ports: networksetup */
	double hwports_mono;
	int hwports_ok, have_hp;
	struct darwin_hwports hp;
	struct kept_errors hwports_err;
	/* topology: system_profiler SPThunderboltDataType, rdma_ctl, ibv_devinfo */
	double topology_mono;
	struct report_thunderbolt tb;
	struct report_rdma rdma;
	struct kept_errors topology_err;
	/* the cheap check */
	int have_sig;                            /* link_sig and ifset_sig hold one */
	int sig_gap;                             /* the last ifconfig -a failed */
	uint64_t link_sig, ifset_sig;
	struct darwin_iflist iflist;             /* this collection's ifconfig -a */
	struct darwin_power *power;
};

/* One collection: where it writes and how its commands fared. */
struct run {
	struct report *r;
	struct darwin_state *st;
	int timeout_ms;
	int timeouts;            /* commands that timed out so far */
	double wall, mono;       /* when it started */
};

struct darwin_state *
darwin_state_new(void)
{
	struct darwin_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	if ((st->power = darwin_power_new()) == NULL) {
		free(st);
		return NULL;
	}
	st->identity_mono = NAN;
	st->boot_before = NAN;
	st->hwports_mono = NAN;
	st->topology_mono = NAN;
	return st;
}

void
darwin_state_free(struct darwin_state *st)
{
	if (st == NULL)
		return;
	darwin_power_free(st->power);
	free(st);
}

/* Record an error for argv[0]: "<arguments>: <what>", or "<what>" without arguments. */
static void cmd_error(struct run *x, char *const argv[], const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
cmd_error(struct run *x, char *const argv[], const char *fmt, ...)
{
	char args[128] = "", what[WHY_MAX];
	va_list ap;
	size_t n;

	for (int i = 1; argv[i] != NULL; i++) {
		n = strlen(args);
		snprintf(args + n, sizeof(args) - n, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (args[0] != '\0')
		report_add_error(x->r, argv[0], "%s: %s", args, what);
	else
		report_add_error(x->r, argv[0], "%s", what);
}

/* The report's errors from index from on, kept for the reports that follow. */
static void
keep_errors(const struct report *r, int from, struct kept_errors *k)
{
	k->n = 0;
	for (int i = from; i < r->n_errors && k->n < KEPT_ERRORS_MAX; i++)
		k->e[k->n++] = r->errors[i];
}

static void
repeat_errors(struct report *r, const struct kept_errors *k)
{
	for (int i = 0; i < k->n; i++)
		report_add_error(r, k->e[i].source, "%s", k->e[i].message);
}

/*
 * Run argv unless the budget is spent.  Returns 0 with *res filled (the
 * caller frees it with runcmd_result_free()), or -1 with why filled and
 * nothing to free.
 */
static int
start_cmd(struct run *x, char *const argv[], struct runcmd_result *res, char *why,
    size_t whylen)
{
	if (x->timeouts >= TIMEOUTS_MAX) {
		snprintf(why, whylen, "not run: %d commands already timed out in this collection",
		    x->timeouts);
		return -1;
	}
	runcmd(argv, NULL, 0, x->timeout_ms, res);
	if (res->status == RUNCMD_TIMEOUT)
		x->timeouts++;
	return 0;
}

/*
 * What argv printed when it ran and exited 0, as a string the caller frees;
 * otherwise NULL with the reason recorded.
 */
static char *
output_of(struct run *x, char *const argv[])
{
	struct runcmd_result res;
	char why[WHY_MAX];
	const char *failure;
	char *out;

	if (start_cmd(x, argv, &res, why, sizeof(why)) == -1) {
		cmd_error(x, argv, "%s", why);
		return NULL;
	}
	failure = runcmd_failure(&res, x->timeout_ms, why, sizeof(why));
	if (failure == NULL && res.out_truncated)
		failure = "printed more than the output limit";
	if (failure == NULL && res.out == NULL)
		failure = "out of memory";
	if (failure != NULL) {
		cmd_error(x, argv, "%s", failure);
		runcmd_result_free(&res);
		return NULL;
	}
	out = res.out;
	res.out = NULL;
	return out;
}

/*
 * Every collection: one `sysctl` for memory, boot time and host name.
 * The names it printed are read whatever its exit status (an unknown name
 * is a warning and the exit status: darwin_sysctl.h).  *boot gets the
 * boot time, NAN when unknown.
 */
static const char *const sysctl_names[] = { "hw.memsize", "vm.swapusage",
	"iogpu.wired_limit_mb", "kern.memorystatus_level", "kern.boottime", "kern.hostname" };
#define N_SYSCTL (sizeof(sysctl_names) / sizeof(sysctl_names[0]))

/* Parse one name's value into the report; -1 with err filled when it does not read. */
static int
sysctl_one(struct run *x, size_t i, const char *v, char *err, size_t errlen)
{
	struct report_memory *m = &x->r->memory;
	struct report_node *node = &x->r->node;

	switch (i) {
	case 0:
		return darwin_parse_memsize(v, &m->total_bytes, err, errlen);
	case 1:
		return darwin_parse_swapusage(v, &m->swap_total_bytes, &m->swap_used_bytes, err,
		    errlen);
	case 2:
		return darwin_parse_wired_limit(v, &m->gpu_wired_limit_bytes, err, errlen);
	case 3:
		return darwin_parse_memorystatus_level(v, &m->free_ratio, err, errlen);
	case 4:
		return darwin_parse_boottime(v, &node->boot_time, err, errlen);
	default:
		return darwin_parse_hostname(v, node->hostname, sizeof(node->hostname), err,
		    errlen);
	}
}

static void
collect_sysctl(struct run *x)
{
	char *argv[2 + N_SYSCTL] = { "sysctl" };
	char why[WHY_MAX], err[WHY_MAX], v[1024];
	struct runcmd_result res;
	const char *failure;

	for (size_t i = 0; i < N_SYSCTL; i++)
		argv[1 + i] = (char *)sysctl_names[i];
	argv[1 + N_SYSCTL] = NULL;
	if (start_cmd(x, argv, &res, why, sizeof(why)) == -1) {
		report_add_error(x->r, "sysctl", "%s", why);
		return;
	}
	failure = runcmd_failure(&res, x->timeout_ms, why, sizeof(why));
	if (res.status != RUNCMD_OK || res.out == NULL) {
		report_add_error(x->r, "sysctl", "%s", failure != NULL ? failure : "out of memory");
		runcmd_result_free(&res);
		return;
	}
	for (size_t i = 0; i < N_SYSCTL; i++) {
		if (darwin_sysctl_value(res.out, sysctl_names[i], v, sizeof(v)) == -1)
			report_add_error(x->r, "sysctl", "%s: not printed%s%s", sysctl_names[i],
			    failure != NULL ? ", " : "", failure != NULL ? failure : "");
		else if (sysctl_one(x, i, v, err, sizeof(err)) == -1)
			report_add_error(x->r, "sysctl", "%s: %s", sysctl_names[i], err);
	}
	runcmd_result_free(&res);
}

/* vm_stat into the memory counters. */
static void
collect_vm_stat(struct run *x)
{
	char *argv[] = { "vm_stat", NULL };
	struct darwin_vmstat vm;
	char err[WHY_MAX], *out;

	if ((out = output_of(x, argv)) == NULL)
		return;
	if (darwin_parse_vm_stat(out, &vm, err, sizeof(err)) == -1)
		cmd_error(x, argv, "%s", err);
	else
		darwin_vmstat_memory(&vm, &x->r->memory);
	free(out);
}

/*
 * The cheap check: `ifconfig -a` into st->iflist.  Returns 0 when
 * something of it was read (a partial read keeps what fitted).
 */
static int
collect_ifconfig(struct run *x)
{
	char *argv[] = { "ifconfig", "-a", NULL };
	struct darwin_iflist *l = &x->st->iflist;
	char err[WHY_MAX], *out;
	int rc;

	memset(l, 0, sizeof(*l));
	if ((out = output_of(x, argv)) == NULL)
		return -1;
	rc = darwin_parse_ifconfig_all(out, l, err, sizeof(err));
	free(out);
	if (rc == -1)
		cmd_error(x, argv, "%s", err);
	return rc == 0 || l->n > 0 ? 0 : -1;
}

/* Identity: system_profiler SPHardwareDataType and sw_vers into st->node. */
static void
read_identity(struct run *x)
{
	char *hw[] = { "system_profiler", "SPHardwareDataType", "-json", NULL };
	char *vers[] = { "sw_vers", NULL };
	struct darwin_state *st = x->st;
	int from = x->r->n_errors;
	char err[WHY_MAX], *out;

	memset(&st->node, 0, sizeof(st->node));
	st->node.boot_time = st->node.collected_at = NAN;
	st->hw_memory = REPORT_NULL_I64;
	if ((out = output_of(x, hw)) != NULL) {
		if (macos_parse_hardware(out, strlen(out), &st->node, &st->hw_memory, err,
		    sizeof(err)) == -1)
			cmd_error(x, hw, "%s", err);
		free(out);
	}
	if ((out = output_of(x, vers)) != NULL) {
		if (darwin_parse_sw_vers(out, &st->node, err, sizeof(err)) == -1)
			cmd_error(x, vers, "%s", err);
		free(out);
	}
	keep_errors(x->r, from, &st->identity_err);
	st->identity_ok = x->r->n_errors == from;
	st->identity_mono = x->mono;
}

/* networksetup -listallhardwareports into st->hp. */
static void
read_hwports(struct run *x)
{
	char *ns[] = { "networksetup", "-listallhardwareports", NULL };
	struct darwin_state *st = x->st;
	int from = x->r->n_errors, rc = -1;
	char err[WHY_MAX], *out;

	memset(&st->hp, 0, sizeof(st->hp));
	st->have_hp = 0;
	if ((out = output_of(x, ns)) != NULL) {
		rc = darwin_parse_hwports(out, &st->hp, err, sizeof(err));
		free(out);
		if (rc == -1)
			cmd_error(x, ns, "%s", err);
		st->have_hp = rc == 0 || st->hp.n > 0 || st->hp.n_other > 0;
	}
	keep_errors(x->r, from, &st->hwports_err);
	st->hwports_ok = rc == 0;
	st->hwports_mono = x->mono;
}

/*
 * `ibv_devinfo -v`: the RDMA devices and their ports (it lists them all:
 * `ibv_devices` is not needed).  With no device it prints "No IB devices
 * found" on stderr and exits 255 (linux-rdma/rdma-core,
 * libibverbs/examples/devinfo.c, main(), at 00b335ca): zero devices,
 * whichever stream it is on and whatever the exit status.
 * Returns 1 when *di was read.
 */
static int
read_ibv_devinfo(struct run *x, struct darwin_ibv_devinfo *di)
{
	char *argv[] = { "ibv_devinfo", "-v", NULL };
	struct runcmd_result res;
	char why[WHY_MAX];
	int rc;

	memset(di, 0, sizeof(*di));
	if (start_cmd(x, argv, &res, why, sizeof(why)) == -1) {
		cmd_error(x, argv, "%s", why);
		return 0;
	}
	if (res.status == RUNCMD_OK && res.out != NULL &&
	    (strstr(res.out, "No IB devices found") != NULL ||
	    strstr(res.err, "No IB devices found") != NULL)) {
		runcmd_result_free(&res);
		return 1;
	}
	if (runcmd_failure(&res, x->timeout_ms, why, sizeof(why)) != NULL || res.out == NULL) {
		cmd_error(x, argv, "%s", res.out == NULL ? "out of memory" : why);
		runcmd_result_free(&res);
		return 0;
	}
	rc = darwin_parse_ibv_devinfo(res.out, di, why, sizeof(why));
	runcmd_result_free(&res);
	if (rc == -1)
		cmd_error(x, argv, "%s", why);
	return rc == 0 || di->n > 0;
}

/* Topology: system_profiler SPThunderboltDataType, rdma_ctl status, ibv_devinfo -v. */
static void
read_topology(struct run *x)
{
	char *sp[] = { "system_profiler", "SPThunderboltDataType", "-json", NULL };
	char *ctl[] = { "rdma_ctl", "status", NULL };
	struct darwin_state *st = x->st;
	struct darwin_ibv_devinfo di;
	int from = x->r->n_errors;
	char err[WHY_MAX], *out;

	st->tb = x->r->thunderbolt;	/* null, as report_init() left it */
	st->rdma = x->r->rdma;
	if ((out = output_of(x, sp)) != NULL) {
		if (macos_parse_thunderbolt(out, strlen(out), &st->tb, err, sizeof(err)) == -1)
			cmd_error(x, sp, "%s", err);
		free(out);
	}
	if ((out = output_of(x, ctl)) != NULL) {
		if (darwin_parse_rdma_ctl(out, &st->rdma.state, err, sizeof(err)) == -1)
			cmd_error(x, ctl, "%s", err);
		free(out);
	}
	if (read_ibv_devinfo(x, &di))
		darwin_join_rdma(&st->rdma, NULL, &di);
	keep_errors(x->r, from, &st->topology_err);
	st->topology_mono = x->mono;
}

/* The report time of a source read at monotonic time mono. */
static double
wall_of(const struct run *x, double mono)
{
	return darwin_section_wall(x->wall, x->mono, mono);
}

/*
 * thunderbolt: the ports of the last topology read, their interfaces from
 * networksetup, their addresses and the bridge from this collection's
 * ifconfig -a (have_l 0: it failed; addresses and bridge unknown).
 */
static void
put_thunderbolt(struct run *x, int have_l)
{
	struct darwin_state *st = x->st;
	struct report_thunderbolt *tb = &x->r->thunderbolt;
	const struct darwin_ifconfig *ifc;
	const char *bridge = st->hp.bridge[0] != '\0' ? st->hp.bridge : "bridge0";

	*tb = st->tb;
	tb->collected_at = wall_of(x, st->topology_mono);
	if (st->have_hp)
		darwin_join_interfaces(tb, &st->hp);
	if (!have_l)
		return;
	for (int i = 0; i < tb->n_ports; i++)
		if (tb->ports[i].interface[0] != '\0' &&
		    (ifc = darwin_iflist_find(&st->iflist, tb->ports[i].interface)) != NULL)
			darwin_join_ifconfig(tb, ifc);
	if ((ifc = darwin_iflist_find(&st->iflist, bridge)) != NULL) {
		darwin_join_bridge(&tb->bridge, ifc);
	} else {
		tb->bridge.exists = TRI_FALSE;
		tb->bridge.active = TRI_FALSE;
		tb->bridge.n_members = 0;
	}
}

/* network.interfaces: ifconfig -a joined with networksetup; null without both. */
static void
put_network(struct run *x, int have_l)
{
	char *argv[] = { "ifconfig", "-a", NULL };
	int dropped;

	if (!have_l || !x->st->have_hp)
		return;
	dropped = darwin_join_network(&x->r->network, &x->st->hp, &x->st->iflist,
	    &x->r->thunderbolt);
	if (dropped > 0)
		cmd_error(x, argv, "%d interfaces left out: the report holds %d", dropped,
		    REPORT_NETIFS_MAX);
	x->r->network.collected_at = x->wall;
}

/* node: the identity, with this collection's host name and boot time. */
static void
put_node(struct run *x, int identity_now)
{
	struct darwin_state *st = x->st;
	struct report_node *node = &x->r->node;
	report_str host;
	double boot = node->boot_time;

	REPORT_SET(host, node->hostname);
	*node = st->node;
	REPORT_SET(node->hostname, host);
	node->boot_time = boot;
	if (identity_now || darwin_same_boot(boot, st->boot_before))
		node->collected_at = x->wall;
	else
		node->collected_at = wall_of(x, st->identity_mono);
	if (!identity_now)
		repeat_errors(x->r, &st->identity_err);
	if (x->r->memory.total_bytes == REPORT_NULL_I64)
		x->r->memory.total_bytes = st->hw_memory;
}

/* What the cheap checks saw, and so what is due. */
static unsigned
due_now(struct run *x, const struct collect_opts *o, int have_l)
{
	struct darwin_state *st = x->st;
	struct darwin_sched_in in;
	uint64_t ifset = have_l ? darwin_ifset_signature(&st->iflist) : 0;
	uint64_t link = have_l && st->have_hp ? darwin_link_signature(&st->iflist, &st->hp) : 0;

	in.now = x->mono;
	in.interval = o->interval > 0 ? o->interval : 5;
	in.topology_interval = o->topology_interval > 0 ? o->topology_interval : 60;
	in.identity_at = st->identity_mono;
	in.identity_ok = st->identity_ok;
	in.boot_before = st->boot_before;
	in.boot = x->r->node.boot_time;
	in.hwports_at = st->hwports_mono;
	in.hwports_ok = st->hwports_ok;
	in.ifset_changed = have_l && st->have_sig && ifset != st->ifset_sig;
	in.topology_at = st->topology_mono;
	in.link_changed = have_l && st->have_hp &&
	    (st->sig_gap || (st->have_sig && link != st->link_sig));
	return darwin_sched_due(&in);
}

/*
 * Remember what the cheap check saw, with the hardware ports now known.
 * When it failed, the last signatures stay (the set of interfaces is still
 * compared across the gap) and the next read of it counts as a change of
 * the Thunderbolt interfaces: a cable pulled in between is not missed.
 */
static void
keep_signatures(struct darwin_state *st, int have_l)
{
	st->sig_gap = !have_l;
	if (!have_l)
		return;
	st->ifset_sig = darwin_ifset_signature(&st->iflist);
	st->link_sig = st->have_hp ? darwin_link_signature(&st->iflist, &st->hp) : 0;
	st->have_sig = 1;
}

static void
collect_with(struct darwin_state *st, const struct collect_opts *o, struct report *r, int once)
{
	struct run x = { r, st, o->cmd_timeout_ms > 0 ? o->cmd_timeout_ms : DEFAULT_TIMEOUT_MS,
		0, o->now, o->mono > 0 ? o->mono : runcmd_mono() };
	unsigned due;
	int have_l;

	collect_sysctl(&x);
	collect_vm_stat(&x);
	r->memory.collected_at = x.wall;
	have_l = collect_ifconfig(&x) == 0;
	due = due_now(&x, o, have_l);
	if (due & DARWIN_DUE_HWPORTS)
		read_hwports(&x);
	else
		repeat_errors(r, &st->hwports_err);
	if (due & DARWIN_DUE_TOPOLOGY)
		read_topology(&x);
	else
		repeat_errors(r, &st->topology_err);
	if (due & DARWIN_DUE_IDENTITY)
		read_identity(&x);
	keep_signatures(st, have_l);
	put_node(&x, (due & DARWIN_DUE_IDENTITY) != 0);
	if (!isnan(r->node.boot_time))
		st->boot_before = r->node.boot_time;
	put_thunderbolt(&x, have_l);
	r->rdma = st->rdma;
	r->rdma.collected_at = wall_of(&x, st->topology_mono);
	put_network(&x, have_l);
	if (once && x.timeouts >= TIMEOUTS_MAX) {	/* waiting for a sample would pass the budget */
		report_add_error(r, "macmon", "not run: %d commands already timed out in this "
		    "collection", x.timeouts);
		return;
	}
	darwin_power_collect(st->power, r, x.mono, x.wall, once ? 1.0 : o->interval,
	    once ? x.timeout_ms : 0);
}

static int
collect(const struct collect_opts *o, struct report *r)
{
	struct darwin_state *st = o->state;

	if (st != NULL) {
		collect_with(st, o, r, 0);
		return 0;
	}
	if ((st = darwin_state_new()) == NULL) {
		report_add_error(r, "darwin", "out of memory");
		return 0;
	}
	collect_with(st, o, r, 1);
	darwin_state_free(st);
	return 0;
}

const struct backend backend_darwin = { "darwin", collect };
