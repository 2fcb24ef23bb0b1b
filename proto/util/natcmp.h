/*
 * Natural order of names, shared by the agent (sysfs entries) and tbctl
 * (node names): runs of digits compare as numbers, so mac2 < mac10 and
 * thermal_zone2 < thermal_zone10.
 */
#ifndef TBMESH_NATCMP_H
#define TBMESH_NATCMP_H

/*
 * Compare a and b: byte by byte, except that where both have a run of
 * digits the runs compare as numbers of any length (leading zeros do not
 * count: a007 equals a7).  Returns <0, 0 or >0, as strcmp.
 */
int proto_natcmp(const char *a, const char *b);

#endif
