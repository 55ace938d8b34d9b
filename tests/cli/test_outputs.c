/*
 * Output-path safety of every command that writes a file (issue 14, defects 1, 2, 9): never over
 * one of its inputs or over a file of another kind (exit 2, both paths named), report/diff -o
 * written under a temporary name and renamed into place, and stale temporaries of dead writers
 * removed by the next write.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"

static char *dir, *db, *json, *notes;
static const char NOTES[] = "my notes: do not lose\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The whole file (NUL-terminated; NULL when it cannot be read). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0, n;
	char *buf = malloc(cap);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = 0;
	fclose(f);
	return buf;
}

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "f.db");
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	json = tkt_path(dir, "in.json");
	char *src = slurp(TK_SOURCE_DIR "/tests/data/json/kineto_small.json");
	cr_assert_not_null(src);
	write_file(json, src);
	free(src);
	notes = tkt_path(dir, "notes.txt");
	write_file(notes, NOTES);
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
	free(json);
	free(notes);
}

TestSuite(outputs, .init = setup, .fini = teardown);

static void expect_contains(const char *hay, const char *needle)
{
	cr_expect(strstr(hay, needle) != NULL, "expected '%s' in:\n%s", needle, hay);
}

/* Exit 2 with a message naming @a and (when not NULL) @b. */
static void expect_refused(struct tkt_run *r, const char *a, const char *b)
{
	cr_expect_eq(r->code, 2, "exit %d, want 2\nstdout: %s\nstderr: %s", r->code, r->out,
		     r->err);
	expect_contains(r->err, a);
	if (b)
		expect_contains(r->err, b);
	tkt_run_free(r);
}

static void expect_ok(struct tkt_run *r)
{
	cr_expect_eq(r->code, 0, "exit %d, want 0\nstdout: %s\nstderr: %s", r->code, r->out,
		     r->err);
	tkt_run_free(r);
}

static void expect_content(const char *path, const char *want)
{
	char *got = slurp(path);
	cr_expect(got && !strcmp(got, want), "%s changed", path);
	free(got);
}

/* Entries of the test directory whose name holds ".tmp-". */
static int count_temps(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp-") != NULL;
	if (d)
		closedir(d);
	return n;
}

static ino_t inode(const char *path)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	return st.st_ino;
}

Test(outputs, import_refuses_its_own_input_directly_and_through_links)
{
	char *orig = slurp(json), *sym = tkt_path(dir, "sym.json"),
	     *hard = tkt_path(dir, "hard.json");
	cr_assert_eq(symlink("in.json", sym), 0);
	cr_assert_eq(link(json, hard), 0);
	const char *outs[] = {json, sym, hard};
	for (size_t i = 0; i < 3; i++) {
		struct tkt_run r = tkt_tracekit("import", json, "-o", outs[i], NULL);
		expect_refused(&r, outs[i], json);
		expect_content(json, orig);
	}
	/* the output named first among several inputs */
	struct tkt_run r = tkt_tracekit("import", db, json, "-o", hard, NULL);
	expect_refused(&r, hard, json);
	expect_content(json, orig);
	cr_expect_eq(count_temps(), 0);
	free(orig);
	free(sym);
	free(hard);
}

Test(outputs, import_refuses_a_file_that_is_not_a_store_and_replaces_a_store)
{
	struct tkt_run r = tkt_tracekit("import", json, "-o", notes, NULL);
	expect_refused(&r, notes, "not a tracekit store");
	expect_content(notes, NOTES);
	r = tkt_tracekit("import", json, "-o", dir, NULL); /* a directory */
	expect_refused(&r, dir, "not a tracekit store");
	char *out = tkt_path(dir, "s.db");
	r = tkt_tracekit("import", json, "-o", out, NULL);
	expect_ok(&r);
	ino_t first = inode(out);
	r = tkt_tracekit("import", json, "-o", out, NULL); /* replacing a store stays allowed */
	expect_ok(&r);
	cr_expect_neq(inode(out), first, "the store was not replaced by a new file");
	char *empty = tkt_path(dir, "empty.db"); /* an empty file holds nothing to lose */
	write_file(empty, "");
	r = tkt_tracekit("import", json, "-o", empty, NULL);
	expect_ok(&r);
	cr_expect_gt(tkt_query_int(empty, "SELECT count(*) FROM events"), 0);
	cr_expect_eq(count_temps(), 0);
	free(out);
	free(empty);
}

Test(outputs, synth_and_record_refuse_what_is_not_a_store)
{
	struct tkt_run r = tkt_tracekit("synth", "--events", "1000", "-o", notes, NULL);
	expect_refused(&r, notes, "not a tracekit store");
	expect_content(notes, NOTES);
	r = tkt_tracekit("synth", "--events", "1000", "-o", db, NULL); /* a store: replaced */
	expect_ok(&r);
	r = tkt_tracekit("record", "-o", notes, "--", "/bin/true", NULL);
	expect_refused(&r, notes, "not a tracekit store");
	expect_content(notes, NOTES);
	r = tkt_tracekit("record", "-o", notes, "--", notes, NULL); /* the program is an input */
	expect_refused(&r, notes, "same file as the input");
	expect_content(notes, NOTES);
}

Test(outputs, export_refuses_its_store_and_foreign_files)
{
	uint64_t digest = tkt_store_digest(db);
	const char *formats[] = {"chrome", "perfetto", "xplane"};
	for (size_t i = 0; i < 3; i++) {
		struct tkt_run r =
		    tkt_tracekit("export", db, "--format", formats[i], "-o", db, NULL);
		expect_refused(&r, db, NULL);
		r = tkt_tracekit("export", db, "--format", formats[i], "-o", notes, NULL);
		expect_refused(&r, notes, "not");
	}
	cr_expect_eq(tkt_store_digest(db), digest);
	expect_content(notes, NOTES);
	/* a Chrome trace of another tool, even one that starts like ours */
	char *other = tkt_path(dir, "other.json");
	const char *foreign =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2}]}\n";
	write_file(other, foreign);
	struct tkt_run r = tkt_tracekit("export", db, "--format", "chrome", "-o", other, NULL);
	expect_refused(&r, other, "not a Chrome JSON trace written by tracekit");
	expect_content(other, foreign);
	r = tkt_tracekit("export", db, "--format", "chrome", "-o", json, NULL);
	expect_refused(&r, json, "not a Chrome JSON trace written by tracekit");
	/* a directory that is not a logdir */
	char *sub = tkt_path(dir, "sub");
	cr_assert_eq(mkdir(sub, 0755), 0);
	char *inner = tkt_path(sub, "keep.txt");
	write_file(inner, NOTES);
	r = tkt_tracekit("export", db, "--format", "xplane", "-o", sub, NULL);
	expect_refused(&r, sub, "TensorBoard logdir");
	cr_expect_eq(tkt_count_entries(sub), 1);
	free(other);
	free(sub);
	free(inner);
}

Test(outputs, export_replaces_what_it_wrote_itself)
{
	const char *names[] = {"t.json", "t.json.gz", "t.pftrace"};
	const char *formats[] = {"chrome", "chrome", "perfetto"};
	for (size_t i = 0; i < 3; i++) {
		char *out = tkt_path(dir, names[i]);
		struct tkt_run r =
		    tkt_tracekit("export", db, "--format", formats[i], "-o", out, NULL);
		expect_ok(&r);
		r = tkt_tracekit("export", db, "--format", formats[i], "-o", out, NULL);
		expect_ok(&r);
		free(out);
	}
	/* plain Chrome JSON onto a gzip one tracekit wrote, and the other way round */
	char *gz = tkt_path(dir, "t.json.gz"), *plain = tkt_path(dir, "t.json");
	cr_assert_eq(rename(gz, plain), 0);
	struct tkt_run r = tkt_tracekit("export", db, "--format", "chrome", "-o", plain, NULL);
	expect_ok(&r);
	char *logdir = tkt_path(dir, "logs");
	cr_assert_eq(mkdir(logdir, 0755), 0); /* empty */
	r = tkt_tracekit("export", db, "--format", "xplane", "--run", "a", "-o", logdir, NULL);
	expect_ok(&r);
	r = tkt_tracekit("export", db, "--format", "xplane", "--run", "b", "-o", logdir, NULL);
	expect_ok(&r);
	cr_expect_eq(count_temps(), 0);
	free(gz);
	free(plain);
	free(logdir);
}

Test(outputs, report_and_diff_refuse_their_stores)
{
	char *g = tkt_path(dir, "g.db");
	cr_assert_eq(tkt_write_fixture(g), TK_OK);
	uint64_t da = tkt_store_digest(db), dg = tkt_store_digest(g);
	struct tkt_run r = tkt_tracekit("report", db, "-o", db, NULL);
	expect_refused(&r, db, NULL);
	r = tkt_tracekit("diff", db, g, "--format", "md", "-o", g, NULL);
	expect_refused(&r, g, NULL);
	cr_expect_eq(tkt_store_digest(db), da, "the store was changed");
	cr_expect_eq(tkt_store_digest(g), dg, "the store was changed");
	r = tkt_tracekit("report", db, "--format", "html", "-o", notes, NULL);
	expect_refused(&r, notes, "not a tracekit HTML report");
	expect_content(notes, NOTES);
	free(g);
}

Test(outputs, report_through_a_link_to_a_text_file_is_refused)
{
	char *lnk = tkt_path(dir, "r.txt");
	cr_assert_eq(symlink("notes.txt", lnk), 0);
	struct tkt_run r = tkt_tracekit("report", db, "-o", lnk, NULL);
	expect_refused(&r, lnk, "notes.txt");
	expect_content(notes, NOTES);
	struct stat st;
	cr_expect(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
	free(lnk);
}

Test(outputs, report_replaces_a_report_by_renaming_never_in_place)
{
	const char *formats[] = {"text", "html", "json", "md"};
	for (size_t i = 0; i < 4; i++) {
		char *out = tkt_path(dir, "r.out"), *old = tkt_path(dir, "old.out");
		struct tkt_run r = tkt_tracekit("report", db, "--format", formats[i], "--top", "1",
						"-o", out, NULL);
		expect_ok(&r);
		char *before = slurp(out);
		cr_assert_eq(link(out, old), 0); /* a second name for the old report */
		r = tkt_tracekit("report", db, "--format", formats[i], "-o", out, NULL);
		expect_ok(&r);
		expect_content(old, before); /* the old file was not rewritten in place */
		cr_expect_neq(inode(out), inode(old), "%s: written in place", formats[i]);
		/* a diff may replace a report of its format */
		r = tkt_tracekit("diff", db, db, "--format", formats[i], "-o", out, NULL);
		expect_ok(&r);
		cr_expect_eq(count_temps(), 0);
		unlink(out);
		unlink(old);
		free(before);
		free(out);
		free(old);
	}
}

Test(outputs, report_onto_a_link_to_a_report_replaces_the_link)
{
	char *real = tkt_path(dir, "real.md"), *lnk = tkt_path(dir, "lnk.md");
	struct tkt_run r =
	    tkt_tracekit("report", db, "--format", "md", "--top", "1", "-o", real, NULL);
	expect_ok(&r);
	char *before = slurp(real);
	cr_assert_eq(symlink("real.md", lnk), 0);
	r = tkt_tracekit("report", db, "--format", "md", "-o", lnk, NULL);
	expect_ok(&r);
	expect_content(real, before);
	struct stat st;
	cr_expect(lstat(lnk, &st) == 0 && S_ISREG(st.st_mode), "the link was followed");
	free(before);
	free(real);
	free(lnk);
}

/* Run tracekit with @args (NULL-terminated) and files limited to @fsize bytes; the exit code. */
static int run_limited(rlim_t fsize, const char **args)
{
	pid_t pid = fork();
	if (pid < 0)
		cr_assert_fail("fork failed");
	if (pid == 0) {
		struct rlimit rl = {fsize, fsize};
		setrlimit(RLIMIT_FSIZE, &rl);
		signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG */
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execv(TK_BINARY, (char *const *)args);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(outputs, a_failed_report_leaves_the_old_file_and_no_temporary)
{
	char *out = tkt_path(dir, "r.html");
	struct tkt_run r = tkt_tracekit("analyze", db, NULL);
	expect_ok(&r);
	r = tkt_tracekit("report", db, "--format", "html", "--top", "1", "-o", out, NULL);
	expect_ok(&r);
	char *before = slurp(out);
	const char *args[] = {TK_BINARY, "report", db, "--format", "html", "-o", out, NULL};
	int code = run_limited(4096, args);
	cr_expect(code != 0 && code != 127, "exit %d", code);
	expect_content(out, before);
	cr_expect_eq(count_temps(), 0);
	free(before);
	free(out);
}

/* A pid that is not running: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	cr_assert(pid > 0);
	waitpid(pid, NULL, 0);
	return pid;
}

static char *temp_name(const char *target, long pid, const char *suffix)
{
	char name[256];
	if (pid)
		snprintf(name, sizeof(name), "%s.tmp-tk%ld-%s", target, pid, suffix);
	else
		snprintf(name, sizeof(name), "%s.tmp-%s", target, suffix);
	return tkt_path(dir, name);
}

Test(outputs, the_next_write_removes_stale_temporaries_and_keeps_held_ones)
{
	long dead = (long)dead_pid(), me = (long)getpid();
	char *stale = temp_name("s.db", dead, "abc123");
	char *other = temp_name("other.db", dead, "Zz9Zz9"); /* another target, same directory */
	char *held = temp_name("s.db", me, "held01");
	char *old_stale = temp_name("s.db", 0, "Ab12Cd"),
	     *old_fresh = temp_name("s.db", 0, "Xy34Zw");
	char *sym = temp_name("s.db", dead, "link01"), *sub = temp_name("s.db", dead, "dir001");
	/* a user's file that merely looks like a temporary (no "tk" before the number) */
	char *mine = tkt_path(dir, "notes.tmp-2024-draft1"),
	     *mine2 = tkt_path(dir, "s.db.tmp-2024-draft1");
	write_file(mine, "keep");
	write_file(mine2, "keep");
	cr_assert_eq(utimensat(AT_FDCWD, mine2,
			       (struct timespec[2]){{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}},
			       0),
		     0);
	write_file(stale, "x");
	write_file(other, "x");
	write_file(held, "x");
	write_file(old_stale, "x");
	write_file(old_fresh, "x");
	cr_assert_eq(symlink("notes.txt", sym), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	/* an old-style temporary unchanged for two hours is abandoned; a fresh one may be in use */
	struct timespec times[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
	cr_assert_eq(utimensat(AT_FDCWD, old_stale, times, 0), 0);
	/* a live writer holds its temporary locked */
	int fd = open(held, O_RDONLY);
	cr_assert(fd >= 0 && flock(fd, LOCK_EX) == 0);

	char *out = tkt_path(dir, "s.db");
	struct tkt_run r = tkt_tracekit("synth", "--events", "1000", "-o", out, NULL);
	expect_ok(&r);
	cr_expect_not(tkt_exists(stale), "a dead writer's temporary was kept");
	cr_expect_not(tkt_exists(other), "a dead writer's temporary in the directory was kept");
	cr_expect_not(tkt_exists(old_stale), "an abandoned old-style temporary was kept");
	cr_expect(tkt_exists(held), "a temporary held by a live process was removed");
	cr_expect(tkt_exists(old_fresh), "a recent old-style temporary was removed");
	struct stat st;
	cr_expect(lstat(sym, &st) == 0 && S_ISLNK(st.st_mode), "a link was removed");
	cr_expect(tkt_exists(sub), "a directory was removed");
	expect_content(mine, "keep");
	expect_content(mine2, "keep");
	expect_content(notes, NOTES);
	free(mine);
	free(mine2);
	close(fd);
	free(stale);
	free(other);
	free(held);
	free(old_stale);
	free(old_fresh);
	free(sym);
	free(sub);
	free(out);
}

Test(outputs, report_removes_stale_temporaries_of_its_target)
{
	char *out = tkt_path(dir, "r.md"), *stale = temp_name("r.md", (long)dead_pid(), "q1w2e3");
	write_file(stale, "half a report");
	struct tkt_run r = tkt_tracekit("report", db, "--format", "md", "-o", out, NULL);
	expect_ok(&r);
	cr_expect_not(tkt_exists(stale));
	cr_expect_eq(count_temps(), 0);
	free(out);
	free(stale);
}

Test(outputs, a_killed_writers_temporary_is_removed_by_the_next_write)
{
	char *out = tkt_path(dir, "big.db");
	/* a long synth, killed the hard way once its temporary exists */
	const char *const args[] = {"synth", "--events", "2000000000", "-o", out, NULL};
	int seen;
	pid_t pid = tkt_spawn_until(dir, "big.db.tmp-", &seen, args);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_assert(seen, "the temporary file never appeared");
	cr_assert_eq(count_temps(), 1, "SIGKILL cannot remove it");
	struct tkt_run r = tkt_tracekit("synth", "--events", "1000", "-o", out, NULL);
	expect_ok(&r);
	cr_expect_eq(count_temps(), 0, "the killed writer's temporary is still there");
	cr_expect_gt(tkt_query_int(out, "SELECT count(*) FROM events"), 0);
	free(out);
}
