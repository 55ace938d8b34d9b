/*
 * Buffered output for the exporters: bytes go into a 1 MiB buffer, then to a temporary file
 * beside the target (store/outfile.h: named after the process, locked while written, stale ones
 * swept; through zlib's gzip deflate when asked); commit fsyncs and renames it onto the target,
 * abort removes it, so a failed export never leaves a half-written file. Plain files
 * can have bytes already written patched in place (reserved protobuf lengths).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <unistd.h>

#include "export_internal.h"
#include "outfile.h"

#define OUT_BUF (1u << 20)

static int io_fail(struct ex_out *o, const char *what)
{
	o->failed = 1;
	return ex_fail_cause(o->x, TK_EIO, "os", strerror(errno), "cannot %s '%s'", what, o->path);
}

static int write_all(struct ex_out *o, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return io_fail(o, "write");
		p += w;
		n -= (size_t)w;
		o->written += w;
	}
	return TK_OK;
}

static int deflate_some(struct ex_out *o, const uint8_t *p, size_t n, int flush)
{
	uint8_t chunk[1 << 16];
	o->z->next_in = (Bytef *)p;
	o->z->avail_in = (uInt)n;
	do {
		o->z->next_out = chunk;
		o->z->avail_out = sizeof(chunk);
		int zr = deflate(o->z, flush);
		if (zr == Z_STREAM_ERROR) {
			o->failed = 1;
			return ex_fail(o->x, TK_EINTERNAL, "gzip failed for '%s'", o->path);
		}
		size_t have = sizeof(chunk) - o->z->avail_out;
		if (have && write_all(o, chunk, have) != TK_OK)
			return TK_EIO;
	} while (o->z->avail_out == 0 || (flush == Z_FINISH && o->z->avail_in));
	return TK_OK;
}

int ex_out_open(struct tk_exporter *x, struct ex_out *o, const char *path, int gzip)
{
	memset(o, 0, sizeof(*o));
	o->x = x;
	o->fd = -1;
	o->path = strdup(path);
	o->buf = malloc(OUT_BUF);
	if (!o->path || !o->buf) {
		o->failed = 1;
		return ex_fail(x, TK_ENOMEM, "out of memory");
	}
	o->cap = OUT_BUF;
	int e = tko_tmp_create(path, &o->tmp, &o->fd);
	if (e) {
		errno = e;
		return io_fail(o, "create");
	}
	if (gzip) {
		o->z = calloc(1, sizeof(*o->z));
		if (!o->z ||
		    deflateInit2(o->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(o->z);
			o->z = NULL;
			o->failed = 1;
			return ex_fail(x, TK_ENOMEM, "cannot start gzip for '%s'", path);
		}
	}
	return TK_OK;
}

int ex_out_flush(struct ex_out *o)
{
	if (o->failed)
		return TK_EIO;
	if (!o->len)
		return TK_OK;
	int rc = o->z ? deflate_some(o, o->buf, o->len, Z_NO_FLUSH) : write_all(o, o->buf, o->len);
	o->flushed += (int64_t)o->len;
	o->len = 0;
	return rc;
}

int ex_out_patch(struct ex_out *o, int64_t pos, const uint8_t *b, size_t n)
{
	if (o->failed)
		return TK_EIO;
	if (pos >= o->flushed) {
		memcpy(o->buf + (pos - o->flushed), b, n);
		return TK_OK;
	}
	if (o->z)
		return ex_fail(o->x, TK_EINTERNAL, "cannot patch a gzip stream");
	if (pos + (int64_t)n > o->flushed) { /* straddles: split */
		size_t first = (size_t)(o->flushed - pos);
		if (ex_out_patch(o, pos, b, first) != TK_OK)
			return TK_EIO;
		memcpy(o->buf, b + first, n - first);
		return TK_OK;
	}
	if (pwrite(o->fd, b, n, pos) != (ssize_t)n)
		return io_fail(o, "write");
	return TK_OK;
}

void ex_out_abort(struct ex_out *o)
{
	if (!o)
		return;
	if (o->tmp && o->tmp[0]) /* removed while still locked (outfile.h), then closed */
		unlink(o->tmp);
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->z)
		deflateEnd(o->z);
	free(o->z);
	o->z = NULL;
	free(o->tmp);
	free(o->path);
	free(o->buf);
	o->tmp = o->path = NULL;
	o->buf = NULL;
}

int ex_out_commit(struct ex_out *o)
{
	int rc = ex_out_flush(o);
	if (rc == TK_OK && o->z)
		rc = deflate_some(o, NULL, 0, Z_FINISH);
	int e = rc == TK_OK ? tko_tmp_commit(o->fd, o->tmp, o->path) : 0;
	if (e) {
		errno = e;
		rc = io_fail(o, "write");
	}
	if (rc == TK_OK) {
		o->x->stats.bytes += o->written;
		o->x->stats.files++;
		o->tmp[0] = 0; /* renamed: nothing to remove */
	}
	ex_out_abort(o);
	return rc;
}
