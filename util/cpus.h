/* How many cores this process may run on: the default of every --jobs option. */
#ifndef TK_UTIL_CPUS_H
#define TK_UTIL_CPUS_H

/**
 * tku_cpu_count() - the CPUs in this thread's affinity mask (sched_getaffinity), so a process
 * pinned by taskset, cgroups' cpusets or Slurm counts only its own; else the online processors
 * (sysconf, at most 4096).
 * @return at least 1.
 */
int tku_cpu_count(void);

#endif
