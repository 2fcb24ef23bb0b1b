/*
 * rollout: the engine's rules (rollout.h) and the rollout JSON
 * (rollout_api.h), with the time passed in.
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

#include "report.h"
#include "rollout.h"

#define T0 1763782800.0   /* 2025-11-22 03:40 UTC */

static struct ro_campaign *
campaign(int n, enum ro_mode mode, int max)
{
	struct ro_campaign *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->id = 7;
	snprintf(c->cluster, sizeof(c->cluster), "studio4");
	snprintf(c->target, sizeof(c->target), "26.3");
	c->mode = mode;
	c->max_unavailable = max;
	c->window_start = c->window_end = -1;
	c->n = n;
	for (int i = 0; i < n; i++) {
		snprintf(c->nodes[i].node, sizeof(api_name), "mac%d", i + 1);
		c->nodes[i].cordoned_before = -1;
		c->nodes[i].boot_before = NAN;
		c->nodes[i].install_at = NAN;
		c->nodes[i].wired_before = REPORT_NULL_I64;
	}
	return c;
}

/* Run node i through every step with outcome OK. */
static void
run_node(struct ro_campaign *c, int i)
{
	for (int s = RO_PREFLIGHT; s <= RO_UNCORDON; s++) {
		assert_int_equal(rollout_next(c, -1, T0), i);
		rollout_begin(c, i, T0);
		assert_int_equal(c->nodes[i].step, s);
		assert_true(c->nodes[i].running);
		rollout_outcome(c, i, RO_OUT_OK, NULL, T0 + 1);
		assert_false(c->nodes[i].running);
	}
	assert_int_equal(c->nodes[i].step, RO_DONE);
}

static void
test_rolling_one_at_a_time(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(4, RO_ROLLING, 1);

	for (int i = 0; i < 4; i++) {
		assert_int_equal(rollout_in_progress(c), 0);
		run_node(c, i);   /* checks that node i, and no other, is next at each step */
	}
	assert_int_equal(c->state, RO_FINISHED);
	assert_int_equal(rollout_next(c, -1, T0), -1);
	free(c);
}

static void
test_max_unavailable_two_and_lockstep(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(4, RO_ROLLING, 2);

	rollout_begin(c, rollout_next(c, -1, T0), T0);
	assert_int_equal(rollout_next(c, 0, T0), 1);   /* room for a second: it starts */
	rollout_begin(c, 1, T0);
	assert_int_equal(rollout_in_progress(c), 2);
	c->nodes[0].step = RO_WAIT;
	c->nodes[1].step = RO_WAIT;
	/* no room for a third: the two in progress, round robin */
	assert_int_equal(rollout_next(c, 1, T0), 0);
	assert_int_equal(rollout_next(c, 0, T0), 1);
	free(c);

	c = campaign(3, RO_LOCKSTEP, 1);
	/* lockstep: every node may be in at once, whatever max_unavailable says */
	for (int i = 0; i < 3; i++) {
		int k = rollout_next(c, -1, T0);
		assert_int_equal(k, i);
		rollout_begin(c, k, T0);
		assert_int_equal(rollout_in_progress(c), i + 1);
	}
	assert_int_equal(rollout_next(c, 2, T0), 0);      /* then round robin */
	free(c);
}

static void
test_failure_halts_and_retry(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(3, RO_ROLLING, 1);
	char err[200];

	rollout_begin(c, 0, T0);
	rollout_outcome(c, 0, RO_OUT_OK, NULL, T0);
	for (int s = RO_CORDON; s < RO_INSTALL; s++) {
		rollout_begin(c, 0, T0);
		rollout_outcome(c, 0, RO_OUT_OK, NULL, T0);
	}
	rollout_begin(c, 0, T0);
	rollout_outcome(c, 0, RO_OUT_FAIL, "exit 1: no", T0 + 5);
	assert_int_equal(c->state, RO_HALTED);
	assert_int_equal(c->nodes[0].step, RO_FAILED);
	assert_int_equal(c->nodes[0].failed_step, RO_INSTALL);
	assert_string_equal(c->reason, "mac1: install: exit 1: no");
	assert_int_equal(rollout_next(c, -1, T0), -1);     /* halted: nothing runs */
	assert_int_equal(rollout_in_progress(c), 1);       /* the failed node stays out */
	assert_int_equal(rollout_resume(c, T0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "retry"));
	assert_int_equal(rollout_retry(c, "mac2", T0, err, sizeof(err)), -1);
	assert_int_equal(rollout_retry(c, "mac1", T0, err, sizeof(err)), 0);
	assert_int_equal(c->state, RO_RUNNING);
	assert_int_equal(c->nodes[0].step, RO_INSTALL);
	assert_int_equal(rollout_next(c, -1, T0), 0);

	/* sent at T0 + 10, the Mac never restarted: wait fails; a retry goes
	 * back to install with no install recorded as sent */
	rollout_begin(c, 0, T0 + 10);
	c->nodes[0].install_at = T0 + 10;
	rollout_outcome(c, 0, RO_OUT_OK, NULL, T0 + 11);
	assert_int_equal(c->nodes[0].step, RO_WAIT);
	rollout_begin(c, 0, T0 + 11);
	rollout_outcome(c, 0, RO_OUT_FAIL, "did not come back", T0 + 900);
	assert_int_equal(c->nodes[0].failed_step, RO_WAIT);
	assert_int_equal(rollout_retry(c, "mac1", T0 + 901, err, sizeof(err)), 0);
	assert_int_equal(c->nodes[0].step, RO_INSTALL);
	assert_true(isnan(c->nodes[0].install_at));
	free(c);
}

static void
test_skip_wait_pause_abort(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(2, RO_ROLLING, 1);
	char err[200];

	rollout_begin(c, 0, T0);
	rollout_outcome(c, 0, RO_OUT_AT_TARGET, NULL, T0);
	assert_int_equal(c->nodes[0].step, RO_SKIPPED);
	assert_int_equal(rollout_next(c, -1, T0), 1);
	c->nodes[1].step = RO_WAIT;
	c->nodes[1].running = 1;
	rollout_outcome(c, 1, RO_OUT_NOT_YET, NULL, T0);
	assert_int_equal(c->nodes[1].step, RO_WAIT);
	assert_true(c->nodes[1].running);
	assert_int_equal(rollout_pause(c, T0, err, sizeof(err)), 0);
	assert_int_equal(rollout_next(c, -1, T0), -1);
	assert_int_equal(rollout_pause(c, T0, err, sizeof(err)), -1);
	assert_int_equal(rollout_resume(c, T0, err, sizeof(err)), 0);
	assert_int_equal(rollout_abort(c, T0, err, sizeof(err)), 0);
	assert_int_equal(rollout_next(c, -1, T0), -1);
	assert_int_equal(rollout_abort(c, T0, err, sizeof(err)), -1);
	free(c);
}

static void
test_window(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(1, RO_ROLLING, 1);

	assert_int_equal(ro_window_parse("02:00-04:00", &c->window_start, &c->window_end), 0);
	assert_true(rollout_in_window(c, T0));                 /* 03:40 */
	assert_int_equal(rollout_next(c, -1, T0), 0);
	assert_false(rollout_in_window(c, T0 + 3600));         /* 04:40 */
	assert_int_equal(rollout_next(c, -1, T0 + 3600), -1);
	assert_int_equal(ro_window_parse("23:00-04:00", &c->window_start, &c->window_end), 0);
	assert_true(rollout_in_window(c, T0));                 /* over midnight */
	assert_false(rollout_in_window(c, T0 + 2 * 3600));
	assert_int_equal(ro_window_parse("24:00-01:00", &c->window_start, &c->window_end), -1);
	assert_int_equal(ro_window_parse("01:00-01:00", &c->window_start, &c->window_end), -1);
	assert_int_equal(ro_window_parse("1:00-02:00", &c->window_start, &c->window_end), -1);
	free(c);
}

static void
test_find_update(void **state)
{
	(void)state;
	static const char list[] =
	    "Software Update Tool\n\nFinding available software\n"
	    "Software Update found the following new or updated software:\n"
	    "* Label: macOS Tahoe 26.3-25D125\n"
	    "\tTitle: macOS Tahoe 26.3, Version: 26.3, Size: 3829595KiB, Recommended: YES, Action: restart,\n"
	    "* Label: Safari26.3TahoeAuto-26.3\n"
	    "\tTitle: Safari, Version: 26.3, Size: 198432KiB, Recommended: YES,\n"
	    "* Label: macOS 27-26A428\n"
	    "\tTitle: macOS 27, Version: 27.0, Size: 15840092KiB, Recommended: YES, Action: restart,\n";
	char label[128], err[200];
	int64_t size = 0, avail = 0;

	assert_int_equal(rollout_find_update(list, "26.3", "", label, sizeof(label), &size, err,
	    sizeof(err)), 0);
	assert_string_equal(label, "macOS Tahoe 26.3-25D125");   /* not Safari's */
	assert_int_equal(size, 3829595);
	assert_int_equal(rollout_find_update(list, "26A428", "", label, sizeof(label), &size, err,
	    sizeof(err)), 0);
	assert_string_equal(label, "macOS 27-26A428");
	assert_int_equal(rollout_find_update(list, "27.0", "", label, sizeof(label), &size, err,
	    sizeof(err)), 0);
	assert_int_equal(size, 15840092);
	assert_int_equal(rollout_find_update(list, "26.4", "", label, sizeof(label), &size, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "no macOS update to 26.4"));
	assert_int_equal(rollout_find_update(list, "26.3", "macOS X", label, sizeof(label), &size,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "macOS X"));
	assert_int_equal(rollout_find_update("No new software available.\n", "26.3", "", label,
	    sizeof(label), &size, err, sizeof(err)), -1);
	assert_int_equal(rollout_df_avail("Filesystem 1024-blocks Used Available Capacity\n"
	    "/dev/disk3s1s1 971350180 11069412 800000000 2% 1 2 0% /\n", &avail), 0);
	assert_int_equal(avail, 800000000);
	assert_int_equal(rollout_df_avail("garbage", &avail), -1);
	assert_true(rollout_at_target("26.3", "26.3", "25D125"));
	assert_true(rollout_at_target("25D125", "26.3", "25D125"));
	assert_false(rollout_at_target("26.3", "26.2", "25C56"));
	assert_false(rollout_shell_word_ok("a'b"));
	assert_true(rollout_shell_word_ok("macOS Tahoe 26.3-25D125"));
}

static void
test_commands_never_hold_a_password(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(1, RO_ROLLING, 1);
	char cmds[4][RO_CMD_MAX + 1];

	snprintf(c->label, sizeof(c->label), "macOS Tahoe 26.3-25D125");
	int n = rollout_commands(c, RO_INSTALL, "admin", cmds, 4);
	assert_int_equal(n, 2);
	assert_string_equal(cmds[0], "sw_vers");
	assert_non_null(strstr(cmds[1], "sudo -n softwareupdate --install 'macOS Tahoe "
	    "26.3-25D125' --restart --agree-to-license --no-scan --user 'admin' --stdinpass"));
	assert_int_equal(rollout_commands(c, RO_DOWNLOAD, "admin", cmds, 4), 1);
	assert_string_equal(cmds[0], "sudo -n softwareupdate --download 'macOS Tahoe 26.3-25D125'");
	assert_int_equal(rollout_commands(c, RO_PREFLIGHT, "admin", cmds, 4), 4);
	assert_non_null(strstr(cmds[3], "sudo -n true; dscl . -read /Users/'admin' GeneratedUID; "
	    "diskutil apfs listcryptousers /"));
	free(c);
}

static void
test_json_round_trip(void **state)
{
	(void)state;
	struct ro_campaign *c = campaign(2, RO_LOCKSTEP, 1), *d = calloc(1, sizeof(*d));
	char err[200];

	assert_non_null(d);
	c->state = RO_HALTED;
	c->created_at = T0;
	c->updated_at = T0 + 1;
	c->nodes[1].step = RO_FAILED;
	c->nodes[1].failed_step = RO_VERIFY;
	snprintf(c->nodes[1].reason, sizeof(c->nodes[1].reason), "RDMA is disabled");
	assert_int_equal(ro_window_parse("22:30-05:00", &c->window_start, &c->window_end), 0);
	char *json = ro_json_campaign(c);
	assert_non_null(json);
	assert_int_equal(ro_json_decode_campaign(json, strlen(json), d, err, sizeof(err)), 0);
	assert_int_equal(d->id, 7);
	assert_int_equal(d->mode, RO_LOCKSTEP);
	assert_int_equal(d->state, RO_HALTED);
	assert_int_equal(d->window_start, 22 * 60 + 30);
	assert_int_equal(d->n, 2);
	assert_int_equal(d->nodes[1].step, RO_FAILED);
	assert_int_equal(d->nodes[1].failed_step, RO_VERIFY);
	assert_string_equal(d->nodes[1].reason, "RDMA is disabled");
	free(json);

	static const char *const bad[] = {
		"{\"target\":\"26.3\"}",
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"mode\":\"sideways\"}",
		"{\"cluster\":\"c\",\"target\":\"26.3; rm -rf /\"}",
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"max_unavailable\":0}",
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"window\":\"9-5\"}",
		"[1]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ro_json_decode_request(bad[i], strlen(bad[i]), d, err,
		    sizeof(err)), -1);
	struct ro_credentials cr;
	const char *both = "{\"node\":\"a\",\"cluster\":\"b\",\"user\":\"u\",\"password\":\"secret\"}";
	assert_int_equal(ro_json_decode_credentials(both, strlen(both), &cr, err, sizeof(err)), -1);
	assert_null(strstr(err, "secret"));
	free(c);
	free(d);
}

/*
 * The volume owner of `diskutil apfs listcryptousers /` (the format of the
 * listings in apple.stackexchange.com/questions/404880 with Apple silicon's
 * "Volume Owner" lines, as tests/fakemac/node/diskutil prints them), found
 * by the account's GeneratedUID from dscl.
 */
static void
test_volume_owner(void **state)
{
	(void)state;
	static const char list[] =
	    "Cryptographic users for disk3s1 (3 found)\n|\n"
	    "+-- 21232F29-7A57-A5A7-4389-4A0E4A801FC3\n"
	    "|   Type: Local Open Directory User\n|   Volume Owner: Yes\n|\n"
	    "+-- 2D7C7349-5BE1-A7AC-2B78-111B63FE2833\n"
	    "|   Type: Local Open Directory User\n|   Volume Owner: No\n|\n"
	    "+-- EBC6C064-0000-11AA-AA11-00306543ECAC\n"
	    "    Type: Personal Recovery User\n    Volume Owner: Yes\n";
	char guid[64];

	assert_int_equal(rollout_dscl_guid("GeneratedUID: 21232F29-7A57-A5A7-4389-4A0E4A801FC3\n",
	    guid, sizeof(guid)), 0);
	assert_string_equal(guid, "21232F29-7A57-A5A7-4389-4A0E4A801FC3");
	assert_int_equal(rollout_dscl_guid("DS Error: -14136 (eDSRecordNotFound)\n", guid,
	    sizeof(guid)), -1);
	assert_int_equal(rollout_volume_owner(list, "21232F29-7A57-A5A7-4389-4A0E4A801FC3"), 1);
	assert_int_equal(rollout_volume_owner(list, "21232f29-7a57-a5a7-4389-4a0e4a801fc3"), 1);
	assert_int_equal(rollout_volume_owner(list, "2D7C7349-5BE1-A7AC-2B78-111B63FE2833"), 0);
	assert_int_equal(rollout_volume_owner(list, "00000000-0000-0000-0000-000000000000"), -1);
	assert_int_equal(rollout_volume_owner("", "21232F29-7A57-A5A7-4389-4A0E4A801FC3"), -1);
}

/* The detached install's log: running, ended well, ended with softwareupdate's complaint. */
static void
test_install_ended(void **state)
{
	(void)state;
	char last[128];

	assert_int_equal(rollout_install_ended("Software Update Tool\n\nInstalling X: 1\n", last,
	    sizeof(last)), -1);
	assert_string_equal(last, "Installing X: 1");
	assert_int_equal(rollout_install_ended("Installing X\nRestarting...\n"
	    "tbmesh: softwareupdate exited with status 0\n", last, sizeof(last)), 0);
	assert_string_equal(last, "Restarting...");
	assert_int_equal(rollout_install_ended("Software Update Tool\n\nFailed to authenticate user "
	    "admin\ntbmesh: softwareupdate exited with status 1\n", last, sizeof(last)), 1);
	assert_string_equal(last, "Failed to authenticate user admin");
	assert_int_equal(rollout_install_ended("", last, sizeof(last)), -1);
	assert_string_equal(last, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rolling_one_at_a_time),
		cmocka_unit_test(test_max_unavailable_two_and_lockstep),
		cmocka_unit_test(test_failure_halts_and_retry),
		cmocka_unit_test(test_skip_wait_pause_abort),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_find_update),
		cmocka_unit_test(test_commands_never_hold_a_password),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_volume_owner),
		cmocka_unit_test(test_install_ended),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
