/*
 * `sysctl NAME...`: several names in one call, the way the darwin
 * collector reads memory, boot time and host name every collection.
 *
 * macOS's sysctl prints one "NAME: VALUE" line a name (": " is its
 * separator: apple-oss-distributions/system_cmds, sysctl/sysctl.c L1350 at
 * 95e4892), a multi-line value (none of ours) aside; an unknown name is a
 * warning on stderr ("unknown oid 'NAME'", L484-498) and the others are
 * still printed; the exit status is the number of warnings (L288-291).
 * So the names that were printed are read whatever the exit status.
 * Pure: no I/O, no allocation.
 */
#ifndef TBMESH_DARWIN_SYSCTL_H
#define TBMESH_DARWIN_SYSCTL_H

#include <stddef.h>

/*
 * The value of name in text (the output of `sysctl NAME...` without -n),
 * with a newline after it, into dst (what the single-name parsers of
 * darwin_parse.h read).  Returns 0, or -1 when no complete line
 * "NAME: VALUE" is there or the value does not fit.
 */
int darwin_sysctl_value(const char *text, const char *name, char *dst, size_t dstlen);

/*
 * `sysctl -n kern.memorystatus_level`: the free percentage that
 * `memory_pressure -Q` prints as "System-wide memory free percentage",
 * 0..100 -> 0..1.  memory_pressure gets it from memorystatus_get_level()
 * (system_cmds memory_pressure/memory_pressure.c L129-140, printed at
 * L685-686), which copies out the kernel's memorystatus_level, the variable
 * the sysctl kern.memorystatus_level reads (apple-oss-distributions/xnu,
 * bsd/kern/kern_memorystatus.c L862-871 at e3723e1).
 */
int darwin_parse_memorystatus_level(const char *text, double *free_ratio, char *err,
    size_t errlen);

#endif
