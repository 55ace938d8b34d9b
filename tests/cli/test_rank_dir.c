/*
 * Rank directories (tests/data/import/rank_dir, made by its make_fixture.py): `import DIR` takes
 * every JSON trace under DIR by its distributedInfo rank, else by file order; two files of one
 * rank are refused, also from separate inputs; `ls DIR` lists them; hostile trees (cycles of
 * links, links out of DIR, deep nesting) are refused without hanging. With the corpus: the rank
 * and host a peek reads are those the importer stores, on every real JSON trace.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/import.h>
#include <unistd.h>

#include "tk_test.h"

#define RANK_DIR TK_SOURCE_DIR "/tests/data/import/rank_dir"

TKT_TMPDIR_FIXTURE;

TestSuite(rank_dir, .init = setup, .fini = teardown); /* each test's own temporary directory */

/* @rows with the fixture's directory replaced by "D". */
static char *strip(const char *rows)
{
	char *out = strdup(rows);
	size_t n = strlen(RANK_DIR);
	char *p;
	while ((p = strstr(out, RANK_DIR)))
		memmove(p + 1, p + n, strlen(p + n) + 1), *p = 'D';
	return out;
}

Test(rank_dir, import_takes_every_trace_by_its_rank_with_its_host)
{
	char *db = tkt_path(dir, "job.db");
	tkt_ok(tkt_tracekit("import", RANK_DIR "/job", "-o", db, NULL));
	char *rows = tkt_rows(db, "SELECT id, rank, host, path FROM sources ORDER BY id");
	char *got = strip(rows);
	cr_expect_str_eq(got, "1|0|node2|D/job/node2/worker0.json\n"
			      "2|1|node2|D/job/node2/sub/worker1.json\n"
			      "3|2|node10|D/job/node10/worker0.json\n"
			      "4|3|node10|D/job/node10/worker1.json.gz");
	free(rows);
	free(got);
	rows = tkt_rows(db, "SELECT d.rank, s.str, d.source_id FROM devices d "
			    "JOIN strings s ON s.id = d.host_id ORDER BY d.rank");
	cr_expect_str_eq(rows, "0|node2|1\n1|node2|2\n2|node10|3\n3|node10|4");
	free(rows);
	/* each rank's kernel as the fixture made it: 100 + 20 r us */
	rows = tkt_rows(db, "SELECT d.rank, k.dur_ns FROM kernels k JOIN devices d "
			    "ON d.id = k.device_id ORDER BY d.rank");
	cr_expect_str_eq(rows, "0|100000\n1|120000\n2|140000\n3|160000");
	free(rows);
	free(db);
}

Test(rank_dir, ls_lists_the_traces_in_import_order_with_totals)
{
	struct tkt_run r = tkt_tracekit("ls", RANK_DIR "/job", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_str_eq(
	    r.out,
	    "  rank  host                  world  format                size  start (UTC)       "
	    "    duration  path\n"
	    "     0  node2                     4  kineto json          621 B  2023-11-14 22:13:20 "
	    "  110.0 us  node2/worker0.json\n"
	    "     1  node2                     4  kineto json          621 B  2023-11-14 22:13:20 "
	    "  130.0 us  node2/sub/worker1.json\n"
	    "     2  node10                    4  kineto json          601 B  2023-11-14 22:13:25 "
	    "  150.0 us  node10/worker0.json\n"
	    "     3  node10                    4  kineto json.gz       282 B  -                   "
	    "  170.0 us  node10/worker1.json.gz\n"
	    "4 traces, 4 ranks, 2 hosts, 2.1 KiB\n");
	tkt_run_free(&r);
}

Test(rank_dir, without_distributed_info_ranks_follow_file_order_numbers_in_order)
{
	char *db = tkt_path(dir, "plain.db");
	tkt_ok(tkt_tracekit("import", RANK_DIR "/plain", "-o", db, NULL));
	char *rows = tkt_rows(db, "SELECT rank, path FROM sources ORDER BY id");
	char *got = strip(rows);
	cr_expect_str_eq(got, "0|D/plain/rank1.json\n1|D/plain/rank2.json\n2|D/plain/rank10.json");
	free(rows);
	free(got);
	remove(db);
	tkt_ok(tkt_tracekit("import", RANK_DIR "/plain", "-o", db, "--rank", "5", NULL));
	rows = tkt_rows(db, "SELECT group_concat(rank) FROM sources");
	cr_expect_str_eq(rows, "5,6,7");
	free(rows);
	struct tkt_run r = tkt_tracekit("ls", RANK_DIR "/plain", NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "rank1.json\n") < strstr(r.out, "rank2.json\n") &&
		      strstr(r.out, "rank2.json\n") < strstr(r.out, "rank10.json\n"),
		  "%s", r.out);
	cr_expect(strstr(r.out, "3 traces, 0 ranks, 0 hosts, 1.3 KiB (3 without a rank: by file "
				"order on import)\n"),
		  "%s", r.out);
	tkt_run_free(&r);
	free(db);
}

static void expect_refused(struct tkt_run r, const char *db, const char *a, const char *b)
{
	cr_expect_eq(r.code, 2, "%s", r.err);
	cr_expect(strstr(r.err, a) && strstr(r.err, b), "%s", r.err);
	cr_expect(strstr(r.err, "are both rank 1: a job has one trace per rank"), "%s", r.err);
	cr_expect(!tkt_exists(db));
	tkt_run_free(&r);
}

Test(rank_dir, two_traces_of_one_rank_are_refused_in_a_directory_and_across_inputs)
{
	char *db = tkt_path(dir, "dup.db");
	expect_refused(tkt_tracekit("import", RANK_DIR "/dup", "-o", db, NULL), db,
		       "'" RANK_DIR "/dup/a.json' (distributedInfo)",
		       "'" RANK_DIR "/dup/b/b.json' (distributedInfo)");
	expect_refused(
	    tkt_tracekit("import", RANK_DIR "/job", RANK_DIR "/dup/a.json", "-o", db, NULL), db,
	    "job/node2/sub/worker1.json' (distributedInfo)", "dup/a.json'");
	/* a file's rank by file order against one stated */
	expect_refused(tkt_tracekit("import", RANK_DIR "/dup/a.json", RANK_DIR "/plain/rank1.json",
				    "-o", db, NULL),
		       db, "a.json' (distributedInfo)", "rank1.json' (file order)");
	free(db);
}

/* mkdir -p of @rel under the test's directory; its path. */
static char *mk(const char *rel)
{
	char *p = tkt_path(dir, rel);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	cr_assert_eq(system(cmd), 0);
	return p;
}

static void copy_trace(const char *to_rel)
{
	size_t n;
	char *t = tkt_slurp(RANK_DIR "/job/node2/worker0.json", &n);
	char *to = tkt_path(dir, to_rel);
	tkt_spit(to, t, n);
	free(t);
	free(to);
}

static void expect_tree_refused(const char *tree, const char *what)
{
	char *db = tkt_path(dir, "t.db");
	struct tkt_run r = tkt_tracekit("import", tree, "-o", db, NULL);
	cr_expect_eq(r.code, 2, "%s", r.err);
	cr_expect(strstr(r.err, what), "%s", r.err);
	cr_expect(!tkt_exists(db));
	tkt_run_free(&r);
	r = tkt_tracekit("ls", tree, NULL);
	cr_expect_eq(r.code, 2, "%s", r.err);
	cr_expect(strstr(r.err, what), "%s", r.err);
	tkt_run_free(&r);
	free(db);
}

Test(rank_dir, a_cycle_of_links_is_refused_without_hanging)
{
	char *tree = mk("cyc/a/b");
	copy_trace("cyc/a/rank0.json");
	char *link = tkt_path(dir, "cyc/a/b/up");
	cr_assert_eq(symlink("../..", link), 0); /* cyc/a/b/up -> cyc */
	char *top = tkt_path(dir, "cyc");
	expect_tree_refused(top, "(a cycle of links): not read as a rank directory");
	free(link);
	free(top);
	free(tree);
}

Test(rank_dir, a_link_out_of_the_directory_and_a_deep_tree_are_refused)
{
	char *in = mk("out/in");
	copy_trace("out/in/rank0.json");
	char *other = mk("elsewhere");
	char *link = tkt_path(dir, "out/in/away");
	cr_assert_eq(symlink(other, link), 0);
	char *top = tkt_path(dir, "out");
	expect_tree_refused(top, "outside");
	free(top);
	char rel[512] = "deep";
	for (int i = 0; i < 40; i++)
		strcat(rel, "/d");
	free(mk(rel));
	copy_trace("deep/rank0.json");
	top = tkt_path(dir, "deep");
	expect_tree_refused(top, "directories nested deeper than 32 levels");
	free(top);
	free(link);
	free(other);
	free(in);
}

Test(rank_dir, a_broken_trace_in_a_directory_fails_the_import_naming_it_or_is_salvaged)
{
	free(mk("cut"));
	copy_trace("cut/rank0.json");
	size_t n;
	char *t = tkt_slurp(RANK_DIR "/job/node10/worker0.json", &n);
	char *cut = tkt_path(dir, "cut/rank2.json");
	tkt_spit(cut, t, n / 2 + 40);
	char *top = tkt_path(dir, "cut");
	char *db = tkt_path(dir, "cut.db");
	struct tkt_run r = tkt_tracekit("import", top, "-o", db, NULL);
	cr_expect_eq(r.code, 2, "%s", r.err);
	cr_expect(strstr(r.err, "rank2.json': line "), "%s", r.err);
	tkt_run_free(&r);
	tkt_ok(tkt_tracekit("import", top, "--salvage", "-o", db, NULL));
	char *rows = tkt_rows(db, "SELECT group_concat(rank) FROM sources");
	cr_expect_str_eq(rows, "0,2");
	free(rows);
	free(db);
	free(top);
	free(cut);
	free(t);
}

/* Every real JSON trace of the corpus, as one rank directory: peeked rank and host as the
 * importer stores them, and the span within the store's trace bounds. */
Test(full_corpus, the_peek_reads_the_rank_and_host_the_importer_stores, .init = setup,
     .fini = teardown)
{
	char *kdir = tkt_path(tkt_corpus_dir(), "kineto");
	struct tk_rank_file *files = NULL;
	int n = 0;
	cr_assert_eq(tk_rank_dir_list(kdir, TK_RANK_SPAN, &files, &n, tkt_err()), TK_OK, "%s",
		     tkt_errmsg());
	cr_expect_gt(n, 20);
	int ranked = 0;
	for (int i = 0; i < n; i++) {
		const struct tk_rank_file *f = &files[i];
		char *db = tkt_path(dir, "one.db");
		remove(db);
		tkt_ok(tkt_tracekit("import", f->path, "-o", db, "--rank", "999", NULL));
		int64_t rank = tkt_query_int(db, "SELECT rank FROM sources");
		cr_expect_eq(rank, f->rank == TK_NONE ? 999 : f->rank, "%s: %lld", f->rel,
			     (long long)rank);
		ranked += f->rank != TK_NONE;
		char *host = tkt_rows(db, "SELECT coalesce(host, '-') FROM sources");
		cr_expect_str_eq(host, f->host ? f->host : "-", "%s", f->rel);
		free(host);
		if (f->start_ns != TK_NONE)
			cr_expect(f->start_ns <= f->end_ns, "%s", f->rel);
		free(db);
	}
	cr_expect_gt(ranked, 10);
	tk_rank_files_free(files, n);
	free(kdir);
}
