/*
 * Parsers of the JSON that macOS tools print, into report structs.
 *
 * Pure functions from text to structs: no I/O, no allocation that outlives
 * the call, safe to call from any thread.  The text need not be
 * NUL-terminated: len bytes are read.
 *
 * Every parser returns 0 when everything it read made sense, or -1 with a
 * one-line message in err (naming the offending key, e.g.
 * "SPThunderboltDataType[2].receptacle_1_tag.current_speed_key: \"fast\" is
 * not a speed").  What -1 leaves behind is stated per function: a parser
 * either leaves its outputs untouched (the text was not usable at all) or
 * fills what it could and leaves the bad fields null, so that the caller
 * records the error and keeps the rest.
 */
#ifndef TBMESH_MACOS_JSON_H
#define TBMESH_MACOS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* protocol_id_key of the XDomain service a Mac with RDMA enabled advertises */
#define MACOS_RDMA_PROTOCOL_ID 64087

/*
 * `system_profiler SPThunderboltDataType -json`: one port per bus, in the
 * order printed.  Fills tb->n_ports and, per port, receptacle, bus,
 * domain_uuid, status, link_status, speed_gbps (the negotiated speed of a
 * connected port; NAN when empty or shown as "Up to ..."), has_peer, peer,
 * via_hub and hub.  A peer is an entry under the bus's _items that has a
 * domain_uuid_key: another host.  Drives, docks and hubs have none and are
 * not peers.  The first such entry of _items itself is plugged straight
 * into the port: via_hub TRI_FALSE.  Without one, the first found depth
 * first under another device's _items (a Mac behind a dock or hub, which
 * nest _items) is still the peer, with via_hub TRI_TRUE and hub the name
 * (_name, else device_name_key) of the device at the first level, the one
 * the port's cable goes to.  No peer: via_hub TRI_NULL.  interface, ipv4
 * and tb->bridge are not touched: they come from other commands.
 *
 * Returns -1 and leaves *tb untouched when the text is not JSON or has no
 * SPThunderboltDataType array.  Returns -1 with *tb filled when a value had
 * the wrong type or could not be read (that field is null) or when there
 * were more than REPORT_PORTS_MAX buses (the first REPORT_PORTS_MAX kept).
 */
int macos_parse_thunderbolt(const char *json, size_t len, struct report_thunderbolt *tb,
    char *err, size_t errlen);

/*
 * `system_profiler SPHardwareDataType -json`: node->model (machine_model),
 * chip (chip_type), serial (serial_number), hardware_uuid (platform_UUID);
 * other node fields are not touched.  *memory_bytes gets physical_memory
 * ("512 GB" is 512 GiB) or REPORT_NULL_I64 when absent.
 *
 * Returns -1 leaving both untouched when the text is not JSON or has no
 * SPHardwareDataType entry; -1 with the rest filled when a value had the
 * wrong type or could not be read.
 */
int macos_parse_hardware(const char *json, size_t len, struct report_node *node,
    int64_t *memory_bytes, char *err, size_t errlen);

/*
 * One sample of `macmon pipe -s 1` (one JSON object; text after the first
 * object is ignored).  power: source "macmon", system_watts (sys_power),
 * cpu_watts, gpu_watts, ane_watts, dram_watts (ram_power).  thermal:
 * cpu_celsius (temp.cpu_temp_avg), gpu_celsius (temp.gpu_temp_avg).
 * Absent values stay as they were (null after report_init()).
 *
 * Returns -1 leaving both untouched when the text is not a JSON object or
 * holds none of the power values; -1 with the rest filled when a value had
 * the wrong type or was out of range.
 */
int macos_parse_macmon(const char *json, size_t len, struct report_power *power,
    struct report_thermal *thermal, char *err, size_t errlen);

#endif
