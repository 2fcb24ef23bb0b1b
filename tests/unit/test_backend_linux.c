/*
 * The linux backend against the fake host of linux_tree.h: the healthy
 * host whole, then one broken or missing file at a time for identity,
 * memory and RDMA, then the real root of the machine running the test.
 * Also the sysfs helpers.  Thunderbolt and the bridge are in
 * test_linux_tb.c, RAPL and thermal zones in test_linux_power.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_tree.h"

/* ---- the healthy host -------------------------------------------------- */

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
		T(test_missing_meminfo),
		T(test_garbage_meminfo),
		T(test_malformed_meminfo_line),
		T(test_missing_os_release),
		T(test_os_release_quoting_and_arm),
		T(test_no_infiniband),
		T(test_malformed_port_state),
		T(test_hostile_files),
		T(test_bad_root),
		cmocka_unit_test(test_real_root),
		T(test_sysfs_helpers),
		T(test_sysfs_list),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
