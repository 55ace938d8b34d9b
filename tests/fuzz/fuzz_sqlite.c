/*
 * SQLite set up for speed in the libFuzzer builds (FZ_LIBFUZZER): single-threaded (no mutexes),
 * and its memory from glibc's own allocator instead of through AddressSanitizer's, whose
 * quarantine, poisoning and libFuzzer's malloc hooks took about a third of an execution of the
 * targets that open stores. SQLite is not what is fuzzed here; tracekit's own allocations stay
 * with ASan. What ASan would then miss, a handle that tracekit never closes, fz_sqlite_check()
 * catches: after an execution no SQLite memory may be left held. The replay builds (ctest) keep
 * SQLite on the normal allocator, where LeakSanitizer sees everything.
 */
#include "fuzz_util.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FZ_LIBFUZZER
/* glibc's allocator under its own names, which the sanitizers do not intercept. */
void *__libc_malloc(size_t n);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

#define HDR 16 /* a size header that keeps the 16-byte alignment */

static void *m_malloc(int n)
{
	unsigned char *p = __libc_malloc((size_t)n + HDR);
	if (!p)
		return NULL;
	memcpy(p, &n, sizeof(n));
	return p + HDR;
}

static void m_free(void *p)
{
	if (p)
		__libc_free((unsigned char *)p - HDR);
}

static void *m_realloc(void *p, int n)
{
	if (!p)
		return m_malloc(n);
	unsigned char *q = __libc_realloc((unsigned char *)p - HDR, (size_t)n + HDR);
	if (!q)
		return NULL;
	memcpy(q, &n, sizeof(n));
	return q + HDR;
}

static int m_size(void *p)
{
	int n = 0;
	if (p)
		memcpy(&n, (unsigned char *)p - HDR, sizeof(n));
	return n;
}

static int m_roundup(int n)
{
	return (n + 7) & ~7;
}

static int m_init(void *ctx)
{
	(void)ctx;
	return SQLITE_OK;
}

static void m_shutdown(void *ctx)
{
	(void)ctx;
}

__attribute__((constructor)) static void fz_sqlite_setup(void)
{
	static const sqlite3_mem_methods mem = {m_malloc,  m_free, m_realloc,  m_size,
						m_roundup, m_init, m_shutdown, NULL};
	if (sqlite3_config(SQLITE_CONFIG_SINGLETHREAD) != SQLITE_OK ||
	    sqlite3_config(SQLITE_CONFIG_MALLOC, &mem) != SQLITE_OK ||
	    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1) != SQLITE_OK) {
		fprintf(stderr, "fuzz: cannot configure SQLite\n");
		abort();
	}
}
#endif

void fz_sqlite_check(const char *what)
{
#ifdef FZ_LIBFUZZER
	sqlite3_int64 held = sqlite3_memory_used();
	if (held != 0) {
		char detail[96];
		snprintf(detail, sizeof(detail), "%lld bytes of SQLite memory held after %s",
			 (long long)held, what);
		fz_check(0, "a SQLite handle was left open (leak)", detail);
	}
#else
	(void)what;
#endif
}
