/*
 * The gzip inflating thread of util/gz_reader.h. The producer fills the free buffers of the ring in
 * order, each with one inflate loop (the loop the tokenizer ran itself before: a buffer holds what
 * inflate gives for it, concatenated members and every error as before), and ends with the end or
 * the error. The consumer takes buffers in the same order and gives each back when it asks for
 * the next. Workload: one lock round per buffer (1 MiB for a large file).
 */
#include "util/gz_reader.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

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
};

/* One inflate loop into @out: 1 with *len bytes, 0 at the end, -1 with g->msg. */
static int fill(struct tku_gz *g, unsigned char *out, size_t *len)
{
	*len = 0;
	while (*len == 0) {
		if (g->zs.avail_in == 0 && !g->in_eof) {
			ssize_t n;
			do
				n = read(g->fd, g->in, g->in_cap);
			while (n < 0 && errno == EINTR);
			if (n < 0) {
				snprintf(g->msg, sizeof(g->msg), "cannot read: %s",
					 strerror(errno));
				return -1;
			}
			if (n == 0)
				g->in_eof = 1;
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
		if (g->out_total + *len > g->max_out) {
			snprintf(g->msg, sizeof(g->msg),
				 "the gzip stream inflates beyond %llu bytes",
				 (unsigned long long)g->max_out);
			return -1;
		}
	}
	g->out_total += *len;
	return 1;
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
