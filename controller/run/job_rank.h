/*
 * One rank of a job on its node, over SSH (node_ssh.h): start it, stop it
 * and check it gone, read its process (alive, CPU seconds, RSS), read its
 * output.  The shell lines are job_env.h's.  None of these takes the
 * store's lock but to find the node's SSH settings.
 */
#ifndef TBMESH_JOB_RANK_H
#define TBMESH_JOB_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "job_api.h"
#include "job_env.h"

struct ctrl;

/*
 * Start rank r of j (generation j->generation) as e says.  A copy of the
 * same generation already running is adopted; one of another generation
 * is stopped first.  0 with its pid; -1 with why in err.
 */
int job_rank_start(struct ctrl *c, const struct job *j, const struct job_env *e, int r,
    int64_t *pid, char *err, size_t errlen);
/* Stop rank r (its pid file on the node): 0 when it is gone, -1 with why. */
int job_rank_stop(struct ctrl *c, const struct job *j, int r, char *err, size_t errlen);
/*
 * Read every rank's process (one SSH command per node): alive, cpu_seconds,
 * rss_bytes and seen_at set at now for the ranks whose node answered, and
 * runnable[rank] (JOB_RANKS_MAX of them; may be NULL) 1 for a process on a
 * CPU or waiting for one.  The number of nodes that did not answer, with
 * the last one's why in err.
 */
int job_rank_ps(struct ctrl *c, struct job *j, double now, int *runnable, char *err,
    size_t errlen);
/*
 * Rank r's output (rank<r>.log on its node, job_env_tail_line): from byte
 * offset from (-1: its last max_lines lines), at most max_lines complete
 * lines and JOB_LOG_BYTES_MAX bytes, into l (job_env_tail_read; l's rank
 * and node left alone, its lines malloc'd whatever this returns).  0, or
 * -1 with why in err (the node did not answer).
 */
int job_rank_log(struct ctrl *c, const struct job *j, int r, int64_t from, int max_lines,
    struct job_log *l, char *err, size_t errlen);
/*
 * The last lines of rank r's output, a last line not ended too: *out
 * malloc'd text.  0, or -1 with why.
 */
int job_rank_tail(struct ctrl *c, const struct job *j, int r, int lines, char **out,
    char *err, size_t errlen);

#endif
