/*
 * The fake host the linux backend tests collect from: a tree built in a
 * temporary directory by setup() (identity, memory, Thunderbolt peers and a
 * USB4 drive, two RDMA devices, RAPL, thermal zones) and removed by
 * teardown(), the helpers that change one file of it at a time, and what
 * a collection of the healthy tree must report.
 *
 * Header only, because each tests/unit/test_*.c is linked into its own
 * binary with nothing but libagent.a and libproto.a: every function here is
 * static, and marked unused since no one test file calls them all.  It
 * includes <cmocka.h> and what cmocka needs before it.
 */
#ifndef TBMESH_LINUX_TREE_H
#define TBMESH_LINUX_TREE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_linux.h"
#include "collector.h"
#include "sysfs.h"

#define TB "/sys/bus/thunderbolt/devices"
#define IB "/sys/class/infiniband"
#define PC "/sys/class/powercap"

struct fixture {
	char root[64];
	struct report r;
};

/* ---- building trees ---------------------------------------------------- */

static __attribute__((unused)) void
mkdirs(const char *root, const char *rel)
{
	char path[SYSFS_PATH_MAX];

	assert_true((size_t)snprintf(path, sizeof(path), "%s%s", root, rel) < sizeof(path));
	for (char *p = path + strlen(root) + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* Write root+rel (making its directories), replacing what was there. */
static __attribute__((unused)) void
put(const char *root, const char *rel, const char *text)
{
	char path[SYSFS_PATH_MAX], dir[SYSFS_PATH_MAX];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	if (dir[0] != '\0')
		mkdirs(root, dir);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static __attribute__((unused)) void
link_at(const char *root, const char *rel, const char *target)
{
	char path[SYSFS_PATH_MAX], dir[SYSFS_PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(root, dir);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static __attribute__((unused)) void
rm_rf(const char *path)
{
	char sub[SYSFS_PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) == -1)
		return;
	if (S_ISDIR(st.st_mode))
		chmod(path, 0755);      /* unreadable() may have taken its modes */
	if (S_ISDIR(st.st_mode) && (d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			rm_rf(sub);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* Remove root+rel (a file or a tree). */
static __attribute__((unused)) void
rm_at(const char *root, const char *rel)
{
	char path[SYSFS_PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	rm_rf(path);
}

/* Replace the file root+rel by a directory: it exists, but read() fails. */
static __attribute__((unused)) void
unreadable(const char *root, const char *rel)
{
	char path[SYSFS_PATH_MAX];

	rm_at(root, rel);
	mkdirs(root, rel);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (geteuid() != 0)
		chmod(path, 0);
}

static const char meminfo[] =
    "MemTotal:       32768000 kB\n"
    "MemFree:         1024000 kB\n"
    "MemAvailable:   16384000 kB\n"
    "Buffers:          100000 kB\n"
    "Active:          8000000 kB\n"
    "Inactive:        4000000 kB\n"
    "Unevictable:       10000 kB\n"
    "Mlocked:            5000 kB\n"
    "SwapTotal:       2000000 kB\n"
    "SwapFree:        1500000 kB\n"
    "Zswap:             12345 kB\n"
    "Zswapped:          50000 kB\n"
    "KernelStack:       20000 kB\n"
    "PageTables:        30000 kB\n"
    "SUnreclaim:       200000 kB\n"
    "HugePages_Total:       0\n";

static __attribute__((unused)) void
build_identity(const char *root)
{
	put(root, "/proc/meminfo", meminfo);
	put(root, "/etc/os-release",
	    "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\n"
	    "VERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\nID=ubuntu\n");
	put(root, "/proc/sys/kernel/hostname", "spark-1\n");
	put(root, "/proc/stat", "cpu  10 20 30 40\nintr 5 6 7\nctxt 99\n"
	    "btime 1763700000\nprocesses 4242\n");
	put(root, "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n"
	    "model name\t: Intel(R) Core(TM) Ultra 9 285K\nflags\t\t: fpu vme\n\n"
	    "processor\t: 1\nmodel name\t: Something Else\n");
	put(root, "/sys/class/dmi/id/product_name", "NVIDIA DGX Spark\n");
	put(root, "/sys/class/dmi/id/product_serial", "1581925000123\n");
	put(root, "/sys/class/dmi/id/product_uuid", "4c4c4544-0051-3510-8052-b4c04f4e4d32\n");
	put(root, "/etc/machine-id", "0123456789abcdef0123456789abcdef\n");
}

/*
 * Domain 0: host router 0-0 with USB4 ports 1, 3, 5, 7; a peer host on 1
 * (2 x 20 Gb/s, IP networking only, no uevent), a peer host on 3 (2 x 40,
 * a network and an RDMA service), a USB4 drive on 5 with a device behind
 * it, nothing on 7.
 */
static __attribute__((unused)) void
build_thunderbolt(const char *root)
{
	put(root, TB "/domain0/security", "user\n");
	put(root, TB "/0-0/unique_id", "d0000000-aaaa-4bbb-8ccc-000000000001\n");
	put(root, TB "/0-0/uevent", "DEVTYPE=thunderbolt_device\n");
	put(root, TB "/0-0/authorized", "1\n");
	put(root, TB "/0-0/usb4_port1/link", "tbt\n");
	put(root, TB "/0-0/usb4_port3/link", "usb4\n");
	put(root, TB "/0-0/usb4_port5/link", "usb4\n");
	put(root, TB "/0-0/usb4_port7/link", "none\n");
	put(root, TB "/0-0:1.1/device", "0x0d9c\n");

	put(root, TB "/0-1/unique_id", "a1a1a1a1-0000-4000-8000-000000000001\n");
	put(root, TB "/0-1/device_name", "Mac Studio\n");
	put(root, TB "/0-1/rx_speed", "20.0 Gb/s\n");
	put(root, TB "/0-1/rx_lanes", "2\n");
	put(root, TB "/0-1.0/key", "network\n");
	put(root, TB "/0-1.0/prtcid", "1\n");
	mkdirs(root, TB "/0-1.0/net/thunderbolt0");

	put(root, TB "/0-3/uevent", "MAJOR=0\nDEVTYPE=thunderbolt_xdomain\n");
	put(root, TB "/0-3/unique_id", "b2b2b2b2-0000-4000-8000-000000000002\n");
	put(root, TB "/0-3/device_name", "spark-2\n");
	put(root, TB "/0-3/rx_speed", "40.0 Gb/s\n");
	put(root, TB "/0-3/rx_lanes", "2\n");
	put(root, TB "/0-3.0/key", "network\n");
	put(root, TB "/0-3.1/key", "rdma\n");
	put(root, TB "/0-3.1/prtcid", "1\n");

	put(root, TB "/0-5/uevent", "DEVTYPE=thunderbolt_device\n");
	put(root, TB "/0-5/authorized", "1\n");
	put(root, TB "/0-5/device_name", "USB4 NVMe SSD\n");
	put(root, TB "/0-5/unique_id", "c3c3c3c3-0000-4000-8000-000000000003\n");
	put(root, TB "/0-5/rx_speed", "20.0 Gb/s\n");
	put(root, TB "/0-5/rx_lanes", "1\n");
	put(root, TB "/0-105/uevent", "DEVTYPE=thunderbolt_device\n");
	put(root, TB "/0-105/rx_speed", "10.0 Gb/s\n");
	put(root, TB "/0-105/rx_lanes", "1\n");
}

static __attribute__((unused)) void
build_net(const char *root)
{
	put(root, "/sys/class/net/eth0/operstate", "up\n");
	put(root, "/sys/class/net/thunderbolt0/operstate", "up\n");
	link_at(root, "/sys/class/net/thunderbolt0/device", "../../../bus/thunderbolt/devices/0-1.0");
	put(root, "/sys/class/net/thunderbolt1/operstate", "up\n");
	link_at(root, "/sys/class/net/thunderbolt1/device", "../../../bus/thunderbolt/devices/0-3.0");
	/* A container bridge first: not the Thunderbolt one. */
	put(root, "/sys/class/net/abr0/operstate", "up\n");
	mkdirs(root, "/sys/class/net/abr0/bridge");
	mkdirs(root, "/sys/class/net/abr0/brif/veth12");
	put(root, "/sys/class/net/br0/operstate", "up\n");
	mkdirs(root, "/sys/class/net/br0/bridge");
	mkdirs(root, "/sys/class/net/br0/brif/thunderbolt0");
	mkdirs(root, "/sys/class/net/br0/brif/thunderbolt1");
}

static __attribute__((unused)) void
build_rdma(const char *root)
{
	put(root, IB "/mlx5_0/ports/1/state", "4: ACTIVE\n");
	put(root, IB "/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
	put(root, IB "/mlx5_0/ports/1/gids/0", "fe80:0000:0000:0000:0e42:a1ff:fe3c:1d20\n");
	put(root, IB "/mlx5_0/ports/1/gids/1", "0000:0000:0000:0000:0000:ffff:a9fe:cdff\n");
	put(root, IB "/mlx5_0/ports/1/gids/2", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	put(root, IB "/mlx5_0/ports/1/gid_attrs/ndevs/0", "enp1s0f0np0\n");
	mkdirs(root, IB "/mlx5_0/device/net/enp1s0f0np0");
	put(root, IB "/mlx5_1/ports/1/state", "1: DOWN\n");
	put(root, IB "/mlx5_1/ports/1/gids/0", "fe80:0000:0000:0000:0e42:a1ff:fe3c:1d21\n");
	put(root, IB "/mlx5_1/ports/1/gid_attrs/ndevs/0", "enp1s0f1np1\n");
}

static __attribute__((unused)) void
build_power(const char *root)
{
	put(root, PC "/intel-rapl:0/name", "package-0\n");
	put(root, PC "/intel-rapl:0/energy_uj", "1000000\n");
	put(root, PC "/intel-rapl:0/max_energy_range_uj", "262143328850\n");
	put(root, PC "/intel-rapl:0:0/name", "core\n");
	put(root, PC "/intel-rapl:0:0/energy_uj", "400000\n");
	put(root, PC "/intel-rapl:0:2/name", "dram\n");
	put(root, PC "/intel-rapl:0:2/energy_uj", "500000\n");
	put(root, PC "/intel-rapl:0:2/max_energy_range_uj", "262143328850\n");
	put(root, PC "/intel-rapl:1/name", "psys\n");
	put(root, PC "/intel-rapl:1/energy_uj", "3000000\n");
	put(root, PC "/intel-rapl-mmio:0/name", "package-0\n");
	put(root, PC "/intel-rapl-mmio:0/energy_uj", "77\n");
	put(root, "/sys/class/thermal/thermal_zone0/type", "acpitz\n");
	put(root, "/sys/class/thermal/thermal_zone0/temp", "27800\n");
	put(root, "/sys/class/thermal/thermal_zone2/type", "x86_pkg_temp\n");
	put(root, "/sys/class/thermal/thermal_zone2/temp", "45000\n");
	put(root, "/sys/class/thermal/thermal_zone10/type", "x86_pkg_temp\n");
	put(root, "/sys/class/thermal/thermal_zone10/temp", "47500\n");
}

static __attribute__((unused)) int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->root, sizeof(f->root), "/tmp/tbmesh-linux-XXXXXX");
	if (mkdtemp(f->root) == NULL)
		return -1;
	build_identity(f->root);
	build_thunderbolt(f->root);
	build_net(f->root);
	build_rdma(f->root);
	build_power(f->root);
	linux_rapl_reset();
	linux_set_rapl_gap_ms(1);
	*state = f;
	return 0;
}

static __attribute__((unused)) int
teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->root);
	free(f);
	return 0;
}

static __attribute__((unused)) int
collect_at(const char *root, struct report *r)
{
	struct collect_opts o = { .root = root, .now = 1763782801.25, .interval = 10 };

	return collector_run(&backend_linux, &o, r);
}

/* Index of the first error from source, or -1. */
static __attribute__((unused)) int
error_from(const struct report *r, const char *source)
{
	for (int i = 0; i < r->n_errors; i++)
		if (strcmp(r->errors[i].source, source) == 0)
			return i;
	return -1;
}

static __attribute__((unused)) void
print_errors(const struct report *r)
{
	for (int i = 0; i < r->n_errors; i++)
		print_message("error %s: %s\n", r->errors[i].source, r->errors[i].message);
}

/* ---- what the healthy host reports -------------------------------------- */

static __attribute__((unused)) void
assert_identity(const struct report *r)
{
	assert_string_equal(r->node.hostname, "spark-1");
	assert_string_equal(r->node.os_version, "24.04");
	assert_string_equal(r->node.os_build, "noble");
	assert_true(r->node.boot_time == 1763700000.0);
	assert_string_equal(r->node.model, "NVIDIA DGX Spark");
	assert_string_equal(r->node.serial, "1581925000123");
	assert_string_equal(r->node.hardware_uuid, "4c4c4544-0051-3510-8052-b4c04f4e4d32");
	assert_string_equal(r->node.chip, "Intel(R) Core(TM) Ultra 9 285K");
	assert_string_equal(r->node.agent_version, TBMESH_VERSION);
	assert_true(r->collected_at == 1763782801.25);
}

static __attribute__((unused)) void
assert_memory(const struct report_memory *m)
{
	assert_int_equal(m->total_bytes, INT64_C(32768000) * 1024);
	assert_int_equal(m->free_bytes, INT64_C(1024000) * 1024);
	assert_int_equal(m->active_bytes, INT64_C(8000000) * 1024);
	assert_int_equal(m->inactive_bytes, INT64_C(4000000) * 1024);
	/* Unevictable + SUnreclaim + KernelStack + PageTables */
	assert_int_equal(m->wired_bytes, INT64_C(260000) * 1024);
	assert_int_equal(m->compressed_bytes, INT64_C(12345) * 1024);
	assert_int_equal(m->swap_total_bytes, INT64_C(2000000) * 1024);
	assert_int_equal(m->swap_used_bytes, INT64_C(500000) * 1024);
	assert_true(m->free_ratio == 0.5);
	assert_true(m->gpu_wired_limit_bytes == REPORT_NULL_I64);
}

static __attribute__((unused)) void
assert_peer_ports(const struct report_thunderbolt *t)
{
	const struct report_port *p = &t->ports[0];

	assert_string_equal(p->receptacle, "0-1");
	assert_string_equal(p->bus, "domain0");
	assert_string_equal(p->domain_uuid, "d0000000-aaaa-4bbb-8ccc-000000000001");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_string_equal(p->link_status, "");
	assert_true(p->speed_gbps == 40.0);
	assert_string_equal(p->interface, "thunderbolt0");
	assert_int_equal(p->n_ipv4, -1);
	assert_int_equal(p->has_peer, 1);
	assert_string_equal(p->peer.domain_uuid, "a1a1a1a1-0000-4000-8000-000000000001");
	assert_string_equal(p->peer.name, "Mac Studio");
	assert_string_equal(p->peer.model, "");
	assert_int_equal(p->peer.rdma_service, TRI_FALSE);

	p = &t->ports[1];
	assert_string_equal(p->receptacle, "0-3");
	assert_string_equal(p->domain_uuid, "d0000000-aaaa-4bbb-8ccc-000000000001");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_true(p->speed_gbps == 80.0);
	assert_string_equal(p->interface, "thunderbolt1");     /* by its device link */
	assert_int_equal(p->has_peer, 1);
	assert_string_equal(p->peer.domain_uuid, "b2b2b2b2-0000-4000-8000-000000000002");
	assert_string_equal(p->peer.name, "spark-2");
	assert_int_equal(p->peer.rdma_service, TRI_TRUE);
}

static __attribute__((unused)) void
assert_other_ports(const struct report_thunderbolt *t)
{
	const struct report_port *p = &t->ports[2];

	assert_string_equal(p->receptacle, "0-5");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_true(p->speed_gbps == 20.0);
	assert_string_equal(p->interface, "");
	assert_int_equal(p->has_peer, 0);

	p = &t->ports[3];
	assert_string_equal(p->receptacle, "0-7");
	assert_string_equal(p->bus, "domain0");
	assert_int_equal(p->status, PORT_STATUS_EMPTY);
	assert_true(isnan(p->speed_gbps));
	assert_string_equal(p->interface, "");
	assert_int_equal(p->n_ipv4, -1);
	assert_int_equal(p->has_peer, 0);

	assert_int_equal(t->bridge.exists, TRI_TRUE);
	assert_int_equal(t->bridge.active, TRI_TRUE);
	assert_int_equal(t->bridge.n_members, 2);
	assert_string_equal(t->bridge.members[0], "thunderbolt0");
	assert_string_equal(t->bridge.members[1], "thunderbolt1");
}

static __attribute__((unused)) void
assert_rdma(const struct report_rdma *rd)
{
	assert_int_equal(rd->state, RDMA_STATE_ENABLED);
	assert_int_equal(rd->n_devices, 2);
	assert_string_equal(rd->devices[0].name, "mlx5_0");
	assert_string_equal(rd->devices[0].interface, "enp1s0f0np0");
	assert_int_equal(rd->devices[0].port_state, RDMA_PORT_ACTIVE);
	assert_int_equal(rd->devices[0].ipv4_gid, TRI_TRUE);
	assert_string_equal(rd->devices[1].name, "mlx5_1");
	assert_string_equal(rd->devices[1].interface, "enp1s0f1np1");
	assert_int_equal(rd->devices[1].port_state, RDMA_PORT_DOWN);
	assert_int_equal(rd->devices[1].ipv4_gid, TRI_FALSE);
}

#endif
