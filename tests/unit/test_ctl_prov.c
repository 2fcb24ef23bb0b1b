/*
 * tbctl node add / node deprovision: their options parsed into the request
 * and the run printed as it goes, from the controller's statuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "prov_api.h"

#define FP "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"

static const struct ctl_cmd add_cmd = { "node add", "HOST [OPTIONS]", "",
	CTL_OPT(USER) | CTL_OPT(KEY) | CTL_OPT(PORT) | CTL_OPT(CLUSTER) | CTL_OPT(FINGERPRINT) |
	CTL_OPT(ACCEPT_NEW) | CTL_OPT(PRINT_SUDOERS) | CTL_OPT(AGENT_BINARY) |
	CTL_OPT(WIRED_LIMIT_MB) | CTL_OPT(NAME) | CTL_OPT(IP_BASE) | CTL_OPT(DRY_RUN),
	1, 1, NULL, NULL };

static int
parse(int argc, char **argv, struct prov_api_request *req, char *err, size_t errlen)
{
	struct ctl_args a;

	if (ctl_parse_args(&add_cmd, argc, argv, &a, err, errlen) != 0)
		return -2;
	return ctl_prov_request(&a, "/home/op", req, err, errlen);
}

static void
test_request(void **state)
{
	(void)state;
	char *argv[] = { "127.0.0.2", "--user", "admin", "--key", "keys/id_ed25519", "--port=2222",
		"--cluster", "studio4", "--fingerprint", FP, "--agent-binary",
		"/opt/tbmesh/darwin/tbagentd", "--wired-limit-mb", "458752", "--name", "mac1",
		"--dry-run" };
	struct prov_api_request req;
	char err[256];

	assert_int_equal(parse(17, argv, &req, err, sizeof(err)), 0);
	assert_string_equal(req.host, "127.0.0.2");
	assert_string_equal(req.user, "admin");
	assert_string_equal(req.key_file, "/home/op/keys/id_ed25519");
	assert_int_equal(req.port, 2222);
	assert_string_equal(req.cluster, "studio4");
	assert_string_equal(req.node, "mac1");
	assert_string_equal(req.fingerprint, FP);
	assert_string_equal(req.agent_binary, "/opt/tbmesh/darwin/tbagentd");
	assert_int_equal(req.wired_limit_mb, 458752);
	assert_true(req.dry_run);
	assert_false(req.accept_new);

	char *argv2[] = { "mac1.local", "--accept-new" };
	assert_int_equal(parse(2, argv2, &req, err, sizeof(err)), 0);
	assert_true(req.accept_new);
	assert_int_equal(req.wired_limit_mb, -1);
	assert_int_equal(req.port, 0);
}

static void
test_request_refused(void **state)
{
	(void)state;
	static const struct { int argc; char *argv[4]; const char *says; } bad[] = {
		{ 3, { "h", "--fingerprint", FP, NULL }, NULL },
		{ 4, { "h", "--fingerprint", FP, "--accept-new" },
		  "node add: --fingerprint and --accept-new: give one, not both" },
		{ 3, { "h", "--port", "x", NULL }, "node add: --port: \"x\" is not a port" },
		{ 3, { "h", "--wired-limit-mb", "-5", NULL }, "--wired-limit-mb: \"-5\"" },
		{ 3, { "h", "--user", "a b", NULL }, "node add: --user: must be a user name" },
		{ 3, { "h", "--cluster", "x/y", NULL }, "node add: --cluster: not a valid name" },
		{ 1, { "h;reboot", NULL, NULL, NULL }, "node add: HOST: must be a host name" },
		{ 2, { "h", "--network", NULL, NULL }, "unknown option --network" },
		{ 2, { "h", "--key", NULL, NULL }, "--key needs a value" },
	};
	struct prov_api_request req;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i].argc, (char **)bad[i].argv, &req, err, sizeof(err));
		if (bad[i].says == NULL) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_true(rc != 0);
		if (strstr(err, bad[i].says) == NULL)
			fail_msg("case %zu: got \"%s\", wanted \"%s\"", i, err, bad[i].says);
	}
}

static struct prov_api_status *
status(const char *state)
{
	struct prov_api_status *s = calloc(1, sizeof(*s));

	s->id = 3;
	strcpy(s->kind, "add");
	strcpy(s->host, "127.0.0.2");
	strcpy(s->state, state);
	strcpy(s->fingerprint, FP);
	s->n_preflight = 2;
	strcpy(s->preflight[0].verdict, "pass");
	strcpy(s->preflight[0].text, "macOS 26.2 (25C56): 26.2 or later");
	strcpy(s->preflight[1].verdict, "warn");
	strcpy(s->preflight[1].text, "RDMA: disabled; manual step at the end");
	s->n_steps = 1;
	strcpy(s->steps[0].step, "bridge-off");
	strcpy(s->steps[0].title, "Thunderbolt Bridge off");
	strcpy(s->steps[0].outcome, "applied");
	strcpy(s->steps[0].command, "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off");
	s->started_at = 1;
	s->finished_at = NAN;
	return s;
}

static char *
printed(struct prov_api_status *s, int *lines, int *steps)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(ctl_prov_print(f, s, lines, steps), 0);
	fclose(f);
	return buf;
}

static void
test_print_as_it_goes(void **state)
{
	(void)state;
	struct prov_api_status *s = status("running");
	int lines = 0, steps = 0;
	char *out = printed(s, &lines, &steps);

	assert_string_equal(out,
	    "Host key: " FP "\n"
	    "Preflight\n"
	    "  pass macOS 26.2 (25C56): 26.2 or later\n"
	    "  warn RDMA: disabled; manual step at the end\n"
	    "Steps\n"
	    "  applied          bridge-off             Thunderbolt Bridge off\n"
	    "                   $ networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off\n");
	free(out);
	/* the next poll: only what is new, then the end */
	s->n_steps = 2;
	strcpy(s->steps[1].step, "agent-daemon");
	strcpy(s->steps[1].title, "tbagentd started");
	strcpy(s->steps[1].outcome, "done already");
	strcpy(s->state, "ready");
	strcpy(s->node, "mac1");
	strcpy(s->manual, "boot into Recovery, Terminal, rdma_ctl enable, reboot");
	out = printed(s, &lines, &steps);
	assert_string_equal(out,
	    "  done already     agent-daemon           tbagentd started\n"
	    "\nmac1 is ready.\n"
	    "Manual step for mac1: boot into Recovery, Terminal, rdma_ctl enable, reboot\n");
	free(out);
	free(s);
	assert_false(ctl_prov_ended("running"));
	assert_false(ctl_prov_ended("waiting"));
	assert_true(ctl_prov_ended("ready"));
}

static void
test_print_failed(void **state)
{
	(void)state;
	struct prov_api_status *s = status("failed");
	int lines = 0, steps = 0;
	char *out;

	s->n_steps = 4;
	strcpy(s->steps[1].step, "port-ip-3");
	strcpy(s->steps[1].outcome, "FAILED");
	strcpy(s->steps[1].title, "Thunderbolt 3: 192.168.1.2/30");
	strcpy(s->steps[1].detail, "exit status 4: ** Error: The parameters were not valid.");
	strcpy(s->steps[2].step, "pmset-sleep");
	strcpy(s->steps[2].title, "no system sleep");
	strcpy(s->steps[2].outcome, "undone");
	strcpy(s->steps[3].step, "bridge-off");
	strcpy(s->steps[3].title, "Thunderbolt Bridge off");
	strcpy(s->steps[3].outcome, "undone");
	strcpy(s->failed_step, "port-ip-3");
	strcpy(s->reason, "exit status 4: ** Error: The parameters were not valid.");
	out = printed(s, &lines, &steps);
	assert_non_null(strstr(out, "\nStopped at port-ip-3: exit status 4: ** Error: The "
	    "parameters were not valid.\nUndone: pmset-sleep, bridge-off\n"));
	free(out);
	/* failed before any step: the reason alone */
	s->failed_step[0] = '\0';
	s->n_steps = 0;
	strcpy(s->reason, "127.0.0.2: unknown host key SHA256:x");
	lines = steps = 0;
	out = printed(s, &lines, &steps);
	assert_string_equal(strstr(out, "\nFailed"), "\nFailed: 127.0.0.2: unknown host key SHA256:x\n");
	free(out);
	/* a dry run */
	strcpy(s->state, "done");
	s->dry_run = 1;
	s->failed_step[0] = '\0';
	lines = steps = 4;
	out = printed(s, &lines, &steps);
	assert_string_equal(out, "\nDry run: nothing was changed on 127.0.0.2.\n");
	free(out);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_request_refused),
		cmocka_unit_test(test_print_as_it_goes),
		cmocka_unit_test(test_print_failed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
