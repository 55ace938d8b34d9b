/*
 * runstat: run a command and print its wall time, CPU time and peak resident memory as one line
 * of key=value pairs on stderr, for the benchmark scripts. Usage: runstat CMD [ARG...]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: runstat CMD [ARG...]\n", stderr);
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 3;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("runstat: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("runstat: wait4");
		return 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	double user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	double sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "runstat wall_s=%.3f user_s=%.3f sys_s=%.3f max_rss_kib=%ld\n", wall, user,
		sys, ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
