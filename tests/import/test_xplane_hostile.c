/*
 * Hostile XPlane shapes around the metadata maps (issue 14, defect 3): map entries with a key
 * and no value, a value and no key, duplicate keys, stat metadata with missing fields, events
 * naming metadata that is not there. Each file is built here byte by byte (the protobuf wire
 * format, field numbers from schemas/xplane.proto) and imported through the CLI: a refusal is
 * exit 2 with the file and the byte offset named and no store left; an import is exit 0 with
 * the values protobuf's map semantics give (a missing key is 0, the last of duplicate keys wins).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(xplane_hostile, .init = setup, .fini = teardown);

/* A message under construction. */
struct msg {
	uint8_t b[512];
	size_t n;
};

static void varint(struct msg *m, uint64_t v)
{
	while (v >= 0x80) {
		m->b[m->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	m->b[m->n++] = (uint8_t)v;
}

static void f_int(struct msg *m, unsigned num, uint64_t v)
{
	varint(m, (uint64_t)num << 3);
	varint(m, v);
}

static void f_bytes(struct msg *m, unsigned num, const void *p, size_t n)
{
	cr_assert(m->n + n + 12 < sizeof(m->b));
	varint(m, (uint64_t)num << 3 | 2);
	varint(m, n);
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void f_msg(struct msg *m, unsigned num, const struct msg *sub)
{
	f_bytes(m, num, sub->b, sub->n);
}

static void f_str(struct msg *m, unsigned num, const char *s)
{
	f_bytes(m, num, s, strlen(s));
}

/* An XEventMetadata {id, name} under map key @key (@with_key 0: no key field). */
static void event_md(struct msg *plane, int with_key, int64_t key, const char *name)
{
	struct msg v = {0}, e = {0};
	f_int(&v, 1, (uint64_t)key);
	f_str(&v, 2, name);
	if (with_key)
		f_int(&e, 1, (uint64_t)key);
	f_msg(&e, 2, &v);
	f_msg(plane, 4, &e);
}

/* A host line "t" with one event of metadata @md (1 µs long) carrying stat @stat_md = 7. */
static void line_with_event(struct msg *plane, int64_t md, int64_t stat_md)
{
	struct msg st = {0}, ev = {0}, ln = {0};
	f_int(&st, 1, (uint64_t)stat_md);
	f_int(&st, 3, 7); /* uint64_value */
	f_int(&ev, 1, (uint64_t)md);
	f_int(&ev, 2, 0);	/* offset_ps */
	f_int(&ev, 3, 1000000); /* duration_ps */
	f_msg(&ev, 4, &st);
	f_int(&ln, 1, 1);
	f_str(&ln, 2, "t");
	f_int(&ln, 3, 1000); /* timestamp_ns */
	f_msg(&ln, 4, &ev);
	f_msg(plane, 3, &ln);
}

/* Write XSpace {planes: @plane} (or @raw bytes when non-NULL) to dir/<name>; malloc'd path. */
static char *write_space(const char *name, const struct msg *plane, const uint8_t *raw, size_t rawn)
{
	struct msg sp = {0};
	if (plane)
		f_msg(&sp, 1, plane);
	char *p = tkt_path(dir, name);
	FILE *f = fopen(p, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(raw ? raw : sp.b, 1, raw ? rawn : sp.n, f), raw ? rawn : sp.n);
	fclose(f);
	return p;
}

/* Import must be refused: exit 2, the file and @what (with the byte offset) named, no store. */
static void expect_refused(const char *in, const char *what)
{
	char *db = tkt_path(dir, "out.db");
	struct tkt_run r = tkt_tracekit("import", in, "-o", db, NULL);
	cr_expect_eq(r.code, 2, "%s: exit %d\n%s", in, r.code, r.err);
	cr_expect(strstr(r.err, in) != NULL, "file not named:\n%s", r.err);
	cr_expect(strstr(r.err, what) != NULL, "expected '%s' in:\n%s", what, r.err);
	cr_expect(!tkt_exists(db), "a store was left");
	tkt_run_free(&r);
	free(db);
}

/* Import must succeed; returns the store path (malloc'd). */
static char *expect_imported(const char *in)
{
	char *db = tkt_path(dir, "out.db");
	struct tkt_run r = tkt_tracekit("import", in, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "%s: exit %d\n%s", in, r.code, r.err);
	tkt_run_free(&r);
	return db;
}

/* The 6-byte file: XSpace { XPlane { event_metadata { key: 1 } } }. */
Test(xplane_hostile, six_byte_metadata_entry_without_value_is_refused)
{
	static const uint8_t six[] = {0x0a, 0x04, 0x22, 0x02, 0x08, 0x01};
	char *in = write_space("six.xplane.pb", NULL, six, sizeof(six));
	expect_refused(in, "byte 2: event_metadata entry 1 of an XPlane has no value");
	free(in);
}

Test(xplane_hostile, event_metadata_key_only_among_good_entries_is_refused)
{
	struct msg pl = {0}, e = {0};
	f_str(&pl, 2, "/host:CPU");
	event_md(&pl, 1, 1, "good");
	f_int(&e, 1, 2); /* key 2, no value */
	size_t at = 2 + pl.n;
	f_msg(&pl, 4, &e);
	line_with_event(&pl, 1, 7);
	char *in = write_space("keyonly.xplane.pb", &pl, NULL, 0);
	char what[96];
	snprintf(what, sizeof(what), "byte %zu: event_metadata entry 2 of an XPlane has no value",
		 at);
	expect_refused(in, what);
	free(in);
}

Test(xplane_hostile, stat_metadata_key_only_is_refused)
{
	static const uint8_t six[] = {0x0a, 0x04, 0x2a, 0x02, 0x08, 0x07};
	char *in = write_space("statkey.xplane.pb", NULL, six, sizeof(six));
	expect_refused(in, "byte 2: stat_metadata entry 7 of an XPlane has no value");
	free(in);
}

/* A value without its key is key 0 (protobuf's default): the event naming metadata 0 gets it. */
Test(xplane_hostile, event_metadata_value_without_key_is_key_zero)
{
	struct msg pl = {0};
	f_str(&pl, 2, "/host:CPU");
	event_md(&pl, 0, 0, "keyless");
	line_with_event(&pl, 0, 7);
	char *in = write_space("valueonly.xplane.pb", &pl, NULL, 0);
	char *db = expect_imported(in);
	char *rows = tkt_rows(db, "SELECT s.str FROM events e JOIN strings s ON s.id = e.name_id");
	cr_expect_str_eq(rows, "keyless");
	free(rows);
	free(db);
	free(in);
}

/* Duplicate keys: the last entry wins, as protobuf's map parsing has it. */
Test(xplane_hostile, duplicate_event_metadata_keys_take_the_last)
{
	struct msg pl = {0};
	f_str(&pl, 2, "/host:CPU");
	event_md(&pl, 1, 3, "first");
	event_md(&pl, 1, 3, "second");
	line_with_event(&pl, 3, 7);
	char *in = write_space("dup.xplane.pb", &pl, NULL, 0);
	char *db = expect_imported(in);
	char *rows = tkt_rows(db, "SELECT s.str FROM events e JOIN strings s ON s.id = e.name_id");
	cr_expect_str_eq(rows, "second");
	free(rows);
	free(db);
	free(in);
}

/* Stat metadata with an empty value (no id, no name), stats naming metadata nobody declared, an
 * event naming absent event metadata, and an event metadata whose stat has no metadata. */
Test(xplane_hostile, stat_metadata_with_missing_fields_imports)
{
	struct msg pl = {0}, sm = {0}, empty = {0}, v = {0}, st = {0}, e = {0};
	f_str(&pl, 2, "/host:CPU");
	f_int(&sm, 1, 7);
	f_msg(&sm, 2, &empty); /* XStatMetadata {} */
	f_msg(&pl, 5, &sm);
	f_int(&st, 1, 99); /* a stat of undeclared metadata 99 */
	f_int(&st, 4, 5);
	f_int(&v, 1, 1);
	f_str(&v, 2, "op");
	f_msg(&v, 5, &st);
	f_int(&e, 1, 1);
	f_msg(&e, 2, &v);
	f_msg(&pl, 4, &e);
	line_with_event(&pl, 1, 7);
	line_with_event(&pl, 42, 99); /* metadata 42 is not declared */
	char *in = write_space("statmd.xplane.pb", &pl, NULL, 0);
	char *db = expect_imported(in);
	cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM events"), 2);
	cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM events WHERE dur_ns = 1000"), 2);
	free(db);
	free(in);
}
