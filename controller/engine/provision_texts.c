/*
 * provision_texts: the files provisioning writes on a Mac: the agent's
 * LaunchDaemon (as packaging/com.tbmesh.tbagentd.plist), the LaunchDaemon
 * that sets the GPU wired limit at every boot, and the agent's config.
 * root prefixes every path in them ("" on a real Mac).  Each is malloc'd;
 * the caller frees it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision.h"

#define PLIST_HEAD \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" \
	"<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" " \
	"\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n" \
	"<plist version=\"1.0\">\n" \
	"<dict>\n"
#define PLIST_TAIL "</dict>\n</plist>\n"

static char *fmt_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
fmt_alloc(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

char *
prov_agent_plist(const char *root)
{
	return fmt_alloc(PLIST_HEAD
	    "\t<key>Label</key>\n"
	    "\t<string>" PROV_AGENT_LABEL "</string>\n"
	    "\t<key>ProgramArguments</key>\n"
	    "\t<array>\n"
	    "\t\t<string>%s" PROV_AGENT_BIN "</string>\n"
	    "\t\t<string>-f</string>\n"
	    "\t\t<string>%s" PROV_AGENT_CONF "</string>\n"
	    "\t\t<string>--syslog</string>\n"
	    "\t</array>\n"
	    "\t<key>EnvironmentVariables</key>\n"
	    "\t<dict>\n"
	    "\t\t<key>PATH</key>\n"
	    "\t\t<string>/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin</string>\n"
	    "\t</dict>\n"
	    "\t<key>RunAtLoad</key>\n"
	    "\t<true/>\n"
	    "\t<key>KeepAlive</key>\n"
	    "\t<true/>\n"
	    "\t<key>ThrottleInterval</key>\n"
	    "\t<integer>10</integer>\n"
	    "\t<key>ProcessType</key>\n"
	    "\t<string>Background</string>\n"
	    PLIST_TAIL, root, root);
}

char *
prov_wired_plist(int wired_limit_mb)
{
	return fmt_alloc(PLIST_HEAD
	    "\t<key>Label</key>\n"
	    "\t<string>" PROV_WIRED_LABEL "</string>\n"
	    "\t<key>ProgramArguments</key>\n"
	    "\t<array>\n"
	    "\t\t<string>/usr/sbin/sysctl</string>\n"
	    "\t\t<string>iogpu.wired_limit_mb=%d</string>\n"
	    "\t</array>\n"
	    "\t<key>RunAtLoad</key>\n"
	    "\t<true/>\n"
	    PLIST_TAIL, wired_limit_mb);
}

char *
prov_agent_config(const char *root, const char *controller_url, const char *name)
{
	int named = name != NULL && name[0] != '\0';

	return fmt_alloc(
	    "# tbagentd configuration, written by tbctl node add.\n"
	    "backend = darwin\n"
	    "controller = %s\n"
	    "bootstrap-token-file = %s" PROV_AGENT_BOOTSTRAP "\n"
	    "state-dir = %s" PROV_AGENT_STATE "\n"
	    "%s%s%s"
	    "log = syslog\n", controller_url, root, root, named ? "name = " : "",
	    named ? name : "", named ? "\n" : "");
}
