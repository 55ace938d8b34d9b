/*
 * The gzip inflating thread of util/gz_reader.h. The producer fills the free buffers of the ring in
 * order, each with one inflate loop (the loop the tokenizer ran itself before: a buffer holds what
 * inflate gives for it, concatenated members and every error as before), and ends with the end or
 * the error. The consumer takes buffers in the same order and gives each back when it asks for
 * the next. Workload: one lock round per buffer (1 MiB for a large file).
 *
 * With ISA-L (TK_HAVE_ISAL, Debian's libisal: igzip inflates three times as fast as zlib) the
 * inflating is igzip's while the stream is sound. A stream that is not (cut short, corrupt, a
 * bad checksum) is decoded again from the start of the file by zlib, which gives the bytes after
 * those already given and the error: what a truncated or broken file yields, and the message,
 * are zlib's either way (igzip may stop a byte earlier at a cut). A file that cannot be read
 * again from its start (not seekable) ends with igzip's own error.
 */
#include "util/gz_reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tk_config.h"
#if TK_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

struct tku_gz {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	z_stream zs;
	unsigned char *in;
	size_t in_cap, cap;
	int in_eof, z_end;
	int inited, threaded; /* the decoder and lock made; the thread started */
	uint64_t out_total, max_out;
	unsigned char *ring[TKU_GZ_RING];
	size_t len[TKU_GZ_RING];
	unsigned head, count; /* next buffer to take, buffers filled and not yet taken */
	int held;	      /* the consumer holds the buffer before head */
	int stop;	      /* the consumer is closing */
	int end;       /* 0: more may come; 1: the end after the filled buffers; -1: an error */
	char msg[200]; /* the error */
#if TK_HAVE_ISAL
	struct inflate_state is;
	int by_zlib;   /* zlib decodes from the start again (the stream is not sound) */
	uint64_t skip; /* bytes zlib gives that igzip gave already */
#endif
};

/* Read more input into g->in: its length, 0 at the end of the file, -1 with g->msg. */
static ssize_t read_in(struct tku_gz *g)
{
	ssize_t n;
	do
		n = read(g->fd, g->in, g->in_cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		snprintf(g->msg, sizeof(g->msg), "cannot read: %s", strerror(errno));
	else if (n == 0)
		g->in_eof = 1;
	return n;
}

/* One zlib inflate loop into @out: 1 with *len bytes, 0 at the end, -1 with g->msg. */
static int fill_zlib(struct tku_gz *g, unsigned char *out, size_t *len)
{
	*len = 0;
	while (*len == 0) {
		if (g->zs.avail_in == 0 && !g->in_eof) {
			ssize_t n = read_in(g);
			if (n < 0)
				return -1;
			g->zs.next_in = g->in;
			g->zs.avail_in = (uInt)n;
		}
		if (g->zs.avail_in == 0 && g->in_eof) {
			if (!g->z_end) {
				snprintf(g->msg, sizeof(g->msg), "the gzip stream is truncated");
				return -1;
			}
			return 0;
		}
		if (g->z_end) {
			/* another gzip member follows (concatenated gzip) */
			if (inflateReset(&g->zs) != Z_OK) {
				snprintf(g->msg, sizeof(g->msg), "corrupt gzip data");
				return -1;
			}
			g->z_end = 0;
		}
		g->zs.next_out = out;
		g->zs.avail_out = (uInt)g->cap;
		int zr = inflate(&g->zs, Z_NO_FLUSH);
		*len = g->cap - g->zs.avail_out;
		if (zr == Z_STREAM_END) {
			g->z_end = 1;
		} else if (zr != Z_OK && !(zr == Z_BUF_ERROR && *len > 0)) {
			if (zr == Z_BUF_ERROR && g->in_eof) {
				snprintf(g->msg, sizeof(g->msg), "the gzip stream is truncated");
				return -1;
			}
			if (zr != Z_BUF_ERROR) {
				snprintf(g->msg, sizeof(g->msg), "corrupt gzip data (%s)",
					 g->zs.msg ? g->zs.msg : "inflate failed");
				return -1;
			}
		}
	}
	return 1;
}

#if TK_HAVE_ISAL
enum { REDO = 2 }; /* fill_isal(): the stream is not sound, zlib decodes it again */

/* zlib's words for what igzip found (a stream that cannot be read again from its start). */
static const char *isal_reason(int r)
{
	switch (r) {
	case ISAL_INVALID_BLOCK:
		return "invalid block type";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		return "incorrect data check";
	case ISAL_NEED_DICT:
		return "need dictionary";
	default:
		return "inflate failed";
	}
}

/* One igzip inflate loop into @out, as fill_zlib(); REDO (g->msg says why) when the stream is
 * cut short or broken. */
static int fill_isal(struct tku_gz *g, unsigned char *out, size_t *len)
{
	*len = 0;
	while (*len == 0) {
		if (g->is.avail_in == 0 && !g->in_eof) {
			ssize_t n = read_in(g);
			if (n < 0)
				return -1;
			g->is.next_in = g->in;
			g->is.avail_in = (uint32_t)n;
		}
		if (g->is.avail_in == 0 && g->in_eof) {
			if (!g->z_end) {
				snprintf(g->msg, sizeof(g->msg), "the gzip stream is truncated");
				return REDO;
			}
			return 0;
		}
		if (g->z_end) { /* another gzip member follows (concatenated gzip) */
			uint8_t *next = g->is.next_in;
			uint32_t avail = g->is.avail_in;
			isal_inflate_reset(&g->is);
			g->is.crc_flag = ISAL_GZIP;
			g->is.next_in = next;
			g->is.avail_in = avail;
			g->z_end = 0;
		}
		g->is.next_out = out;
		g->is.avail_out = (uint32_t)g->cap;
		uint32_t before = g->is.avail_in;
		int r = isal_inflate(&g->is);
		*len = g->cap - g->is.avail_out;
		/* an error; or no progress at all (igzip takes in what it cannot decode yet), which
		 * zlib is left to judge rather than loop on */
		if ((r != ISAL_DECOMP_OK && r != ISAL_END_INPUT) ||
		    (!*len && g->is.avail_in == before && g->is.block_state != ISAL_BLOCK_FINISH)) {
			*len = 0;
			snprintf(g->msg, sizeof(g->msg), "corrupt gzip data (%s)", isal_reason(r));
			return REDO;
		}
		if (g->is.block_state == ISAL_BLOCK_FINISH)
			g->z_end = 1;
	}
	return 1;
}

/* zlib from the start of the file, to give what follows the @done bytes given: 0, or -1 when
 * the file cannot be read again (g->msg keeps igzip's error). */
static int redo_by_zlib(struct tku_gz *g, uint64_t done)
{
	if (lseek(g->fd, 0, SEEK_SET) != 0 || inflateReset(&g->zs) != Z_OK)
		return -1;
	g->zs.next_in = g->in;
	g->zs.avail_in = 0;
	g->in_eof = 0;
	g->z_end = 0;
	g->skip = done;
	g->by_zlib = 1;
	return 0;
}
#endif

/* One inflate loop into @out: 1 with *len bytes, 0 at the end, -1 with g->msg. */
static int fill(struct tku_gz *g, unsigned char *out, size_t *len)
{
	int r;
	for (;;) {
#if TK_HAVE_ISAL
		if (!g->by_zlib) {
			if ((r = fill_isal(g, out, len)) == REDO)
				r = redo_by_zlib(g, g->out_total) == 0 ? REDO : -1;
			if (r == REDO)
				continue;
			break;
		}
		if ((r = fill_zlib(g, out, len)) > 0 && g->skip) { /* given by igzip already */
			size_t drop = g->skip < *len ? (size_t)g->skip : *len;
			g->skip -= drop;
			memmove(out, out + drop, *len - drop);
			if (!(*len -= drop))
				continue;
		}
#else
		r = fill_zlib(g, out, len);
#endif
		break;
	}
	if (r > 0 && g->out_total + *len > g->max_out) {
		snprintf(g->msg, sizeof(g->msg), "the gzip stream inflates beyond %llu bytes",
			 (unsigned long long)g->max_out);
		return -1;
	}
	if (r > 0)
		g->out_total += *len;
	return r;
}

static void *producer(void *arg)
{
	struct tku_gz *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!g->stop) {
		if (g->count + (unsigned)g->held >= TKU_GZ_RING) {
			pthread_cond_wait(&g->cv, &g->mu);
			continue;
		}
		unsigned at = (g->head + g->count) % TKU_GZ_RING;
		pthread_mutex_unlock(&g->mu);
		size_t len;
		int r = fill(g, g->ring[at], &len);
		pthread_mutex_lock(&g->mu);
		if (r > 0) {
			g->len[at] = len;
			g->count++;
		} else {
			g->end = r == 0 ? 1 : -1;
		}
		pthread_cond_broadcast(&g->cv);
		if (r <= 0)
			break;
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int tku_gz_next(struct tku_gz *g, unsigned char **buf, size_t *len, char *msg, size_t msg_len)
{
	pthread_mutex_lock(&g->mu);
	if (g->held) {
		g->held = 0;
		pthread_cond_broadcast(&g->cv);
	}
	while (!g->count && !g->end)
		pthread_cond_wait(&g->cv, &g->mu);
	int r = 0;
	if (g->count) {
		*buf = g->ring[g->head];
		*len = g->len[g->head];
		g->head = (g->head + 1) % TKU_GZ_RING;
		g->count--;
		g->held = 1;
		r = 1;
	} else if (g->end < 0) {
		snprintf(msg, msg_len, "%s", g->msg);
		r = -1;
	}
	pthread_mutex_unlock(&g->mu);
	return r;
}

int tku_gz_open(struct tku_gz **out, int fd, const unsigned char *first, size_t n, size_t in_cap,
		size_t cap, uint64_t max_out, char *msg, size_t msg_len)
{
	*out = NULL;
	struct tku_gz *g = calloc(1, sizeof(*g));
	int ok = g && (g->in = malloc(in_cap > n ? in_cap : n)) != NULL;
	for (int i = 0; i < TKU_GZ_RING && ok; i++)
		ok = (g->ring[i] = malloc(cap)) != NULL;
	if (!ok) {
		snprintf(msg, msg_len, "out of memory");
		goto fail;
	}
	g->fd = fd;
	g->in_cap = in_cap > n ? in_cap : n;
	g->cap = cap;
	g->max_out = max_out;
	memcpy(g->in, first, n);
	if (inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK) {
		snprintf(msg, msg_len, "cannot start gzip decoder");
		goto fail;
	}
	g->zs.next_in = g->in;
	g->zs.avail_in = (uInt)n;
#if TK_HAVE_ISAL
	isal_inflate_init(&g->is);
	g->is.crc_flag = ISAL_GZIP;
	g->is.next_in = g->in;
	g->is.avail_in = (uint32_t)n;
#endif
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->inited = 1;
	if (pthread_create(&g->thread, NULL, producer, g) != 0) {
		snprintf(msg, msg_len, "cannot start the gzip decoder's thread");
		goto fail;
	}
	g->threaded = 1;
	*out = g;
	return 0;
fail:
	tku_gz_close(g);
	return -1;
}

void tku_gz_close(struct tku_gz *g)
{
	if (!g)
		return;
	if (g->threaded) {
		pthread_mutex_lock(&g->mu);
		g->stop = 1;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
	}
	if (g->inited) {
		inflateEnd(&g->zs);
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
	}
	free(g->in);
	for (int i = 0; i < TKU_GZ_RING; i++)
		free(g->ring[i]);
	free(g);
}
