/*
 * The first admin token: at start-up, before any other thread runs, the
 * inventory must hold an admin token that works.  With none, one is made
 * and written to the admin token file (mode 0600; proto/util/tokenfile.h),
 * or the token that file already holds (a fresh inventory beside an old
 * file) is registered.
 */
#ifndef TBMESH_ADMIN_TOKEN_H
#define TBMESH_ADMIN_TOKEN_H

struct ctrl;

/*
 * Make sure that c's inventory holds a working admin token, with path the
 * admin token file.  A file that names a token revoked or expired is a
 * warning while another admin token works, and an error when none does.
 * 0, or -1 (logged): the controller cannot start.
 */
int admin_token_ensure(struct ctrl *c, const char *path);

#endif
