/* The tbmesh release; the Makefile may override it with -DTBMESH_VERSION=... */
#ifndef TBMESH_VERSION_H
#define TBMESH_VERSION_H
#ifndef TBMESH_VERSION
#define TBMESH_VERSION "0.1.0"
#endif
#endif
