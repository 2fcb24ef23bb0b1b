/*
 * resolve: a listening address from HOST and PORT, IPv4 or IPv6, numeric
 * or a name; a host that does not resolve is refused with a message that
 * names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "resolve.h"

static void
test_numeric(void **state)
{
	(void)state;
	struct sockaddr_storage ss;
	char err[256];

	assert_int_equal(resolve_listen("127.0.0.1", 9470, &ss, err, sizeof(err)), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
	assert_int_equal(ntohs(in->sin_port), 9470);
	assert_int_equal(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK);

	assert_int_equal(resolve_listen("::1", 0, &ss, err, sizeof(err)), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;
	assert_int_equal(ntohs(in6->sin6_port), 0);
	assert_true(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
}

static void
test_name_and_refusal(void **state)
{
	(void)state;
	struct sockaddr_storage ss;
	char err[256];

	assert_int_equal(resolve_listen("localhost", 80, &ss, err, sizeof(err)), 0);
	assert_true(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
	assert_int_equal(resolve_listen("no-such-host.invalid", 80, &ss, err, sizeof(err)), -1);
	assert_memory_equal(err, "listen: no-such-host.invalid: ", 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric),
		cmocka_unit_test(test_name_and_refusal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
