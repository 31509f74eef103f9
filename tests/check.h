/* SPDX-License-Identifier: MIT */
/* check.h — the expectation macro the C tests share (include it once, in the
 * test's .c file; it defines the file's counters).
 *   CHECK(cond, fmt, ...)  counts a check; on failure counts it failed and
 *                          prints "FAIL file:line: <message>" and CHECK_TAIL.
 *   NEAR(a, b, tol)        |a - b| <= tol (false for NaN).
 * A test that wants more after the message (test_hostile: the library's last
 * error) defines CHECK_TAIL() before including this header. */
#ifndef DRS_TESTS_CHECK_H
#define DRS_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>

static int g_fail = 0, g_checks = 0;

#ifndef CHECK_TAIL
#define CHECK_TAIL() printf("\n")
#endif

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        g_checks++;                                                                            \
        if (!(cond)) {                                                                         \
            g_fail++;                                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                               \
            CHECK_TAIL();                                                                      \
        }                                                                                      \
    } while (0)

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

#endif
