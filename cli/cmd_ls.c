/*
 * `tracekit ls`: the profile runs of a TensorBoard logdir, newest first (by profile start, else
 * the time in the run name, runs with neither last by mtime: tk_xplane_list_runs()), with their
 * profiled time span, what placed them in time, hosts and sizes; or the traces of a rank
 * directory (tk_rank_dir_list()) in the order `import` takes them, with rank, host and span.
 * Run, host and path names are escaped for the terminal (include/tracekit/text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/text.h>

#include "cli.h"
#include "util/fmt.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_ls = {
    "ls",
    "list the profile runs of a TensorBoard logdir, or the traces of a rank directory",
    "usage: tracekit ls DIR\n\n"
    "Lists the runs of LOGDIR (a logdir, its plugins/profile directory, or one run directory):\n"
    "<logdir>/plugins/profile/<run>/<host>.xplane.pb. One row per run: the run name, when\n"
    "profiling started (UTC) and how long it lasted (the profile_start_time /\n"
    "profile_stop_time of the files' Task Environment, over all hosts; '-' when a file does not\n"
    "record it or cannot be read), when the files were last written (UTC), what placed the run\n"
    "in time ('by'), the number of files, their total size, and the hosts.\n\n"
    "Newest first: by the profile start; a run whose files do not record one by the date and\n"
    "time its name spells (TensorBoard names runs 2024_05_01_12_30_45; read as UTC); runs\n"
    "with neither last, by the modification time of their newest file. So copying runs does\n"
    "not change which is the newest. 'tracekit import LOGDIR' imports the first row; '--run\n"
    "NAME' picks another.\n\n"
    "A DIR that holds no run but Chrome/Kineto JSON traces (*.json, *.json.gz, in\n"
    "subdirectories too; a job's rank traces) lists them in the order 'tracekit import DIR'\n"
    "imports them: by the rank the file states (distributedInfo; '-' when none), then by\n"
    "path. One row per file: rank, host (host_name; '-' when none), world size, format,\n"
    "size, when its first event started (UTC; '-' when the trace's clock is not the Unix\n"
    "epoch), from its first event's start to its last one's end, and its path under DIR;\n"
    "then a line of totals.\n\n"
    "Options:\n"
    "  -h, --help  this text\n\n"
    "Exit codes: 0 ok; 2 when DIR is not a directory, holds neither a run nor a trace, or is a\n"
    "tree refused as a rank directory (a cycle of links, too deep).\n",
    run,
};

static void human(char *buf, size_t len, int64_t bytes)
{
	struct tku_buf b = {0};
	tku_fmt_bytes(&b, (double)bytes, 1, TKU_TIB);
	snprintf(buf, len, "%s", b.p ? b.p : "-");
	tku_buf_free(&b);
}

/* "YYYY-MM-DD HH:MM:SS" (UTC) of Unix epoch @ns, or "-" when TK_NONE. */
static void utc(char *buf, size_t len, int64_t ns)
{
	struct tm tm;
	time_t t = (time_t)(ns / 1000000000);
	snprintf(buf, len, "-");
	if (ns != TK_NONE && ns >= 0 && gmtime_r(&t, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* A duration: "850 ns", "12.3 us", "14.8 ms", "98.6 s", "1h02m05s"; "-" when unknown. */
static void duration(char *buf, size_t len, int64_t start, int64_t end)
{
	if (start == TK_NONE || end == TK_NONE || end < start) {
		snprintf(buf, len, "-");
		return;
	}
	int64_t d = end - start;
	if (d < 1000)
		snprintf(buf, len, "%lld ns", (long long)d);
	else if (d < 1000000)
		snprintf(buf, len, "%.1f us", (double)d / 1e3);
	else if (d < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)d / 1e6);
	else if (d < 3600 * 1000000000LL)
		snprintf(buf, len, "%.1f s", (double)d / 1e9);
	else {
		long long s = (long long)(d / 1000000000);
		snprintf(buf, len, "%lldh%02lldm%02llds", s / 3600, s / 60 % 60, s % 60);
	}
}

/* "host1, host2" from the file names of a run (file name without .xplane.pb). */
static void hosts(char *buf, size_t len, const struct tk_xplane_run *r)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < r->nfiles && n + 1 < len; i++) {
		const char *b = strrchr(r->files[i], '/');
		b = b ? b + 1 : r->files[i];
		size_t bl = strlen(b), el = strlen(".xplane.pb");
		if (bl > el)
			bl -= el;
		int w = snprintf(buf + n, len - n, "%s%.*s", i ? ", " : "", (int)bl, b);
		if (w < 0)
			break;
		n += (size_t)w < len - n ? (size_t)w : len - n - 1;
	}
}

/* One rank directory file's row, or NULL out of memory. */
static char *rank_row(const struct tk_rank_file *f)
{
	char rank[24], world[24], size[32], start[32], dur[32], fmt[24];
	snprintf(rank, sizeof(rank), "-");
	snprintf(world, sizeof(world), "-");
	if (f->rank != TK_NONE)
		snprintf(rank, sizeof(rank), "%lld", (long long)f->rank);
	if (f->world_size != TK_NONE)
		snprintf(world, sizeof(world), "%lld", (long long)f->world_size);
	snprintf(fmt, sizeof(fmt), "%s %s", f->kineto ? "kineto" : "chrome",
		 f->gzip ? "json.gz" : "json");
	human(size, sizeof(size), f->bytes);
	utc(start, sizeof(start), f->epoch ? f->start_ns : TK_NONE);
	duration(dur, sizeof(dur), f->start_ns, f->end_ns);
	char *host = tk_text_escape(f->host ? f->host : "-", strlen(f->host ? f->host : "-"),
				    TK_TEXT_TERMINAL, NULL);
	char *path = tk_text_escape(f->rel, strlen(f->rel), TK_TEXT_TERMINAL, NULL);
	char *row = NULL;
	size_t n = (host ? strlen(host) : 0) + (path ? strlen(path) : 0) + 160;
	if (host && path && (row = malloc(n)))
		snprintf(row, n, "%6s  %-20s  %5s  %-14s  %10s  %-19s  %9s  %s", rank, host, world,
			 fmt, size, start, dur, path);
	free(host);
	free(path);
	return row;
}

/* `ls DIR` of a rank directory: its traces as `import DIR` takes them, and their totals. */
static int cmp_host(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The number of different hosts among the @n files. */
static int64_t count_hosts(const struct tk_rank_file *files, int n)
{
	const char **h = calloc((size_t)n + 1, sizeof(*h));
	int64_t k = 0, m = 0;
	for (int i = 0; h && i < n; i++)
		if (files[i].host)
			h[m++] = files[i].host;
	if (h)
		qsort(h, (size_t)m, sizeof(*h), cmp_host);
	for (int64_t i = 0; i < m; i++)
		k += i == 0 || strcmp(h[i - 1], h[i]) != 0;
	free(h);
	return k;
}

/* @xerr: why DIR is no logdir (tk_xplane_list_runs()), said when it holds no trace either. */
static int list_rank_dir(const char *dir, tk_error *xerr)
{
	struct tk_rank_file *files = NULL;
	int n = 0, rc;
	tk_error *err = tk_error_new();
	if ((rc = tk_rank_dir_list(dir, TK_RANK_SPAN, &files, &n, err)) == TK_ENOTFOUND)
		rc = cli_neither_logdir_nor_ranks(dir, xerr, err);
	if (rc != TK_OK) {
		rc = cli_fail_error(rc, err);
		goto out;
	}
	printf("%6s  %-20s  %5s  %-14s  %10s  %-19s  %9s  %s\n", "rank", "host", "world", "format",
	       "size", "start (UTC)", "duration", "path");
	int64_t bytes = 0, ranks = 0, unranked = 0;
	for (int i = 0; i < n; i++) {
		char *row = rank_row(&files[i]);
		if (!row) {
			rc = cli_fail(TK_ENOMEM, "out of memory");
			goto out;
		}
		printf("%s\n", row);
		free(row);
		bytes += files[i].bytes;
		unranked += files[i].rank == TK_NONE;
		ranks += files[i].rank != TK_NONE &&
			 (i == 0 || files[i - 1].rank != files[i].rank); /* sorted by rank */
	}
	char size[32];
	human(size, sizeof(size), bytes);
	int64_t hosts = count_hosts(files, n);
	printf("%d trace%s, %lld rank%s, %lld host%s, %s", n, n == 1 ? "" : "s", (long long)ranks,
	       ranks == 1 ? "" : "s", (long long)hosts, hosts == 1 ? "" : "s", size);
	if (unranked)
		printf(" (%lld without a rank: by file order on import)", (long long)unranked);
	printf("\n");
	rc = TK_EXIT_OK;
out:
	tk_error_free(err);
	tk_rank_files_free(files, n);
	return rc;
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_ls;
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cli_help(cmd);
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
		if (dir)
			return cli_usage_error(cmd, "one DIR only ('%s' is extra)", argv[i]);
		dir = argv[i];
	}
	if (!dir)
		return cli_usage_error(cmd, "a DIR is required");
	struct tk_xplane_run *runs = NULL;
	int nruns = 0;
	tk_error *err = tk_error_new();
	int rc = tk_xplane_list_runs(dir, &runs, &nruns, err);
	if (rc == TK_ENOTFOUND) {
		rc = list_rank_dir(dir, err);
		tk_error_free(err);
		return rc;
	}
	if (rc != TK_OK)
		rc = cli_fail_error(rc, err);
	tk_error_free(err);
	if (rc != TK_OK)
		return rc;
	/* names as a terminal may show them: escapes, newlines and bidi controls made visible */
	char **names = calloc((size_t)nruns + 1, sizeof(*names));
	size_t wname = 3;
	rc = TK_EXIT_OK;
	if (!names) {
		rc = cli_fail(TK_ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < nruns; i++) {
		if (!(names[i] = tk_text_escape(runs[i].name, strlen(runs[i].name),
						TK_TEXT_TERMINAL, NULL))) {
			rc = cli_fail(TK_ENOMEM, "out of memory");
			goto out;
		}
		if (tk_utf8_count(names[i]) > wname)
			wname = tk_utf8_count(names[i]);
	}
	printf("%-*s  %-19s  %9s  %-19s  %-5s  %5s  %10s  %s\n", (int)wname, "run", "start (UTC)",
	       "duration", "modified (UTC)", "by", "files", "size", "hosts");
	for (int i = 0; i < nruns; i++) {
		const struct tk_xplane_run *r = &runs[i];
		char start[32], dur[32], when[32], size[32], hs[1024];
		utc(start, sizeof(start), r->start_ns);
		duration(dur, sizeof(dur), r->start_ns, r->end_ns);
		utc(when, sizeof(when), r->mtime_ns);
		human(size, sizeof(size), r->bytes);
		hosts(hs, sizeof(hs), r);
		char *shs = tk_text_escape(hs, strlen(hs), TK_TEXT_TERMINAL, NULL);
		if (!shs) {
			rc = cli_fail(TK_ENOMEM, "out of memory");
			goto out;
		}
		const char *by = r->start_ns != TK_NONE	 ? "start"
				 : r->name_ns != TK_NONE ? "name"
							 : "mtime";
		printf("%s%*s  %-19s  %9s  %-19s  %-5s  %5d  %10s  %s\n", names[i],
		       (int)(wname - tk_utf8_count(names[i])), "", start, dur, when, by, r->nfiles,
		       size, shs);
		free(shs);
	}
out:
	for (int i = 0; names && i < nruns; i++)
		free(names[i]);
	free(names);
	tk_xplane_runs_free(runs, nruns);
	return rc;
}
