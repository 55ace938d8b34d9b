/* `--mpi` in a tracekit built without MPI (TK_WITH_MPI=OFF or MPI not found): refused. */
#include "cli.h"
#include "mpi_job.h"

int cli_mpi_run(const struct cli_mpi_job *job)
{
	(void)job;
	cli_error("this tracekit was built without MPI (configure with -DTK_WITH_MPI=ON)");
	return TK_EXIT_USAGE;
}
