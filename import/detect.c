/*
 * Input format detection by content: a file (gzip looked through) whose first non-blank byte opens
 * a JSON object or array is Chrome/Kineto JSON; one that starts with a protobuf tag of an XSpace
 * field is XPlane. Reads at most the first few hundred bytes. Also what tells one input file from
 * another (the same file twice, or a copy of it, must not become a second rank or host).
 */
#include <tracekit/error.h>
#include <tracekit/import.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "message.h"
#include "util/fnv.h"

void tk_import_options_init(struct tk_import_options *o)
{
	memset(o, 0, sizeof(*o));
	o->rank = TK_NONE;
}

/* Cannot read @path because of @why (from @module): TK_EIO with both causes in @err. */
static int read_fail(tk_error *err, const char *path, const char *module, const char *why)
{
	tk_error_push_from(err, module, TK_EIO, "%s", why);
	return tk_error_push_from(err, "import", TK_EIO, "cannot read '%s'", path);
}

int tk_import_detect(const char *path, enum tk_import_format *out, tk_error *err)
{
	*out = TK_FORMAT_UNKNOWN;
	tk_error_clear(err);
	struct stat sb;
	if (stat(path, &sb) != 0)
		return read_fail(err, path, "os", strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return read_fail(err, path, "import", "not a regular file");
	gzFile f = gzopen(path, "rb"); /* reads plain files as they are */
	if (!f)
		return read_fail(err, path, "os", strerror(errno));
	unsigned char buf[512];
	int n = gzread(f, buf, sizeof(buf));
	int gzerr;
	const char *gzmsg = gzerror(f, &gzerr);
	if (n < 0) {
		tk_error_push_from(err, "zlib", TK_EFORMAT, "%s", gzmsg);
		tk_error_push_from(err, "import", TK_EFORMAT, "'%s': byte 0: cannot decompress",
				   path);
		gzclose(f);
		return TK_EFORMAT;
	}
	gzclose(f);
	int i = 0;
	if (n >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < n && (buf[i] == '{' || buf[i] == '[')) {
		*out = TK_FORMAT_CHROME_JSON;
		return TK_OK;
	}
	/* XSpace fields: 1 planes, 2 errors, 3 warnings, 4 hostnames (all length-delimited) */
	if (n > 0 && (buf[0] == 0x0a || buf[0] == 0x12 || buf[0] == 0x1a || buf[0] == 0x22)) {
		*out = TK_FORMAT_XPLANE;
		return TK_OK;
	}
	return tk_error_push_from(
	    err, "import", TK_EFORMAT,
	    "'%s': byte 0: neither an XPlane (.xplane.pb) nor a Chrome/Kineto JSON trace%s", path,
	    n == 0 ? " (the file is empty)" : "");
}

int tk_import_input_id(const char *path, struct tk_input_id *id, tk_error *err)
{
	struct stat sb;
	memset(id, 0, sizeof(*id));
	tk_error_clear(err);
	if (stat(path, &sb) != 0)
		return read_fail(err, path, "os", strerror(errno));
	id->path = path;
	id->dev = (uint64_t)sb.st_dev;
	id->ino = (uint64_t)sb.st_ino;
	id->size = (int64_t)sb.st_size;
	return TK_OK;
}

#define ID_SPAN ((int64_t)1 << 20) /* bytes hashed at each end */

/* FNV-1a over 8-byte words, then the tail bytes. */
static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = tku_fnv1a64_word(h, w);
		h ^= h >> 29;
	}
	return tku_fnv1a64_step(h, p + i, n - i);
}

/* The hash of the first and last ID_SPAN bytes of @id's file (all of it when smaller). */
static void hash_ends(struct tk_input_id *id)
{
	unsigned char *buf =
	    malloc((size_t)(id->size > 0 && id->size < ID_SPAN ? id->size : ID_SPAN));
	FILE *f = buf ? fopen(id->path, "rb") : NULL;
	uint64_t h = TKU_FNV64_TK_OFFSET;
	int64_t at[2] = {0, id->size > 2 * ID_SPAN ? id->size - ID_SPAN : ID_SPAN};
	id->hashed = -1;
	if (!f)
		goto out;
	for (int k = 0; k < 2 && at[k] < id->size; k++) {
		size_t want = (size_t)(id->size - at[k] < ID_SPAN ? id->size - at[k] : ID_SPAN);
		if (fseeko(f, (off_t)at[k], SEEK_SET) != 0 || fread(buf, 1, want, f) != want)
			goto out;
		h = hash_bytes(h, buf, want);
	}
	id->hash = h;
	id->hashed = 1;
out:
	if (f)
		fclose(f);
	free(buf);
}

int tk_import_input_same(struct tk_input_id *a, struct tk_input_id *b, int content)
{
	if (a->dev == b->dev && a->ino == b->ino)
		return TK_INPUT_SAME_FILE;
	if (!content || a->size != b->size)
		return TK_INPUT_DIFFERENT;
	if (!a->hashed)
		hash_ends(a);
	if (!b->hashed)
		hash_ends(b);
	return a->hashed == 1 && b->hashed == 1 && a->hash == b->hash ? TK_INPUT_SAME_CONTENT
								      : TK_INPUT_DIFFERENT;
}
