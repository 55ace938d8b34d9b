/*
 * What `tracekit import` accepts as its inputs: a JSON file that is not a trace (no traceEvents
 * array, or an array without events) is refused with exit 2; a trace without device work imports
 * with a warning saying what usually causes it; one input given twice (the same file by any path
 * or link, a copy of a JSON trace, an XPlane file and the logdir holding it) is refused rather
 * than made into a second rank or host. Inputs are written here; answers known by construction.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tk_test.h"

#define DATA TK_SOURCE_DIR "/tests/data/json/"
#define NOT_TRACE "no traceEvents: not a Chrome/Kineto trace"
#define HOST_EVENT_AT(ts)                                                                       \
	"{\"ph\": \"X\", \"name\": \"aten::mm\", \"cat\": \"cpu_op\", \"pid\": 7, \"tid\": 7, " \
	"\"ts\": " ts ", \"dur\": 5}"
#define HOST_EVENT HOST_EVENT_AT("10")

static char *dir, *db;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "out.db");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
}

TestSuite(json_inputs, .init = setup, .fini = teardown, .timeout = 300);

/* dir/@name holding @text; the path, malloc'd. */
static char *write_file(const char *name, const char *text)
{
	char *p = tkt_path(dir, name);
	FILE *f = fopen(p, "w");
	cr_assert(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return p;
}

/* `tracekit import ARGS... -o db` (@n < 12 args). */
static struct tkt_run run_import(int n, const char *const *args)
{
	const char *argv[16] = {"import"};
	int k = 1;
	for (int i = 0; i < n; i++)
		argv[k++] = args[i];
	argv[k++] = "-o";
	argv[k++] = db;
	return tkt_tracekitv(k, argv);
}

/* `tracekit import ARGS... -o db` exits 2 naming @what, and leaves no store. */
static void expect_refused(int n, const char *const *args, const char *what)
{
	struct tkt_run r = run_import(n, args);
	cr_expect_eq(r.code, 2, "%s: exit %d\n%s", args[n - 1], r.code, r.err);
	cr_expect(strstr(r.err, what), "expected '%s' in:\n%s", what, r.err);
	cr_expect(!tkt_exists(db), "a store was left at %s", db);
	tkt_run_free(&r);
}

static struct tkt_run import_ok(int n, const char *const *args)
{
	struct tkt_run r = run_import(n, args);
	cr_assert_eq(r.code, 0, "exit %d\n%s", r.code, r.err);
	return r;
}

/* ../shared/corpus/kineto/HolisticTraceAnalysis/tests/data/@rel (malloc'd), or the test skips. */
static char *hta_file(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "kineto/HolisticTraceAnalysis/tests/data/%s", rel);
	char *in = tkt_corpus(path);
	if (!in)
		cr_skip_test("corpus is absent (../shared/corpus)");
	return in;
}

/* ---- not a trace ---- */

Test(json_inputs, json_that_is_not_a_trace_is_refused)
{
	static const char *const texts[] = {"{\"foo\": 1}", "[]", "{}", " [1, 2, {\"a\": 1}]\n",
					    "{\"schemaVersion\": 1, \"traceEvents_\": []}"};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "not%zu.json", i);
		char *in = write_file(name, texts[i]);
		const char *args[] = {in};
		expect_refused(1, args, NOT_TRACE);
		expect_refused(1, args, in); /* the message names the file */
		free(in);
	}
}

Test(json_inputs, trace_events_that_are_not_an_array_are_refused_where_they_are)
{
	char *in = write_file("five.json", "{\"traceEvents\": 5}");
	const char *args[] = {in};
	expect_refused(1, args, "line 1, column 17: traceEvents is a number, not an array");
	free(in);
}

Test(json_inputs, salvage_of_a_file_broken_before_its_events_keeps_nothing_and_fails)
{
	char *in = write_file("cut.json", "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\"");
	const char *args[] = {"--salvage", in};
	expect_refused(2, args, in);
	free(in);
}

Test(json_inputs, hta_memory_timeline_is_not_a_trace)
{
	char *in = hta_file("memory_analysis/memory_timeline.raw.gz");
	const char *args[] = {in};
	expect_refused(1, args, NOT_TRACE);
	free(in);
}

/* ---- traces without device work ---- */

Test(json_inputs, host_only_trace_imports_with_the_synchronize_hint)
{
	char *obj = write_file("host.json", "{\"traceEvents\": [" HOST_EVENT "]}");
	char *arr = write_file("host_array.json", "[" HOST_EVENT "]");
	const char *const ins[] = {obj, arr};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = import_ok(1, &ins[i]);
		cr_expect(strstr(r.err, "the trace holds no device (GPU) work"), "%s", r.err);
		cr_expect(strstr(r.err, "torch.cuda.synchronize()"), "%s", r.err);
		cr_expect(strstr(r.err, "block_until_ready()"), "%s", r.err);
		cr_expect(strstr(r.err, "profiling ended too early"), "%s", r.err);
		tkt_run_free(&r);
		cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM host_ops"), 1);
		remove(db);
	}
	free(obj);
	free(arr);
}

Test(json_inputs, empty_trace_imports_with_a_warning)
{
	char *in = write_file("empty.json", "{\"traceEvents\": [], \"schemaVersion\": 1}");
	struct tkt_run r = import_ok(1, (const char *const[]){in});
	cr_expect(strstr(r.err, "the trace holds no events"), "%s", r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM events"), 0);
	free(in);
}

Test(json_inputs, hta_cpu_only_trace_imports_with_the_hint)
{
	char *in = hta_file("cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
	struct tkt_run r = import_ok(1, (const char *const[]){in});
	cr_expect(strstr(r.err, "no device (GPU) work"), "%s", r.err);
	tkt_run_free(&r);
	free(in);
}

Test(json_inputs, trace_with_device_work_has_no_such_warning)
{
	struct tkt_run r = import_ok(1, (const char *const[]){DATA "kineto_small.json"});
	cr_expect(!strstr(r.err, "no device"), "%s", r.err);
	cr_expect(!strstr(r.err, "no events"), "%s", r.err);
	tkt_run_free(&r);
}

/* ---- one input twice ---- */

Test(json_inputs, the_same_json_file_twice_is_refused)
{
	char *in = write_file("r0.json", "{\"traceEvents\": [" HOST_EVENT "]}");
	char *sym = tkt_path(dir, "sym.json"), *hard = tkt_path(dir, "hard.json");
	cr_assert_eq(symlink(in, sym), 0);
	cr_assert_eq(link(in, hard), 0);
	const char *twice[] = {in, in}, *by_sym[] = {sym, in}, *by_link[] = {in, hard};
	expect_refused(2, twice, "are the same file");
	expect_refused(2, by_sym, "are the same file");
	expect_refused(2, by_link, "are the same file");
	expect_refused(2, by_link, hard); /* both paths named */
	free(in);
	free(sym);
	free(hard);
}

Test(json_inputs, a_copy_of_a_json_trace_is_refused_a_different_rank_is_not)
{
	char *a = write_file("r0.json", "{\"traceEvents\": [" HOST_EVENT "]}");
	char *b = write_file("copy.json", "{\"traceEvents\": [" HOST_EVENT "]}");
	/* the same size, one byte different: another trace */
	char *c = write_file("r1.json", "{\"traceEvents\": [" HOST_EVENT_AT("12") "]}");
	const char *copy[] = {a, b}, *other[] = {a, c};
	expect_refused(2, copy, "have the same content (a copy of one trace)");
	struct tkt_run r = import_ok(2, other);
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM sources"), 2);
	cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM host_ops WHERE ts_ns = 12000"), 1);
	free(a);
	free(b);
	free(c);
}

Test(json_inputs, an_xplane_file_and_the_logdir_holding_it_are_refused)
{
	char *synth = tkt_path(dir, "s.db"), *logdir = tkt_path(dir, "logdir");
	struct tkt_run r = tkt_tracekit("synth", "-o", synth, "--events", "2000", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("export", synth, "--format", "xplane", "-o", logdir, "--run", "run1",
			 NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "ls '%s'/plugins/profile/run1/*.xplane.pb", logdir);
	FILE *p = popen(cmd, "r");
	cr_assert(p);
	char line[1024] = "";
	cr_assert(fgets(line, sizeof(line), p));
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	const char *host = line;
	const char *file_and_dir[] = {host, logdir}, *dir_twice[] = {logdir, logdir},
		   *file_twice[] = {host, host};
	expect_refused(2, file_and_dir, "are the same file");
	expect_refused(2, dir_twice, "are the same file");
	expect_refused(2, file_twice, "are the same file");
	r = import_ok(1, (const char *const[]){logdir});
	tkt_run_free(&r);
	free(synth);
	free(logdir);
}
