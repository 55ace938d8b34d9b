/*
 * XPlane importer: one .xplane.pb file (the XSpace of one host) into a store writer. The file is
 * mapped and walked with the bounded reader of xplane_wire.c; memory holds one plane's metadata
 * at a time, never the events. Passes: the XSpace once for the Task Environment plane (the clock),
 * errors, warnings and host names; then each plane, device planes first (xplane_plane.c). See
 * docs/formats.md (XPlane section).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <unistd.h>

#include "xplane_internal.h"
#include "util/vec.h"

static int nomem(struct xp_imp *im)
{
	tk_writer_fail(im->src.w, TK_ENOMEM, "out of memory");
	return -1;
}

static int name_is(const uint8_t *n, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(n, s, len);
}

/* Append "s" (len bytes) to a newline-separated list in *buf (of *cap bytes). */
static int append_line(char **buf, size_t *n, size_t *cap, const uint8_t *s, size_t len)
{
	if (tku_grow(buf, cap, *n + len + 2, 1, 256) != TK_OK)
		return -1;
	char *p = *buf;
	if (*n)
		p[(*n)++] = '\n';
	memcpy(p + *n, s, len);
	*n += len;
	p[*n] = 0;
	return 0;
}

/* Pass 0 over the XSpace: the clock (Task Environment), errors, warnings, host names. */
static int space_header(struct xp_imp *im, const uint8_t *data, size_t len)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	char *lists[3] = {NULL, NULL, NULL};
	size_t lens[3] = {0, 0, 0}, caps[3] = {0, 0, 0};
	static const char *const keys[3] = {"xplane.errors", "xplane.warnings", "xplane.hostnames"};
	int r, rc = -1;
	while ((r = xp_next(&im->src, &c, &f, "XSpace")) > 0) {
		if (f.num > 4)
			continue;
		if (xp_want(&im->src, &f, XP_LEN, "XSpace"))
			goto out;
		if (f.num >= 2) {
			if (append_line(&lists[f.num - 2], &lens[f.num - 2], &caps[f.num - 2],
					f.data, f.len) < 0) {
				nomem(im);
				goto out;
			}
			continue;
		}
		/* A plane: is it the Task Environment? Its name is a field of the plane. */
		struct xp_cur pc = {f.data, f.data + f.len};
		struct xp_field pf;
		int is_env = 0;
		while ((r = xp_next(&im->src, &pc, &pf, "XPlane")) > 0)
			if (pf.num == 2 && pf.wt == XP_LEN &&
			    name_is(pf.data, pf.len, "Task Environment"))
				is_env = 1;
		if (r < 0)
			goto out;
		if (is_env && xp_task_env(im, f.data, f.len) < 0)
			goto out;
	}
	if (r < 0)
		goto out;
	for (int i = 0; i < 3; i++) {
		if (!lists[i])
			continue;
		if (tk_writer_set_meta_text(im->src.w, keys[i], lists[i]) != TK_OK)
			goto out;
		if (i < 2 && im->o->warn) {
			char msg[1024];
			snprintf(msg, sizeof(msg), "'%s': the profiler recorded %s: %.900s",
				 im->src.path, i ? "warnings" : "errors", lists[i]);
			im->o->warn(im->o->warn_ctx, msg);
		}
	}
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		free(lists[i]);
	return rc;
}

/* 1 when the plane (already checked by space_header) is named /device:... */
static int is_device_plane(const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	/* The name is field 2 (tag 0x12) near the start: id (field 1) may precede it. */
	if (p < end && *p == 0x08) {
		for (p++; p < end && (*p & 0x80); p++)
			;
		p++;
	}
	if (p + 2 > end || p[0] != 0x12 || p[1] >= 0x80)
		return 0;
	return p[1] >= 8 && p + 2 + 8 <= end && !memcmp(p + 2, "/device:", 8);
}

/* The host name of a file: its name without the directory and ".xplane.pb". */
static char *host_of(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	const char *ext = ".xplane.pb";
	if (n > strlen(ext) && !strcmp(b + n - strlen(ext), ext))
		n -= strlen(ext);
	char *h = malloc(n + 1);
	if (h) {
		memcpy(h, b, n);
		h[n] = 0;
	}
	return h;
}

int tk_import_xplane(tk_writer *w, const char *path, const struct tk_import_options *o)
{
	struct tk_import_options defaults;
	struct xp_imp im;
	struct stat sb;
	void *map = MAP_FAILED;
	int fd = -1, rc = tk_writer_status(w);
	if (rc != TK_OK)
		return rc;
	if (!o) {
		tk_import_options_init(&defaults);
		o = &defaults;
	}
	memset(&im, 0, sizeof(im));
	im.o = o;
	im.src.w = w;
	im.src.path = path;
	im.process_id = TK_NONE;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) != 0) {
		rc = tk_writer_fail_cause(w, TK_EIO, "os", strerror(errno), "cannot read '%s'",
					  path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
		rc = tk_writer_fail(w, TK_EFORMAT,
				    "'%s': byte 0: expected an XSpace message, found %s", path,
				    S_ISREG(sb.st_mode) ? "an empty file" : "no regular file");
		goto out;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		rc =
		    tk_writer_fail_cause(w, TK_EIO, "os", strerror(errno), "cannot map '%s'", path);
		goto out;
	}
	madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
	const uint8_t *data = map;
	size_t len = (size_t)sb.st_size;
	im.src.base = data;
	im.released = data;
	if (!(im.host = host_of(path))) {
		rc = tk_writer_fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	if (space_header(&im, data, len) < 0)
		goto fail;
	if (xp_procs_add(&im) < 0 || tk_writer_set_meta_text(w, "source", "xplane") != TK_OK ||
	    tk_writer_set_meta_text(w, "clock", im.start_ns ? "unix_epoch" : "relative") != TK_OK)
		goto fail;
	/* Device planes first, so that memory events on the host can name their device. */
	for (int devices = 1; devices >= 0; devices--) {
		struct xp_cur c = {data, data + len};
		struct xp_field f;
		int r;
		while ((r = xp_next(&im.src, &c, &f, "XSpace")) > 0)
			if (f.num == 1 && is_device_plane(f.data, f.len) == devices &&
			    xp_plane(&im, f.data, f.len) < 0)
				goto fail;
		if (r < 0)
			goto fail;
	}
	/* What was read, for checks against other decoders: meta xplane.<host>.planes/lines/events. */
	static const char *const what[3] = {"planes", "lines", "events"};
	int64_t counts[3] = {im.nplanes, im.nlines, im.nxevents};
	for (int i = 0; i < 3; i++) {
		char key[300];
		snprintf(key, sizeof(key), "xplane.%s.%s", im.host, what[i]);
		if (tk_writer_set_meta_int(w, key, counts[i]) != TK_OK)
			goto fail;
	}
	rc = TK_OK;
	goto out;
fail:
	rc = tk_writer_status(w);
	if (rc == TK_OK) /* a failure that did not reach the writer */
		rc = tk_writer_fail(w, TK_EINTERNAL, "'%s': import failed", path);
out:
	xp_plane_reset(&im);
	xp_text_reset(&im);
	free(im.emd);
	free(im.smd);
	free(im.st);
	free(im.text);
	free(im.gz);
	free(im.kd_cache);
	free(im.host);
	free(im.tk_host);
	free(im.tk_procs);
	xp_map_free(&im.proc_by_key);
	xp_map_free(&im.line_proc);
	xp_map_free(&im.line_track);
	xp_map_free(&im.track_by_key);
	xp_map_free(&im.em_index);
	xp_map_free(&im.sm_index);
	xp_map_free(&im.dev_by_ordinal);
	xp_corr_free(&im.corr);
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	return rc;
}
