/*
 * What the field-table JSON encoders (report_json.c, api_json.c) share:
 * attaching values to a cJSON tree, and the null conventions of
 * tbmesh.report/1 for strings ("" is null), integers (REPORT_NULL_I64 is
 * null) and numbers (NAN and the infinities are null).
 */
#ifndef TBMESH_JSON_ENC_H
#define TBMESH_JSON_ENC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/*
 * Attach item to parent under key, which must outlive the tree (it is not
 * copied), or append it when key is NULL.  Takes ownership of item.
 * Returns -1 when item is NULL (out of memory) or cannot be attached.
 */
int json_enc_attach(cJSON *parent, const char *key, cJSON *item);

/*
 * The string in s[size] (s may be NULL); "" is null.  Reads no further
 * than size: an unterminated buffer gives its first size - 1 bytes.
 */
cJSON *json_enc_str(const char *s, size_t size);
/* v, or null for REPORT_NULL_I64. */
cJSON *json_enc_i64(int64_t v);
/* v as json_fmt_double writes it, or null when not finite. */
cJSON *json_enc_double(double v);

/*
 * Format finite v into buf (at least 32 bytes) as JSON: the shortest of
 * %.15g..%.17g that strtod() reads back to v, with a '.' whatever the locale.
 */
void json_fmt_double(char *buf, size_t size, double v);
/*
 * Format finite v into buf (at least 32 bytes) with 17 significant digits,
 * which always read back to v: one printf where json_fmt_double may take
 * three, for numbers that are written often and read by programs.  Returns
 * its length.
 */
size_t json_fmt_double17(char *buf, size_t size, double v);
/*
 * s as a JSON string, quotes included, into buf (at least 6 * strlen(s) + 3
 * bytes): '"', '\\' and control characters escaped, other bytes as they are.
 * Returns its length.
 */
size_t json_fmt_string(char *buf, const char *s);

#endif
