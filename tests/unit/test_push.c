/*
 * push: the backoff's bounds with a seeded jitter, the latest-only queue
 * and what it counts as dropped, URL building, the token files (mode 0600,
 * atomic replace, trimmed, malformed ones refused without echoing them),
 * and the pusher itself against a closed loopback port: it backs off,
 * counts, keeps one report, and stops at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "file_fixture.h"
#include "push.h"
#include "push_queue.h"
#include "push_token.h"

#define TOK1 "tbm_0123456789ab_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define TOK2 "tbm_ba9876543210_b-b_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
test_backoff(void **state)
{
	(void)state;
	struct push_backoff a = { .seed = 42 }, b = { .seed = 42 }, c = { .seed = 7 };
	int differs = 0;

	for (int i = 0; i < 12; i++) {
		double cap = i < 6 ? (double)(1 << i) : 60;
		double d = push_backoff_next(&a);
		if (cap > 60)
			cap = 60;
		double lo = cap / 2 < 1 ? 1 : cap / 2;
		assert_true(d >= lo && d <= cap);
		assert_true(d >= PUSH_BACKOFF_MIN && d <= PUSH_BACKOFF_MAX);
		assert_true(a.delay == d);
		assert_true(push_backoff_next(&b) == d); /* same seed, same sequence */
		differs |= push_backoff_next(&c) != d;
	}
	assert_true(differs);
	for (int i = 0; i < 1000; i++) {
		double d = push_backoff_next(&a);
		assert_true(d >= 30 && d <= 60);
	}
	push_backoff_reset(&a);
	assert_true(a.delay == 0);
	assert_true(push_backoff_next(&a) == 1);
	double second = push_backoff_next(&a);
	assert_true(second >= 1 && second <= 2);
}

static void
test_queue(void **state)
{
	(void)state;
	struct push_queue q = { 0 };
	size_t len;
	char *json;

	assert_null(push_queue_take(&q, &len));
	assert_int_equal(push_queue_put(&q, "{\"a\":1}", 7), 0);
	assert_int_equal(push_queue_put(&q, "{\"b\":2}xx", 7), 0); /* replaces a */
	assert_int_equal(q.dropped, 1);
	json = push_queue_take(&q, &len);
	assert_string_equal(json, "{\"b\":2}");
	assert_int_equal(len, 7);
	assert_null(push_queue_take(&q, &len));
	/* a failed report goes back when nothing newer came... */
	push_queue_return(&q, json, len);
	assert_int_equal(q.dropped, 1);
	json = push_queue_take(&q, &len);
	assert_string_equal(json, "{\"b\":2}");
	/* ...and is dropped when a newer one did */
	assert_int_equal(push_queue_put(&q, "{\"c\":3}", 7), 0);
	push_queue_return(&q, json, len);
	assert_int_equal(q.dropped, 2);
	json = push_queue_take(&q, &len);
	assert_string_equal(json, "{\"c\":3}");
	free(json);
	/* however many come, one is held */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(push_queue_put(&q, "{}", 2), 0);
	assert_int_equal(q.dropped, 2 + 999);
	assert_string_equal(q.json, "{}");
	push_queue_clear(&q);
	assert_null(q.json);
	push_queue_clear(&q);
}

static void
test_url(void **state)
{
	(void)state;
	char url[64];

	assert_int_equal(push_url("http://127.0.0.1:9470", "/v1/report", url, sizeof(url)), 0);
	assert_string_equal(url, "http://127.0.0.1:9470/v1/report");
	assert_int_equal(push_url("https://ctl.lab/", "/v1/enroll", url, sizeof(url)), 0);
	assert_string_equal(url, "https://ctl.lab/v1/enroll");
	assert_int_equal(push_url("https://ctl.lab/tbmesh//", "/v1/report", url, sizeof(url)), 0);
	assert_string_equal(url, "https://ctl.lab/tbmesh/v1/report");
	assert_int_equal(push_url("http://a", "/v1/report", url, 19), 0);
	assert_int_equal(push_url("http://a", "/v1/report", url, 18), -1);
	assert_string_equal(push_state_str(PUSH_OFF), "off");
	assert_string_equal(push_state_str(PUSH_ENROLLING), "enrolling");
	assert_string_equal(push_state_str(PUSH_OK), "ok");
	assert_string_equal(push_state_str(PUSH_UNREACHABLE), "unreachable");
}

static void
test_token_valid(void **state)
{
	(void)state;
	char long_tok[100];

	assert_true(push_token_valid(TOK1));
	assert_true(push_token_valid(TOK2));
	assert_false(push_token_valid(""));
	assert_false(push_token_valid("tbm_x y"));
	assert_false(push_token_valid("tbm_x\r\nX-Evil: 1"));
	assert_false(push_token_valid("tbm_x="));
	memset(long_tok, 'a', sizeof(long_tok) - 1);
	long_tok[sizeof(long_tok) - 1] = '\0';
	assert_false(push_token_valid(long_tok));
}

static void
test_token_save_load(void **state)
{
	const char *top = *state;
	char dir[256], path[300], tok[128], err[512];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/var/lib/state", top);
	snprintf(path, sizeof(path), "%s/node-token", dir);
	assert_int_equal(push_token_save(dir, TOK1, err, sizeof(err)), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);   /* created 0700, parents too */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_string_equal(tok, TOK1);

	/* atomic replace: an open reader keeps the old file whole, no temp is left */
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(push_token_save(dir, TOK2, err, sizeof(err)), 0);
	char old[128] = "";
	assert_true(read(fd, old, sizeof(old) - 1) > 0);
	close(fd);
	assert_string_equal(old, TOK1 "\n");
	assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_string_equal(tok, TOK2);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(fx_count_entries(dir), 1);

	assert_int_equal(push_token_save(dir, "not a token", err, sizeof(err)), -1);
	assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_string_equal(tok, TOK2);

	assert_int_equal(push_token_delete(dir, err, sizeof(err)), 0);
	assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "node-token"));
	assert_int_equal(push_token_delete(dir, err, sizeof(err)), 0);
}

static void
test_token_read(void **state)
{
	const char *top = *state;
	char path[300], tok[API_TOKEN_MAX + 1], err[512];

	snprintf(path, sizeof(path), "%s/bootstrap", top);
	fx_write_text(path, "\n  " TOK1 " \t\n");
	assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_string_equal(tok, TOK1);
	const char *bad[] = { "", "  \n", "hunter2 words\n", "tbm_a\ntbm_b\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_write_text(path, bad[i]);
		assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, path));
		assert_null(strstr(err, "hunter2"));       /* the content is never echoed */
	}
	fx_write_text(path, TOK1);
	assert_int_equal(push_token_read(path, tok, 10, err, sizeof(err)), -1);
	chmod(path, 0);
	if (geteuid() != 0) {
		assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
		assert_int_equal(errno, EACCES);
	}
	snprintf(path, sizeof(path), "%s/absent", top);
	assert_int_equal(push_token_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
}

/* A loopback port nothing listens on (bound, then closed). */
static int
closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void
wait_failures(struct pusher *p, uint64_t n, struct push_stats *st)
{
	double deadline = now_mono() + 10;

	do {
		push_stats(p, st);
		if (st->failures >= n)
			return;
		usleep(20000);
	} while (now_mono() < deadline);
	fail_msg("%llu failures after 10 s, wanted %llu", (unsigned long long)st->failures,
	    (unsigned long long)n);
}

static void
test_pusher_closed_port(void **state)
{
	const char *top = *state;
	char url[64], boot[300], sdir[300];
	struct push_stats st;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	snprintf(boot, sizeof(boot), "%s/bootstrap", top);
	snprintf(sdir, sizeof(sdir), "%s/st", top);
	fx_write_text(boot, TOK1 "\n");
	struct push_config pc = { url, boot, sdir, NULL };
	struct pusher *p = push_start(&pc, NULL);
	assert_non_null(p);
	push_stats(p, &st);
	assert_int_equal(st.state, PUSH_ENROLLING);
	assert_int_equal(st.enrolled, 0);
	push_submit(p, "{\"n\":1}", 7);
	wait_failures(p, 1, &st);
	assert_int_equal(st.state, PUSH_UNREACHABLE);
	assert_true(st.backoff >= PUSH_BACKOFF_MIN && st.backoff <= PUSH_BACKOFF_MAX);
	assert_int_equal(st.pushed, 0);
	/* during the backoff newer reports replace the one kept */
	for (int i = 0; i < 5; i++)
		push_submit(p, "{\"n\":2}", 7);
	push_stats(p, &st);
	assert_int_equal(st.dropped, 5);
	wait_failures(p, 2, &st);
	double t0 = now_mono();
	struct push_stats last;
	push_stop(p, &last);
	assert_true(now_mono() - t0 < 1.0);
	assert_true(last.failures >= 2);
	/* a restarted pusher carries the counters on, and finds a saved token */
	char err[256];
	assert_int_equal(push_token_save(sdir, TOK2, err, sizeof(err)), 0);
	p = push_start(&pc, &last);
	push_stats(p, &st);
	assert_int_equal(st.failures, last.failures);
	assert_int_equal(st.dropped, 5);
	assert_int_equal(st.enrolled, 1);
	assert_int_equal(st.state, PUSH_OK);
	push_stop(p, NULL);
}

static void
test_pusher_off(void **state)
{
	(void)state;
	struct push_config pc = { NULL, NULL, "/nonexistent", NULL };
	struct push_stats st = { .pushed = 9 };

	assert_null(push_start(&pc, NULL));
	push_submit(NULL, "{}", 2);
	push_stats(NULL, &st);
	assert_int_equal(st.state, PUSH_OFF);
	assert_int_equal(st.pushed, 0);
	push_stop(NULL, &st);
	push_stop(NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_token_valid),
		cmocka_unit_test_setup_teardown(test_token_save_load, fx_dir_setup, fx_dir_teardown),
		cmocka_unit_test_setup_teardown(test_token_read, fx_dir_setup, fx_dir_teardown),
		cmocka_unit_test_setup_teardown(test_pusher_closed_port, fx_dir_setup, fx_dir_teardown),
		cmocka_unit_test(test_pusher_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
