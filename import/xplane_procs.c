/*
 * XPlane importer: the processes and hosts that tracekit's XPlane export records where XPlane
 * has no field (docs/export.md, "Processes and hosts"): the Task Environment's tracekit_host and
 * tracekit_processes (a row "key<TAB>pid<TAB>rank<TAB>name" per process, name escaped \\ \t \n),
 * the /host:CPU plane's tracekit_line_processes ("line_id process_key track_key" rows: a thread's
 * ops line and its /NVTX line come back as one track of its process). A file without them (any
 * XProf profile) gets one process named after its host, as before.
 */
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "xplane_internal.h"

const char *xp_host_name(const struct xp_imp *im)
{
	if (!im->tk_host)
		return im->host;
	return im->tk_host[0] ? im->tk_host : NULL;
}

int64_t xp_proc_of(const struct xp_imp *im, int64_t key)
{
	int64_t id;
	return xp_map_get(&im->proc_by_key, key, &id) ? id : TK_NONE;
}

/* An integer field ending at @end (tab, space or newline): 1 read, 0 empty, -1 malformed. */
static int field_int(const char **p, char end, int64_t *v)
{
	char *e;
	if (**p == end) {
		(*p)++;
		return 0;
	}
	long long x = strtoll(*p, &e, 10);
	if (e == *p || *e != end)
		return -1;
	*v = x;
	*p = e + 1;
	return 1;
}

/* Unescape the name field at @p (up to newline or NUL) into @out (@n bytes); past it. */
static const char *field_name(const char *p, char *out, size_t n)
{
	size_t k = 0;
	for (; *p && *p != '\n'; p++) {
		char c = *p;
		if (c == '\\' && p[1]) {
			p++;
			c = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
		}
		if (k + 1 < n)
			out[k++] = c;
	}
	out[k] = 0;
	return *p ? p + 1 : p;
}

int xp_procs_add(struct xp_imp *im)
{
	const struct tk_import_options *o = im->o;
	const char *host = xp_host_name(im);
	if (tk_writer_add_source(im->src.w, "xplane", im->src.path, host, o->rank) != TK_OK)
		return -1;
	if (!im->tk_procs) {
		struct tk_process_info p = {TK_NONE, im->host, im->host, o->rank};
		return tk_writer_add_process(im->src.w, &p, &im->process_id) == TK_OK ? 0 : -1;
	}
	im->process_id = TK_NONE; /* lines and planes of no recorded process have none */
	char name[512];
	for (const char *p = im->tk_procs; *p;) {
		int64_t key = 0, pid = TK_NONE, rank = TK_NONE, id;
		int ok = field_int(&p, '\t', &key) == 1 && field_int(&p, '\t', &pid) >= 0 &&
			 field_int(&p, '\t', &rank) >= 0;
		if (!ok) /* not a row this version wrote: skip it */
			p += strcspn(p, "\n"), p += *p == '\n';
		else
			p = field_name(p, name, sizeof(name));
		if (!ok)
			continue;
		if (rank == TK_NONE)
			rank = o->rank;
		struct tk_process_info pi = {pid, name, host, rank};
		if (tk_writer_add_process(im->src.w, &pi, &id) != TK_OK)
			return -1;
		if (xp_map_put(&im->proc_by_key, key, id) != TK_OK) {
			tk_writer_fail(im->src.w, TK_ENOMEM, "out of memory");
			return -1;
		}
	}
	return 0;
}

int xp_line_procs(struct xp_imp *im, const char *text)
{
	for (const char *p = text; *p;) {
		int64_t line = 0, key = 0, track = 0;
		if (field_int(&p, ' ', &line) == 1 && field_int(&p, ' ', &key) == 1 &&
		    field_int(&p, '\n', &track) == 1) {
			int64_t id = xp_proc_of(im, key);
			if ((id != TK_NONE && xp_map_put(&im->line_proc, line, id) != TK_OK) ||
			    xp_map_put(&im->line_track, line, track) != TK_OK) {
				tk_writer_fail(im->src.w, TK_ENOMEM, "out of memory");
				return -1;
			}
		} else {
			p += strcspn(p, "\n");
			p += *p == '\n';
		}
	}
	return 0;
}
