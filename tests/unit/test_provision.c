/*
 * provision: the survey parsers on real macOS outputs, the preflight
 * verdicts, the plan's steps and commands, the judges, and the runner
 * against a small stateful Mac (struct mac below) that answers the
 * commands a Mac answers: networksetup, pmset, sysctl, launchctl, cat,
 * test, shasum and file installs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision.h"

static char *
fixture(const char *name)
{
	return fx_fixture("macos", name, NULL);
}

static const char PMSET_FRESH[] =
    "System-wide power settings:\n"
    "Currently in use:\n"
    " standby              0\n"
    " Sleep On Power Button 1\n"
    " autorestart          0\n"
    " powernap             1\n"
    " networkoversleep     0\n"
    " disksleep            10\n"
    " sleep                1 (sleep prevented by sharingd)\n"
    " ttyskeepawake        1\n"
    " displaysleep         10\n"
    " tcpkeepalive         1\n"
    " womp                 1\n";

static const char DF_OUT[] =
    "Filesystem     1024-blocks     Used Available Capacity iused     ifree %iused  Mounted on\n"
    "/dev/disk3s1s1  971350180 11069412 800000000     2%  453019 4294967295    0%   /\n";

/* The facts of the Mac Studio of the fixtures (receptacles 1-6). */
/*
 * `networksetup -listnetworkserviceorder` (the form exo parses,
 * exo-explore/exo NetworkSetupHelper.swift lines 271-274): the bridge's
 * service found by its device, bridge0, whatever its name.
 */
#define SERVICE_ORDER "An asterisk (*) denotes that a network service is disabled.\n" \
	"(1) Ethernet\n(Hardware Port: Ethernet, Device: en0)\n\n" \
	"(2) Wi-Fi\n(Hardware Port: Wi-Fi, Device: en1)\n\n" \
	"(3) Thunderbolt Bridge\n(Hardware Port: Thunderbolt Bridge, Device: bridge0)\n\n"

static void
studio_facts(struct prov_facts *f)
{
	char *sw = fixture("sw_vers.txt"), *tb = fixture("system_profiler-thunderbolt-studio.json");
	static const char hw[] = "Hardware Port: Thunderbolt Bridge\nDevice: bridge0\n\n"
	    "Hardware Port: Thunderbolt 1\nDevice: en2\n\nHardware Port: Thunderbolt 2\n"
	    "Device: en3\n\nHardware Port: Thunderbolt 3\nDevice: en4\n\n";

	prov_facts_init(f);
	assert_int_equal(prov_facts_parse(f, PROV_F_SW_VERS, sw, 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_CPU, "Apple M3 Ultra\n", 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_THUNDERBOLT, tb, 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_HWPORTS, hw, 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_DF, DF_OUT, 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_RDMA, "enabled\n", 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_BRIDGE, SERVICE_ORDER, 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_PMSET, PMSET_FRESH, 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_WIRED, "0\n", 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_HOSTNAME, "mac1\n", 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_UID, "501\n", 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_USER, "admin\n", 0), 0);
	assert_int_equal(prov_facts_parse(f, PROV_F_SUDO, "", 0), 0);
	free(sw);
	free(tb);
}

static void
test_facts(void **state)
{
	(void)state;
	struct prov_facts f;
	char *hw = fixture("networksetup-listallhardwareports-macbook.txt");

	studio_facts(&f);
	assert_int_equal(f.os_major, 26);
	assert_int_equal(f.os_minor, 2);
	assert_string_equal(f.os_build, "25C56");
	assert_int_equal(f.n_ports, 6);
	assert_int_equal(f.n_tb5, 6);            /* four "Up to 120 Gb/s", two at 80 */
	assert_int_equal(f.free_kb, 800000000);
	assert_int_equal(f.rdma, 1);
	assert_int_equal(f.bridge_enabled, 1);
	assert_string_equal(f.bridge_service, "Thunderbolt Bridge");
	assert_int_equal(f.sleep_min, 1);
	assert_int_equal(f.autorestart, 0);
	assert_int_equal(f.wired_limit_mb, 0);
	assert_string_equal(f.hostname, "mac1");
	/* receptacle 2 is en3 here */
	for (int i = 0; i < f.n_ports; i++)
		if (strcmp(f.ports[i].receptacle, "2") == 0)
			assert_string_equal(f.ports[i].device, "en3");
	/* the MacBook's listing: receptacle 2 is en6 */
	prov_facts_init(&f);
	assert_int_equal(prov_facts_parse(&f, PROV_F_HWPORTS, hw, 0), 0);
	assert_int_equal(f.n_ports, 3);
	assert_string_equal(f.ports[1].receptacle, "2");
	assert_string_equal(f.ports[1].device, "en6");
	free(hw);
	/* garbage and failures leave the fact unknown, with a reason */
	assert_int_equal(prov_facts_parse(&f, PROV_F_RDMA, "maybe\n", 0), -1);
	assert_int_equal(f.rdma, -1);
	assert_non_null(strstr(f.errors[PROV_F_RDMA], "maybe"));
	assert_int_equal(prov_facts_parse(&f, PROV_F_SW_VERS, "ProductVersion: x\n", 0), -1);
	assert_int_equal(prov_facts_parse(&f, PROV_F_DF, "", 1), -1);
	assert_non_null(strstr(f.errors[PROV_F_DF], "status 1"));
	/* the bridge's service by its device, in another language and disabled */
	assert_int_equal(prov_facts_parse(&f, PROV_F_BRIDGE, "An asterisk (*) denotes that a "
	    "network service is disabled.\n(1) WLAN\n(Hardware Port: WLAN, Device: en1)\n\n"
	    "(*) Thunderbolt-Br\xc3\xbc""cke\n(Hardware Port: Thunderbolt-Br\xc3\xbc""cke, Device: "
	    "bridge0)\n\n", 0), 0);
	assert_string_equal(f.bridge_service, "Thunderbolt-Br\xc3\xbc""cke");
	assert_int_equal(f.bridge_enabled, 0);
	/* no service on bridge0 at all is "off", with nothing to turn off */
	assert_int_equal(prov_facts_parse(&f, PROV_F_BRIDGE, "An asterisk (*) denotes that a "
	    "network service is disabled.\n(1) Wi-Fi\n(Hardware Port: Wi-Fi, Device: en1)\n", 0), 0);
	assert_int_equal(f.bridge_enabled, 0);
	assert_string_equal(f.bridge_service, "");
	assert_int_equal(prov_facts_parse(&f, PROV_F_BRIDGE, "garbage\n", 0), -1);
}

static const struct prov_check_line *
line_of(const struct prov_preflight *p, const char *what)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->lines[i].what, what) == 0)
			return &p->lines[i];
	fail_msg("no preflight line %s", what);
	return NULL;
}

static void
test_preflight(void **state)
{
	(void)state;
	struct prov_facts f;
	struct prov_preflight p;

	studio_facts(&f);
	prov_preflight(&f, 0, &p);
	assert_int_equal(p.failed, 0);
	assert_int_equal(p.n, 7);
	assert_string_equal(line_of(&p, "root")->text,
	    "admin runs what needs root with sudo -n (no password)");
	assert_true(prov_needs_sudo(&f));
	assert_int_equal(line_of(&p, "macOS")->verdict, PROV_PASS);
	assert_string_equal(line_of(&p, "macOS")->text, "macOS 26.2 (25C56): 26.2 or later");
	assert_string_equal(line_of(&p, "chip")->text, "chip Apple M3 Ultra: Apple silicon");
	assert_string_equal(line_of(&p, "thunderbolt5")->text, "Thunderbolt 5: 6 of 6 ports");
	assert_int_equal(line_of(&p, "bridge")->verdict, PROV_WARN);
	assert_false(p.rdma_manual);

	f.os_major = 15;
	f.os_minor = 5;
	strcpy(f.os_version, "15.5");
	prov_preflight(&f, 0, &p);
	assert_int_equal(p.failed, 1);
	assert_int_equal(line_of(&p, "macOS")->verdict, PROV_FAIL);
	assert_non_null(strstr(line_of(&p, "macOS")->text, "needs 26.2 or later"));

	studio_facts(&f);
	strcpy(f.cpu, "Intel(R) Xeon(R) W-3245 CPU @ 3.20GHz");
	prov_preflight(&f, 0, &p);
	assert_int_equal(p.failed, 1);
	assert_non_null(strstr(line_of(&p, "chip")->text, "not Apple silicon"));

	studio_facts(&f);
	f.n_tb5 = 0;
	prov_preflight(&f, 0, &p);
	assert_int_equal(line_of(&p, "thunderbolt5")->verdict, PROV_FAIL);

	studio_facts(&f);
	prov_preflight(&f, INT64_C(900000000), &p);
	assert_int_equal(line_of(&p, "disk")->verdict, PROV_FAIL);
	assert_non_null(strstr(line_of(&p, "disk")->text, "needed"));

	studio_facts(&f);
	prov_facts_parse(&f, PROV_F_RDMA, "disabled\n", 0);
	prov_preflight(&f, 0, &p);
	assert_int_equal(p.failed, 0);
	assert_true(p.rdma_manual);
	assert_int_equal(line_of(&p, "rdma")->verdict, PROV_WARN);
	assert_non_null(strstr(line_of(&p, "rdma")->text, PROV_RDMA_MANUAL));

	prov_facts_init(&f);
	prov_preflight(&f, 0, &p);
	assert_int_equal(p.failed, 7);   /* nothing known: every line fails */
	assert_non_null(strstr(line_of(&p, "macOS")->text, "macOS version unknown"));
}

/* A TB4-only Mac: no port runs at 120 or 80 Gb/s. */
static void
test_tb4_only(void **state)
{
	(void)state;
	char *tb = fixture("system_profiler-thunderbolt-studio.json");
	struct prov_facts f;

	for (char *p = strstr(tb, "120 Gb/s"); p != NULL; p = strstr(p, "120 Gb/s"))
		memcpy(p, "040", 3);
	for (char *p = strstr(tb, "\"80 Gb/s"); p != NULL; p = strstr(p, "\"80 Gb/s"))
		memcpy(p + 1, "40", 2);
	prov_facts_init(&f);
	assert_int_equal(prov_facts_parse(&f, PROV_F_THUNDERBOLT, tb, 0), 0);
	assert_int_equal(f.n_ports, 6);
	assert_int_equal(f.n_tb5, 0);
	free(tb);
}

static void
test_addresses(void **state)
{
	(void)state;
	struct prov_cable c[] = {
		{ "mac1", "2", "mac2", "5" }, { "mac1", "3", "mac3", "1" },
		{ "mac2", "1", "mac3", "2" },
	};
	struct prov_settings s = { 0 };
	char err[128];

	assert_int_equal(prov_plan_addresses(c, 3, "mac1", &s, err, sizeof(err)), 2);
	assert_string_equal(s.addrs[0].receptacle, "2");
	assert_string_equal(s.addrs[0].ipv4, "192.168.0.1");
	assert_string_equal(s.addrs[1].ipv4, "192.168.1.1");
	assert_int_equal(prov_plan_addresses(c, 3, "mac3", &s, err, sizeof(err)), 2);
	assert_string_equal(s.addrs[0].receptacle, "1");
	assert_string_equal(s.addrs[0].ipv4, "192.168.1.2");
	assert_string_equal(s.addrs[1].ipv4, "192.168.2.2");
	c[0].a_receptacle = "";   /* "any port" on mac1's side of cable 0 */
	assert_int_equal(prov_plan_addresses(c, 3, "mac1", &s, err, sizeof(err)), 1);
	assert_string_equal(s.addrs[0].ipv4, "192.168.1.1");
	c[0].a_receptacle = "2";
	c[1].a_receptacle = "2";
	assert_int_equal(prov_plan_addresses(c, 3, "mac1", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cabled twice"));
	c[1].a_receptacle = "3";
	/* another base: cable k is A.B.k.0/30 */
	s.ip_base = "10.254.0.0";
	assert_int_equal(prov_plan_addresses(c, 3, "mac3", &s, err, sizeof(err)), 2);
	assert_string_equal(s.addrs[1].ipv4, "10.254.2.2");
	s.ip_base = "10.254.1.0";
	assert_int_equal(prov_plan_addresses(c, 3, "mac3", &s, err, sizeof(err)), -1);
	assert_string_equal(err, "the cables' base \"10.254.1.0\" is not A.B.0.0");
}

/*
 * The cables' /24s against the LAN: a home router's network 192.168.1.0/24
 * (the Mac at 192.168.1.23) takes cable 1's 192.168.1.0/30 with the
 * default base; another base clears it.
 */
static void
test_lan_check(void **state)
{
	(void)state;
	const char *lan[] = { "10.0.0.5", "192.168.1.23" }, *who[] = { "mac1", "mac2" };
	char err[256];

	assert_int_equal(prov_lan_check(NULL, 1, lan, who, 2, err, sizeof(err)), 0);
	assert_int_equal(prov_lan_check(NULL, 3, lan, who, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "cable 1's 192.168.1.0/30 is in the /24 of mac2's LAN address "
	    "192.168.1.23: give the cables another base (tbctl node add --ip-base A.B.0.0, such as "
	    "10.254.0.0)");
	assert_int_equal(prov_lan_check("10.254.0.0", 3, lan, who, 2, err, sizeof(err)), 0);
	assert_int_equal(prov_lan_check("10.0.0.0", 3, lan, who, 2, err, sizeof(err)), -1);
	assert_int_equal(prov_lan_check("bogus", 3, lan, who, 0, err, sizeof(err)), -1);
}

/* The judges, on what the commands print. */
static void
test_judges(void **state)
{
	(void)state;
	struct prov_step s = { 0 };
	const char *in;
	size_t inlen;
	char cmd[256];

	s.judge = PROV_J_PMSET;
	strcpy(s.key, "sleep");
	strcpy(s.expect, "0");
	assert_false(prov_step_done(&s, PMSET_FRESH, 0));
	assert_true(prov_step_done(&s, " sleep                0\n", 0));
	s.undo = PROV_U_PMSET;
	assert_int_equal(prov_step_undo(&s, PMSET_FRESH, 0, cmd, sizeof(cmd), &in, &inlen), 0);
	assert_string_equal(cmd, "pmset -a sleep 1");

	s.judge = PROV_J_GETINFO;
	strcpy(s.expect, "192.168.0.1");
	assert_true(prov_step_done(&s, "Manual Configuration\nIP address: 192.168.0.1\n"
	    "Subnet mask: 255.255.255.252\nRouter: (null)\n", 0));
	assert_false(prov_step_done(&s, "Manual Configuration\nIP address: 192.168.0.1\n"
	    "Subnet mask: 255.255.255.0\n", 0));
	assert_false(prov_step_done(&s, "DHCP Configuration\nIP address: 169.254.3.1\n", 0));

	s.judge = PROV_J_HAS_LINE;
	strcpy(s.expect, "tbmesh Thunderbolt 2");
	assert_true(prov_step_done(&s, "An asterisk (*) denotes that a network service is "
	    "disabled.\nWi-Fi\n*tbmesh Thunderbolt 2\n", 0));
	assert_false(prov_step_done(&s, "An asterisk\ntbmesh Thunderbolt 20\n", 0));
	s.judge = PROV_J_NO_LINE;
	assert_true(prov_step_done(&s, "An asterisk\ntbmesh Thunderbolt 20\n", 0));

	s.judge = PROV_J_DISABLED;
	assert_true(prov_step_done(&s, "Disabled\n", 0));
	assert_false(prov_step_done(&s, "Enabled\n", 0));
	assert_true(prov_step_done(&s, "Thunderbolt Bridge is not a recognized network service.\n",
	    0));

	s.judge = PROV_J_SHA256;
	strcpy(s.expect, "ab12");
	assert_true(prov_step_done(&s, "ab12  /usr/local/sbin/tbagentd\n", 0));
	assert_false(prov_step_done(&s, "ab123  /usr/local/sbin/tbagentd\n", 0));
	assert_false(prov_step_done(&s, "", 1));

	s.undo = PROV_U_FILE;
	strcpy(s.undo_path, "/Library/LaunchDaemons/x.plist");
	assert_int_equal(prov_step_undo(&s, "", 1, cmd, sizeof(cmd), &in, &inlen), 0);
	assert_string_equal(cmd, "rm -f '/Library/LaunchDaemons/x.plist'");
	assert_int_equal(prov_step_undo(&s, "old", 0, cmd, sizeof(cmd), &in, &inlen), 0);
	assert_int_equal(inlen, 3);
	assert_non_null(strstr(cmd, "cat > '/Library/LaunchDaemons/x.plist'.tbmesh-new"));
	s.undo = PROV_U_NONE;
	assert_int_equal(prov_step_undo(&s, "", 0, cmd, sizeof(cmd), &in, &inlen), -1);

	assert_int_equal(prov_shell_quote("it's", cmd, sizeof(cmd)), 0);
	assert_string_equal(cmd, "'it'\\''s'");
}

static const struct prov_step *
step_of(const struct prov_plan *p, const char *id)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->steps[i].id, id) == 0)
			return &p->steps[i];
	fail_msg("no step %s", id);
	return NULL;
}

static void
test_plan(void **state)
{
	(void)state;
	struct prov_facts f;
	struct prov_settings s = { .controller_url = "http://127.0.0.1:9470",
		.agent_sha256 = "00ff", .agent_size = 10, .wired_limit_mb = 458752, .n_addrs = 2,
		.addrs = { { "2", "192.168.0.1" }, { "3", "192.168.1.2" } } };
	static const char *order[] = { "bridge-off", "pmset-sleep", "pmset-autorestart",
		"wired-limit-plist", "wired-limit-daemon", "wired-limit-now", "location",
		"port-service-2", "port-ip-2", "port-enabled-2", "port-service-3", "port-ip-3",
		"port-enabled-3",
		"agent-binary", "agent-config", "agent-token", "agent-plist", "agent-daemon" };
	char err[256];
	struct prov_plan *p;

	studio_facts(&f);
	p = prov_plan_build(&f, &s, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(p->n, (int)(sizeof(order) / sizeof(order[0])));
	for (int i = 0; i < p->n; i++)
		assert_string_equal(p->steps[i].id, order[i]);
	assert_string_equal(step_of(p, "bridge-off")->apply,
	    "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off");
	assert_string_equal(step_of(p, "pmset-sleep")->apply, "pmset -a sleep 0");
	/* the ports' services in a location of their own, made as exo makes one */
	assert_string_equal(step_of(p, "location")->check, "networksetup -getcurrentlocation");
	assert_non_null(strstr(step_of(p, "location")->apply, "networksetup -createlocation tbmesh; } "
	    "&& networksetup -switchtolocation tbmesh && networksetup -listallhardwareports"));
	assert_non_null(strstr(step_of(p, "location")->apply,
	    "networksetup -createnetworkservice \"$hw\" \"$hw\""));
	{
		char cmd[256];
		const char *in;
		size_t inlen;

		assert_int_equal(prov_step_undo(step_of(p, "location"), "Office\n", 0, cmd,
		    sizeof(cmd), &in, &inlen), 0);
		assert_string_equal(cmd, "networksetup -switchtolocation 'Office' && networksetup "
		    "-deletelocation tbmesh");
		/* already in ours before the run: nothing to go back to */
		assert_int_equal(prov_step_undo(step_of(p, "location"), "tbmesh\n", 0, cmd,
		    sizeof(cmd), &in, &inlen), -1);
	}
	assert_string_equal(step_of(p, "pmset-autorestart")->apply, "pmset -a autorestart 1");
	assert_string_equal(step_of(p, "port-service-2")->apply,
	    "networksetup -createnetworkservice 'tbmesh Thunderbolt 2' 'Thunderbolt 2'");
	assert_string_equal(step_of(p, "port-ip-3")->apply,
	    "networksetup -setmanual 'tbmesh Thunderbolt 3' 192.168.1.2 255.255.255.252");
	assert_string_equal(step_of(p, "port-enabled-2")->apply,
	    "networksetup -setnetworkserviceenabled 'tbmesh Thunderbolt 2' on");
	assert_string_equal(step_of(p, "wired-limit-daemon")->apply,
	    "launchctl bootstrap system '/Library/LaunchDaemons/com.tbmesh.wiredlimit.plist'");
	assert_string_equal(step_of(p, "wired-limit-now")->apply,
	    "sysctl iogpu.wired_limit_mb=458752");
	assert_non_null(strstr(step_of(p, "wired-limit-plist")->input,
	    "<string>iogpu.wired_limit_mb=458752</string>"));
	assert_non_null(strstr(step_of(p, "wired-limit-plist")->input,
	    "<key>RunAtLoad</key>\n\t<true/>"));
	assert_string_equal(step_of(p, "agent-daemon")->apply,
	    "launchctl bootstrap system '/Library/LaunchDaemons/com.tbmesh.tbagentd.plist'");
	assert_non_null(strstr(step_of(p, "agent-config")->input,
	    "controller = http://127.0.0.1:9470\n"));
	assert_true(step_of(p, "agent-token")->input_secret);
	assert_true(step_of(p, "agent-binary")->input_binary);
	assert_false(p->rdma_manual);
	prov_plan_free(p);

	/* no wired limit: no LaunchDaemon for it; a root prefix moves every path */
	s.wired_limit_mb = 0;
	s.root = "/tmp/mac1";
	p = prov_plan_build(&f, &s, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(p->n, (int)(sizeof(order) / sizeof(order[0])) - 3);
	assert_non_null(strstr(step_of(p, "agent-plist")->input,
	    "<string>/tmp/mac1/usr/local/sbin/tbagentd</string>"));
	assert_non_null(strstr(step_of(p, "agent-binary")->check,
	    "'/tmp/mac1/usr/local/sbin/tbagentd'"));
	prov_plan_free(p);

	/* a port the Mac does not have */
	strcpy(s.addrs[1].receptacle, "9");
	assert_null(prov_plan_build(&f, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "Thunderbolt 9"));

	/* RDMA disabled ends with the manual step */
	strcpy(s.addrs[1].receptacle, "3");
	prov_facts_parse(&f, PROV_F_RDMA, "disabled\n", 0);
	p = prov_plan_build(&f, &s, err, sizeof(err));
	assert_non_null(p);
	assert_true(p->rdma_manual);
	assert_string_equal(PROV_RDMA_MANUAL, "boot into Recovery, Terminal, rdma_ctl enable, reboot");
	prov_plan_free(p);
}

static void
test_deprov(void **state)
{
	(void)state;
	struct prov_facts f;
	struct prov_plan *p;

	studio_facts(&f);
	p = prov_deprov_build(&f, "", 0, 0);
	assert_non_null(p);
	assert_string_equal(p->steps[0].id, "agent-stopped");
	assert_string_equal(p->steps[0].apply, "launchctl bootout system/com.tbmesh.tbagentd");
	for (int i = 0; i < p->n; i++)
		assert_null(strstr(p->steps[i].apply, "networksetup"));
	int without = p->n;
	prov_plan_free(p);
	p = prov_deprov_build(&f, "", 0, 1);
	assert_int_equal(p->n, without + 1 + 6 + 1);
	assert_string_equal(step_of(p, "location-removed")->apply, "{ [ \"$(networksetup "
	    "-getcurrentlocation)\" != tbmesh ] || networksetup -switchtolocation Automatic; } && "
	    "networksetup -deletelocation tbmesh");
	assert_string_equal(step_of(p, "port-service-removed-2")->apply,
	    "networksetup -removenetworkservice 'tbmesh Thunderbolt 2'");
	assert_string_equal(p->steps[p->n - 1].id, "bridge-on");
	assert_non_null(strstr(p->steps[p->n - 1].apply, "networksetup -setnetworkserviceenabled "
	    "\"$svc\" on"));
	/* done when bridge0's service is on, or there is none */
	assert_true(prov_step_done(&p->steps[p->n - 1], SERVICE_ORDER, 0));
	assert_false(prov_step_done(&p->steps[p->n - 1], "An asterisk (*) denotes that a network "
	    "service is disabled.\n(*) TB\n(Hardware Port: Thunderbolt Bridge, Device: bridge0)\n", 0));
	assert_true(prov_step_done(&p->steps[p->n - 1], "An asterisk (*) denotes that a network "
	    "service is disabled.\n(1) Wi-Fi\n(Hardware Port: Wi-Fi, Device: en1)\n", 0));
	prov_plan_free(p);
}

/* Root: logged in as root needs no sudo; an admin without sudo rights is refused, told how. */
static void
test_preflight_root(void **state)
{
	(void)state;
	struct prov_facts f;
	struct prov_preflight p;
	struct prov_check_line l;

	studio_facts(&f);
	assert_int_equal(prov_facts_parse(&f, PROV_F_SUDO, "sudo: a password is required\n", 1), 0);
	prov_preflight(&f, 0, &p);
	assert_int_equal(p.failed, 1);
	assert_int_equal(line_of(&p, "root")->verdict, PROV_FAIL);
	assert_string_equal(line_of(&p, "root")->text, "admin cannot run commands as root "
	    "without a password (sudo -n true: sudo: a password is required): install what "
	    "`tbctl node add --print-sudoers --user admin` prints as /etc/sudoers.d/tbmesh");
	assert_int_equal(prov_facts_parse(&f, PROV_F_UID, "0\n", 0), 0);
	prov_preflight_root(&f, &l);
	assert_int_equal(l.verdict, PROV_PASS);
	assert_string_equal(l.text, "logged in as root: no sudo needed");
	assert_false(prov_needs_sudo(&f));
	prov_facts_init(&f);
	prov_preflight_root(&f, &l);
	assert_int_equal(l.verdict, PROV_FAIL);   /* who logged in is unknown */
	assert_true(prov_needs_sudo(&f));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_preflight),
		cmocka_unit_test(test_preflight_root),
		cmocka_unit_test(test_lan_check),
		cmocka_unit_test(test_tb4_only),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_judges),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_deprov),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
