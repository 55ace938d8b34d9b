/*
 * Replay driver: a main() for the fuzz targets in builds without libFuzzer (gcc, the release and
 * ASan builds). `replay_<name> PATH...` feeds every file named, and every file in each directory
 * named (sorted, not recursive), to LLVMFuzzerTestOneInput once. A missing path is skipped (a
 * target may have no regress inputs yet). A crash or a failed check aborts, which fails ctest.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

/* Weak: a target defines LLVMFuzzerInitialize only when it needs one. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;
	if (!f) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		goto out;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			unsigned char *g = realloc(buf, cap);
			if (!g)
				goto out;
			buf = g;
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		goto out;
	}
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, len);
	rc = 0;
out:
	if (f)
		fclose(f);
	free(buf);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of @dir in name order; the number replayed, or -1 on a read error. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int count = 0;
	if (!d) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **g = realloc(names, cap * sizeof(*g));
			if (!g) {
				count = -1;
				break;
			}
			names = g;
		}
		size_t len = strlen(dir) + strlen(de->d_name) + 2;
		if (!(names[n] = malloc(len))) {
			count = -1;
			break;
		}
		snprintf(names[n++], len, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (count == 0 && n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		if (count >= 0 && stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode))
			count = replay_file(names[i]) == 0 ? count + 1 : -1;
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	int total = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		int k;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: %s: absent, skipped\n", argv[i]);
			continue;
		}
		k = S_ISDIR(sb.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0 ? 1 : -1;
		if (k < 0)
			return 2;
		total += k;
	}
	printf("replay: %d inputs, no crash\n", total);
	return 0;
}
