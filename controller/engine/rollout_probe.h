/*
 * What a Mac shows of an OS update install under way: read from its process
 * list and its install log, so that a controller that lost the SSH session
 * of an install it sent (it was killed, or restarted) waits for the Mac to
 * restart instead of sending a second install.  Pure: the texts are read
 * by the caller (rollout_steps.c) with ROLLOUT_PROBE_PS and
 * ROLLOUT_PROBE_LOG.
 *
 * On a Mac the install goes on in softwareupdated after the SSH session
 * that started it is gone, so the client's process may be gone too; its
 * log lines remain.  Neither is proof that nothing runs: the caller never
 * sends a second install on what it does not find here, it only says what
 * it found.
 */
#ifndef TBMESH_ROLLOUT_PROBE_H
#define TBMESH_ROLLOUT_PROBE_H

#include <stddef.h>

/*
 * ps(1) on macOS: -A every process, -ww no width limit, -o the columns
 * (BSD ps keywords pid, etime, command: the man page's SYNOPSIS
 * "ps [-AaCcEefhjlMmrSTvwXx] [-O fmt | -o fmt]"); procps takes the same.
 */
#define ROLLOUT_PROBE_PS "ps -A -ww -o pid= -o etime= -o command="
/* The installer's log, where softwareupdated writes. */
#define ROLLOUT_PROBE_LOG "tail -n 400 /var/log/install.log"

struct ro_install_seen {
	long pid;                 /* a softwareupdate --install process; 0 none */
	char etime[24];           /* its elapsed time as ps prints it */
	int log_lines;            /* install.log lines of softwareupdate(d) since `since` */
	double log_last;          /* the newest one's time (unix seconds); 0 none */
	char log_text[160];       /* its message */
};

/*
 * From `ps -A -o pid= -o etime= -o command=`: the first process whose
 * command has a word naming softwareupdate (a path ending in it too, so
 * "/usr/sbin/softwareupdate" and "sudo softwareupdate" count) followed by
 * --install or -i.  0 found, -1 none.
 */
int rollout_probe_ps(const char *ps, struct ro_install_seen *seen);

/*
 * From install.log lines "YYYY-MM-DD HH:MM:SS+ZZ host process[pid]: message"
 * (the zone "+HH", "+HHMM" or "+HH:MM"): the lines of a process named
 * softwareupdate or softwareupdated at or after since (unix seconds),
 * counted, the newest kept.  Other lines are skipped.  Returns the count.
 */
int rollout_probe_log(const char *log, double since, struct ro_install_seen *seen);

/* A line for the rollout's status: what was found, or that nothing was. */
void rollout_probe_str(const struct ro_install_seen *seen, char *buf, size_t size);

/* The time of an install.log line, unix seconds; -1 when it has none. */
double rollout_probe_log_time(const char *line);

#endif
