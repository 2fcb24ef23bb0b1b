/* proto/util/natcmp.c: the natural order of node names and sysfs entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "natcmp.h"

static void
test_node_names(void **state)
{
	(void)state;
	assert_true(proto_natcmp("mac2", "mac10") < 0);
	assert_true(proto_natcmp("mac10", "mac2") > 0);
	assert_true(proto_natcmp("mac1", "mac1") == 0);
	assert_true(proto_natcmp("mac1", "mac1a") < 0);
	assert_true(proto_natcmp("mac1a", "mac1") > 0);
	assert_true(proto_natcmp("mac", "mac1") < 0);
	assert_true(proto_natcmp("a9b", "a10a") < 0);
	assert_true(proto_natcmp("mac01", "mac1") == 0);
	assert_true(proto_natcmp("rack2-mac3", "rack10-mac1") < 0);
	assert_true(proto_natcmp("99999999999999999999999", "100000000000000000000000") < 0);
	assert_true(proto_natcmp("Mac1", "mac1") < 0);
	assert_true(proto_natcmp("", "") == 0);
	assert_true(proto_natcmp("", "a") < 0);
	assert_true(proto_natcmp("mac0", "mac00") == 0);
}

static void
test_sysfs_entries(void **state)
{
	(void)state;
	assert_true(proto_natcmp("thermal_zone2", "thermal_zone10") < 0);
	assert_true(proto_natcmp("intel-rapl:0:2", "intel-rapl:1") < 0);
	assert_int_equal(proto_natcmp("a007", "a7"), 0);
	assert_true(proto_natcmp("usb4_port3", "usb4_port3") == 0);
	assert_true(proto_natcmp("0-1", "0-0") > 0);
	assert_true(proto_natcmp("\xc3\xa9", "e") > 0);   /* bytes compare unsigned */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_names),
		cmocka_unit_test(test_sysfs_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
