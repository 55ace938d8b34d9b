/* Shared helpers of the fuzz targets: scratch directory on tmpfs, files, trees, checks. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fuzz_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <unistd.h>

static char scratch[256];

void fz_check(int ok, const char *what, const char *detail)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz check failed: %s (%s)\n", what, detail ? detail : "");
	abort();
}

tk_error *fz_err(void)
{
	static tk_error *err; /* reachable until exit: not a leak */
	if (!err)
		err = tk_error_new();
	fz_check(err != NULL, "tk_error_new", "out of memory");
	return err;
}

const char *fz_errmsg(void)
{
	return tk_error_message(fz_err());
}

void fz_status(int rc, const char *msg, const char *what)
{
	if (rc == TK_OK)
		return;
	char detail[1200];
	snprintf(detail, sizeof(detail), "status %d: %s", rc, msg ? msg : "(no message)");
	fz_check(rc < 0 && rc >= TK_EINTERNAL && strcmp(tk_strerror(rc), "") != 0, what, detail);
	fz_check(tk_exit_code(rc) == 2 || rc == TK_ENOMEM, what, detail);
	fz_check(msg && *msg, what, detail);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void fz_rmtree(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		unlink(path);
		return;
	}
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void scratch_remove(void)
{
	if (scratch[0])
		fz_rmtree(scratch);
}

const char *fz_dir(void)
{
	if (scratch[0])
		return scratch;
	struct stat sb;
	const char *base = "/dev/shm";
	if (stat(base, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(base, W_OK) != 0) {
		base = getenv("TMPDIR");
		if (!base || !*base)
			base = "/tmp";
	}
	snprintf(scratch, sizeof(scratch), "%s/tkfuzz-%ld", base, (long)getpid());
	fz_rmtree(scratch);
	fz_check(mkdir(scratch, 0700) == 0, "cannot make the scratch directory", scratch);
	atexit(scratch_remove);
	return scratch;
}

const char *fz_path(const char *name)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ & 3];
	snprintf(b, sizeof(bufs[0]), "%s/%s", fz_dir(), name);
	return b;
}

int fz_try_write(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	const char *p = data;
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(fd);
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return close(fd);
}

void fz_write(const char *path, const void *data, size_t n)
{
	fz_check(fz_try_write(path, data, n) == 0, "cannot write", path);
}

uint8_t fz_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

uint64_t fz_u64(struct fz_in *in, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes && i < 8; i++)
		v |= (uint64_t)fz_u8(in) << (8 * i);
	return v;
}

const char *fz_str(struct fz_in *in, char *buf, size_t max)
{
	size_t len = fz_u8(in) % (max + 1), i = 0;
	for (; i < len && in->n; i++) {
		uint8_t c = fz_u8(in);
		if (!c)
			break;
		buf[i] = (char)c;
	}
	buf[i] = '\0';
	return buf;
}
