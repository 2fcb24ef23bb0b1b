/*
 * Parsers of the memory commands' text: vm_stat, memory_pressure and the
 * memory sysctls.
 * See darwin_parse.h for the contracts and tests/fixtures/macos/ for what
 * the commands print.
 */
#include "darwin_parse.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "darwin_text.h"

/*
 * vm_stat
 */

static const struct {
	const char *label;
	size_t off;
	int required;
} vm_fields[] = {
	{ "Pages free", offsetof(struct darwin_vmstat, free), 1 },
	{ "Pages active", offsetof(struct darwin_vmstat, active), 1 },
	{ "Pages inactive", offsetof(struct darwin_vmstat, inactive), 1 },
	{ "Pages speculative", offsetof(struct darwin_vmstat, speculative), 0 },
	{ "Pages throttled", offsetof(struct darwin_vmstat, throttled), 0 },
	{ "Pages wired down", offsetof(struct darwin_vmstat, wired), 1 },
	{ "Pages purgeable", offsetof(struct darwin_vmstat, purgeable), 0 },
	{ "File-backed pages", offsetof(struct darwin_vmstat, file_backed), 0 },
	{ "Anonymous pages", offsetof(struct darwin_vmstat, anonymous), 0 },
	{ "Pages stored in compressor", offsetof(struct darwin_vmstat, stored_in_compressor), 0 },
	{ "Pages occupied by compressor",
	    offsetof(struct darwin_vmstat, occupied_by_compressor), 0 },
};
#define VM_NFIELDS (sizeof(vm_fields) / sizeof(vm_fields[0]))

static int64_t *
vm_field(struct darwin_vmstat *vm, size_t i)
{
	return (int64_t *)(void *)((char *)vm + vm_fields[i].off);
}

/* "Mach Virtual Memory Statistics: (page size of 16384 bytes)" */
static int
vm_page_size(const char *l, int64_t *size)
{
	const char *v = strstr(l, "page size of ");
	const char *end;

	if (v == NULL || dp_parse_digits(v + 13, size, &end) == -1)
		return -1;
	if (strncmp(end, " bytes)", 7) != 0 || *size < 512 || *size > (1 << 24) ||
	    (*size & (*size - 1)) != 0)
		return -1;
	return 0;
}

/* "Pages free:    1873452." into its field; 1 not a field, 0 done, -1 bad count. */
static int
vm_line(char *l, struct darwin_vmstat *vm)
{
	char *colon = strchr(l, ':'), *v;
	size_t n;

	if (colon == NULL)
		return 1;
	*colon = '\0';
	v = dp_trim(colon + 1);
	n = strlen(v);
	for (size_t i = 0; i < VM_NFIELDS; i++) {
		if (strcmp(dp_trim(l), vm_fields[i].label) != 0)
			continue;
		if (n < 2 || v[n - 1] != '.')	/* every count ends with "." */
			return -1;
		v[n - 1] = '\0';
		return dp_parse_count(v, vm_field(vm, i)) == -1 ? -1 : 0;
	}
	return 1;
}

int
darwin_parse_vm_stat(const char *text, struct darwin_vmstat *vm, char *err, size_t errlen)
{
	static const struct darwin_vmstat none = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
		-1 };
	struct darwin_vmstat t = none;
	char line[DP_LINE_MAX], label[64];
	const char *p = text;

	*vm = none;

	if (!dp_next_line(&p, line, sizeof(line)) || vm_page_size(line, &t.page_size) == -1) {
		dp_err(err, errlen, "no \"page size of N bytes\" header");
		return -1;
	}
	while (dp_next_line(&p, line, sizeof(line))) {
		report_strset(label, sizeof(label), line);
		if (vm_line(line, &t) == -1) {
			label[strcspn(label, ":")] = '\0';
			dp_err(err, errlen, "%s: not a page count", dp_trim(label));
			return -1;
		}
	}
	for (size_t i = 0; i < VM_NFIELDS; i++) {
		if (vm_fields[i].required && *vm_field(&t, i) < 0) {
			dp_err(err, errlen, "no \"%s\" line", vm_fields[i].label);
			return -1;
		}
	}
	*vm = t;
	return 0;
}

/* pages * page size, or null when unknown or too large. */
static int64_t
vm_bytes(int64_t pages, int64_t page_size)
{
	if (pages < 0 || page_size <= 0 || pages > REPORT_BYTES_MAX / page_size)
		return REPORT_NULL_I64;
	return pages * page_size;
}

void
darwin_vmstat_memory(const struct darwin_vmstat *vm, struct report_memory *m)
{
	int64_t free_pages = vm->free;

	if (free_pages >= 0 && vm->speculative > 0)
		free_pages += vm->speculative;
	m->free_bytes = vm_bytes(free_pages, vm->page_size);
	m->active_bytes = vm_bytes(vm->active, vm->page_size);
	m->inactive_bytes = vm_bytes(vm->inactive, vm->page_size);
	m->wired_bytes = vm_bytes(vm->wired, vm->page_size);
	m->compressed_bytes = vm_bytes(vm->occupied_by_compressor, vm->page_size);
}

/*
 * memory_pressure -Q, sysctl
 */

int
darwin_parse_memory_pressure(const char *text, double *free_ratio, char *err, size_t errlen)
{
	char line[DP_LINE_MAX];
	const char *p = text, *v, *end;
	int64_t pct;

	while (dp_next_line(&p, line, sizeof(line))) {
		if ((v = strstr(dp_trim(line), "free percentage:")) == NULL)
			continue;
		v += 16;
		v += strspn(v, " \t");
		if (dp_parse_digits(v, &pct, &end) == -1 || strcmp(end, "%") != 0 || pct > 100)
			break;
		*free_ratio = (double)pct / 100.0;
		return 0;
	}
	dp_err(err, errlen, "no \"free percentage: N%%\" line");
	return -1;
}

/* "2048.00M" after key ("total = ") in s, in bytes. */
static int
swap_value(const char *s, const char *key, int64_t *bytes)
{
	const char *v = strstr(s, key), *end;
	double x, mult;

	if (v == NULL || proto_parse_decimal(v + strlen(key), &x, &end) == -1)
		return -1;
	switch (*end) {
	case 'K':
		mult = 1024.0;
		break;
	case 'M':
		mult = 1048576.0;
		break;
	case 'G':
		mult = 1073741824.0;
		break;
	default:
		return -1;
	}
	if (end[1] != '\0' && !isspace((unsigned char)end[1]))
		return -1;
	x *= mult;
	if (x > (double)REPORT_BYTES_MAX)
		return -1;
	*bytes = (int64_t)llround(x);
	return 0;
}

int
darwin_parse_swapusage(const char *text, int64_t *total_bytes, int64_t *used_bytes,
    char *err, size_t errlen)
{
	char line[DP_LINE_MAX];
	const char *p = text;
	int64_t total, used;

	if (!dp_next_line(&p, line, sizeof(line)) || swap_value(line, "total = ", &total) == -1 ||
	    swap_value(line, "used = ", &used) == -1 || used > total) {
		dp_err(err, errlen, "not \"total = NM  used = NM ...\"");
		return -1;
	}
	*total_bytes = total;
	*used_bytes = used;
	return 0;
}

/* The whole output is one count. */
static int
sysctl_count(const char *text, int64_t *v)
{
	char line[DP_LINE_MAX];
	const char *p = text;

	if (!dp_next_line(&p, line, sizeof(line)) || dp_parse_count(dp_trim(line), v) == -1)
		return -1;
	if (p[strspn(p, " \t\r\n")] != '\0')	/* only blank lines may follow */
		return -1;
	return 0;
}

int
darwin_parse_memsize(const char *text, int64_t *bytes, char *err, size_t errlen)
{
	int64_t v;

	if (sysctl_count(text, &v) == -1 || v <= 0 || v > REPORT_BYTES_MAX) {
		dp_err(err, errlen, "not a memory size in bytes");
		return -1;
	}
	*bytes = v;
	return 0;
}

int
darwin_parse_wired_limit(const char *text, int64_t *bytes, char *err, size_t errlen)
{
	int64_t mb;

	if (sysctl_count(text, &mb) == -1 || mb > REPORT_BYTES_MAX / 1048576) {
		dp_err(err, errlen, "not a size in MB");
		return -1;
	}
	*bytes = mb * 1048576;
	return 0;
}
