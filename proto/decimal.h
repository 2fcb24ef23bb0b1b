/*
 * Reading plain decimals out of the text macOS commands print, shared by
 * proto/macos_json.c and the agent's darwin text parsers.
 */
#ifndef TBMESH_DECIMAL_H
#define TBMESH_DECIMAL_H

/*
 * A plain decimal at the start of s ("80", "0.5", "2048.00"): no sign, no
 * exponent, no "inf", at most 31 characters.  Sets *v and *end (past it)
 * and returns 0, or returns -1 when s does not start with one.
 */
int proto_parse_decimal(const char *s, double *v, const char **end);

#endif
