/*
 * util/gz_reader.c, the gzip inflating thread: every decoded byte arrives, in order, in buffers of
 * at most the given size, across concatenated members and a ring much smaller than the text;
 * a truncated stream gives every byte before the cut and then the error; the size bound holds;
 * closing early (the consumer stops reading) joins the thread. Cut short or corrupt anywhere, a
 * stream gives what zlib gives (bytes and message), whichever inflater the build has (igzip
 * hands such a stream to zlib); read from a pipe, a cut stream still ends with the error.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
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

/* Read the gzip stream of @fd (its first 10 bytes given as already read) through the reader with
 * @cap-byte buffers; what came, in *@got, and the last return (0 or -1) with @msg. */
static int read_fd(int fd, size_t cap, uint64_t max_out, unsigned char *got, size_t *got_len,
		   char *msg, size_t msg_len)
{
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
	return r;
}

static int read_all(const char *path, size_t cap, uint64_t max_out, unsigned char *got,
		    size_t *got_len, char *msg, size_t msg_len)
{
	int fd = open(path, O_RDONLY);
	cr_assert(fd >= 0);
	int r = read_fd(fd, cap, max_out, got, got_len, msg, msg_len);
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

/* What zlib alone gives for @n bytes of gzip @z (members one after another, as the reader reads
 * them): the bytes decoded before it stops, and its message ("" at a sound end). */
static size_t zlib_reference(const unsigned char *z, size_t n, char *msg, size_t msg_len)
{
	static unsigned char out[1 << 16];
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	cr_assert_eq(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
	zs.next_in = (unsigned char *)z;
	zs.avail_in = (uInt)n;
	size_t total = 0;
	msg[0] = 0;
	for (;;) {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		int r = inflate(&zs, Z_NO_FLUSH);
		total += sizeof(out) - zs.avail_out;
		if (r == Z_STREAM_END) {
			if (!zs.avail_in)
				break;
			cr_assert_eq(inflateReset(&zs), Z_OK);
		} else if (r == Z_BUF_ERROR || (r == Z_OK && !zs.avail_in && zs.avail_out)) {
			snprintf(msg, msg_len, "the gzip stream is truncated");
			break;
		} else if (r != Z_OK) {
			snprintf(msg, msg_len, "corrupt gzip data (%s)", zs.msg ? zs.msg : "?");
			break;
		}
	}
	inflateEnd(&zs);
	return total;
}

Test(gz_reader, cut_or_corrupt_anywhere_gives_what_zlib_gives)
{
	make_text();
	size_t cap = TEXT_BYTES + 4096, zlen = 0;
	unsigned char *z = malloc(cap), *bad = malloc(cap), *got = malloc(TEXT_BYTES);
	gzip_member(z, &zlen, cap, 0, TEXT_BYTES / 2);
	gzip_member(z, &zlen, cap, TEXT_BYTES / 2, TEXT_BYTES);
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "t.gz");
	char msg[200], want[200];
	size_t n;
	/* cut anywhere, headers and trailers of both members included: the same bytes, the error */
	for (size_t k = 1; k < 60; k++) {
		size_t cut = k < 50 ? 11 + (zlen - 12) * k / 50 : zlen / 2 + k - 55;
		tkt_spit(path, z, cut);
		size_t ref = zlib_reference(z, cut, want, sizeof(want));
		cr_assert_eq(read_all(path, 65536, UINT64_MAX, got, &n, msg, sizeof(msg)), -1,
			     "cut at %zu", cut);
		cr_expect_str_eq(msg, want, "cut at %zu", cut);
		cr_expect_eq(n, ref, "cut at %zu: %zu bytes, zlib gives %zu", cut, n, ref);
		cr_assert(!memcmp(got, text, n));
	}
	/* a byte changed in the first member's data, in its trailer, in the second's header */
	static const double at[] = {0.1, 0.3};
	size_t where[4] = {(size_t)(at[0] * (double)zlen), (size_t)(at[1] * (double)zlen), 0, 0};
	for (size_t i = zlen / 2 - 64; i + 2 < zlen; i++) /* the second member's gzip magic */
		if (z[i] == 0x1f && z[i + 1] == 0x8b && z[i + 2] == 8) {
			where[2] = i - 4; /* the first member's length field */
			where[3] = i + 2; /* the second's method */
			break;
		}
	cr_assert(where[2], "no second member found");
	for (size_t k = 0; k < 4; k++) {
		memcpy(bad, z, zlen);
		bad[where[k]] ^= 0x55;
		tkt_spit(path, bad, zlen);
		zlib_reference(bad, zlen, want, sizeof(want));
		cr_assert(want[0], "byte %zu: zlib finds nothing wrong", where[k]);
		cr_assert_eq(read_all(path, 65536, UINT64_MAX, got, &n, msg, sizeof(msg)), -1);
		cr_expect_str_eq(msg, want, "byte %zu changed", where[k]);
	}
	tkt_rmdir(dir);
	free(dir);
	free(path);
	free(z);
	free(bad);
	free(got);
	free(text);
}

struct pipe_feed {
	int fd;
	const unsigned char *z;
	size_t n;
};

static void *feed(void *arg)
{
	struct pipe_feed *f = arg;
	for (size_t off = 0; off < f->n;) {
		ssize_t w = write(f->fd, f->z + off, f->n - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(f->fd);
	return NULL;
}

Test(gz_reader, a_cut_stream_through_a_pipe_ends_with_the_error)
{
	make_text();
	size_t cap = TEXT_BYTES + 4096, zlen = 0;
	unsigned char *z = malloc(cap), *got = malloc(TEXT_BYTES);
	gzip_member(z, &zlen, cap, 0, TEXT_BYTES);
	int p[2];
	cr_assert_eq(pipe(p), 0);
	struct pipe_feed f = {p[1], z, zlen / 3};
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, feed, &f), 0);
	char msg[200], want[200];
	size_t n, ref = zlib_reference(z, zlen / 3, want, sizeof(want));
	cr_assert_eq(read_fd(p[0], 65536, UINT64_MAX, got, &n, msg, sizeof(msg)), -1);
	pthread_join(th, NULL);
	close(p[0]);
	cr_expect_str_eq(msg, "the gzip stream is truncated");
	/* igzip, when the build has it and the stream cannot be read again, may stop a few bytes
	 * short of zlib */
	cr_expect(n <= ref && n + 64 >= ref, "%zu bytes, zlib gives %zu", n, ref);
	cr_assert(!memcmp(got, text, n));
	free(z);
	free(got);
	free(text);
}
