/*
 * The parsers of macOS commands' text (agent/darwin_parse_*.c over
 * agent/darwin_text.c): networksetup, ifconfig (one and -a), rdma_ctl,
 * ibv_devices, ibv_devinfo, vm_stat, memory_pressure, sysctl (swapusage,
 * memsize, wired limit, boottime), sw_vers, hostname and powermetrics,
 * each on every input, as the NUL-terminated string runcmd() captures.
 * (macmon's JSON is fuzz_macos_json's.)
 */
#include "fuzz.h"
#include "darwin_parse.h"

static void
parse_network(const char *t, char *err, size_t errlen)
{
	static struct darwin_hwports hp;
	static struct darwin_ifconfig ifc;
	static struct darwin_iflist l;
	struct darwin_ibv_devices dev;
	struct darwin_ibv_devinfo info;
	enum rdma_state rdma;

	darwin_parse_hwports(t, &hp, err, errlen);
	darwin_parse_ifconfig(t, &ifc, err, errlen);
	darwin_parse_ifconfig_all(t, &l, err, errlen);
	darwin_parse_rdma_ctl(t, &rdma, err, errlen);
	darwin_parse_ibv_devices(t, &dev, err, errlen);
	darwin_parse_ibv_devinfo(t, &info, err, errlen);
}

static void
parse_system(const char *t, char *err, size_t errlen)
{
	static struct report r;
	struct darwin_vmstat vm;
	int64_t a, b;
	double d;
	char host[256];

	report_init(&r);
	if (darwin_parse_vm_stat(t, &vm, err, errlen) == 0)
		darwin_vmstat_memory(&vm, &r.memory);
	darwin_parse_memory_pressure(t, &d, err, errlen);
	darwin_parse_swapusage(t, &a, &b, err, errlen);
	darwin_parse_memsize(t, &a, err, errlen);
	darwin_parse_wired_limit(t, &a, err, errlen);
	darwin_parse_sw_vers(t, &r.node, err, errlen);
	darwin_parse_boottime(t, &d, err, errlen);
	darwin_parse_hostname(t, host, sizeof(host), err, errlen);
	darwin_parse_powermetrics(t, &r.power, err, errlen);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	char *text;

	text = fuzz_cstr(data, size);
	if (text == NULL)
		return 0;
	parse_network(text, err, sizeof(err));
	parse_system(text, err, sizeof(err));
	free(text);
	return 0;
}
