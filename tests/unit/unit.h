/* tests/unit/unit.h: the few macros unit tests share.
 *
 * A unit test is a program: exit 0 pass, 1 fail, 77 skip. CHECK* report the
 * failing expression with file:line and keep going, so one run shows every
 * failure; the test ends with `return unit_done();`.
 */
#ifndef RIOT_TESTS_UNIT_H
#define RIOT_TESTS_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_failures;
static int unit_checks;

#define CHECK(cond) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long _a = (long long)(a), _b = (long long)(b); \
	unit_checks++; \
	if (_a != _b) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

#define CHECK_U64(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	unit_checks++; \
	if (_a != _b) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *_a = (a), *_b = (b); \
	unit_checks++; \
	if (!_a || !_b || strcmp(_a, _b) != 0) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", \
			__FILE__, __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
	} \
} while (0)

static inline int unit_done(void)
{
	if (unit_checks == 0) {
		fprintf(stderr, "no checks ran\n");
		return 1;
	}
	if (unit_failures)
		fprintf(stderr, "%d of %d checks failed\n", unit_failures, unit_checks);
	return unit_failures ? 1 : 0;
}

#endif
