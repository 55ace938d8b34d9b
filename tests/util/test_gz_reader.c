/*
 * util/gz_reader.c, the gzip inflating thread: every decoded byte arrives, in order, in buffers of
 * at most the given size, across concatenated members and a ring much smaller than the text;
 * a truncated stream gives every byte before the cut and then the error; the size bound holds;
 * closing early (the consumer stops reading) joins the thread.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tk_test.h"
#include "util/gz_reader.h"

#define TEXT_BYTES (3u << 20)

static unsigned char *text;

/* Deterministic text: numbered lines. */
static void make_text(void)
{
	text = malloc(TEXT_BYTES);
	cr_assert(text);
	size_t n = 0;
	for (unsigned k = 0; n < TEXT_BYTES; k++) {
		char line[64];
		int len =
		    snprintf(line, sizeof(line), "{\"line\": %u, \"pad\": \"%u\"},\n", k, k * 7);
		size_t take = n + (size_t)len > TEXT_BYTES ? TEXT_BYTES - n : (size_t)len;
		memcpy(text + n, line, take);
		n += take;
	}
}

/* gzip of text[from, to) as one member, appended to @out at *@len. */
static void gzip_member(unsigned char *out, size_t *len, size_t cap, size_t from, size_t to)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = text + from;
	zs.avail_in = (uInt)(to - from);
	zs.next_out = out + *len;
	zs.avail_out = (uInt)(cap - *len);
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*len = cap - zs.avail_out;
	deflateEnd(&zs);
}

/* Read @path (@skip bytes of it given as already read) through the reader with @cap-byte buffers;
 * what came, in *@got, and the last return (0 or -1) with @msg. */
static int read_all(const char *path, size_t cap, uint64_t max_out, unsigned char *got,
		    size_t *got_len, char *msg, size_t msg_len)
{
	int fd = open(path, O_RDONLY);
	cr_assert(fd >= 0);
	unsigned char first[10];
	cr_assert_eq(read(fd, first, sizeof(first)), (ssize_t)sizeof(first));
	struct tku_gz *g = NULL;
	cr_assert_eq(tku_gz_open(&g, fd, first, sizeof(first), 4096, cap, max_out, msg, msg_len),
		     0);
	unsigned char *buf;
	size_t len;
	int r;
	*got_len = 0;
	while ((r = tku_gz_next(g, &buf, &len, msg, msg_len)) > 0) {
		cr_assert(len > 0 && len <= cap, "a buffer of %zu bytes", len);
		cr_assert(*got_len + len <= TEXT_BYTES);
		memcpy(got + *got_len, buf, len);
		*got_len += len;
	}
	tku_gz_close(g);
	close(fd);
	return r;
}

Test(gz_reader, every_byte_in_order_across_members)
{
	make_text();
	size_t cap = TEXT_BYTES + 4096, zlen = 0;
	unsigned char *z = malloc(cap), *got = malloc(TEXT_BYTES);
	gzip_member(z, &zlen, cap, 0, TEXT_BYTES / 3);
	gzip_member(z, &zlen, cap, TEXT_BYTES / 3, TEXT_BYTES);
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "t.gz");
	tkt_spit(path, z, zlen);
	char msg[200] = "";
	size_t n;
	cr_assert_eq(read_all(path, 1000, UINT64_MAX, got, &n, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(n, TEXT_BYTES);
	cr_assert(!memcmp(got, text, TEXT_BYTES));
	/* cut: every byte decodable before the cut, then the error */
	tkt_spit(path, z, zlen / 2);
	cr_assert_eq(read_all(path, 1000, UINT64_MAX, got, &n, msg, sizeof(msg)), -1);
	cr_expect_str_eq(msg, "the gzip stream is truncated");
	cr_assert_gt(n, TEXT_BYTES / 3);
	cr_assert(!memcmp(got, text, n));
	/* the bound on decoded bytes */
	tkt_spit(path, z, zlen);
	cr_assert_eq(read_all(path, 1000, 100000, got, &n, msg, sizeof(msg)), -1);
	cr_expect_str_eq(msg, "the gzip stream inflates beyond 100000 bytes");
	cr_expect_leq(n, 100000);
	tkt_rmdir(dir);
	free(dir);
	free(path);
	free(z);
	free(got);
	free(text);
}

Test(gz_reader, closing_before_the_end_stops_the_thread)
{
	make_text();
	size_t cap = TEXT_BYTES + 4096, zlen = 0;
	unsigned char *z = malloc(cap);
	gzip_member(z, &zlen, cap, 0, TEXT_BYTES);
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "t.gz");
	tkt_spit(path, z, zlen);
	int fd = open(path, O_RDONLY);
	unsigned char first[2];
	cr_assert_eq(read(fd, first, 2), 2);
	char msg[200];
	struct tku_gz *g = NULL;
	cr_assert_eq(tku_gz_open(&g, fd, first, 2, 4096, 512, UINT64_MAX, msg, sizeof(msg)), 0);
	unsigned char *buf;
	size_t len;
	cr_assert_eq(tku_gz_next(g, &buf, &len, msg, sizeof(msg)), 1);
	cr_assert(!memcmp(buf, text, len));
	tku_gz_close(g); /* with the producer blocked on a full ring */
	close(fd);
	tkt_rmdir(dir);
	free(dir);
	free(path);
	free(z);
	free(text);
}
