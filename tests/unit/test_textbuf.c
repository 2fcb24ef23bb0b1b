/* The growing text buffer: text longer than its first 4 KiB, label escaping,
 * and what take hands over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "textbuf.h"

static void
test_grows(void **state)
{
	struct textbuf t = { 0 };
	char big[10000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	textbuf_printf(&t, "%s", "head ");
	textbuf_printf(&t, "%s", big);           /* more than twice the first size */
	textbuf_printf(&t, " %d", 42);
	char *s = textbuf_take(&t);
	assert_non_null(s);
	assert_int_equal(strlen(s), 5 + sizeof(big) - 1 + 3);
	assert_memory_equal(s, "head xxx", 8);
	assert_string_equal(s + strlen(s) - 3, " 42");
	assert_null(t.buf);                       /* taken: the buffer is empty again */
	free(s);
}

static void
test_label_and_empty(void **state)
{
	struct textbuf t = { 0 };

	(void)state;
	char *e = textbuf_take(&t);
	assert_string_equal(e, "");
	free(e);
	textbuf_label_value(&t, "a\"b\\c\nd");
	char *s = textbuf_take(&t);
	assert_string_equal(s, "a\\\"b\\\\c\\nd");
	free(s);
	t.oom = 1;                                /* after a failed realloc: NULL */
	textbuf_printf(&t, "lost");
	assert_null(textbuf_take(&t));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows),
		cmocka_unit_test(test_label_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
