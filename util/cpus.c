/* How many cores this process may run on (util/cpus.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>

#include "util/cpus.h"

int tku_cpu_count(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	int n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}
