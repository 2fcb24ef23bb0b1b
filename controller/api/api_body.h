/*
 * The rule for the routes that take no request body (pause, resume,
 * abort, replan, a plan proposal, the DELETEs): nothing, or an empty JSON
 * object.  A body with fields is refused rather than ignored, as a
 * misspelt field is on the routes that take some.
 */
#ifndef TBMESH_API_BODY_H
#define TBMESH_API_BODY_H

#include "api_server.h"

/* 0 when rq has no body or "{}"; else -1 with a 400 in rs. */
int api_body_none(struct api_req *rq, struct api_resp *rs);

#endif
