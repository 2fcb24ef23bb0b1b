/*
 * Is a job answering?  A one-token completion sent to rank 0's mlx-lm
 * server over a plain socket, with one deadline for the connection, the
 * request and the answer (the controller has no HTTP client library).
 * Only a completion proves the job alive: mlx-lm answers GET /health from
 * its HTTP thread alone, also when every rank is stuck in a collective
 * (ml-explore/mlx-lm d78bf58, mlx_lm/server.py:1595-1610 and 986-997).
 */
#ifndef TBMESH_JOB_PROBE_H
#define TBMESH_JOB_PROBE_H

#include <stddef.h>

/*
 * POST /v1/completions {"prompt": "ping", "max_tokens": 1, "temperature": 0}
 * to host:port within timeout seconds.  0 when the answer is status 200
 * with a "choices" array whose first entry has a "text" string (mlx-lm's
 * shape, server.py:1252-1317); -1 with why in err ("connection refused",
 * "no answer within 2 s", "status 500", "no choices in the answer").
 */
int job_probe(const char *host, int port, double timeout, char *err, size_t errlen);

/* 1 when something accepts a TCP connection on host:port within timeout, else 0. */
int job_port_open(const char *host, int port, double timeout);

#endif
