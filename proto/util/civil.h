/* Calendar dates as days, for the parsers of dates people and logs write. */
#ifndef TBMESH_CIVIL_H
#define TBMESH_CIVIL_H

#include <stdint.h>

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (m 1..12). */
int64_t civil_days(int64_t y, int m, int d);

#endif
