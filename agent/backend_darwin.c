/*
 * The darwin collector: runs the macOS commands of DESIGN.md ("Where the
 * darwin backend reads it") through runcmd(), each looked up on PATH with
 * the per-command timeout, and parses what they print (darwin_parse.c for
 * text, proto/macos_json.c for JSON).  It changes nothing on the Mac.
 *
 * A command that is missing, exits non-zero, times out or prints what the
 * parser rejects adds one error to the report: source is the command's
 * name ("system_profiler", "sysctl"), message is its arguments, if any,
 * then what went wrong ("SPThunderboltDataType -json: timed out after 5
 * s").  Its fields stay null and the collection carries on.
 *
 * Time budget: with many hung commands (a wedged driver) the collection
 * would take the timeout times the number of commands, about 25.  So once
 * 4 commands have timed out in one collection, no further command is
 * started; each one left gets the error "not run: ...".  A collection thus
 * takes what the commands that answer take plus at most 4 x timeout.  Slow
 * commands that do answer are never cut short by this: a wall-clock budget
 * would have to guess how long a healthy collection takes.
 *
 * Power: `macmon pipe -s 1` (no root needed), else `powermetrics
 * --samplers cpu_power,gpu_power -i 1000 -n 1` (root; -i 1000 because its
 * default 5 s sampling interval would reach the usual timeout).  An error
 * is recorded for each only when neither gives power values.
 *
 * Network interfaces (network.interfaces, the LAN address): `ifconfig -a`,
 * once, for every interface's addresses, joined with networksetup's
 * hardware port names (darwin_join.h says which kind each name gives).
 *
 * Commands that are not run: `ifconfig enX` for ports whose interface is
 * unknown (networksetup failed), `ifconfig -a` when networksetup failed
 * (which interfaces are Thunderbolt is not known: network stays null),
 * `ibv_devinfo -v` when ibv_devices lists no device (RDMA disabled: it
 * would only say "No IB devices found").
 * `ifconfig bridge0` answering "does not exist" is not an error: the bridge
 * is reported as absent.
 */
#include "collector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_join.h"
#include "darwin_parse.h"
#include "macos_json.h"
#include "runcmd.h"

#define DEFAULT_TIMEOUT_MS 5000
#define TIMEOUTS_MAX 4		/* timed-out commands before the rest are skipped */
#define WHY_MAX 256

/* One collection: where it writes and how its commands fared. */
struct run {
	struct report *r;
	int timeout_ms;
	int timeouts;            /* commands that timed out so far */
};

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
 * otherwise NULL with the reason in why.
 */
static char *
output_quiet(struct run *x, char *const argv[], char *why, size_t whylen)
{
	struct runcmd_result res;
	const char *failure;
	char *out;

	if (start_cmd(x, argv, &res, why, whylen) == -1)
		return NULL;
	failure = runcmd_failure(&res, x->timeout_ms, why, whylen);
	if (failure == NULL && res.out_truncated)
		failure = "printed more than the output limit";
	if (failure == NULL && res.out == NULL)
		failure = "out of memory";
	if (failure != NULL) {
		if (failure != why)
			snprintf(why, whylen, "%s", failure);
		runcmd_result_free(&res);
		return NULL;
	}
	out = res.out;
	res.out = NULL;
	return out;
}

/* As output_quiet(), but a failure is recorded in the report. */
static char *
output_of(struct run *x, char *const argv[])
{
	char why[WHY_MAX];
	char *out = output_quiet(x, argv, why, sizeof(why));

	if (out == NULL)
		cmd_error(x, argv, "%s", why);
	return out;
}

/*
 * Identity: system_profiler SPHardwareDataType, sw_vers, kern.boottime,
 * hostname.  *hw_memory gets physical_memory for collect_memory().
 */
static void
collect_identity(struct run *x, int64_t *hw_memory)
{
	char *hw[] = { "system_profiler", "SPHardwareDataType", "-json", NULL };
	char *vers[] = { "sw_vers", NULL };
	char *boot[] = { "sysctl", "-n", "kern.boottime", NULL };
	char *host[] = { "hostname", NULL };
	struct report_node *node = &x->r->node;
	char err[WHY_MAX], *out;

	if ((out = output_of(x, hw)) != NULL) {
		if (macos_parse_hardware(out, strlen(out), node, hw_memory, err,
		    sizeof(err)) == -1)
			cmd_error(x, hw, "%s", err);
		free(out);
	}
	if ((out = output_of(x, vers)) != NULL) {
		if (darwin_parse_sw_vers(out, node, err, sizeof(err)) == -1)
			cmd_error(x, vers, "%s", err);
		free(out);
	}
	if ((out = output_of(x, boot)) != NULL) {
		if (darwin_parse_boottime(out, &node->boot_time, err, sizeof(err)) == -1)
			cmd_error(x, boot, "%s", err);
		free(out);
	}
	if ((out = output_of(x, host)) != NULL) {
		if (darwin_parse_hostname(out, node->hostname, sizeof(node->hostname), err,
		    sizeof(err)) == -1)
			cmd_error(x, host, "%s", err);
		free(out);
	}
}

/* `ifconfig bridge0`: the Thunderbolt Bridge, or its absence. */
static void
collect_bridge(struct run *x, const char *name)
{
	char *argv[] = { "ifconfig", (char *)name, NULL };
	struct report_bridge *b = &x->r->thunderbolt.bridge;
	struct darwin_ifconfig ifc;
	struct runcmd_result res;
	char why[WHY_MAX];
	int rc;

	if (start_cmd(x, argv, &res, why, sizeof(why)) == -1) {
		cmd_error(x, argv, "%s", why);
		return;
	}
	if (res.status == RUNCMD_OK && res.exit_code != 0 &&
	    strstr(res.err, "does not exist") != NULL) {
		b->exists = TRI_FALSE;
		b->active = TRI_FALSE;
		b->n_members = 0;
	} else if (runcmd_failure(&res, x->timeout_ms, why, sizeof(why)) != NULL) {
		cmd_error(x, argv, "%s", why);
	} else {
		rc = darwin_parse_ifconfig(res.out, &ifc, why, sizeof(why));
		if (rc == -1)
			cmd_error(x, argv, "%s", why);
		if (ifc.name[0] != '\0')	/* read, if only in part */
			darwin_join_bridge(b, &ifc);
	}
	runcmd_result_free(&res);
}

/* `ifconfig enX`: the IPv4 addresses of the port on enX. */
static void
collect_port_ipv4(struct run *x, const char *ifname)
{
	char *argv[] = { "ifconfig", (char *)ifname, NULL };
	struct darwin_ifconfig ifc;
	char err[WHY_MAX], *out;
	int rc;

	if ((out = output_of(x, argv)) == NULL)
		return;
	rc = darwin_parse_ifconfig(out, &ifc, err, sizeof(err));
	free(out);
	if (rc == -1)
		cmd_error(x, argv, "%s", err);
	if (ifc.name[0] == '\0')	/* nothing read */
		return;
	if (darwin_join_ifconfig(&x->r->thunderbolt, &ifc) == -1)
		cmd_error(x, argv, "printed interface %s, not %s", ifc.name, ifname);
}

/*
 * Thunderbolt: system_profiler SPThunderboltDataType for the ports,
 * networksetup for their interfaces, ifconfig for bridge0 and the ports'
 * addresses.  *hp gets networksetup's hardware ports, for
 * collect_network(); returns 0 when networksetup answered and its whole
 * output was read, else -1.
 */
static int
collect_thunderbolt(struct run *x, struct darwin_hwports *hp)
{
	char *sp[] = { "system_profiler", "SPThunderboltDataType", "-json", NULL };
	char *ns[] = { "networksetup", "-listallhardwareports", NULL };
	struct report_thunderbolt *tb = &x->r->thunderbolt;
	char err[WHY_MAX], *out;
	int rc = -1;

	if ((out = output_of(x, sp)) != NULL) {
		if (macos_parse_thunderbolt(out, strlen(out), tb, err, sizeof(err)) == -1)
			cmd_error(x, sp, "%s", err);
		free(out);
	}
	memset(hp, 0, sizeof(*hp));
	if ((out = output_of(x, ns)) != NULL) {
		rc = darwin_parse_hwports(out, hp, err, sizeof(err));
		free(out);
		if (rc == -1)
			cmd_error(x, ns, "%s", err);
		darwin_join_interfaces(tb, hp);
	}
	collect_bridge(x, hp->bridge[0] != '\0' ? hp->bridge : "bridge0");
	for (int i = 0; i < tb->n_ports; i++)
		if (tb->ports[i].interface[0] != '\0')
			collect_port_ipv4(x, tb->ports[i].interface);
	return rc;
}

/*
 * network.interfaces: `ifconfig -a`, one command for every interface's
 * addresses, joined with networksetup's hardware ports (hp; have_hp 0 when
 * networksetup failed).  Without both, which interfaces are Thunderbolt is
 * not known: network stays null.  ifconfig is not run then.
 */
static void
collect_network(struct run *x, const struct darwin_hwports *hp, int have_hp)
{
	char *argv[] = { "ifconfig", "-a", NULL };
	struct darwin_iflist *l;
	char err[WHY_MAX], *out;
	int rc, dropped;

	if (!have_hp)
		return;
	if ((l = malloc(sizeof(*l))) == NULL) {
		cmd_error(x, argv, "out of memory");
		return;
	}
	if ((out = output_of(x, argv)) != NULL) {
		rc = darwin_parse_ifconfig_all(out, l, err, sizeof(err));
		free(out);
		if (rc == -1)
			cmd_error(x, argv, "%s", err);
		if (rc == 0 || l->n > 0) {	/* too many: the first kept */
			dropped = darwin_join_network(&x->r->network, hp, l,
			    &x->r->thunderbolt);
			if (dropped > 0)
				cmd_error(x, argv, "%d interfaces left out: the report holds %d",
				    dropped, REPORT_NETIFS_MAX);
		}
	}
	free(l);
}

/* RDMA: rdma_ctl status, ibv_devices, ibv_devinfo -v. */
static void
collect_rdma(struct run *x)
{
	char *ctl[] = { "rdma_ctl", "status", NULL };
	char *list[] = { "ibv_devices", NULL };
	char *info[] = { "ibv_devinfo", "-v", NULL };
	struct darwin_ibv_devices devs;
	struct darwin_ibv_devinfo di;
	int have_devs = 0, have_info = 0, rc;
	char err[WHY_MAX], *out;

	if ((out = output_of(x, ctl)) != NULL) {
		if (darwin_parse_rdma_ctl(out, &x->r->rdma.state, err, sizeof(err)) == -1)
			cmd_error(x, ctl, "%s", err);
		free(out);
	}
	if ((out = output_of(x, list)) != NULL) {
		rc = darwin_parse_ibv_devices(out, &devs, err, sizeof(err));
		if (rc == -1)
			cmd_error(x, list, "%s", err);
		have_devs = rc == 0 || devs.n > 0;	/* too many: the first kept */
		free(out);
	}
	if ((!have_devs || devs.n > 0) && (out = output_of(x, info)) != NULL) {
		rc = darwin_parse_ibv_devinfo(out, &di, err, sizeof(err));
		if (rc == -1)
			cmd_error(x, info, "%s", err);
		have_info = rc == 0 || di.n > 0;
		free(out);
	}
	darwin_join_rdma(&x->r->rdma, have_devs ? &devs : NULL, have_info ? &di : NULL);
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
 * Memory: hw.memsize (else SPHardware's physical_memory, hw_memory),
 * vm_stat, swap, memory_pressure, the GPU wired limit.
 */
static void
collect_memory(struct run *x, int64_t hw_memory)
{
	char *memsize[] = { "sysctl", "-n", "hw.memsize", NULL };
	char *swap[] = { "sysctl", "vm.swapusage", NULL };
	char *pressure[] = { "memory_pressure", "-Q", NULL };
	char *wired[] = { "sysctl", "-n", "iogpu.wired_limit_mb", NULL };
	struct report_memory *m = &x->r->memory;
	char err[WHY_MAX], *out;

	if ((out = output_of(x, memsize)) != NULL) {
		if (darwin_parse_memsize(out, &m->total_bytes, err, sizeof(err)) == -1)
			cmd_error(x, memsize, "%s", err);
		free(out);
	}
	if (m->total_bytes == REPORT_NULL_I64)
		m->total_bytes = hw_memory;
	collect_vm_stat(x);
	if ((out = output_of(x, swap)) != NULL) {
		if (darwin_parse_swapusage(out, &m->swap_total_bytes, &m->swap_used_bytes, err,
		    sizeof(err)) == -1)
			cmd_error(x, swap, "%s", err);
		free(out);
	}
	if ((out = output_of(x, pressure)) != NULL) {
		if (darwin_parse_memory_pressure(out, &m->free_ratio, err, sizeof(err)) == -1)
			cmd_error(x, pressure, "%s", err);
		free(out);
	}
	if ((out = output_of(x, wired)) != NULL) {
		if (darwin_parse_wired_limit(out, &m->gpu_wired_limit_bytes, err,
		    sizeof(err)) == -1)
			cmd_error(x, wired, "%s", err);
		free(out);
	}
}

/*
 * Power and temperature: macmon, else powermetrics.  Returns 0 when the
 * first that gave values did; why says what went wrong otherwise.  A
 * partial parse keeps its values and records its error.
 */
static int
power_from(struct run *x, char *const argv[], char *why, size_t whylen)
{
	struct report *r = x->r;
	char *out = output_quiet(x, argv, why, whylen);
	int rc;

	if (out == NULL)
		return -1;
	if (strcmp(argv[0], "macmon") == 0)
		rc = macos_parse_macmon(out, strlen(out), &r->power, &r->thermal, why, whylen);
	else
		rc = darwin_parse_powermetrics(out, &r->power, why, whylen);
	free(out);
	if (rc == 0)
		return 0;
	if (r->power.source[0] == '\0')
		return -1;
	cmd_error(x, argv, "%s", why);
	return 0;
}

static void
collect_power(struct run *x)
{
	char *macmon[] = { "macmon", "pipe", "-s", "1", NULL };
	char *pm[] = { "powermetrics", "--samplers", "cpu_power,gpu_power", "-i", "1000",
		"-n", "1", NULL };
	char why_macmon[WHY_MAX], why_pm[WHY_MAX];

	if (power_from(x, macmon, why_macmon, sizeof(why_macmon)) == 0)
		return;
	if (power_from(x, pm, why_pm, sizeof(why_pm)) == 0)
		return;
	cmd_error(x, macmon, "%s", why_macmon);
	cmd_error(x, pm, "%s", why_pm);
}

static int
collect(const struct collect_opts *o, struct report *r)
{
	struct darwin_hwports hp;
	struct run x;
	int64_t hw_memory = REPORT_NULL_I64;
	int have_hp;

	x.r = r;
	x.timeout_ms = o->cmd_timeout_ms > 0 ? o->cmd_timeout_ms : DEFAULT_TIMEOUT_MS;
	x.timeouts = 0;

	/* Most wanted first, in case the budget runs out. */
	have_hp = collect_thunderbolt(&x, &hp) == 0;
	collect_rdma(&x);
	collect_network(&x, &hp, have_hp);
	collect_identity(&x, &hw_memory);
	collect_memory(&x, hw_memory);
	collect_power(&x);
	return 0;
}

const struct backend backend_darwin = { "darwin", collect };
