/*
 * Importers: XPlane (.xplane.pb, TensorBoard logdirs) and Chrome/Kineto JSON into a store writer.
 * Errors: an import appends to a writer, and the writer is its handle: a failed import fails the
 * writer, and the causes are in tk_writer_error() (the rule of include/tracekit/error.h: the
 * message is on the handle you passed). The calls without a handle take a tk_error.
 */
#ifndef TRACEKIT_IMPORT_H
#define TRACEKIT_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/store.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum tk_import_format { TK_FORMAT_UNKNOWN, TK_FORMAT_XPLANE, TK_FORMAT_CHROME_JSON };

struct tk_import_options {
	int64_t rank;	/* rank given on the command line (--rank), or TK_NONE */
	int file_index; /* position of this file among the inputs, from 0 (rank fallback) */
	/* Warnings (dropped events, unknown fields worth mentioning); may be NULL. The library never
	 * prints: the CLI passes a callback that writes "tracekit: warning: ..." on stderr. */
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
	/* --salvage: on a truncated or broken input, keep every complete event before the break,
	 * report where it stopped through warn, and succeed instead of failing (JSON only). */
	int salvage;
};

/** tk_import_options_init() - rank TK_NONE, file_index 0, no warning callback. */
void tk_import_options_init(struct tk_import_options *o);

/**
 * tk_import_detect() - the format of the file at @path, by content (gzip is looked through):
 * JSON text (an object or an array) is Chrome JSON, a protobuf XSpace is XPlane.
 * @return TK_OK with *out set, TK_EIO when it cannot be read, TK_EFORMAT when it is neither
 *         (causes in @err, may be NULL).
 */
int tk_import_detect(const char *path, enum tk_import_format *out, tk_error *err);

/* What tells two inputs apart: the file (device and inode, whatever links lead to it), and for
 * files of the same size, a hash of their first and last MiB, computed when first needed. */
struct tk_input_id {
	const char *path; /* not owned: must outlive the id */
	uint64_t dev, ino;
	int64_t size;
	uint64_t hash;
	int hashed; /* 0 not yet, 1 hash set, -1 the file could not be read */
};

enum { TK_INPUT_DIFFERENT, TK_INPUT_SAME_FILE, TK_INPUT_SAME_CONTENT };

/**
 * tk_import_input_id() - the identity of the file at @path (one stat; no read).
 * @return TK_OK, or TK_EIO when it cannot be read (causes in @err, may be NULL).
 */
int tk_import_input_id(const char *path, struct tk_input_id *id, tk_error *err);

/**
 * tk_import_input_same() - whether @a and @b are one input twice: TK_INPUT_SAME_FILE (the same
 * file, by any path or link), with @content also TK_INPUT_SAME_CONTENT (a copy: the same size,
 * and the same first and last MiB), else TK_INPUT_DIFFERENT. Reads at most 2 MiB of each file,
 * once.
 */
int tk_import_input_same(struct tk_input_id *a, struct tk_input_id *b, int content);

/**
 * tk_import_xplane() - append one .xplane.pb file (one host) to @w.
 * Bad input: TK_EFORMAT with the writer failed, its error naming the file and byte offset.
 */
int tk_import_xplane(tk_writer *w, const char *path, const struct tk_import_options *o);

/**
 * tk_import_chrome_json() - append one Chrome trace / Kineto JSON file (.json or .json.gz) to @w.
 * Bad input: TK_EFORMAT with the writer failed, its error naming the file, line and column.
 */
int tk_import_chrome_json(tk_writer *w, const char *path, const struct tk_import_options *o);

/* One input of tk_import_files(). */
struct tk_import_file {
	const char *path;
	enum tk_import_format format; /* TK_FORMAT_UNKNOWN: told by content (tk_import_detect) */
	int file_index; /* its tk_import_options.file_index: the position of its input, from 0 */
};

/**
 * tk_import_files() - append the @n files @files to @w in that order, parsing up to @jobs of them
 * at once (<= 0: tk_import_jobs_default()); the writer stays on the calling thread. Each file is
 * read by its importer (tk_import_xplane(), tk_import_chrome_json()) with @o (may be NULL), its
 * file_index from the file; warnings reach @o->warn on the calling thread. The store, the
 * warnings and their order, and the first failure (the first failing file in input order: its
 * message, and nothing of later files) are those of importing the files one by one (@jobs 1,
 * which does exactly that). Memory: at most @jobs files in flight, each with at most 32 MiB of
 * parsed records waiting for the writer.
 * @return TK_OK, or the writer's status (its error says why).
 */
int tk_import_files(tk_writer *w, const struct tk_import_file *files, size_t n, int jobs,
		    const struct tk_import_options *o);

/** tk_import_jobs_default() - the cores this process may run on (its CPU affinity), at least 1. */
int tk_import_jobs_default(void);

/* One profiling run of a TensorBoard logdir: <logdir>/plugins/profile/<name>/<host>.xplane.pb */
struct tk_xplane_run {
	char *name;   /* run directory name */
	char *dir;    /* its path */
	char **files; /* the .xplane.pb files (one per host), sorted by name */
	int nfiles;
	int64_t bytes;	  /* total size of the files */
	int64_t mtime_ns; /* newest modification time among the files */
	int64_t start_ns,
	    end_ns;	 /* profiled time span over the files (Unix epoch ns), or TK_NONE */
	int64_t name_ns; /* the date and time the run name spells (2024_05_01_12_30_45, read as
			    UTC), or TK_NONE */
};

/**
 * tk_xplane_list_runs() - the runs under @path (a logdir, its plugins/profile directory, or a run
 * directory itself), newest first: by when profiling started (start_ns), for a run whose files do
 * not record it by the time in its name (name_ns); runs with neither come last, by the
 * modification time of their files. Copying runs does not reorder them. Free with tk_xplane_runs_free().
 * @return TK_OK, TK_ENOTFOUND when there is no run, TK_EIO, TK_ENOMEM (causes in @err, may be
 *         NULL).
 */
int tk_xplane_list_runs(const char *path, struct tk_xplane_run **runs, int *nruns, tk_error *err);

/** tk_xplane_runs_free() - free the @nruns runs of tk_xplane_list_runs() (NULL is fine). */
void tk_xplane_runs_free(struct tk_xplane_run *runs, int nruns);

/* One Chrome/Kineto JSON trace of a rank directory (tk_rank_dir_list()), or one file
 * (tk_rank_file_peek()): what its top level says and, with TK_RANK_SPAN, its events' span. */
struct tk_rank_file {
	char *path;	    /* the file's path (the directory's path joined with rel) */
	const char *rel;    /* the path relative to the directory (points into path) */
	int kineto;	    /* 1: Kineto's top-level keys (distributedInfo, schemaVersion, ...) */
	int gzip;	    /* 1: gzip-compressed (.json.gz) */
	int64_t rank;	    /* distributedInfo.rank, or TK_NONE */
	int64_t world_size; /* distributedInfo.world_size, or TK_NONE */
	char *host;	    /* the top-level host_name, or NULL */
	int64_t bytes;	    /* size of the file */
	/* TK_RANK_SPAN: the first event's start and the last event's end (metadata events left
	 * out), in the trace's clock in ns (baseTimeNanoseconds added), else TK_NONE; epoch: 1 when
	 * that clock is the Unix epoch (baseTimeNanoseconds, or timestamps past 2001, as import) */
	int64_t start_ns, end_ns;
	int epoch;
};

/* tk_rank_file_peek() / tk_rank_dir_list() flags */
enum { TK_RANK_SPAN = 1 }; /* also read every event for start_ns/end_ns (a full read) */

/**
 * tk_rank_file_peek() - what the JSON trace at @path says of itself, without importing it: its
 * top-level keys through the importer's own reader; past traceEvents only when the rank was not
 * found before it, or with TK_RANK_SPAN (so without it, a host_name written after the events is
 * not seen). A trace that breaks (truncated, invalid) is still a trace: what was read before the
 * break is kept, and importing it says where it broke.
 * @return TK_OK with @f filled (free its strings with tk_rank_files_free() or free()), TK_EFORMAT
 *         when the file is not a Chrome/Kineto JSON trace (not JSON, or JSON without a
 *         traceEvents array), TK_EIO, TK_ENOMEM (causes in @err, may be NULL).
 */
int tk_rank_file_peek(const char *path, unsigned flags, struct tk_rank_file *f, tk_error *err);

/**
 * tk_rank_dir_list() - the Chrome/Kineto JSON traces under the directory @dir (*.json and
 * *.json.gz, in subdirectories too; by content: other files, and JSON that is not a trace, are
 * left out; hidden files and directories too), each peeked (tk_rank_file_peek()). Ordered by
 * rank where the file states one, then by path with digit runs compared as numbers (rank2
 * before rank10). Two files may state one rank: the caller decides (import refuses it).
 * Refused: a tree deeper than 32 directories, with more than 1,048,576 entries, or with a
 * link to a directory that leads back up the tree (a cycle) or out of @dir.
 * @return TK_OK with *@files (free with tk_rank_files_free()), TK_ENOTFOUND when there is no
 *         trace, TK_EINVAL for a refused tree, TK_EIO, TK_ENOMEM (causes in @err, may be NULL).
 */
int tk_rank_dir_list(const char *dir, unsigned flags, struct tk_rank_file **files, int *nfiles,
		     tk_error *err);

/** tk_rank_files_free() - free the @n files of tk_rank_dir_list() (NULL is fine). */
void tk_rank_files_free(struct tk_rank_file *files, int n);

/* ---- merging stores (import/merge.c) ---- */

struct tk_merge_options {
	/* 1: a job summary, only what the cross-rank analyses need (docs/scale.md): every source,
	 * process, device and track, the step events, the communication kernels with their args,
	 * meta, and the inputs' analysis tables (each input must have a current analysis). */
	int summary;
};

/** tk_merge_options_init() - a full merge (every event). */
void tk_merge_options_init(struct tk_merge_options *o);

/**
 * tk_merge() - write the job store @output from the @n stores @inputs (per-rank or per-host
 * stores): their sources, processes, devices, tracks, events with their details, op details,
 * flows, args, counters, memory events and meta, in input order, ids remapped and strings
 * re-interned (meta: later inputs win). Written atomically: on failure nothing is at @output.
 * Job summaries as inputs are kept whole and make a job summary (summary set or not); a mix of
 * summaries and full stores needs summary set.
 * @param st   OUT (may be NULL): what was written
 * @return TK_OK; TK_EINVAL for a store given twice, two stores holding one rank, a summary input
 *         without a current analysis, a summary and a full store without summary set;
 *         TK_EFORMAT for a damaged store or one that is not a store
 *         (its path, table and row in @err); TK_EIO, TK_ENOMEM.
 */
int tk_merge(const char *output, const char *const *inputs, size_t n,
	     const struct tk_merge_options *o, struct tk_writer_stats *st, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
