/*
 * Tests of check/gates.c, gates_file.c and gates_toml.c: every documented gate form (the fields
 * of the parsed gate), the refused ones and their messages, values with units, the defaults, the
 * gates file in JSON and TOML giving the same gates, error lines, and hostile files (every
 * truncation of a valid file of each syntax).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "check_internal.h"
#include "tk_test.h"

static char *dir, *path;
static char err[1024];

static void setup(void)
{
	dir = tkt_mkdtemp();
	path = tkt_path(dir, "gates.toml");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(path);
}

TestSuite(gates, .init = setup, .fini = teardown, .timeout = 300);

static void gate_clear(struct tkc_gate *g)
{
	free(g->text);
	free(g->metric);
	free(g->pattern);
	free(g->stat);
}

/* Parse @text of @kind, expecting success, and check the fields. */
static void ok(const char *text, enum tkc_gate_kind kind, const char *metric, const char *pattern,
	       const char *stat, int sign, double amount, enum tkc_amount_unit unit)
{
	struct tkc_gate g;
	err[0] = 0;
	cr_assert_eq(tkc_gate_parse(text, kind, &g, err, sizeof(err)), TK_OK, "%s: %s", text, err);
	cr_expect_str_eq(g.text, text);
	cr_expect_eq(g.kind, kind, "%s", text);
	cr_expect_str_eq(g.metric, metric, "%s", text);
	if (pattern)
		cr_expect_str_eq(g.pattern, pattern, "%s", text);
	else
		cr_expect_null(g.pattern, "%s", text);
	if (stat)
		cr_expect_str_eq(g.stat, stat, "%s", text);
	else
		cr_expect_null(g.stat, "%s", text);
	cr_expect_eq(g.sign, sign, "%s", text);
	cr_expect(fabs(g.amount - amount) <= 1e-12 * fabs(amount), "%s: amount %.17g, want %.17g",
		  text, g.amount, amount);
	cr_expect_eq(g.unit, unit, "%s", text);
	cr_expect_eq(g.is_default, 0);
	gate_clear(&g);
}

/* Parse @text of @kind, expecting TK_EINVAL with a message holding @want. */
static void bad(const char *text, enum tkc_gate_kind kind, const char *want)
{
	struct tkc_gate g;
	err[0] = 0;
	cr_assert_eq(tkc_gate_parse(text, kind, &g, err, sizeof(err)), TK_EINVAL, "%s", text);
	cr_expect(strstr(err, want), "%s: '%s' lacks '%s'", text, err, want);
	cr_expect_null(g.text, "nothing left allocated");
}

Test(gates, relative_gates)
{
	ok("step_time:+5%", TKC_GATE_REL, "step_time", NULL, NULL, 1, 0.05, TKC_UNIT_PCT);
	ok("kernel:*gemm*:+10%", TKC_GATE_REL, "kernel", "*gemm*", NULL, 1, 0.10, TKC_UNIT_PCT);
	ok("kernel:void at::native::vectorized_elementwise_kernel<4, ...>:+10%", TKC_GATE_REL,
	   "kernel", "void at::native::vectorized_elementwise_kernel<4, ...>", NULL, 1, 0.10,
	   TKC_UNIT_PCT);
	ok("op:fusion.*:+2.5%", TKC_GATE_REL, "op", "fusion.*", NULL, 1, 0.025, TKC_UNIT_PCT);
	ok("kpi.gpu_utilization:-3pt", TKC_GATE_REL, "kpi.gpu_utilization", NULL, NULL, -1, 3,
	   TKC_UNIT_PT);
	ok("memory.peak:+5%", TKC_GATE_REL, "memory.peak", NULL, NULL, 1, 0.05, TKC_UNIT_PCT);
	ok("comm.exposed:+10%", TKC_GATE_REL, "comm.exposed", NULL, NULL, 1, 0.10, TKC_UNIT_PCT);
	ok("step_time:+2ms", TKC_GATE_REL, "step_time", NULL, NULL, 1, 2e6, TKC_UNIT_ABS);
	ok("step_time:-5%", TKC_GATE_REL, "step_time", NULL, NULL, -1, 0.05, TKC_UNIT_PCT);
	ok("memory.peak:+512MiB", TKC_GATE_REL, "memory.peak", NULL, NULL, 1, 512.0 * 1048576,
	   TKC_UNIT_ABS);
	ok("host_step_time:+1.5e2us", TKC_GATE_REL, "host_step_time", NULL, NULL, 1, 150e3,
	   TKC_UNIT_ABS);
	ok("kpi.compilation_time:+1s", TKC_GATE_REL, "kpi.compilation_time", NULL, NULL, 1, 1e9,
	   TKC_UNIT_ABS);
	ok("kpi.memory_bandwidth:-5pt", TKC_GATE_REL, "kpi.memory_bandwidth", NULL, NULL, -1, 5,
	   TKC_UNIT_PT);
	ok("kernel:*:+0.3ms", TKC_GATE_REL, "kernel", "*", NULL, 1, 3e5, TKC_UNIT_ABS);
	ok("busy:+0%", TKC_GATE_REL, "busy", NULL, NULL, 1, 0, TKC_UNIT_PCT);
}

Test(gates, bounds)
{
	ok("step_time.mean=150ms", TKC_GATE_MAX, "step_time", NULL, "mean", 1, 150e6, TKC_UNIT_ABS);
	ok("memory.peak=70GiB", TKC_GATE_MAX, "memory.peak", NULL, NULL, 1, 70.0 * 1073741824,
	   TKC_UNIT_ABS);
	ok("step_time=0.15s", TKC_GATE_MAX, "step_time", NULL, NULL, 1, 150e6, TKC_UNIT_ABS);
	ok("kpi.gpu_utilization=80", TKC_GATE_MIN, "kpi.gpu_utilization", NULL, NULL, -1, 80,
	   TKC_UNIT_ABS);
	ok("kpi.gpu_utilization=80%", TKC_GATE_MIN, "kpi.gpu_utilization", NULL, NULL, -1, 80,
	   TKC_UNIT_ABS);
	ok("comm.exposed.p90=2ms", TKC_GATE_MAX, "comm.exposed", NULL, "p90", 1, 2e6, TKC_UNIT_ABS);
	ok("step_time.median=1min", TKC_GATE_MAX, "step_time", NULL, "median", 1, 60e9,
	   TKC_UNIT_ABS);
	ok("busy.min=10ms", TKC_GATE_MIN, "busy", NULL, "min", -1, 1e7, TKC_UNIT_ABS);
	ok("step_time.max=150", TKC_GATE_MAX, "step_time", NULL, "max", 1, 150, TKC_UNIT_ABS);
	ok("memory.peak=1000000", TKC_GATE_MAX, "memory.peak", NULL, NULL, 1, 1e6, TKC_UNIT_ABS);
}

Test(gates, refused_gates_say_why)
{
	bad("step_time:5%", TKC_GATE_REL,
	    "the amount needs a sign: + for an increase that is a regression, - for a decrease");
	bad("step_time:+5", TKC_GATE_REL, "the amount needs a unit: %");
	bad("steptime:+5%", TKC_GATE_REL,
	    "unknown metric 'steptime' (known: step_time, host_step_time, busy, comm, "
	    "comm.exposed, kernel_time, memory.peak, kpi.<name>, kernel:GLOB, op:GLOB)");
	bad("kernel::+5%", TKC_GATE_REL, "the kernel name glob is empty ('*' for all)");
	bad("kernel:+5%", TKC_GATE_REL, "expected kernel:GLOB:+N%");
	bad("op::+5%", TKC_GATE_REL, "the op name glob is empty");
	bad("step_time.p95=1ms", TKC_GATE_MAX,
	    "unknown statistic 'p95' (known: mean, median, p90, min, max)");
	bad("memory.peak=70GHz", TKC_GATE_MAX, "unknown unit 'GHz' (known: ns, us,");
	bad("kpi.gpu_utilization:+3ms", TKC_GATE_REL,
	    "kpi.gpu_utilization is in %: an amount in time does not apply");
	bad("step_time:+nan%", TKC_GATE_REL, "expected a number after the sign, found 'nan%'");
	bad("step_time:+inf%", TKC_GATE_REL, "expected a number after the sign");
	bad("step_time:+1e999%", TKC_GATE_REL, "the amount is not a finite number");
	bad("kpi.gpu_util:-3pt", TKC_GATE_REL,
	    "unknown KPI 'gpu_util' (known: gpu_utilization, kernel_duration_median, "
	    "small_kernel_share_count, small_kernel_share_time, host_overhead, memory_bandwidth, "
	    "compute_throughput, compilation_time)");
	bad("step_time:+3pt", TKC_GATE_REL, "'pt' (percentage points) is for '%' metrics only");
	bad("step_time:+3MiB", TKC_GATE_REL,
	    "step_time is in ns: an amount in bytes does not apply");
	bad("memory.peak:+3ms", TKC_GATE_REL, "memory.peak is in bytes: an amount in time");
	bad("step_time:+5kg", TKC_GATE_REL, "unknown unit 'kg'");
	bad("step_time", TKC_GATE_REL, "expected METRIC:+N%");
	bad("", TKC_GATE_REL, "empty gate");
	bad("step_time.p90:+5%", TKC_GATE_REL, "statistics are for --max and --min");
	bad("memory.peak.p90=1GiB", TKC_GATE_MAX, "memory.peak is one value per run: no statistic");
	bad("kpi.gpu_utilization.mean=80", TKC_GATE_MIN, "one value per run: no statistic");
	bad("step_time=80%", TKC_GATE_MAX, "step_time is in ns: a value in % does not apply");
	bad("memory.peak=1s", TKC_GATE_MAX, "memory.peak is in bytes: a value in time");
	bad("step_time=-5ms", TKC_GATE_MAX, "non-negative number, without a sign");
	bad("step_time=ms", TKC_GATE_MAX, "expected a number, found 'ms'");
	bad("step_time=1e999", TKC_GATE_MAX, "not a finite number");
	bad("step_time", TKC_GATE_MAX, "expected METRIC[.STAT]=VALUE");
	bad("kernel:*gemm*=5ms", TKC_GATE_MAX, "kernel and op gates are relative only");
	bad("steptime.mean=1ms", TKC_GATE_MAX, "unknown metric 'steptime.mean'");
	bad("step_time:+5%", TKC_GATE_MAX, "expected METRIC[.STAT]=VALUE");
}

Test(gates, values_with_units)
{
	static const struct {
		const char *text;
		double v;
		const char *unit;
	} cases[] = {
	    {"150ms", 150e6, "ns"},
	    {"70GiB", 70.0 * 1073741824, "bytes"},
	    {"80", 80, ""},
	    {"80%", 80, "%"},
	    {"1.5e3us", 1.5e6, "ns"},
	    {"2\xc2\xb5s", 2000, "ns"},
	    {"2\xce\xbcs", 2000, "ns"},
	    {"3ns", 3, "ns"},
	    {"0.5s", 5e8, "ns"},
	    {"2min", 120e9, "ns"},
	    {"1B", 1, "bytes"},
	    {"1KB", 1e3, "bytes"},
	    {"1KiB", 1024, "bytes"},
	    {"1MB", 1e6, "bytes"},
	    {"1MiB", 1048576, "bytes"},
	    {"1GB", 1e9, "bytes"},
	    {"1TB", 1e12, "bytes"},
	    {"1TiB", 1099511627776.0, "bytes"},
	    {"150 ms", 150e6, "ns"},
	    {".5ms", 5e5, "ns"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = -1;
		const char *unit = NULL;
		cr_assert_eq(tkc_value_parse(cases[i].text, &v, &unit), TK_OK, "%s", cases[i].text);
		cr_expect(fabs(v - cases[i].v) <= 1e-9 * cases[i].v, "%s: %.17g", cases[i].text, v);
		cr_expect_str_eq(unit, cases[i].unit, "%s", cases[i].text);
	}
	static const char *const refused[] = {"",    "ms",   "-5ms", "+5ms",  "1kb",
					      "1 ",  "nan",  "inf",  "1e999", "1e300TiB",
					      "5 m", "0x10", "1.",   "1GHz",  "5%%"};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		double v;
		const char *unit;
		cr_expect_eq(tkc_value_parse(refused[i], &v, &unit), TK_EINVAL, "'%s'", refused[i]);
	}
	double v;
	const char *unit;
	cr_expect_eq(tkc_value_parse(NULL, &v, &unit), TK_EINVAL);
}

Test(gates, defaults_are_the_documented_five)
{
	struct tkc_gates g = {0};
	cr_assert_eq(tkc_gates_defaults(&g, err, sizeof(err)), TK_OK, "%s", err);
	static const char *const want[] = {"step_time:+5%", "busy:+5%", "memory.peak:+5%",
					   "kernel:*:+10%", "op:*:+10%"};
	cr_assert_eq(g.n, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_expect_str_eq(g.v[i].text, want[i]);
		cr_expect_eq(g.v[i].is_default, 1);
		cr_expect_eq(g.v[i].kind, TKC_GATE_REL);
	}
	cr_expect_str_eq(g.v[4].pattern, "*");
	cr_expect(fabs(g.v[3].amount - 0.10) < 1e-15);
	/* adding after the defaults keeps them and appends */
	cr_assert_eq(tkc_gates_add(&g, "step_time.p90=1s", TKC_GATE_MAX, err, sizeof(err)), TK_OK);
	cr_expect_eq(g.n, 6);
	cr_expect_eq(g.v[5].is_default, 0);
	cr_expect_eq(tkc_gates_add(&g, "bogus:+1%", TKC_GATE_REL, err, sizeof(err)), TK_EINVAL);
	cr_expect_eq(g.n, 6, "a refused gate is not appended");
	tkc_gates_free(&g);
	cr_expect_eq(g.n, 0);
	tkc_gates_free(&g);
	tkc_gates_free(NULL);
}

static void put(const char *name, const char *text, size_t len)
{
	char *p = tkt_path(dir, name);
	FILE *f = fopen(p, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	free(p);
}

static const char toml[] = "# gates of the nightly benchmark\n"
			   "gates = [\n"
			   "  \"step_time:+5%\",   # the step\n"
			   "  'kernel:*gemm*:+10%',\n"
			   "  \"kpi.gpu_utilization:-3pt\",\n"
			   "]\n"
			   "allow_different_hardware = true\n"
			   "\n"
			   "[max]\n"
			   "\"step_time.mean\" = \"150ms\"\n"
			   "memory.peak = \"70GiB\"\n"
			   "comm.exposed.p90 = 2_000_000\n"
			   "\n"
			   "[ min ]  # lower bounds\n"
			   "\"kpi.gpu_utilization\" = 80\n"
			   "kpi.\"memory_bandwidth\" = \"40.5%\"\n";

static const char json[] =
    "{\"gates\": [\"step_time:+5%\", \"kernel:*gemm*:+10%\", \"kpi.gpu_utilization:-3pt\"],\n"
    " \"allow_different_hardware\": true,\n"
    " \"max\": {\"step_time.mean\": \"150ms\", \"memory.peak\": \"70GiB\",\n"
    "         \"comm.exposed.p90\": 2e6},\n"
    " \"min\": {\"kpi.gpu_utilization\": 80, \"kpi.memory_bandwidth\": \"40.5%\"}}\n";

static int read_gates(const char *name, struct tkc_gates *g, int *hw)
{
	char *p = tkt_path(dir, name);
	err[0] = 0;
	int st = tkc_gates_file(p, g, hw, err, sizeof(err));
	free(p);
	return st;
}

Test(gates, gates_file_json_and_toml_give_the_same_gates)
{
	put("g.toml", toml, strlen(toml));
	put("g.json", json, strlen(json));
	struct tkc_gates a = {0}, b = {0};
	int hwa = 0, hwb = 0;
	cr_assert_eq(read_gates("g.toml", &a, &hwa), TK_OK, "%s", err);
	cr_assert_eq(read_gates("g.json", &b, &hwb), TK_OK, "%s", err);
	cr_expect_eq(hwa, 1);
	cr_expect_eq(hwb, 1);
	static const char *const want[] = {
	    "step_time:+5%",	      "kernel:*gemm*:+10%",	   "kpi.gpu_utilization:-3pt",
	    "step_time.mean=150ms",   "memory.peak=70GiB",	   "comm.exposed.p90=2000000",
	    "kpi.gpu_utilization=80", "kpi.memory_bandwidth=40.5%"};
	static const enum tkc_gate_kind kinds[] = {TKC_GATE_REL, TKC_GATE_REL, TKC_GATE_REL,
						   TKC_GATE_MAX, TKC_GATE_MAX, TKC_GATE_MAX,
						   TKC_GATE_MIN, TKC_GATE_MIN};
	cr_assert_eq(a.n, 8);
	cr_assert_eq(b.n, 8);
	for (size_t i = 0; i < 8; i++) {
		cr_expect_str_eq(a.v[i].text, want[i]);
		cr_expect_str_eq(b.v[i].text, want[i]);
		cr_expect_eq(a.v[i].kind, kinds[i]);
		cr_expect_eq(b.v[i].kind, kinds[i]);
		cr_expect_eq(a.v[i].amount, b.v[i].amount);
		cr_expect_eq(a.v[i].is_default, 0);
	}
	cr_expect_eq(a.v[5].amount, 2e6);
	cr_expect_str_eq(a.v[5].stat, "p90");
	/* a second file appends; allow_different_hardware absent leaves it as it is */
	put("more.toml", "gates = ['busy:+1%']\n", 20);
	hwa = 7;
	cr_assert_eq(read_gates("more.toml", &a, &hwa), TK_OK, "%s", err);
	cr_expect_eq(a.n, 9);
	cr_expect_eq(hwa, 7);
	tkc_gates_free(&a);
	tkc_gates_free(&b);
}

Test(gates, empty_files_and_max_dotted_at_the_top)
{
	struct tkc_gates g = {0};
	int hw = 0;
	put("empty.toml", "", 0);
	cr_expect_eq(read_gates("empty.toml", &g, &hw), TK_OK, "%s", err);
	put("empty.json", " {}\n", 4);
	cr_expect_eq(read_gates("empty.json", &g, &hw), TK_OK, "%s", err);
	cr_expect_eq(g.n, 0);
	const char *t = "max.step_time = \"1s\"\r\nmin.\"kpi.gpu_utilization\" = 50 # crlf\r\n";
	put("dotted.toml", t, strlen(t));
	cr_assert_eq(read_gates("dotted.toml", &g, &hw), TK_OK, "%s", err);
	cr_assert_eq(g.n, 2);
	cr_expect_str_eq(g.v[0].text, "step_time=1s");
	cr_expect_eq(g.v[0].kind, TKC_GATE_MAX);
	cr_expect_str_eq(g.v[1].text, "kpi.gpu_utilization=50");
	cr_expect_eq(g.v[1].kind, TKC_GATE_MIN);
	tkc_gates_free(&g);
}

/* A file that is refused with @status and a message holding @want; nothing is appended. */
static void bad_file(const char *name, const char *text, int status, const char *want)
{
	put(name, text, strlen(text));
	struct tkc_gates g = {0};
	int hw = 5;
	int st = read_gates(name, &g, &hw);
	cr_expect_eq(st, status, "%s: status %d (%s)", text, st, err);
	cr_expect(strstr(err, want), "%s:\n'%s' lacks '%s'", text, err, want);
	cr_expect_eq(g.n, 0, "nothing appended from a refused file");
	cr_expect_eq(hw, 5);
	tkc_gates_free(&g);
}

Test(gates, toml_errors_name_the_line)
{
	bad_file("a.toml", "gates = [\"step_time:+5%\"]\n\n[max]\nstep_time.p95 = \"1ms\"\n",
		 TK_EINVAL, "'" /* the path */);
	cr_expect(strstr(err, "a.toml': line 4: gate 'step_time.p95=1ms': unknown statistic 'p95'"),
		  "%s", err);
	bad_file("b.toml", "gates = [\n  \"step_time:+5%\",\n  \"step_time:5%\",\n]\n", TK_EINVAL,
		 "b.toml': line 3: gate 'step_time:5%': the amount needs a sign");
	bad_file("c.toml", "gate = [\"step_time:+5%\"]\n", TK_EFORMAT,
		 "c.toml': line 1: unknown key gate (known: gates, max, min, "
		 "allow_different_hardware)");
	bad_file("d.toml", "\n[maximum]\n", TK_EFORMAT,
		 "d.toml': line 2: unknown table [maximum] (known: [max], [min])");
	bad_file("e.toml", "[max]\nstep_time = \"1s\"\n\"step_time\" = \"2s\"\n", TK_EFORMAT,
		 "e.toml': line 3: step_time is given twice in [max]");
	bad_file("f.toml", "[max]\n[max]\n", TK_EFORMAT, "line 2: table [max] is given twice");
	bad_file("g.toml", "allow_different_hardware = yes\n", TK_EFORMAT,
		 "line 1: allow_different_hardware is true or false");
	bad_file("h.toml", "gates = [\"busy:+1%\" \"comm:+1%\"]\n", TK_EFORMAT,
		 "line 1: expected ',' or ']' in the gates array");
	bad_file("i.toml", "gates = [\n\"step_time:+5%\"\n", TK_EFORMAT,
		 "line 3: the gates array is not closed with ']'");
	bad_file("j.toml", "[max]\nstep_time = 150ms\n", TK_EFORMAT,
		 "line 2: '150ms' is not a decimal number (a string needs quotes");
	bad_file("k.toml", "gates = \"\"\"x\"\"\"\n", TK_EFORMAT, "gates is an array of strings");
	bad_file("l.toml", "[max]\nstep_time = \"\"\"1s\"\"\"\n", TK_EFORMAT,
		 "line 2: multi-line strings are not supported");
	bad_file("m.toml", "[[max]]\n", TK_EFORMAT, "arrays of tables ([[...]]) are not supported");
	bad_file("n.toml", "max = {step_time = \"1s\"}\n", TK_EFORMAT,
		 "inline tables are not supported");
	bad_file("o.toml", "gates = [] x\n", TK_EFORMAT, "line 1: unexpected 'x' after the value");
	bad_file("p.toml", "gates = [\"a\\qb\"]\n", TK_EFORMAT, "bad escape in a string");
	bad_file("q.toml", "\n\ngates = [\"\x01\"]\n", TK_EFORMAT,
		 "line 3: control character 0x01");
	bad_file("r.toml", "# \xff\n", TK_EFORMAT, "line 1: invalid UTF-8 (byte 0xff)");
	bad_file("s.toml", "[min]\nkpi.gpu_utilization = -5\n", TK_EFORMAT,
		 "line 2: the bound of kpi.gpu_utilization is a non-negative number");
	bad_file("t.toml", "[max]\ngates = [\"x\"]\n", TK_EFORMAT,
		 "gates belongs before the first table header");
	bad_file("u.toml", "[max]\nstep_time = 0x10\n", TK_EFORMAT, "is not a decimal number");
	bad_file("v.toml", "[max]\nstep_time = inf\n", TK_EFORMAT,
		 "the bound of step_time is a string");
	bad_file("w.toml", "gates = [\"\\ud800\"]\n", TK_EFORMAT, "not a character allowed here");
	bad_file("x.toml", "gates = ['unterminated]\n", TK_EFORMAT, "line 1: unterminated string");
	bad_file("y.toml", "gates = []\ngates = []\n", TK_EFORMAT, "line 2: gates is given twice");
	bad_file("z.toml", "key\n", TK_EFORMAT, "line 1: expected '=' after the key key");
}

Test(gates, json_errors_name_line_and_column)
{
	bad_file("a.json", "{\"gates\": [\"step_time:+5%\",\n  \"steptime:+5%\"]}", TK_EINVAL,
		 "a.json': line 2, column 3: gate 'steptime:+5%': unknown metric 'steptime'");
	bad_file("b.json", "{\"gates\": [\"busy:+1%\"], \"maxx\": {}}", TK_EFORMAT,
		 "line 1, column 33: unknown key \"maxx\" (known: gates, max, min, "
		 "allow_different_hardware)");
	bad_file("c.json", "{\"max\": {\"step_time\": true}}", TK_EFORMAT,
		 "column 23: the bound of \"step_time\" in \"max\" is a string with a unit");
	bad_file("d.json", "{\"gates\": \"step_time:+5%\"}", TK_EFORMAT,
		 "\"gates\" is an array of strings");
	bad_file("e.json", "{\"gates\": [1]}", TK_EFORMAT, "\"gates\" holds strings");
	bad_file("f.json", "{\"allow_different_hardware\": 1}", TK_EFORMAT,
		 "allow_different_hardware is true or false");
	bad_file("g.json", "{\"max\": [1]}", TK_EFORMAT, "\"max\" is an object");
	bad_file("h.json", "{\"min\": {\"kpi.gpu_utilization\": -5}}", TK_EINVAL,
		 "non-negative number, without a sign");
	bad_file("i.json", "{\"gates\": [], \"gates\": []}", TK_EFORMAT,
		 "key \"gates\" appears twice");
	bad_file("j.json", "  {\"gates\": [}", TK_EFORMAT, "j.json': line 1, column 14:");
}

Test(gates, missing_and_oversized_files)
{
	struct tkc_gates g = {0};
	int hw = 0;
	cr_expect_eq(read_gates("nope.toml", &g, &hw), TK_EIO);
	cr_expect(strstr(err, "nope.toml': cannot read"), "%s", err);
	size_t n = (1u << 20) + 10;
	char *big = malloc(n + 1);
	memset(big, '#', n);
	big[n] = 0;
	put("big.toml", big, n);
	cr_expect_eq(read_gates("big.toml", &g, &hw), TK_EFORMAT);
	cr_expect(strstr(err, "larger than 1048576 bytes"), "%s", err);
	big[0] = '{';
	memset(big + 1, ' ', n - 2);
	big[n - 1] = '}';
	put("big.json", big, n);
	cr_expect_eq(read_gates("big.json", &g, &hw), TK_EFORMAT);
	cr_expect(strstr(err, "larger than 1048576 bytes"), "%s", err);
	free(big);
	cr_expect_eq(g.n, 0);
}

/* Every truncation of a valid file of either syntax: a status and a message, never a crash. */
static void truncations(const char *name, const char *text)
{
	size_t len = strlen(text);
	for (size_t cut = 0; cut < len; cut++) {
		put(name, text, cut);
		struct tkc_gates g = {0};
		int hw = 0;
		err[0] = 0;
		int st = read_gates(name, &g, &hw);
		if (st == TK_OK) {
			cr_expect_leq(g.n, 8);
		} else {
			cr_expect(st == TK_EFORMAT || st == TK_EINVAL, "cut %zu: status %d", cut,
				  st);
			cr_expect(strstr(err, name) && strstr(err, "line "), "cut %zu: '%s'", cut,
				  err);
			cr_expect_eq(g.n, 0);
		}
		tkc_gates_free(&g);
	}
}

Test(gates, every_truncation_of_a_valid_file)
{
	truncations("t.toml", toml);
	truncations("t.json", json);
	/* a JSON truncation always breaks the document (it ends with the closing brace) */
	size_t len = strlen(json);
	for (size_t cut = 1; cut + 1 < len; cut++) {
		put("u.json", json, cut);
		struct tkc_gates g = {0};
		cr_expect_neq(read_gates("u.json", &g, NULL), TK_OK, "cut %zu", cut);
		tkc_gates_free(&g);
	}
}
