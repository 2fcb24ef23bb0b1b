/*
 * The sudoers drop-in of tbmesh (see prov_sudoers.h).  sudoers(5): a
 * Cmnd_Alias lists commands by full path with their arguments; "*" in an
 * argument matches anything, also spaces; ",", ":", "=" and "\" in an
 * argument are escaped with "\".  `visudo -cf FILE` checks the result
 * (tests/integration/provision_sudoers.sh does).
 */
#include "prov_sudoers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The files tbmesh writes as root, with the directory made for each. */
static const struct {
	const char *path, *dir, *mode;
} files[] = {
	{ "/usr/local/sbin/tbagentd", "/usr/local/sbin", "755" },
	{ "/usr/local/etc/tbmesh/tbagentd.conf", "/usr/local/etc/tbmesh", "644" },
	{ "/var/lib/tbagentd/bootstrap-token", "/var/lib/tbagentd", "600" },
	{ "/Library/LaunchDaemons/com.tbmesh.tbagentd.plist", "/Library/LaunchDaemons", "644" },
	{ "/Library/LaunchDaemons/com.tbmesh.wiredlimit.plist", "/Library/LaunchDaemons", "644" },
};

struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		size_t cap = (b->cap + (size_t)n) * 2;
		char *s = realloc(b->s, cap);

		if (s == NULL) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

static int
user_ok(const char *u)
{
	if (u[0] == '\0' || u[0] == '-' || strlen(u) > 64)
		return 0;
	for (; *u != '\0'; u++)
		if (!((*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z') ||
		    (*u >= '0' && *u <= '9') || *u == '_' || *u == '.' || *u == '-'))
			return 0;
	return 1;
}

/* The file commands: made, written, owned, moved in place, put back, removed. */
static void
file_cmds(struct buf *b)
{
	add(b, "Cmnd_Alias TBMESH_FILES = \\\n");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *p = files[i].path;

		add(b, "\t/bin/mkdir -p %s, \\\n", files[i].dir);
		add(b, "\t/usr/bin/tee %s.tbmesh-new, \\\n", p);
		add(b, "\t/usr/sbin/chown 0\\:0 %s.tbmesh-new, \\\n", p);
		add(b, "\t/bin/chmod %s %s.tbmesh-new, \\\n", files[i].mode, p);
		add(b, "\t/bin/mv -f %s.tbmesh-new %s, \\\n", p, p);
		add(b, "\t/bin/rm -f %s, \\\n", p);
		add(b, "\t/bin/rm -f %s %s.prev, \\\n", p, p);
	}
	add(b, "\t/bin/cp -p /usr/local/sbin/tbagentd /usr/local/sbin/tbagentd.prev, \\\n"
	    "\t/bin/mv -f /usr/local/sbin/tbagentd.prev /usr/local/sbin/tbagentd, \\\n"
	    "\t/bin/chmod 700 /var/lib/tbagentd, \\\n"
	    "\t/bin/rm -rf /var/lib/tbagentd, \\\n"
	    "\t/bin/test -s /var/lib/tbagentd/node-token, \\\n"
	    "\t/bin/test -s /var/lib/tbagentd/bootstrap-token\n");
}

char *
prov_sudoers(const char *user)
{
	struct buf b = { NULL, 0, 0, 0 };

	if (user == NULL || user[0] == '\0')
		user = "admin";
	if (!user_ok(user))
		return NULL;
	if ((b.s = malloc(4096)) == NULL)
		return NULL;
	b.cap = 4096;
	b.s[0] = '\0';
	add(&b, "# /etc/sudoers.d/tbmesh: what tbmesh (tbctl node add, node deprovision, "
	    "OS updates)\n"
	    "# runs as root on this Mac, as %s, through sudo -n: nothing else.\n"
	    "# Install: sudo visudo -cf tbmesh && sudo install -m 0440 -o root -g wheel "
	    "tbmesh /etc/sudoers.d/tbmesh\n", user);
	add(&b, "Cmnd_Alias TBMESH_NET = \\\n"
	    "\t/usr/sbin/networksetup -setnetworkserviceenabled *, \\\n"
	    "\t/usr/sbin/networksetup -createnetworkservice *, \\\n"
	    "\t/usr/sbin/networksetup -removenetworkservice *, \\\n"
	    "\t/usr/sbin/networksetup -setmanual *, \\\n"
	    "\t/usr/sbin/networksetup -setdhcp *, \\\n"
	    "\t/usr/sbin/networksetup -createlocation tbmesh, \\\n"
	    "\t/usr/sbin/networksetup -switchtolocation *, \\\n"
	    "\t/usr/sbin/networksetup -deletelocation tbmesh\n");
	add(&b, "Cmnd_Alias TBMESH_POWER = \\\n"
	    "\t/usr/bin/pmset -a sleep *, \\\n"
	    "\t/usr/bin/pmset -a autorestart *, \\\n"
	    "\t/usr/sbin/sysctl iogpu.wired_limit_mb\\=*\n");
	add(&b, "Cmnd_Alias TBMESH_LAUNCHD = \\\n"
	    "\t/bin/launchctl bootstrap system /Library/LaunchDaemons/com.tbmesh.tbagentd.plist, \\\n"
	    "\t/bin/launchctl bootstrap system /Library/LaunchDaemons/com.tbmesh.wiredlimit.plist, "
	    "\\\n"
	    "\t/bin/launchctl bootout system/com.tbmesh.tbagentd, \\\n"
	    "\t/bin/launchctl bootout system/com.tbmesh.wiredlimit, \\\n"
	    "\t/bin/launchctl kickstart -k system/com.tbmesh.tbagentd\n");
	file_cmds(&b);
	add(&b, "Cmnd_Alias TBMESH_UPDATE = \\\n"
	    "\t/usr/sbin/softwareupdate --download *, \\\n"
	    "\t/usr/sbin/softwareupdate --install *\n");
	/* the preflight's "sudo -n true": does the drop-in work? */
	add(&b, "Cmnd_Alias TBMESH_CHECK = /usr/bin/true\n");
	add(&b, "%s ALL = (root) NOPASSWD: TBMESH_CHECK, TBMESH_NET, TBMESH_POWER, "
	    "TBMESH_LAUNCHD, TBMESH_FILES, TBMESH_UPDATE\n", user);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
