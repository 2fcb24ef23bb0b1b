/*
 * prov_sudoers: the sudoers drop-in that lets a Mac's admin account run,
 * through `sudo -n` and without a password, exactly what tbmesh runs as
 * root on it (provisioning, deprovisioning, OS updates): `tbctl node add
 * --print-sudoers [--user U]` prints it.  Shared by tbctl and the
 * controller's tests; the commands are those controller/engine/provision_steps.c
 * and controller/run/rollout_steps.c send, with macOS's paths (sudo matches a
 * command by its full path).  Fixed arguments are given in full; where the
 * controller passes values (network service names and addresses, pmset and
 * sysctl values, softwareupdate's label and user), a "*" stands for them.
 */
#ifndef TBMESH_PROV_SUDOERS_H
#define TBMESH_PROV_SUDOERS_H

/* The tbmesh sudoers drop-in for user (NULL or "": "admin"), malloc'd (the
 * caller frees); NULL when out of memory or user is not a plain account
 * name ([A-Za-z0-9_.-], not starting with "-"). */
char *prov_sudoers(const char *user);

#endif
