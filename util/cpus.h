/* The number of cores this process may run on: the default of every --jobs. */
#ifndef TK_UTIL_CPUS_H
#define TK_UTIL_CPUS_H

/* tku_cpu_count() - the CPUs of the process's affinity mask (sched_getaffinity), else the online
 * processors (sysconf), at least 1. */
int tku_cpu_count(void);

#endif
