/* How many cores this process may run on (the default of the --jobs options). */
#ifndef TK_UTIL_CPUS_H
#define TK_UTIL_CPUS_H

/**
 * tku_cpu_count() - the CPUs in this thread's affinity mask (sched_getaffinity), so a process
 * pinned by taskset, cgroups' cpusets or Slurm counts only its own; 1 when it cannot be told.
 * @return at least 1.
 */
int tku_cpu_count(void);

#endif
