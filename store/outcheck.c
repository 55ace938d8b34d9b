/*
 * tk_output_check (include/tracekit/output.h): the check every writing command runs before it
 * writes. It refuses an output that is one of the command's inputs (same device and inode,
 * through links) and an existing output that is not what the command writes, recognised by the
 * marks tracekit's own writers leave: a store's schema, an export's first bytes (and Chrome
 * JSON's closing metadata), a report's first line. docs/store.md states the rules.
 * Uses zlib (gzip Chrome JSON): not part of the capture library's copy of store/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/output.h>
#include <unistd.h>
#include <zlib.h>

#include "store_internal.h"

#define HEAD_BYTES 4096
#define TAIL_BYTES 4096
#define CHROME_HEAD "{\"traceEvents\":["
#define CHROME_MARK "\"exporter\":\"tracekit\""
#define GZ_MAX_OUT (64LL << 30) /* inflated bytes read at most to find Chrome JSON's end */

/* Read up to @n bytes from the start of @path into @buf; the count, or -1 (errno set). */
static ssize_t read_head(const char *path, void *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return (ssize_t)got;
}

static int starts(const char *buf, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(buf, prefix, k);
}

static int contains(const char *buf, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(buf + i, needle, k))
			return 1;
	return 0;
}

/* A tracekit store: SQLite's header, a schema version, and the store's tables with meta's
 * schema_version row. */
static int is_store(const char *path)
{
	unsigned char h[100];
	if (read_head(path, h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(h, "SQLite format 3", 16) != 0)
		return 0;
	uint32_t user_version =
	    (uint32_t)h[60] << 24 | (uint32_t)h[61] << 16 | (uint32_t)h[62] << 8 | (uint32_t)h[63];
	if (user_version == 0 || user_version > 1000000)
		return 0;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ok = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) ==
		SQLITE_OK &&
	    sqlite3_prepare_v2(
		db,
		"SELECT (SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
		"name IN ('meta', 'strings', 'events', 'tracks')) = 4 AND EXISTS "
		"(SELECT 1 FROM meta WHERE key = 'schema_version')",
		-1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ok = sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	sqlite3_close_v2(db);
	return ok;
}

/* A protobuf varint at *p (< end); 0 when malformed. */
static int varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 1;
	}
	return 0;
}

/* A Perfetto trace as tracekit writes it: the first TracePacket (Trace field 1) holds exactly
 * fields 10 (sequence id), 12 (interned data), 13 (sequence flags), 87 (first on sequence). */
static int is_perfetto(const char *path)
{
	unsigned char buf[HEAD_BYTES];
	ssize_t n = read_head(path, buf, sizeof(buf));
	const unsigned char *p = buf, *end = buf + (n > 0 ? n : 0);
	uint64_t len, tag, v;
	if (n < 2 || *p++ != 0x0a || !varint(&p, end, &len) || len > (uint64_t)(end - p))
		return 0;
	static const uint64_t want[] = {(10 << 3) | 0, (12 << 3) | 2, (13 << 3) | 0, (87 << 3) | 0};
	end = p + len;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!varint(&p, end, &tag) || tag != want[i] || !varint(&p, end, &v))
			return 0;
		if ((tag & 7) == 2) {
			if (v > (uint64_t)(end - p))
				return 0;
			p += v;
		}
	}
	return p == end;
}

/* Plain Chrome JSON: CHROME_HEAD first, CHROME_MARK in the last TAIL_BYTES. */
static int is_chrome_plain(const char *path, const char *head, size_t n)
{
	if (!starts(head, n, CHROME_HEAD))
		return 0;
	char tail[TAIL_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	off_t size = lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof(tail) ? size - (off_t)sizeof(tail) : 0;
	ssize_t got = size > 0 ? pread(fd, tail, (size_t)(size - from), from) : 0;
	close(fd);
	return got > 0 && contains(tail, (size_t)got, CHROME_MARK);
}

/* Gzip Chrome JSON: the same marks in the inflated stream (read once, the last TAIL_BYTES
 * kept; bounded by GZ_MAX_OUT). */
static int is_chrome_gzip(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	char *win = malloc(2 * TAIL_BYTES);
	size_t have = 0, hl = strlen(CHROME_HEAD);
	long long total = 0;
	int ok = gz && win, r = 0, errnum = Z_OK;
	if (ok) {
		r = gzread(gz, win, (unsigned)hl);
		ok = r == (int)hl && !memcmp(win, CHROME_HEAD, hl);
		have = hl;
		total = (long long)hl;
	}
	while (ok && (r = gzread(gz, win + have, (unsigned)(2 * TAIL_BYTES - have))) > 0) {
		have += (size_t)r;
		total += r;
		if (have == 2 * TAIL_BYTES) { /* keep the last half */
			memmove(win, win + TAIL_BYTES, TAIL_BYTES);
			have = TAIL_BYTES;
		}
		if (total > GZ_MAX_OUT)
			ok = 0;
	}
	if (ok) {
		gzerror(gz, &errnum);
		ok = r == 0 && errnum == Z_OK && contains(win, have, CHROME_MARK);
	}
	if (gz)
		gzclose(gz);
	free(win);
	return ok;
}

/* A report or diff of @kind, by the first line the writers in report/ emit. */
static int is_report(enum tk_output_kind kind, const char *h, size_t n)
{
	switch (kind) {
	case TK_OUTPUT_REPORT_TEXT:
		if (starts(h, n, "\033[1m")) /* a coloured one saved from a terminal */
			h += 4, n -= 4;
		return starts(h, n, "tracekit report: ") || starts(h, n, "tracekit diff\n");
	case TK_OUTPUT_REPORT_HTML:
		return starts(h, n, "<!DOCTYPE html>\n") &&
		       (contains(h, n < 512 ? n : 512, "<title>tracekit report: ") ||
			contains(h, n < 512 ? n : 512, "<title>tracekit diff: "));
	case TK_OUTPUT_REPORT_JSON:
		return starts(h, n, "{\n  \"report\": \"report\",") ||
		       starts(h, n, "{\n  \"report\": \"diff\",");
	case TK_OUTPUT_REPORT_MD:
		return starts(h, n, "# tracekit report: ") || starts(h, n, "# tracekit diff\n");
	case TK_OUTPUT_BASELINE:
		return starts(h, n, "{\n  \"format\": \"tracekit-baseline\",");
	case TK_OUTPUT_CHECK_TEXT:
		return starts(h, n, "tracekit check: ");
	case TK_OUTPUT_CHECK_JSON:
		return starts(h, n, "{\n  \"format\": \"tracekit-check\",");
	case TK_OUTPUT_CHECK_MD:
		return starts(h, n, "# tracekit check\n");
	case TK_OUTPUT_CHECK_JUNIT:
		return starts(h, n,
			      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
			      "name=\"tracekit check\"");
	default:
		return 0;
	}
}

/* An empty directory, or a TensorBoard logdir (plugins/profile, or an events file). */
static int is_logdir(const char *path)
{
	char sub[4200];
	struct stat st;
	snprintf(sub, sizeof(sub), "%s/plugins/profile", path);
	if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
		return 1;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int ok = 1;
	struct dirent *e;
	while (ok && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ok = strstr(e->d_name, "tfevents") != NULL;
	closedir(d);
	return ok;
}

static const char *kind_text(enum tk_output_kind kind)
{
	switch (kind) {
	case TK_OUTPUT_STORE:
		return "a tracekit store";
	case TK_OUTPUT_XPLANE_LOGDIR:
		return "an empty directory or a TensorBoard logdir (plugins/profile)";
	case TK_OUTPUT_PERFETTO:
		return "a Perfetto trace written by tracekit";
	case TK_OUTPUT_CHROME_JSON:
		return "a Chrome JSON trace written by tracekit";
	case TK_OUTPUT_REPORT_TEXT:
		return "a tracekit text report";
	case TK_OUTPUT_REPORT_HTML:
		return "a tracekit HTML report";
	case TK_OUTPUT_REPORT_JSON:
		return "a tracekit JSON report";
	case TK_OUTPUT_REPORT_MD:
		return "a tracekit Markdown report";
	case TK_OUTPUT_BASELINE:
		return "a tracekit baseline";
	case TK_OUTPUT_CHECK_TEXT:
		return "a tracekit check result (text)";
	case TK_OUTPUT_CHECK_JSON:
		return "a tracekit check result (JSON)";
	case TK_OUTPUT_CHECK_MD:
		return "a tracekit check result (Markdown)";
	case TK_OUTPUT_CHECK_JUNIT:
		return "a JUnit file written by tracekit check";
	}
	return "what this command writes";
}

/* Whether the existing @path (stat @st) is what @kind writes. */
static int is_kind(const char *path, const struct stat *st, enum tk_output_kind kind)
{
	if (kind == TK_OUTPUT_XPLANE_LOGDIR)
		return S_ISDIR(st->st_mode) && is_logdir(path);
	if (!S_ISREG(st->st_mode))
		return 0;
	if (st->st_size == 0)
		return 1;
	if (kind == TK_OUTPUT_STORE)
		return is_store(path);
	if (kind == TK_OUTPUT_PERFETTO)
		return is_perfetto(path);
	char head[HEAD_BYTES];
	ssize_t n = read_head(path, head, sizeof(head));
	if (n <= 0)
		return 0;
	if (kind == TK_OUTPUT_CHROME_JSON)
		return n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b
			   ? is_chrome_gzip(path)
			   : is_chrome_plain(path, head, (size_t)n);
	return is_report(kind, head, (size_t)n);
}

/* " (a link to 'TARGET')" when @path is a symbolic link, else "". */
static void link_note(const char *path, char *buf, size_t n)
{
	char target[4096];
	ssize_t k = readlink(path, target, sizeof(target) - 1);
	buf[0] = 0;
	if (k > 0) {
		target[k] = 0;
		snprintf(buf, n, " (a link to '%s')", target);
	}
}

int tk_output_check(const char *output, const char *const *inputs, size_t ninputs,
		    enum tk_output_kind kind, tk_error *err)
{
	struct stat out, in;
	char note[4200];
	tk_error_clear(err);
	if (!output || !*output || (ninputs && !inputs))
		return tk_error_push_from(err, "store", TK_EINVAL, "no output path");
	if (stat(output, &out) != 0) {
		if (errno == ENOENT) /* nothing there (or a dangling link, which is replaced) */
			return TK_OK;
		tk_error_push_from(err, "os", TK_EIO, "%s", strerror(errno));
		return tk_error_push_from(err, "store", TK_EIO, "cannot check the output '%s'",
					  output);
	}
	link_note(output, note, sizeof(note));
	for (size_t i = 0; i < ninputs; i++) {
		if (!inputs[i] || stat(inputs[i], &in) != 0)
			continue;
		if (in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
			return tk_error_push_from(
			    err, "store", TK_EINVAL,
			    "refusing to write '%s'%s: it is the same file as the input '%s'",
			    output, note, inputs[i]);
		}
	}
	if (!is_kind(output, &out, kind)) {
		return tk_error_push_from(
		    err, "store", TK_EINVAL,
		    "refusing to replace '%s'%s: it exists and is not %s (remove "
		    "it or choose another output)",
		    output, note, kind_text(kind));
	}
	return TK_OK;
}
