/*
 * The rollout engine: which node of an OS update campaign to work on next,
 * what each step runs, and what a step's outcome does to the campaign.
 * Pure: no SSH, no SQLite, no clock (now is passed in).  The campaign
 * runner (rollout_run.c) does the I/O and records every step before and
 * after it runs; the structs are those of the API (rollout_api.h).
 *
 * A node goes pending -> preflight -> cordon -> drain -> download ->
 * install -> wait -> verify -> uncordon -> done, or preflight -> skipped
 * (already at the target).  A failed step makes the node "failed" and halts
 * the campaign.  A node counts against max_unavailable from preflight
 * until done, and while failed (it stays cordoned); lockstep lets every
 * node in at once.  New nodes start only inside the window.
 */
#ifndef TBMESH_ROLLOUT_H
#define TBMESH_ROLLOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rollout_api.h"

enum ro_outcome {
	RO_OUT_OK,          /* the step is done: go to the next */
	RO_OUT_NOT_YET,     /* a wait that is not over: ask again later */
	RO_OUT_AT_TARGET,   /* preflight: already on the target, skip the node */
	RO_OUT_FAIL         /* the step failed: halt */
};

/* Nodes that count against max_unavailable. */
int rollout_in_progress(const struct ro_campaign *c);

/* 1 when now (unix seconds) is inside the campaign's window, or it has none. */
int rollout_in_window(const struct ro_campaign *c, double now);

/*
 * The node to work on next: a pending node that may start now (campaign
 * running, in its window, room under max_unavailable), else a node in a
 * step, searched from the one after node `after` (round robin; -1 from the
 * start).
 * Returns its index, or -1 when there is nothing to do.
 */
int rollout_next(const struct ro_campaign *c, int after, double now);

/*
 * Make node i's step start (when it is pending, it goes to preflight).
 * Sets running and since.
 */
void rollout_begin(struct ro_campaign *c, int i, double now);

/*
 * The outcome of node i's step: advance it, skip it, keep it, or fail it and
 * halt the campaign with "NODE: STEP: reason".  Finishes the campaign when
 * every node is done or skipped.  reason may be NULL.
 */
void rollout_outcome(struct ro_campaign *c, int i, enum ro_outcome out, const char *reason,
    double now);

/* Operator commands; 0, or -1 with why it is refused in err. */
int rollout_pause(struct ro_campaign *c, double now, char *err, size_t errlen);
int rollout_resume(struct ro_campaign *c, double now, char *err, size_t errlen);
int rollout_abort(struct ro_campaign *c, double now, char *err, size_t errlen);
/*
 * The failed node goes back to the step that failed (a node that did not
 * come back after its install goes back to install: the operator asks for
 * the install again, which the install step skips when the Mac restarted
 * meanwhile); a halted campaign runs again.
 */
int rollout_retry(struct ro_campaign *c, const char *node, double now, char *err,
    size_t errlen);

/*
 * The shell command lines step runs on a node, into cmds (at most max);
 * returns how many.  label is the softwareupdate label ("" not yet known:
 * "<label of TARGET>" is shown), user the account of --user.  The password
 * is never part of a command: it goes to standard input.
 */
int rollout_commands(const struct ro_campaign *c, enum ro_step step, const char *user,
    char cmds[][RO_CMD_MAX + 1], int max);

/*
 * From `softwareupdate --list`: the label of the update to target (the
 * given label when it is listed, else the item whose label or version names
 * target) and its size in KiB.  0, or -1 with why in err.
 */
int rollout_find_update(const char *list, const char *target, const char *want_label,
    char *label, size_t labelsize, int64_t *size_kib, char *err, size_t errlen);

/* From `df -k /`: the available KiB of the root file system; 0 or -1. */
int rollout_df_avail(const char *df, int64_t *kib);

/* 1 when a reported version or build is the target. */
int rollout_at_target(const char *target, const char *version, const char *build);

/* A word safe inside single quotes on a shell command line (no quote, no newline). */
int rollout_shell_word_ok(const char *s);

/*
 * Privileges and credentials (DESIGN.md, "Rolling OS updates"): the SSH
 * user runs softwareupdate --download and --install as root through
 * `sudo -n` (root itself needs no sudo); on Apple silicon the account of
 * --user/--stdinpass must be a volume owner of the system volume.
 */
#define ROLLOUT_SUDO "sudo -n "
/* Where the detached install writes its output on the Mac (the SSH user's). */
#define ROLLOUT_INSTALL_LOG "$HOME/Library/Logs/tbmesh-softwareupdate.log"
/* The line the detached install ends its log with: this, then the exit status. */
#define ROLLOUT_INSTALL_END "tbmesh: softwareupdate exited with status "

/*
 * From `dscl . -read /Users/NAME GeneratedUID` ("GeneratedUID: UUID"): the
 * UUID into guid.  0, or -1 when there is none.
 */
int rollout_dscl_guid(const char *out, char *guid, size_t size);

/*
 * From `diskutil apfs listcryptousers /` (entries "+-- UUID" followed by
 * their "Type:" and "Volume Owner: Yes|No" lines): 1 when the entry of guid
 * says "Volume Owner: Yes", 0 when it is listed but not an owner, -1 when
 * it is not listed.
 */
int rollout_volume_owner(const char *list, const char *guid);

/*
 * From the detached install's log: -1 while it has no end line, else the
 * exit status it ended with; the last line before it (softwareupdate's
 * last word) into last.
 */
int rollout_install_ended(const char *log, char *last, size_t size);

#endif
