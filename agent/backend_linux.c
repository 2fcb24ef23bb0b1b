/*
 * The linux backend: reads procfs and sysfs under o->root (NULL or "/" is
 * the real root) and runs no command.  This file does the node identity,
 * memory and RDMA; linux_tb.c the Thunderbolt/USB4 ports and the bridge;
 * linux_power.c RAPL power and temperature.
 *
 * Where each field comes from, and the choices made:
 *   node.hostname       /proc/sys/kernel/hostname
 *   node.os_version     VERSION_ID of /etc/os-release (else /usr/lib/os-release)
 *   node.os_build       BUILD_ID, else VERSION_CODENAME, else null
 *   node.boot_time      "btime" of /proc/stat
 *   node.model          /sys/class/dmi/id/product_name, else the device-tree
 *                       model (/sys/firmware/devicetree/base/model)
 *   node.serial         /sys/class/dmi/id/product_serial (root only: often null)
 *   node.hardware_uuid  /sys/class/dmi/id/product_uuid (root only), else
 *                       /etc/machine-id as it is (32 hex digits)
 *   node.chip           the first "model name" of /proc/cpuinfo, else its
 *                       "Hardware" line (older arm kernels), else null
 *   DMI placeholders ("To Be Filled By O.E.M.", "Default string", an all-zero
 *   UUID ...) count as null.
 *
 *   memory (from /proc/meminfo, kB * 1024):
 *     total MemTotal, free MemFree, active Active, inactive Inactive;
 *     swap_total SwapTotal, swap_used SwapTotal - SwapFree;
 *     free_ratio MemAvailable / MemTotal;
 *     wired = Unevictable + SUnreclaim + KernelStack + PageTables: memory the
 *       kernel will neither reclaim nor page out, as macOS counts wired
 *       (Mlocked is not added: mlocked pages are already in Unevictable);
 *       null unless all four are present;
 *     compressed = Zswap (the size of the compressed pool, as macOS counts
 *       "occupied by compressor"); null when the kernel has no zswap line
 *       (zram is not counted);
 *     gpu_wired_limit null: Linux has no such setting.
 *
 *   rdma (from /sys/class/infiniband): one device per entry; its interface
 *     is the first name in <dev>/device/net, else the first port's
 *     gid_attrs/ndevs/0; port_state active when any port's state is
 *     "4: ACTIVE", down when the states were read and none is; ipv4_gid
 *     true when a GID of any port is IPv4-mapped (::ffff:a.b.c.d).
 *     state: enabled with at least one device, disabled when the directory
 *     is absent or empty (no RDMA driver loaded).
 *
 * Errors: a missing /proc/meminfo, /etc/os-release, hostname, /proc/stat
 * or /proc/cpuinfo is reported (sources "meminfo", "os-release", "procfs");
 * so is any file that exists but cannot be read or parsed.  Optional files
 * (DMI, machine-id, zswap figures) are silently null when absent.
 */
#include "collector.h"
#include "backend_linux.h"
#include "sysfs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* DMI and device-tree values that mean "not set". */
static const char *const placeholders[] = {
	"None", "Default string", "To Be Filled By O.E.M.", "To be filled by O.E.M.",
	"Not Specified", "Not Applicable", "System Product Name", "System Serial Number",
	"0123456789", "00000000-0000-0000-0000-000000000000",
	"ffffffff-ffff-ffff-ffff-ffffffffffff", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
	"03000200-0400-0500-0006-000700080009",
};

static int
is_placeholder(const char *s)
{
	for (size_t i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++)
		if (strcmp(s, placeholders[i]) == 0)
			return 1;
	return 0;
}

/*
 * Read a one-line attribute into dst (a report_str of size n) when it holds
 * a real value.  Returns 0 when set, -1 otherwise (errno from the read, or
 * 0 for an empty or placeholder value).
 */
static int
read_value(const char *root, const char *path, char *dst, size_t n)
{
	char buf[REPORT_STR_MAX + 1];

	if (sysfs_read_line(root, path, buf, sizeof(buf)) == -1)
		return -1;
	if (buf[0] == '\0' || is_placeholder(buf)) {
		errno = 0;
		return -1;
	}
	report_strset(dst, n, buf);
	return 0;
}

/* Unquote an os-release value in place (shell-like double or single quotes). */
static void
unquote(char *v)
{
	size_t len = strlen(v), o = 0;
	char q = v[0];

	if (len < 2 || (q != '"' && q != '\'') || v[len - 1] != q)
		return;
	v[len - 1] = '\0';
	for (size_t i = 1; v[i] != '\0'; i++) {
		if (q == '"' && v[i] == '\\' && v[i + 1] != '\0' &&
		    strchr("\"\\$`", v[i + 1]) != NULL)
			i++;
		v[o++] = v[i];
	}
	v[o] = '\0';
}

/* The value of KEY= in an os-release buffer, into dst; 0 found, -1 not. */
static int
osrel_get(const char *text, const char *key, char *dst, size_t n)
{
	char line[REPORT_STR_MAX + 64];
	size_t klen = strlen(key);
	const char *p = text;

	while (*p != '\0') {
		size_t len = strcspn(p, "\n");
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=' &&
		    len < sizeof(line)) {
			memcpy(line, p + klen + 1, len - klen - 1);
			line[len - klen - 1] = '\0';
			unquote(line);
			if (line[0] == '\0')
				return -1;
			report_strset(dst, n, line);
			return 0;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return -1;
}

static void
collect_os_release(const char *root, struct report *r)
{
	char *text = malloc(SYSFS_FILE_MAX);
	struct report_node *nd = &r->node;

	if (text == NULL) {
		report_add_error(r, "os-release", "out of memory");
		return;
	}
	if (sysfs_read(root, "/etc/os-release", text, SYSFS_FILE_MAX, NULL) == -1 &&
	    (errno != ENOENT ||
	    sysfs_read(root, "/usr/lib/os-release", text, SYSFS_FILE_MAX, NULL) == -1)) {
		report_add_error(r, "os-release", "/etc/os-release: %s", strerror(errno));
		free(text);
		return;
	}
	osrel_get(text, "VERSION_ID", nd->os_version, sizeof(nd->os_version));
	if (osrel_get(text, "BUILD_ID", nd->os_build, sizeof(nd->os_build)) == -1)
		osrel_get(text, "VERSION_CODENAME", nd->os_build, sizeof(nd->os_build));
	free(text);
}

/*
 * The value of the first "key<blanks>: value" line of a /proc file, into
 * dst.  Returns 0 found, -1 the file cannot be read (errno), -2 no such
 * line or an empty value.
 */
static int
proc_field(const char *root, const char *path, const char *key, char *dst, size_t n)
{
	char line[1024];
	const char *v;
	ssize_t len;

	if ((len = sysfs_find_line(root, path, key, line, sizeof(line))) < 0)
		return (int)len;
	v = line + strlen(key);
	v += strspn(v, " \t");
	if (*v != ':')
		return -2;
	v += 1 + strspn(v + 1, " \t");
	len = (ssize_t)strlen(v);
	while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	if (len == 0)
		return -2;
	line[(v - line) + len] = '\0';
	report_strset(dst, n, v);
	return 0;
}

static void
collect_chip(const char *root, struct report *r)
{
	char *chip = r->node.chip;
	int rc;

	rc = proc_field(root, "/proc/cpuinfo", "model name", chip, sizeof(r->node.chip));
	if (rc == -1)
		report_add_error(r, "procfs", "/proc/cpuinfo: %s", strerror(errno));
	else if (rc == -2)
		proc_field(root, "/proc/cpuinfo", "Hardware", chip, sizeof(r->node.chip));
}

static void
collect_boot_time(const char *root, struct report *r)
{
	char line[128];
	int64_t bt;
	ssize_t n;

	n = sysfs_find_line(root, "/proc/stat", "btime ", line, sizeof(line));
	if (n == -1)
		report_add_error(r, "procfs", "/proc/stat: %s", strerror(errno));
	else if (n == -2)
		report_add_error(r, "procfs", "/proc/stat: no btime line");
	else if (sysfs_parse_i64(line + 6, &bt) == -1 || bt <= 0)
		report_add_error(r, "procfs", "/proc/stat: malformed btime line");
	else
		r->node.boot_time = (double)bt;
}

static void
collect_identity(const char *root, struct report *r)
{
	struct report_node *nd = &r->node;
	char host[REPORT_STR_MAX + 1];

	if (sysfs_read_line(root, "/proc/sys/kernel/hostname", host, sizeof(host)) == -1)
		report_add_error(r, "procfs", "/proc/sys/kernel/hostname: %s", strerror(errno));
	else
		REPORT_SET(nd->hostname, host);
	if (read_value(root, "/sys/class/dmi/id/product_name", nd->model,
	    sizeof(nd->model)) == -1)
		read_value(root, "/sys/firmware/devicetree/base/model", nd->model,
		    sizeof(nd->model));
	/* Serial and UUID are readable by root only: null otherwise, no error. */
	read_value(root, "/sys/class/dmi/id/product_serial", nd->serial, sizeof(nd->serial));
	if (read_value(root, "/sys/class/dmi/id/product_uuid", nd->hardware_uuid,
	    sizeof(nd->hardware_uuid)) == -1)
		read_value(root, "/etc/machine-id", nd->hardware_uuid,
		    sizeof(nd->hardware_uuid));
	collect_os_release(root, r);
	collect_boot_time(root, r);
	collect_chip(root, r);
}

/* The /proc/meminfo lines used, in kB. */
enum mi { MI_TOTAL, MI_FREE, MI_AVAIL, MI_ACTIVE, MI_INACTIVE, MI_UNEVICT, MI_SUNRECL,
	MI_KSTACK, MI_PTABLES, MI_ZSWAP, MI_SWTOTAL, MI_SWFREE, MI_COUNT };

static const char *const mi_names[MI_COUNT] = {
	"MemTotal", "MemFree", "MemAvailable", "Active", "Inactive", "Unevictable",
	"SUnreclaim", "KernelStack", "PageTables", "Zswap", "SwapTotal", "SwapFree",
};

/*
 * Parse one "Name:   1234 kB" line into kb[] if Name is wanted.  Returns 0
 * (used or ignored) or -1 when a wanted line is malformed.
 */
static int
meminfo_line(const char *line, size_t len, int64_t kb[MI_COUNT])
{
	char val[64];
	const char *colon = memchr(line, ':', len);
	size_t klen, vlen;
	int64_t v;

	if (colon == NULL)
		return 0;
	klen = (size_t)(colon - line);
	for (int i = 0; i < MI_COUNT; i++) {
		if (strlen(mi_names[i]) != klen || strncmp(line, mi_names[i], klen) != 0)
			continue;
		vlen = len - klen - 1;
		if (vlen >= sizeof(val))
			return -1;
		memcpy(val, colon + 1, vlen);
		val[vlen] = '\0';
		char *unit = strstr(val, " kB");
		if (unit != NULL)
			*unit = '\0';
		if (sysfs_parse_i64(val, &v) == -1 || v < 0 ||
		    v > REPORT_BYTES_MAX / 1024)
			return -1;
		kb[i] = v;
		return 0;
	}
	return 0;
}

/* Parse the whole file into kb[] (REPORT_NULL_I64 where absent). */
static void
meminfo_parse(const char *text, int64_t kb[MI_COUNT], struct report *r)
{
	for (int i = 0; i < MI_COUNT; i++)
		kb[i] = REPORT_NULL_I64;
	for (const char *p = text; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n') {
		size_t len = strcspn(p, "\n");
		if (meminfo_line(p, len, kb) == -1)
			report_add_error(r, "meminfo", "malformed line \"%.*s\"",
			    (int)(len > 60 ? 60 : len), p);
	}
}

/* kB to bytes; null stays null, and so does a sum too large to report. */
static int64_t
bytes(int64_t kb)
{
	if (kb == REPORT_NULL_I64 || kb < 0 || kb > REPORT_BYTES_MAX / 1024)
		return REPORT_NULL_I64;
	return kb * 1024;
}

static void
memory_fill(const int64_t kb[MI_COUNT], struct report_memory *m)
{
	m->total_bytes = bytes(kb[MI_TOTAL]);
	m->free_bytes = bytes(kb[MI_FREE]);
	m->active_bytes = bytes(kb[MI_ACTIVE]);
	m->inactive_bytes = bytes(kb[MI_INACTIVE]);
	m->compressed_bytes = bytes(kb[MI_ZSWAP]);
	m->swap_total_bytes = bytes(kb[MI_SWTOTAL]);
	if (kb[MI_SWTOTAL] != REPORT_NULL_I64 && kb[MI_SWFREE] != REPORT_NULL_I64 &&
	    kb[MI_SWFREE] <= kb[MI_SWTOTAL])
		m->swap_used_bytes = bytes(kb[MI_SWTOTAL] - kb[MI_SWFREE]);
	if (kb[MI_UNEVICT] != REPORT_NULL_I64 && kb[MI_SUNRECL] != REPORT_NULL_I64 &&
	    kb[MI_KSTACK] != REPORT_NULL_I64 && kb[MI_PTABLES] != REPORT_NULL_I64)
		m->wired_bytes = bytes(kb[MI_UNEVICT] + kb[MI_SUNRECL] + kb[MI_KSTACK] +
		    kb[MI_PTABLES]);
	if (kb[MI_TOTAL] > 0 && kb[MI_AVAIL] != REPORT_NULL_I64) {
		double ratio = (double)kb[MI_AVAIL] / (double)kb[MI_TOTAL];
		m->free_ratio = ratio > 1.0 ? 1.0 : ratio;
	}
	m->gpu_wired_limit_bytes = REPORT_NULL_I64;
}

static void
collect_memory(const char *root, struct report *r)
{
	char *text = malloc(SYSFS_FILE_MAX);
	int64_t kb[MI_COUNT];

	if (text == NULL) {
		report_add_error(r, "meminfo", "out of memory");
		return;
	}
	if (sysfs_read(root, "/proc/meminfo", text, SYSFS_FILE_MAX, NULL) == -1) {
		report_add_error(r, "meminfo", "/proc/meminfo: %s", strerror(errno));
		free(text);
		return;
	}
	meminfo_parse(text, kb, r);
	free(text);
	if (kb[MI_TOTAL] == REPORT_NULL_I64 || kb[MI_TOTAL] == 0) {
		report_add_error(r, "meminfo", "/proc/meminfo: no MemTotal");
		return;
	}
	memory_fill(kb, &r->memory);
}

/*
 * A port's state file: "4: ACTIVE" is active, any other "N: NAME" down;
 * unknown when unreadable or (recorded as an error) malformed.
 */
static enum rdma_port_state
ib_port_state(const char *root, const char *dev, const char *port, struct report *r)
{
	char path[SYSFS_PATH_MAX], buf[64];
	int64_t v;

	if (sysfs_path(path, sizeof(path), "", "/sys/class/infiniband/%s/ports/%s/state",
	    dev, port) == -1 || sysfs_read_line(root, path, buf, sizeof(buf)) == -1)
		return RDMA_PORT_UNKNOWN;
	char *colon = strchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	if (colon == NULL || sysfs_parse_i64(buf, &v) == -1 || v < 0) {
		report_add_error(r, "infiniband", "%s port %s: malformed state", dev, port);
		return RDMA_PORT_UNKNOWN;
	}
	return v == 4 ? RDMA_PORT_ACTIVE : RDMA_PORT_DOWN;
}

#define IB_GIDS_MAX 256      /* GID table entries looked at per port */
#define GID_V4_PREFIX "0000:0000:0000:0000:0000:ffff:"

/* TRI_TRUE: an IPv4-mapped GID; TRI_FALSE: GIDs read, none mapped; else TRI_NULL. */
static enum tri
ib_port_v4gid(const char *root, const char *dev, const char *port)
{
	char path[SYSFS_PATH_MAX], gid[64];
	struct sysfs_list l;
	enum tri res = TRI_NULL;

	if (sysfs_path(path, sizeof(path), "", "/sys/class/infiniband/%s/ports/%s/gids",
	    dev, port) == -1 || sysfs_list(root, path, NULL, &l) == -1)
		return TRI_NULL;
	for (size_t i = 0; i < l.n && i < IB_GIDS_MAX && res != TRI_TRUE; i++) {
		char gpath[SYSFS_PATH_MAX];
		if (sysfs_path(gpath, sizeof(gpath), "", "%s/%s", path, l.names[i]) == -1 ||
		    sysfs_read_line(root, gpath, gid, sizeof(gid)) == -1)
			continue;
		res = strncasecmp(gid, GID_V4_PREFIX, strlen(GID_V4_PREFIX)) == 0 ?
		    TRI_TRUE : TRI_FALSE;
	}
	sysfs_list_free(&l);
	return res;
}

/* The network interface of an RDMA device, into dst; "" when none is found. */
static void
ib_interface(const char *root, const char *dev, const char *port, char *dst, size_t n)
{
	char path[SYSFS_PATH_MAX], buf[REPORT_STR_MAX + 1];
	struct sysfs_list l;

	if (sysfs_path(path, sizeof(path), "", "/sys/class/infiniband/%s/device/net",
	    dev) == 0 && sysfs_list(root, path, NULL, &l) == 0) {
		if (l.n > 0)
			report_strset(dst, n, l.names[0]);
		sysfs_list_free(&l);
		if (dst[0] != '\0')
			return;
	}
	if (port != NULL && sysfs_path(path, sizeof(path), "",
	    "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/0", dev, port) == 0 &&
	    sysfs_read_line(root, path, buf, sizeof(buf)) > 0)
		report_strset(dst, n, buf);
}

static void
ib_device(const char *root, const char *dev, struct report_rdma_device *d,
    struct report *r)
{
	char path[SYSFS_PATH_MAX];
	struct sysfs_list ports;
	int nread = 0;

	report_rdma_device_init(d);
	REPORT_SET(d->name, dev);
	if (sysfs_path(path, sizeof(path), "", "/sys/class/infiniband/%s/ports", dev) == -1 ||
	    sysfs_list(root, path, NULL, &ports) == -1) {
		ib_interface(root, dev, NULL, d->interface, sizeof(d->interface));
		return;
	}
	for (size_t i = 0; i < ports.n; i++) {
		enum rdma_port_state st = ib_port_state(root, dev, ports.names[i], r);
		if (st != RDMA_PORT_UNKNOWN)
			nread++;
		if (st == RDMA_PORT_ACTIVE)
			d->port_state = RDMA_PORT_ACTIVE;
		enum tri g = ib_port_v4gid(root, dev, ports.names[i]);
		if (g == TRI_TRUE || (g == TRI_FALSE && d->ipv4_gid == TRI_NULL))
			d->ipv4_gid = g;
	}
	if (nread > 0 && d->port_state != RDMA_PORT_ACTIVE)
		d->port_state = RDMA_PORT_DOWN;
	ib_interface(root, dev, ports.n > 0 ? ports.names[0] : NULL, d->interface,
	    sizeof(d->interface));
	sysfs_list_free(&ports);
}

static void
collect_rdma(const char *root, struct report *r)
{
	struct report_rdma *rd = &r->rdma;
	struct sysfs_list l;

	if (sysfs_list(root, "/sys/class/infiniband", NULL, &l) == -1) {
		if (errno == ENOENT) {
			rd->state = RDMA_STATE_DISABLED;
			rd->n_devices = 0;
		} else
			report_add_error(r, "infiniband", "/sys/class/infiniband: %s",
			    strerror(errno));
		return;
	}
	rd->n_devices = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (rd->n_devices == REPORT_DEVICES_MAX) {
			report_add_error(r, "infiniband", "%zu devices, only %d reported",
			    l.n, REPORT_DEVICES_MAX);
			break;
		}
		ib_device(root, l.names[i], &rd->devices[rd->n_devices++], r);
	}
	rd->state = rd->n_devices > 0 ? RDMA_STATE_ENABLED : RDMA_STATE_DISABLED;
	sysfs_list_free(&l);
}

/*
 * The backend's entry point.  Fails as a whole only when the root is
 * unusable (too long, or not a directory); every other problem is an entry
 * in r->errors.
 */
static int
collect(const struct collect_opts *o, struct report *r)
{
	char rootbuf[SYSFS_PATH_MAX / 2];
	const char *root = sysfs_root(o->root, rootbuf, sizeof(rootbuf));

	if (root == NULL) {
		report_add_error(r, "linux", "root path too long");
		return -1;
	}
	if (root[0] != '\0' && !sysfs_isdir(root, "/")) {
		report_add_error(r, "linux", "%s: not a directory", root);
		return -1;
	}
	collect_identity(root, r);
	collect_memory(root, r);
	linux_collect_thunderbolt(root, r);
	collect_rdma(root, r);
	linux_collect_power(root, r);
	linux_collect_thermal(root, r);
	return 0;
}

const struct backend backend_linux = { "linux", collect };
