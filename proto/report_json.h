/*
 * The report's JSON form: report_encode() and report_decode() are declared
 * in report.h; this header holds what a receiver needs besides them.
 */
#ifndef TBMESH_REPORT_JSON_H
#define TBMESH_REPORT_JSON_H

#include <stddef.h>

/*
 * report_decode() refuses input longer than this many bytes.  A server can
 * check a request body's length against it before buffering the body.
 */
#define REPORT_JSON_MAX ((size_t)1 << 20)

#endif
