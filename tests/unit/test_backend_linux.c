/*
 * The linux backend against trees built in a temporary directory: a healthy
 * host (identity, memory, Thunderbolt peers and a USB4 drive, two RDMA
 * devices, RAPL, a thermal zone), then one broken or missing file at a
 * time, then the real root of the machine running the test.  Also the
 * sysfs helpers and the RAPL arithmetic.
 */
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
#include <time.h>
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

static void
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
static void
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

static void
link_at(const char *root, const char *rel, const char *target)
{
	char path[SYSFS_PATH_MAX], dir[SYSFS_PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(root, dir);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static void
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
static void
rm_at(const char *root, const char *rel)
{
	char path[SYSFS_PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	rm_rf(path);
}

/* Replace the file root+rel by a directory: it exists, but read() fails. */
static void
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

static void
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
static void
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

static void
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

static void
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

static void
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

static int
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

static int
teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->root);
	free(f);
	return 0;
}

static int
collect_at(const char *root, struct report *r)
{
	struct collect_opts o = { .root = root, .now = 1763782801.25, .interval = 10 };

	return collector_run(&backend_linux, &o, r);
}

/* Index of the first error from source, or -1. */
static int
error_from(const struct report *r, const char *source)
{
	for (int i = 0; i < r->n_errors; i++)
		if (strcmp(r->errors[i].source, source) == 0)
			return i;
	return -1;
}

static void
print_errors(const struct report *r)
{
	for (int i = 0; i < r->n_errors; i++)
		print_message("error %s: %s\n", r->errors[i].source, r->errors[i].message);
}

/* ---- the healthy host -------------------------------------------------- */

static void
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

static void
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

static void
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

static void
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

static void
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

static void
test_healthy_host(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	assert_int_equal(collect_at(f->root, r), 0);
	print_errors(r);
	assert_int_equal(r->n_errors, 0);
	assert_identity(r);
	assert_memory(&r->memory);
	assert_int_equal(r->thunderbolt.n_ports, 4);
	assert_peer_ports(&r->thunderbolt);
	assert_other_ports(&r->thunderbolt);
	assert_rdma(&r->rdma);
	/* The counters did not move between the two samples: 0 W, exactly. */
	assert_string_equal(r->power.source, "rapl");
	assert_true(r->power.cpu_watts == 0.0);
	assert_true(r->power.dram_watts == 0.0);
	assert_true(r->power.system_watts == 0.0);
	assert_true(isnan(r->power.gpu_watts));
	assert_true(isnan(r->power.ane_watts));
	assert_true(r->thermal.cpu_celsius == 47.5);
	assert_true(isnan(r->thermal.gpu_celsius));
}

/* A trailing slash on the root changes nothing. */
static void
test_root_with_slash(void **state)
{
	struct fixture *f = *state;
	char root[80];

	snprintf(root, sizeof(root), "%s//", f->root);
	assert_int_equal(collect_at(root, &f->r), 0);
	assert_int_equal(f->r.n_errors, 0);
	assert_identity(&f->r);
	assert_int_equal(f->r.thunderbolt.n_ports, 4);
}

/* ---- power over successive collections ---------------------------------- */

static void
sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* The second collection measures from the first one's sample. */
static void
test_power_interval(void **state)
{
	struct fixture *f = *state;
	struct timespec t0, t1;

	assert_int_equal(collect_at(f->root, &f->r), 0);
	assert_true(f->r.power.cpu_watts == 0.0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	put(f->root, PC "/intel-rapl:0/energy_uj", "3000000\n");   /* +2 J */
	put(f->root, PC "/intel-rapl:1/energy_uj", "7000000\n");   /* +4 J */
	sleep_ms(100);
	linux_set_rapl_gap_ms(5000);    /* a new pair would make the test slow */
	assert_int_equal(collect_at(f->root, &f->r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(dt < 4.0);          /* it did not sleep: it used the kept sample */
	assert_true(f->r.power.cpu_watts > 2.0 / (dt + 0.5));
	assert_true(f->r.power.cpu_watts <= 2.0 / 0.1);
	assert_true(fabs(f->r.power.system_watts - 2.0 * f->r.power.cpu_watts) < 1e-9);
	assert_true(f->r.power.dram_watts == 0.0);
	assert_int_equal(f->r.n_errors, 0);
}

/* The counter wrapped between the collections. */
static void
test_power_wraps(void **state)
{
	struct fixture *f = *state;

	put(f->root, PC "/intel-rapl:0/energy_uj", "262143000000\n");
	assert_int_equal(collect_at(f->root, &f->r), 0);
	put(f->root, PC "/intel-rapl:0/energy_uj", "671150\n");   /* 1 J past the wrap */
	sleep_ms(50);
	assert_int_equal(collect_at(f->root, &f->r), 0);
	assert_int_equal(f->r.n_errors, 0);
	assert_true(f->r.power.cpu_watts > 0.0);
	assert_true(f->r.power.cpu_watts <= 1.0 / 0.05);
}

static void
test_rapl_watts(void **state)
{
	(void)state;
	assert_true(linux_rapl_watts(1000000, 3000000, 0, 2.0) == 1.0);
	assert_true(linux_rapl_watts(0, 0, 100, 0.5) == 0.0);
	/* 262143328850 - 262143000000 + 671150 = 1000000 uJ */
	assert_true(linux_rapl_watts(262143000000, 671150, 262143328850, 0.5) == 2.0);
	assert_true(isnan(linux_rapl_watts(5000, 1000, 0, 1.0)));    /* wrapped, range unknown */
	assert_true(isnan(linux_rapl_watts(1, 2, 100, 0.0)));
	assert_true(isnan(linux_rapl_watts(1, 2, 100, -1.0)));
	assert_true(isnan(linux_rapl_watts(1, 200, 100, 1.0)));      /* above the range */
}

/* ---- one thing wrong at a time ----------------------------------------- */

static void
assert_memory_null(const struct report_memory *m)
{
	assert_true(m->total_bytes == REPORT_NULL_I64);
	assert_true(m->free_bytes == REPORT_NULL_I64);
	assert_true(m->active_bytes == REPORT_NULL_I64);
	assert_true(m->wired_bytes == REPORT_NULL_I64);
	assert_true(m->swap_used_bytes == REPORT_NULL_I64);
	assert_true(isnan(m->free_ratio));
}

static void
test_missing_meminfo(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, "/proc/meminfo");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 1);
	assert_string_equal(r->errors[0].source, "meminfo");
	assert_string_equal(r->errors[0].message, "/proc/meminfo: No such file or directory");
	assert_memory_null(&r->memory);
	/* Everything else is still there. */
	assert_identity(r);
	assert_int_equal(r->thunderbolt.n_ports, 4);
	assert_peer_ports(&r->thunderbolt);
	assert_rdma(&r->rdma);
	assert_string_equal(r->power.source, "rapl");
	assert_true(r->thermal.cpu_celsius == 47.5);
}

static void
test_garbage_meminfo(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, "/proc/meminfo", "\x01\x02 this is not meminfo\n:::\n\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 1);
	assert_string_equal(r->errors[0].source, "meminfo");
	assert_string_equal(r->errors[0].message, "/proc/meminfo: no MemTotal");
	assert_memory_null(&r->memory);
	assert_identity(r);
}

/* A malformed wanted line is reported; the good lines are still used. */
static void
test_malformed_meminfo_line(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, "/proc/meminfo", "MemTotal:       16000000 kB\nMemFree:  lots kB\n"
	    "MemAvailable:    4000000 kB\nSwapTotal: 99999999999999999999999 kB\n"
	    "Active: 100 kB\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 2);
	assert_string_equal(r->errors[0].source, "meminfo");
	assert_string_equal(r->errors[0].message, "malformed line \"MemFree:  lots kB\"");
	assert_string_equal(r->errors[1].source, "meminfo");
	assert_int_equal(r->memory.total_bytes, INT64_C(16000000) * 1024);
	assert_true(r->memory.free_bytes == REPORT_NULL_I64);
	assert_true(r->memory.free_ratio == 0.25);
	assert_int_equal(r->memory.active_bytes, 100 * 1024);
	assert_true(r->memory.swap_total_bytes == REPORT_NULL_I64);
	assert_true(r->memory.swap_used_bytes == REPORT_NULL_I64);
	assert_true(r->memory.wired_bytes == REPORT_NULL_I64);      /* parts missing */
	assert_true(r->memory.compressed_bytes == REPORT_NULL_I64); /* no zswap line */
}

static void
test_missing_os_release(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, "/etc/os-release");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 1);
	assert_string_equal(r->errors[0].source, "os-release");
	assert_string_equal(r->node.os_version, "");
	assert_string_equal(r->node.os_build, "");
	assert_string_equal(r->node.hostname, "spark-1");
	assert_int_equal(r->memory.total_bytes, INT64_C(32768000) * 1024);

	/* /usr/lib/os-release is the documented fallback. */
	put(f->root, "/usr/lib/os-release", "# vendor file\nID=fedora\n"
	    "VERSION_ID=43\nBUILD_ID='2025.11.3'\nVERSION_CODENAME=\"\"\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_string_equal(r->node.os_version, "43");
	assert_string_equal(r->node.os_build, "2025.11.3");
}

/* Quoting, and what a host without DMI or "model name" (arm) reports. */
static void
test_os_release_quoting_and_arm(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, "/etc/os-release", "NAME=\"DGX OS\"\nVERSION_ID=\"7.2\\\"x\"\n");
	rm_at(f->root, "/sys/class/dmi");
	put(f->root, "/sys/firmware/devicetree/base/model", "NVIDIA Jetson Board");
	put(f->root, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 2000.00\n"
	    "CPU implementer\t: 0x41\nHardware\t: NVIDIA Tegra\n");
	assert_int_equal(collect_at(f->root, r), 0);
	print_errors(r);
	assert_int_equal(r->n_errors, 0);
	assert_string_equal(r->node.os_version, "7.2\"x");
	assert_string_equal(r->node.os_build, "");
	assert_string_equal(r->node.model, "NVIDIA Jetson Board");
	assert_string_equal(r->node.serial, "");
	assert_string_equal(r->node.hardware_uuid, "0123456789abcdef0123456789abcdef");
	assert_string_equal(r->node.chip, "NVIDIA Tegra");

	put(f->root, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 2000.00\n");
	put(f->root, "/sys/class/dmi/id/product_uuid", "00000000-0000-0000-0000-000000000000\n");
	put(f->root, "/sys/class/dmi/id/product_name", "To Be Filled By O.E.M.\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_string_equal(r->node.chip, "");
	assert_string_equal(r->node.hardware_uuid, "0123456789abcdef0123456789abcdef");
	assert_string_equal(r->node.model, "NVIDIA Jetson Board");
}

static void
test_garbage_rx_speed(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, TB "/0-1/rx_speed", "fast\n");
	put(f->root, TB "/0-3/rx_lanes", "many\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 2);
	assert_string_equal(r->errors[0].source, "thunderbolt");
	assert_string_equal(r->errors[0].message, "0-1/rx_speed: cannot parse \"fast\"");
	assert_string_equal(r->errors[1].message, "0-3/rx_lanes: cannot parse \"many\"");
	assert_int_equal(r->thunderbolt.n_ports, 4);
	assert_true(isnan(r->thunderbolt.ports[0].speed_gbps));
	assert_true(isnan(r->thunderbolt.ports[1].speed_gbps));
	/* The rest of the port is still known. */
	assert_int_equal(r->thunderbolt.ports[0].status, PORT_STATUS_CONNECTED);
	assert_int_equal(r->thunderbolt.ports[0].has_peer, 1);
	assert_string_equal(r->thunderbolt.ports[0].peer.name, "Mac Studio");
	assert_true(r->thunderbolt.ports[2].speed_gbps == 20.0);
}

static void
test_no_thunderbolt(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, "/sys/bus/thunderbolt");
	rm_at(f->root, "/sys/class/net/br0");
	rm_at(f->root, "/sys/class/net/thunderbolt0");
	rm_at(f->root, "/sys/class/net/thunderbolt1");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_int_equal(r->thunderbolt.n_ports, 0);
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_FALSE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_FALSE);
	assert_int_equal(r->thunderbolt.bridge.n_members, 0);
}

/* A Thunderbolt host with no usb4_port entries (older kernel, TB3). */
static void
test_thunderbolt_without_usb4_ports(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	for (int i = 1; i <= 7; i += 2) {
		char rel[128];
		snprintf(rel, sizeof(rel), TB "/0-0/usb4_port%d", i);
		rm_at(f->root, rel);
	}
	put(f->root, "/sys/class/net/br0/operstate", "down\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_int_equal(r->thunderbolt.n_ports, 3);    /* the plugged ones only */
	assert_peer_ports(&r->thunderbolt);
	assert_string_equal(r->thunderbolt.ports[2].receptacle, "0-5");
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_FALSE);
}

static void
test_no_infiniband(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, IB);
	mkdirs(f->root, IB);
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_int_equal(r->rdma.state, RDMA_STATE_DISABLED);
	assert_int_equal(r->rdma.n_devices, 0);

	rm_at(f->root, IB);
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_int_equal(r->rdma.state, RDMA_STATE_DISABLED);
	assert_int_equal(r->rdma.n_devices, 0);
}

static void
test_malformed_port_state(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, IB "/mlx5_0/ports/1/state", "ACTIVE\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 1);
	assert_string_equal(r->errors[0].source, "infiniband");
	assert_string_equal(r->errors[0].message, "mlx5_0 port 1: malformed state");
	assert_int_equal(r->rdma.devices[0].port_state, RDMA_PORT_UNKNOWN);
	assert_int_equal(r->rdma.devices[0].ipv4_gid, TRI_TRUE);
	assert_int_equal(r->rdma.devices[1].port_state, RDMA_PORT_DOWN);
}

/* Files that exist but cannot be read. */
static void
test_unreadable_files(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	unreadable(f->root, PC "/intel-rapl:0/energy_uj");
	unreadable(f->root, "/sys/class/dmi/id/product_serial");
	unreadable(f->root, "/sys/class/dmi/id/product_uuid");
	unreadable(f->root, "/sys/class/thermal/thermal_zone10/temp");
	assert_int_equal(collect_at(f->root, r), 0);
	print_errors(r);
	assert_int_equal(r->n_errors, 2);
	assert_int_equal(error_from(r, "rapl"), 0);
	assert_non_null(strstr(r->errors[0].message, "intel-rapl:0/energy_uj: "));
	assert_int_equal(error_from(r, "thermal"), 1);
	assert_string_equal(r->power.source, "");
	assert_true(isnan(r->power.cpu_watts));
	assert_true(isnan(r->power.system_watts));
	assert_string_equal(r->node.serial, "");        /* root-only: null, no error */
	assert_string_equal(r->node.hardware_uuid, "0123456789abcdef0123456789abcdef");
	assert_true(r->thermal.cpu_celsius == 45.0);
}

static void
test_garbage_power_and_thermal(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, PC "/intel-rapl:1/energy_uj", "-5\n");
	put(f->root, "/sys/class/thermal/thermal_zone2/temp", "hot\n");
	put(f->root, "/sys/class/thermal/thermal_zone10/temp", "999999\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 3);
	assert_string_equal(r->errors[0].source, "rapl");
	assert_string_equal(r->errors[0].message, "intel-rapl:1/energy_uj: not a number");
	assert_string_equal(r->errors[1].message, "thermal_zone2/temp: not a number");
	assert_string_equal(r->errors[2].message, "thermal_zone10/temp: 999999 is out of range");
	assert_true(isnan(r->power.cpu_watts));
	assert_true(isnan(r->thermal.cpu_celsius));
}

/* No RAPL, no thermal zones: null, and nothing to complain about. */
static void
test_no_power(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, PC);
	rm_at(f->root, "/sys/class/thermal");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_string_equal(r->power.source, "");
	assert_true(isnan(r->power.cpu_watts));
	assert_true(isnan(r->power.dram_watts));
	assert_true(isnan(r->power.system_watts));
	assert_true(isnan(r->thermal.cpu_celsius));
}

/* A FIFO and a link loop where files should be: errors, no hang. */
static void
test_hostile_files(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;
	char path[SYSFS_PATH_MAX];

	rm_at(f->root, "/proc/meminfo");
	snprintf(path, sizeof(path), "%s/proc/meminfo", f->root);
	assert_int_equal(mkfifo(path, 0644), 0);
	rm_at(f->root, "/etc/os-release");
	link_at(f->root, "/etc/os-release", "os-release2");
	link_at(f->root, "/etc/os-release2", "os-release");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 2);
	assert_string_equal(r->errors[0].source, "os-release");
	assert_non_null(strstr(r->errors[0].message, "symbolic links"));
	assert_string_equal(r->errors[1].source, "meminfo");
	assert_string_equal(r->node.hostname, "spark-1");
}

static void
test_bad_root(void **state)
{
	struct fixture *f = *state;
	char root[128];

	snprintf(root, sizeof(root), "%s/proc/meminfo", f->root);
	assert_int_equal(collect_at(root, &f->r), -1);
	assert_int_equal(f->r.n_errors, 1);
	assert_string_equal(f->r.errors[0].source, "linux");
	snprintf(root, sizeof(root), "%s/no/such/dir", f->root);
	assert_int_equal(collect_at(root, &f->r), -1);
}

/* ---- the machine running the test --------------------------------------- */

static void
test_real_root(void **state)
{
	(void)state;
	struct report *r = report_new();
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	assert_non_null(r);
	linux_set_rapl_gap_ms(20);
	assert_int_equal(collect_at("/", r), 0);
	print_errors(r);
	assert_true(r->memory.total_bytes != REPORT_NULL_I64);
	double phys = (double)pages * (double)psize;
	assert_true(fabs((double)r->memory.total_bytes - phys) <= phys * 0.01);
	assert_true(r->memory.free_ratio >= 0.0 && r->memory.free_ratio <= 1.0);
	assert_string_not_equal(r->node.os_version, "");
	assert_string_not_equal(r->node.hostname, "");
	assert_false(isnan(r->node.boot_time));
	assert_true(r->thunderbolt.n_ports >= 0);
	assert_true(r->rdma.state != RDMA_STATE_UNKNOWN);
	assert_int_equal(error_from(r, "meminfo"), -1);
	assert_int_equal(error_from(r, "os-release"), -1);
	/* NULL is the real root too. */
	assert_int_equal(collect_at(NULL, r), 0);
	assert_true(fabs((double)r->memory.total_bytes - phys) <= phys * 0.01);
	free(r);
}

/* ---- sysfs helpers ------------------------------------------------------ */

static void
test_sysfs_helpers(void **state)
{
	struct fixture *f = *state;
	char buf[16], big[SYSFS_PATH_MAX];
	int64_t v;
	int trunc;

	assert_true(sysfs_natcmp("thermal_zone2", "thermal_zone10") < 0);
	assert_true(sysfs_natcmp("intel-rapl:0:2", "intel-rapl:1") < 0);
	assert_int_equal(sysfs_natcmp("a007", "a7"), 0);
	assert_true(sysfs_natcmp("usb4_port3", "usb4_port3") == 0);
	assert_int_equal(sysfs_parse_i64(" 42\n", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(sysfs_parse_i64("42x", &v), -1);
	assert_int_equal(sysfs_parse_i64("", &v), -1);
	assert_int_equal(sysfs_parse_i64("99999999999999999999", &v), -1);
	assert_null(sysfs_root("/tmp/x", buf, 4));
	assert_string_equal(sysfs_root("/", buf, sizeof(buf)), "");
	assert_string_equal(sysfs_root(NULL, buf, sizeof(buf)), "");
	assert_string_equal(sysfs_root("/a/b//", buf, sizeof(buf)), "/a/b");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(sysfs_path(buf, sizeof(buf), "/root", "/%s", "abcdefghijk"), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(sysfs_read(f->root, big, buf, sizeof(buf), NULL), -1);
	/* Bounded reads: too long is an error unless truncation is asked for. */
	assert_int_equal(sysfs_read(f->root, "/proc/meminfo", buf, sizeof(buf), NULL), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(sysfs_read(f->root, "/proc/meminfo", buf, sizeof(buf), &trunc), 15);
	assert_int_equal(trunc, 1);
	assert_string_equal(buf, "MemTotal:      ");
	assert_int_equal(sysfs_read(f->root, "/proc", buf, sizeof(buf), NULL), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(sysfs_find_line(f->root, "/proc/stat", "btime", big, sizeof(big)), 16);
	assert_string_equal(big, "btime 1763700000");
	assert_int_equal(sysfs_find_line(f->root, "/proc/stat", "nope", big, sizeof(big)), -2);
	assert_int_equal(sysfs_link_base(f->root, "/sys/class/net/thunderbolt0/device", buf,
	    sizeof(buf)), 0);
	assert_string_equal(buf, "0-1.0");
	assert_int_equal(sysfs_exists(f->root, "/proc/nothing"), 0);
	assert_int_equal(sysfs_exists(f->root, "/proc/stat"), 1);
}

static void
test_sysfs_list(void **state)
{
	struct fixture *f = *state;
	struct sysfs_list l;

	assert_int_equal(sysfs_list(f->root, "/sys/class/thermal", "thermal_zone", &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.names[0], "thermal_zone0");
	assert_string_equal(l.names[1], "thermal_zone2");
	assert_string_equal(l.names[2], "thermal_zone10");
	sysfs_list_free(&l);
	assert_int_equal(sysfs_list(f->root, "/sys/nothing", NULL, &l), -1);
	assert_int_equal(errno, ENOENT);
	sysfs_list_free(&l);
	sysfs_list_free(NULL);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_healthy_host),
		T(test_root_with_slash),
		T(test_power_interval),
		T(test_power_wraps),
		cmocka_unit_test(test_rapl_watts),
		T(test_missing_meminfo),
		T(test_garbage_meminfo),
		T(test_malformed_meminfo_line),
		T(test_missing_os_release),
		T(test_os_release_quoting_and_arm),
		T(test_garbage_rx_speed),
		T(test_no_thunderbolt),
		T(test_thunderbolt_without_usb4_ports),
		T(test_no_infiniband),
		T(test_malformed_port_state),
		T(test_unreadable_files),
		T(test_garbage_power_and_thermal),
		T(test_no_power),
		T(test_hostile_files),
		T(test_bad_root),
		cmocka_unit_test(test_real_root),
		T(test_sysfs_helpers),
		T(test_sysfs_list),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
