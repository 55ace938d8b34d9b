/*
 * The MPI mode of `import` and `analyze` (--mpi; docs/scale.md), built only with MPI. Rank 0
 * lists the files (import: logdirs and rank directories expanded, with the refusals of
 * `import`: a file twice, two traces of one rank; analyze: the stores), shares them out by
 * bytes (largest first to the least loaded process) and broadcasts the plan; each process
 * imports and analyses its files into per-rank stores (beside each input, or in --store-dir),
 * or analyses its stores, and merges them into one job summary (tk_merge); rank 0 receives the
 * summaries as MPI messages in chunks (no shared filesystem needed) into a private directory
 * beside JOB, merges them into the job summary, analyses it and renames it to JOB. Before each
 * exchange the processes agree on a status (MPI_Allreduce): on a failure anywhere, every
 * process stops with the same exit code and rank 0 prints the messages the others captured.
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <unistd.h>

#include "cli.h"
#include "mpi_job.h"
#include "util/vec.h"

enum { CHUNK = 4 << 20, TAG_SIZE = 1, TAG_DATA, TAG_END };

/* One file of the plan, as rank 0 broadcasts it. */
struct item {
	int64_t bytes, rank; /* rank: the --rank its import gets (import) */
	int32_t json, index, owner, len;
	char *path;
};

struct ctx {
	const struct cli_mpi_job *job;
	int me, np;
	struct item *it;
	size_t n;
	char msg[4096];		  /* cli_error()'s messages, captured */
	struct cli_run_input tmp; /* the private directory (removed with what is in it) */
	char summary[4300];	  /* this process's summary, "" when it has no files */
	struct tk_writer_stats st;
};

static void plan_free(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->it[i].path);
	free(c->it);
	c->it = NULL;
	c->n = 0;
}

/* Every process's messages printed by rank 0 (a line each, naming the process). */
static void report(struct ctx *c)
{
	char host[MPI_MAX_PROCESSOR_NAME] = "", line[sizeof(c->msg) + 400];
	int hl = 0, len, *lens = NULL, *at = NULL;
	char *all = NULL;
	MPI_Get_processor_name(host, &hl);
	line[0] = '\0';
	if (c->msg[0] && c->np > 1)
		snprintf(line, sizeof(line), "MPI process %d of %d (%s): %s", c->me, c->np, host,
			 c->msg);
	else if (c->msg[0])
		snprintf(line, sizeof(line), "%s", c->msg);
	len = (int)strlen(line) + 1;
	if (c->me == 0 && (!(lens = calloc((size_t)c->np, sizeof(int))) ||
			   !(at = calloc((size_t)c->np, sizeof(int)))))
		MPI_Abort(MPI_COMM_WORLD, TK_EXIT_INTERNAL);
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	size_t total = 0;
	for (int p = 0; c->me == 0 && p < c->np; p++) {
		at[p] = (int)total;
		total += (size_t)lens[p];
	}
	if (c->me == 0 && (total > INT32_MAX || !(all = malloc(total))))
		MPI_Abort(MPI_COMM_WORLD, TK_EXIT_INTERNAL);
	MPI_Gatherv(line, len, MPI_CHAR, all, lens, at, MPI_CHAR, 0, MPI_COMM_WORLD);
	for (int p = 0; c->me == 0 && p < c->np; p++)
		if (all[at[p]])
			fprintf(stderr, "tracekit: %s\n", all + at[p]);
	c->msg[0] = '\0';
	free(lens);
	free(at);
	free(all);
}

/* The worst exit code of every process; on a failure rank 0 prints every message. */
static int agree(struct ctx *c, int rc)
{
	int worst = rc;
	MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (worst != TK_EXIT_OK)
		report(c);
	return worst;
}

static int add_item(struct ctx *c, size_t *cap, const char *path, int json, int index, int64_t rank)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		cli_error("cannot read '%s': %s", path, strerror(errno));
		return TK_EXIT_USAGE;
	}
	if (TKU_GROW(c->it, *cap, c->n + 1, 16) != TK_OK || !(c->it[c->n].path = strdup(path))) {
		cli_error("out of memory");
		return TK_EXIT_INTERNAL;
	}
	struct item *it = &c->it[c->n++];
	it->bytes = (int64_t)sb.st_size;
	it->rank = rank;
	it->json = json;
	it->index = index;
	it->len = (int32_t)strlen(path);
	return TK_EXIT_OK;
}

/* Process @p's load, for the heap of the least loaded process. */
struct load {
	int64_t bytes;
	int p;
};

static int lighter(const struct load *a, const struct load *b)
{
	return a->bytes != b->bytes ? a->bytes < b->bytes : a->p < b->p;
}

static int cmp_bytes(const void *pa, const void *pb)
{
	const struct item *a = *(const struct item *const *)pa,
			  *b = *(const struct item *const *)pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* Share the files out: largest first, each to the least loaded process (lowest rank on ties). */
static int share_out(struct ctx *c)
{
	struct item **by = calloc(c->n + 1, sizeof(*by));
	struct load *h = calloc((size_t)c->np, sizeof(*h));
	int rc = by && h ? TK_EXIT_OK : TK_EXIT_INTERNAL;
	if (rc != TK_EXIT_OK) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		by[i] = &c->it[i];
		c->it[i].index = (int32_t)i; /* the plan's order breaks ties */
	}
	qsort(by, c->n, sizeof(*by), cmp_bytes);
	for (int p = 0; p < c->np; p++)
		h[p] = (struct load){0, p}; /* a valid heap: all equal, in rank order */
	for (size_t i = 0; i < c->n; i++) {
		by[i]->owner = h[0].p;
		h[0].bytes += by[i]->bytes;
		for (int k = 0;;) { /* sift the root down */
			int l = 2 * k + 1, r = l + 1, m = k;
			if (l < c->np && lighter(&h[l], &h[m]))
				m = l;
			if (r < c->np && lighter(&h[r], &h[m]))
				m = r;
			if (m == k)
				break;
			struct load t = h[k];
			h[k] = h[m];
			h[m] = t;
			k = m;
		}
	}
out:
	free(by);
	free(h);
	return rc;
}

static void store_path(const struct ctx *c, const struct item *it, char *out, size_t size);

/* @path with its directory resolved (links, "..", relative), into @out; as given when the
 * directory does not exist yet. */
static void resolved(const char *path, char *out, size_t size)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	if (realpath(dir, real))
		snprintf(out, size, "%s/%s", strcmp(real, "/") ? real : "",
			 slash ? slash + 1 : path);
	else
		snprintf(out, size, "%s", path);
}

/* Import: JOB may not be the path of a per-rank store (rank 0 would write the store there and
 * then the job over it). */
static int job_not_a_store(const struct ctx *c)
{
	char job[PATH_MAX + 256], path[4300], store[PATH_MAX + 256];
	resolved(c->job->output, job, sizeof(job));
	for (size_t i = 0; c->job->import && i < c->n; i++) {
		store_path(c, &c->it[i], path, sizeof(path));
		resolved(path, store, sizeof(store));
		if (!strcmp(job, store)) {
			cli_error(
			    "the job summary '%s' would be the per-rank store of '%s': choose "
			    "another -o",
			    c->job->output, c->it[i].path);
			return TK_EXIT_USAGE;
		}
	}
	return TK_EXIT_OK;
}

/* Rank 0: the files and who takes each. */
static int make_plan(struct ctx *c)
{
	const struct cli_mpi_job *j = c->job;
	size_t cap = 0;
	int rc = cli_check_output(j->output, j->inputs, j->n, TK_OUTPUT_STORE);
	if (rc != TK_EXIT_OK)
		return rc;
	if (!j->import) {
		for (size_t i = 0; i < j->n && rc == TK_EXIT_OK; i++)
			rc = add_item(c, &cap, j->inputs[i], 0, (int)i, TK_NONE);
		return rc == TK_EXIT_OK ? share_out(c) : rc;
	}
	struct cli_import_file *f = NULL;
	size_t nf = 0;
	if ((rc = cli_import_files(j->inputs, j->n, j->run_name, j->io, &f, &nf)) != TK_EXIT_OK)
		return rc;
	/* a JSON file alone in its import gets the rank of its place among all inputs */
	int64_t base = j->io->rank == TK_NONE ? 0 : j->io->rank;
	for (size_t i = 0; i < nf && rc == TK_EXIT_OK; i++)
		rc = add_item(c, &cap, f[i].path, f[i].json, f[i].file_index,
			      f[i].json ? base + f[i].file_index : j->io->rank);
	cli_import_files_free(f, nf);
	if (rc == TK_EXIT_OK)
		rc = job_not_a_store(c);
	return rc == TK_EXIT_OK ? share_out(c) : rc;
}

/* Rank 0's plan to every process. */
static int broadcast_plan(struct ctx *c)
{
	int64_t size = 0;
	char *buf = NULL, *p;
	int rc = TK_EXIT_OK;
	for (size_t i = 0; c->me == 0 && i < c->n; i++)
		size += (int64_t)(sizeof(struct item) + (size_t)c->it[i].len);
	MPI_Bcast(&size, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (size > INT32_MAX || !(buf = malloc((size_t)size + 1))) {
		cli_error("out of memory for the plan of %lld bytes", (long long)size);
		rc = TK_EXIT_INTERNAL;
	}
	if ((rc = agree(c, rc)) != TK_EXIT_OK)
		goto out;
	for (size_t i = 0, at = 0; c->me == 0 && i < c->n; i++) {
		memcpy(buf + at, &c->it[i], sizeof(struct item));
		memcpy(buf + at + sizeof(struct item), c->it[i].path, (size_t)c->it[i].len);
		at += sizeof(struct item) + (size_t)c->it[i].len;
	}
	MPI_Bcast(buf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
	size_t cap = 0;
	for (p = buf; c->me != 0 && rc == TK_EXIT_OK && p < buf + size;) {
		struct item it;
		if ((size_t)(buf + size - p) < sizeof(it)) {
			cli_error("a broken plan");
			rc = TK_EXIT_INTERNAL;
			break;
		}
		memcpy(&it, p, sizeof(it));
		p += sizeof(it);
		if (it.len < 0 || it.len > buf + size - p ||
		    TKU_GROW(c->it, cap, c->n + 1, 16) != TK_OK ||
		    !(it.path = malloc((size_t)it.len + 1))) {
			cli_error("a broken plan, or out of memory");
			rc = TK_EXIT_INTERNAL;
			break;
		}
		memcpy(it.path, p, (size_t)it.len);
		it.path[it.len] = '\0';
		p += it.len;
		c->it[c->n++] = it;
	}
	rc = agree(c, rc);
out:
	free(buf);
	return rc;
}

/* The per-rank store of @it: beside it, or in --store-dir numbered by its place in the plan. */
static void store_path(const struct ctx *c, const struct item *it, char *out, size_t size)
{
	const char *base = strrchr(it->path, '/');
	if (c->job->import && c->job->store_dir)
		snprintf(out, size, "%s/%04d-%s.tkdb", c->job->store_dir, it->index,
			 base ? base + 1 : it->path);
	else if (c->job->import)
		snprintf(out, size, "%s.tkdb", it->path);
	else
		snprintf(out, size, "%s", it->path);
}

static int analyse(const char *path, const struct tk_analyze_options *o)
{
	tk_error *err = tk_error_new();
	int rc = tk_analyze(path, o, err);
	if (rc != TK_OK && !strstr(tk_error_message(err), path))
		tk_error_push_from(err, "cli", rc, "'%s'", path);
	int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
	tk_error_free(err);
	return code;
}

/* A private directory: rank 0's beside JOB (the job is renamed out of it), others' in TMPDIR. */
static int make_tmp(struct ctx *c)
{
	const char *t = getenv("TMPDIR"), *slash = strrchr(c->job->output, '/');
	char *d = c->tmp.dir;
	size_t size = sizeof(c->tmp.dir);
	if (c->me == 0 && slash)
		snprintf(d, size, "%.*s/.tracekit-mpi-XXXXXX", (int)(slash - c->job->output),
			 c->job->output);
	else if (c->me == 0)
		snprintf(d, size, ".tracekit-mpi-XXXXXX");
	else
		snprintf(d, size, "%s/tracekit-mpi-XXXXXX", t && *t ? t : "/tmp");
	if (mkdtemp(d))
		return TK_EXIT_OK;
	cli_error("cannot make a temporary directory '%s': %s", d, strerror(errno));
	d[0] = '\0';
	return TK_EXIT_USAGE;
}

/* This process's files: per-rank stores made and analysed, merged into its summary. */
static int work(struct ctx *c)
{
	const struct cli_mpi_job *j = c->job;
	char **stores = calloc(c->n + 1, sizeof(*stores));
	size_t k = 0;
	int rc = stores ? make_tmp(c) : TK_EXIT_INTERNAL;
	if (j->import && j->store_dir && rc == TK_EXIT_OK && mkdir(j->store_dir, 0777) != 0 &&
	    errno != EEXIST) {
		cli_error("cannot make the store directory '%s': %s", j->store_dir,
			  strerror(errno));
		rc = TK_EXIT_USAGE;
	}
	for (size_t i = 0; i < c->n && rc == TK_EXIT_OK; i++) {
		struct item *it = &c->it[i];
		char path[4300];
		if (it->owner != c->me)
			continue;
		store_path(c, it, path, sizeof(path));
		if (!(stores[k] = strdup(path))) {
			rc = TK_EXIT_INTERNAL;
			break;
		}
		k++;
		if (j->import) {
			struct tk_import_options o = *j->io;
			struct tk_writer_stats st;
			const char *in = it->path;
			o.rank = it->rank;
			if ((rc = cli_check_output(path, &in, 1, TK_OUTPUT_STORE)) != TK_EXIT_OK ||
			    (rc = cli_import(path, &in, 1, NULL, &o, 1, &st)) != TK_EXIT_OK)
				break;
		}
		rc = analyse(path, j->ao);
	}
	if (rc == TK_EXIT_OK && k) {
		struct tk_merge_options mo;
		tk_error *err = tk_error_new();
		tk_merge_options_init(&mo);
		mo.summary = 1;
		snprintf(c->summary, sizeof(c->summary), "%s/summary.tkdb", c->tmp.dir);
		int e = tk_merge(c->summary, (const char *const *)stores, k, &mo, NULL, err);
		if (e != TK_OK) {
			rc = cli_fail_error(e, err);
			c->summary[0] = '\0';
		}
		tk_error_free(err);
	}
	for (size_t i = 0; stores && i < k; i++)
		free(stores[i]);
	free(stores);
	if (rc == TK_EXIT_INTERNAL && !c->msg[0])
		cli_error("out of memory");
	return rc;
}

/* Process @me (not 0) sends its summary to rank 0: its size (-1: none), chunks, a status. */
static int send_summary(struct ctx *c, char *buf)
{
	int64_t size = -1, sent = 0;
	int status = TK_EXIT_OK;
	FILE *f = c->summary[0] ? fopen(c->summary, "rb") : NULL;
	struct stat sb;
	if (f && fstat(fileno(f), &sb) == 0)
		size = (int64_t)sb.st_size;
	else if (c->summary[0]) {
		cli_error("cannot read the summary '%s': %s", c->summary, strerror(errno));
		status = TK_EXIT_INTERNAL;
	}
	MPI_Send(&size, 1, MPI_INT64_T, 0, TAG_SIZE, MPI_COMM_WORLD);
	while (sent < size) {
		int n = (int)(size - sent < CHUNK ? size - sent : CHUNK);
		if (status == TK_EXIT_OK && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			cli_error("cannot read the summary '%s'", c->summary);
			status = TK_EXIT_INTERNAL;
		}
		MPI_Send(buf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
		sent += n;
	}
	MPI_Send(&status, 1, MPI_INT, 0, TAG_END, MPI_COMM_WORLD);
	if (f)
		fclose(f);
	return status;
}

/* Rank 0 receives process @p's summary into its directory (@path, "" when it has none). */
static int receive_summary(struct ctx *c, int p, char *buf, char *path, size_t psize)
{
	int64_t size, got = 0;
	int status, rc = TK_EXIT_OK;
	MPI_Recv(&size, 1, MPI_INT64_T, p, TAG_SIZE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	snprintf(path, psize, "%s/summary-%d.tkdb", c->tmp.dir, p);
	FILE *f = size >= 0 ? fopen(path, "wb") : NULL;
	if (size >= 0 && !f) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		rc = TK_EXIT_USAGE;
	}
	while (got < size) { /* every chunk is received, even after a failure */
		int n = (int)(size - got < CHUNK ? size - got : CHUNK);
		MPI_Recv(buf, n, MPI_BYTE, p, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (rc == TK_EXIT_OK && fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
			cli_error("cannot write '%s': %s", path, strerror(errno));
			rc = TK_EXIT_USAGE;
		}
		got += n;
	}
	MPI_Recv(&status, 1, MPI_INT, p, TAG_END, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (f && fclose(f) != 0 && rc == TK_EXIT_OK) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		rc = TK_EXIT_USAGE;
	}
	if (size < 0)
		path[0] = '\0';
	return rc != TK_EXIT_OK ? rc : status;
}

/* Rank 0: the summaries merged into the job summary, analysed, renamed to JOB. */
static int finish_job(struct ctx *c, char **sums, size_t k)
{
	char job[4300];
	struct tk_merge_options mo;
	tk_error *err = tk_error_new();
	int rc = TK_EXIT_OK, e;
	tk_merge_options_init(&mo);
	mo.summary = 1;
	snprintf(job, sizeof(job), "%s/job.tkdb", c->tmp.dir);
	if ((e = tk_merge(job, (const char *const *)sums, k, &mo, &c->st, err)) != TK_OK)
		rc = cli_fail_error(e, err);
	else if ((rc = analyse(job, c->job->ao)) == TK_EXIT_OK && rename(job, c->job->output)) {
		cli_error("cannot write '%s': %s", c->job->output, strerror(errno));
		rc = TK_EXIT_USAGE;
	}
	tk_error_free(err);
	return rc;
}

/* The summaries to rank 0 (one process after the other), merged there into JOB. */
static int gather(struct ctx *c)
{
	char *buf = malloc(CHUNK), **sums = NULL;
	size_t k = 0;
	int rc = TK_EXIT_OK;
	if (!buf || (c->me == 0 && !(sums = calloc((size_t)c->np, sizeof(*sums))))) {
		cli_error("out of memory");
		rc = TK_EXIT_INTERNAL;
	}
	if ((rc = agree(c, rc)) != TK_EXIT_OK)
		goto out;
	if (c->me != 0) {
		rc = send_summary(c, buf);
	} else {
		if (c->summary[0])
			sums[k++] = c->summary;
		for (int p = 1; p < c->np; p++) {
			char path[4300];
			int r = receive_summary(c, p, buf, path, sizeof(path));
			rc = r > rc ? r : rc;
			if (path[0] && !(sums[k++] = strdup(path)))
				rc = TK_EXIT_INTERNAL;
		}
	}
	if ((rc = agree(c, rc)) != TK_EXIT_OK)
		goto out;
	if (c->me == 0) {
		cli_error_capture(NULL, 0); /* the last step: rank 0 says what went wrong itself */
		rc = k ? finish_job(c, sums, k) : TK_EXIT_USAGE;
		if (!k)
			cli_error("no input files");
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
	for (size_t i = c->summary[0] ? 1 : 0; i < k; i++)
		free(sums[i]);
	free(sums);
	free(buf);
	return rc;
}

int cli_mpi_run(const struct cli_mpi_job *job)
{
	struct ctx c = {.job = job};
	int rc = TK_EXIT_OK;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		cli_error("cannot start MPI (MPI_Init failed)");
		return TK_EXIT_INTERNAL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &c.me);
	MPI_Comm_size(MPI_COMM_WORLD, &c.np);
	cli_error_capture(c.msg, sizeof(c.msg));
	if (c.me == 0)
		rc = make_plan(&c);
	if ((rc = agree(&c, rc)) == TK_EXIT_OK && (rc = broadcast_plan(&c)) == TK_EXIT_OK &&
	    (rc = agree(&c, work(&c))) == TK_EXIT_OK)
		rc = gather(&c);
	cli_error_capture(NULL, 0);
	cli_run_input_close(&c.tmp);
	if (rc == TK_EXIT_OK && c.me == 0)
		printf("wrote %s (job summary): %zu %s from %d MPI process%s, %lld events "
		       "(steps and collectives)\n",
		       job->output, c.n, job->import ? "files" : "stores", c.np,
		       c.np == 1 ? "" : "es", (long long)c.st.events);
	plan_free(&c);
	MPI_Finalize();
	return rc;
}
