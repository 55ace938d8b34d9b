/*
 * Helpers shared by the export tests: synthetic and corpus stores, running protoc --decode on an
 * export, and round-trip comparisons of two stores (kernels, copies, steps, memory events,
 * flows) row by row.
 */
#ifndef TK_EXPORT_TEST_H
#define TK_EXPORT_TEST_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_test.h"

/* 1 when protoc is on the PATH (scripts/setup.sh installs protobuf-compiler). */
static inline int have_protoc(void)
{
	return system("command -v protoc >/dev/null 2>&1") == 0;
}

/* Decode @file as message @type of @proto (in @proto_dir) into @txt; returns protoc's status. */
static inline int protoc_decode(const char *proto_dir, const char *proto, const char *type,
				const char *file, const char *txt)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "protoc --decode=%s -I '%s' '%s' < '%s' > '%s' 2>&1", type,
		 proto_dir, proto, file, txt);
	return system(cmd);
}

/* The whole text of @path (malloc'd), NULL when it cannot be read. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

/* Occurrences of @needle in @hay. */
static inline int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Run tracekit with the arguments; assert exit 0. */
#define RUN_OK(...)                                                                 \
	do {                                                                        \
		struct tkt_run r_ = tkt_tracekit(__VA_ARGS__, NULL);                \
		cr_assert_eq(r_.code, 0, "exit %d\n%s%s", r_.code, r_.out, r_.err); \
		tkt_run_free(&r_);                                                  \
	} while (0)

/* The same rows from @a and @b for @sql. */
static inline void expect_same_rows(const char *a, const char *b, const char *what, const char *sql)
{
	char *ra = tkt_rows(a, sql), *rb = tkt_rows(b, sql);
	size_t i = 0;
	while (ra[i] && ra[i] == rb[i])
		i++;
	cr_expect(ra[i] == 0 && rb[i] == 0,
		  "%s differ after the round trip (%zu / %zu bytes, first difference at %zu):\n"
		  "original: ...%.300s\nre-import: ...%.300s",
		  what, strlen(ra), strlen(rb), i, ra + (i > 100 ? i - 100 : 0),
		  rb + (i > 100 ? i - 100 : 0));
	free(ra);
	free(rb);
}

/* What expect_round_trip() compares besides kernels, copies and flows. */
enum { RT_MEMORY = 1, RT_STEPS = 2, RT_COPY_KIND = 4, RT_ALL = 7 };

/* Kernels, copies, steps, memory events and flows of @a and @b are the same (@what: RT_*). */
static inline void expect_round_trip(const char *a, const char *b, int what)
{
	expect_same_rows(
	    a, b, "kernels",
	    "SELECT name, ts_ns, dur_ns, grid_x, grid_y, grid_z, block_x, block_y, "
	    "block_z, registers, coalesce(static_smem, 0) + coalesce(dynamic_smem, 0), "
	    "CASE WHEN occupancy > 0 THEN round(occupancy, 6) END FROM kernels ORDER BY ts_ns, "
	    "name, dur_ns");
	expect_same_rows(a, b, "copies",
			 what & RT_COPY_KIND ? "SELECT name, ts_ns, dur_ns, bytes, copy_kind FROM "
					       "memcpys ORDER BY ts_ns, name, dur_ns"
					     : "SELECT name, ts_ns, dur_ns, bytes FROM memcpys "
					       "ORDER BY ts_ns, name, dur_ns");
	if (what & RT_STEPS)
		expect_same_rows(
		    a, b, "steps",
		    "SELECT step_num, name, ts_ns, dur_ns FROM steps ORDER BY ts_ns, name");
	if (what & RT_MEMORY)
		expect_same_rows(
		    a, b, "memory events",
		    "SELECT kind, ts_ns, bytes, address, (SELECT ordinal FROM devices d "
		    "WHERE d.id = device_id), bytes_in_use FROM memory_events "
		    "ORDER BY ts_ns, id");
	expect_same_rows(a, b, "flows",
			 "SELECT s.name, s.ts_ns, d.name, d.ts_ns FROM flows f "
			 "JOIN intervals s ON s.id = f.src_event_id "
			 "JOIN intervals d ON d.id = f.dst_event_id ORDER BY 2, 4, 1, 3");
}

#endif
