/* The number of cores this process may run on (util/cpus.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "util/cpus.h"

#include <sched.h>
#include <unistd.h>

int tku_cpu_count(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (n > 4096 ? 4096 : (int)n) : 1;
}
