// cuda_demo: a small CUDA program for `tracekit record`: per step, a copy to the device, 20 tiny
// kernels, a large and a heavy kernel, a memset, a copy back and a stream synchronization.
// Exits 0 on success, 3 when no CUDA device can be used (the error is printed). Prints the
// median step time after 3 warm-up steps (host clock, each step ends with a synchronization),
// which scripts/gpu_check.sh compares with and without `tracekit record`.
//
//   tracekit record -o cuda.db -- build/cuda_demo [STEPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void scale(float *x, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}

__global__ void heavy(float *x, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		for (int r = 0; r < rounds; r++)
			v = v * 0.999f + 0.001f;
		x[i] = v;
	}
}

static int check(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return 0;
	fprintf(stderr, "cuda_demo: %s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
	return 1;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 4;
	int count = 0;
	if (check(cudaGetDeviceCount(&count), "cudaGetDeviceCount") || count == 0) {
		fprintf(stderr, "cuda_demo: no usable CUDA device, nothing to run\n");
		return 3;
	}
	const int n = 1 << 22;
	float *host = (float *)malloc(n * sizeof(float)), *dev = NULL;
	for (int i = 0; i < n; i++)
		host[i] = 1.0f;
	if (check(cudaMalloc(&dev, n * sizeof(float)), "cudaMalloc"))
		return 3;
	cudaStream_t s;
	cudaStreamCreate(&s);
	std::vector<double> step_us;
	for (int step = 0; step < steps; step++) {
		auto t0 = std::chrono::steady_clock::now();
		cudaMemcpyAsync(dev, host, n * sizeof(float), cudaMemcpyHostToDevice, s);
		for (int k = 0; k < 20; k++)
			scale<<<(1024 + 255) / 256, 256, 0, s>>>(dev, 1024, 1.0001f); // tiny kernels
		scale<<<(n + 255) / 256, 256, 0, s>>>(dev, n, 0.5f);
		heavy<<<(n + 511) / 512, 512, 0, s>>>(dev, n, 200);
		cudaMemsetAsync(dev, 0, 4096, s);
		cudaMemcpyAsync(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost, s);
		cudaStreamSynchronize(s);
		std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - t0;
		if (step >= 3)
			step_us.push_back(d.count());
	}
	int rc = check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	cudaStreamDestroy(s);
	cudaFree(dev);
	free(host);
	printf("cuda_demo: %d steps done\n", steps);
	if (!step_us.empty()) {
		std::sort(step_us.begin(), step_us.end());
		printf("cuda_demo: median step %.1f us over %zu steps after 3 warm-up steps\n",
		       step_us[step_us.size() / 2], step_us.size());
	}
	return rc ? 3 : 0;
}
