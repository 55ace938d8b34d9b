/*
 * annotate_demo: a host-only program that uses tracekit's annotation API: nested scopes over a
 * few steps on two threads, function annotations, instant markers, counters and allocations.
 *
 *   annotate_demo [STORE] [--steps N]   # STORE, or TRACEKIT_OUTPUT, or untraced
 *   tracekit record -o run.db --start-step 2 --steps 2 -- annotate_demo
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracekit/annotate.h>
#include <tracekit/error.h>

static volatile double sink;

static void spin_us(int us)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100; i++)
			sink += i * 0.5;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void load_batch(void)
{
	TK_FUNC();
	spin_us(200);
}

static void matmul(int n)
{
	TK_SCOPE("matmul");
	spin_us(100 * n);
}

/* The second thread: prefetches data while the main thread computes. */
static void *prefetch_main(void *arg)
{
	int steps = *(int *)arg;
	for (int s = 0; s < steps; s++) {
		TK_SCOPE("prefetch");
		void *buf = malloc(4096);
		tk_record_alloc(buf, 4096, "prefetch_pool");
		spin_us(300);
		tk_record_free(buf, 4096, "prefetch_pool");
		free(buf);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *store = NULL;
	int steps = 5;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else
			store = argv[i];
	}
	if (tk_trace_begin(store, NULL) != TK_OK) {
		fprintf(stderr, "annotate_demo: cannot start tracing: %s\n", tk_trace_errmsg());
		return 2;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, prefetch_main, &steps) != 0)
		return 3;
	for (int s = 0; s < steps; s++) {
		tk_step(s);
		TK_SCOPE("train_step");
		load_batch();
		{
			TK_SCOPE("forward");
			matmul(1);
			matmul(2);
		}
		{
			TK_SCOPE("backward");
			void *grad = malloc(1 << 20);
			tk_record_alloc(grad, 1 << 20, "grad_pool");
			matmul(3);
			tk_record_free(grad, 1 << 20, "grad_pool");
			free(grad);
		}
		tk_counter("loss", 1.0 / (s + 1));
		tk_mark("step_done");
	}
	pthread_join(th, NULL);
	int rc = tk_trace_end();
	if (rc != TK_OK) {
		fprintf(stderr, "annotate_demo: cannot write the trace: %s\n", tk_trace_errmsg());
		return 3;
	}
	printf("annotate_demo: %d steps done\n", steps);
	return 0;
}
