/* The MPI mode of `import` and `analyze` (--mpi, docs/scale.md): cli/mpi.c when tracekit is built
 * with MPI, else cli/mpi_off.c, which refuses it. The library knows nothing of MPI. */
#ifndef TK_CLI_MPI_JOB_H
#define TK_CLI_MPI_JOB_H

#include <stddef.h>

struct tk_import_options;
struct tk_analyze_options;

struct cli_mpi_job {
	int import;		   /* 1: import each file then analyse it; 0: analyse each store */
	const char *output;	   /* JOB, the job summary (written by rank 0 only) */
	const char *const *inputs; /* import: files, logdirs; analyze: per-rank stores */
	size_t n;
	const char *run_name;		     /* import: a logdir's run */
	const char *store_dir;		     /* import: the per-rank stores' directory, or NULL */
	const struct tk_import_options *io;  /* import */
	const struct tk_analyze_options *ao; /* the analyses of the per-rank stores and of JOB */
};

/*
 * Run @job as one of the processes of an MPI job (mpirun, srun): the inputs are shared out by
 * bytes, each process makes and analyses its per-rank stores and their summary, rank 0 gathers
 * the summaries through MPI messages, merges them into JOB and analyses it. Every process
 * returns the same exit code; rank 0 prints what went wrong on any process.
 */
int cli_mpi_run(const struct cli_mpi_job *job);

#endif
