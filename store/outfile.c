/*
 * Temporary files beside an output, and their replacement of it (outfile.h): every file tracekit
 * writes (stores, exports, reports) is first "<target>.tmp-tk<pid>-XXXXXX" in the target's
 * directory, held under an flock by its writer for as long as it exists, then fsynced and
 * renamed onto the target. A temporary whose lock can be taken has no writer any more (killed,
 * crashed): the next write into that directory removes it. Also the public tk_output_* stream
 * (include/tracekit/output.h) built on these.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <tracekit/error.h>
#include <tracekit/output.h>
#include <unistd.h>

#include "outfile.h"

/* @path split into a malloc'd directory (*dir) and a pointer to its last component (*base). */
static char *split_path(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	if (!slash)
		return strdup(".");
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *dir = malloc(n + 1);
	if (dir) {
		memcpy(dir, path, n);
		dir[n] = 0;
	}
	return dir;
}

static int all_alnum(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

enum { NOT_TEMP, NEW_TEMP, OLD_TEMP };

/*
 * What @name is: a temporary of this version ("X.tmp-tk<pid>-XXXXXX", any X: *pid set; "tk" keeps the
 * names of other programs' files out), an
 * old-style one of the target @base ("<base>.tmp-XXXXXX"), or neither.
 */
static int temp_kind(const char *name, const char *base, long *pid)
{
	const char *tag = NULL;
	for (const char *p = strstr(name, ".tmp-"); p; p = strstr(p + 1, ".tmp-"))
		tag = p;
	if (!tag || tag == name)
		return NOT_TEMP;
	const char *s = tag + 5, *d = s + (s[0] == 't' && s[1] == 'k' ? 2 : 0);
	const char *digits = d;
	long v = 0;
	while (*d >= '0' && *d <= '9' && d - digits < 10)
		v = v * 10 + (*d++ - '0');
	if (digits > s && d > digits && *d == '-' && strlen(d + 1) == 6 && all_alnum(d + 1, 6) &&
	    v > 0) {
		*pid = v;
		return NEW_TEMP;
	}
	size_t blen = strlen(base);
	if ((size_t)(tag - name) == blen && !strncmp(name, base, blen) && strlen(s) == 6 &&
	    all_alnum(s, 6))
		return OLD_TEMP;
	return NOT_TEMP;
}

static int no_locks_here(int e)
{
	return e == EOPNOTSUPP || e == ENOLCK || e == EINVAL || e == ENOSYS;
}

/* Remove @name (in directory @dfd) when it is a regular file nobody holds. */
static void remove_if_stale(int dfd, const char *name, int kind, long pid)
{
	struct stat st, fs;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &fs) != 0 || fs.st_ino != st.st_ino || fs.st_dev != st.st_dev)
		goto out;
	int locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
	int nolocks = !locked && no_locks_here(errno);
	int stale;
	if (kind == NEW_TEMP) /* the lock decides; the pid only where the file system has none */
		stale = locked || (nolocks && kill((pid_t)pid, 0) != 0 && errno == ESRCH);
	else
		stale = (locked || nolocks) && time(NULL) - st.st_mtime > TKO_OLD_TEMP_AGE_S;
	/* still the same file under that name (held locked while we look) */
	if (stale && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ino == fs.st_ino &&
	    st.st_dev == fs.st_dev)
		unlinkat(dfd, name, 0);
out:
	close(fd);
}

void tko_sweep(const char *path)
{
	const char *base;
	char *dir = split_path(path, &base);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	long pid = 0;
	while (d && (e = readdir(d))) {
		int kind = temp_kind(e->d_name, base, &pid);
		if (kind != NOT_TEMP)
			remove_if_stale(dirfd(d), e->d_name, kind, pid);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Lock the new temporary @fd and check that @tmp still names it (a sweep may have removed it
 * between its creation and the lock: EAGAIN, try another name). 0 or an errno value. */
static int lock_own(int fd, const char *tmp)
{
	int r;
	while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
		;
	if (r != 0 && !no_locks_here(errno))
		return errno;
	struct stat a, b;
	if (fstat(fd, &a) != 0)
		return errno;
	if (lstat(tmp, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return EAGAIN;
	return 0;
}

int tko_tmp_create(const char *path, char **tmp, int *fd)
{
	*tmp = NULL;
	*fd = -1;
	size_t n = strlen(path) + 32;
	char *t = malloc(n);
	if (!t)
		return ENOMEM;
	tko_sweep(path);
	mode_t mask = umask(0);
	umask(mask);
	int err = EAGAIN;
	for (int attempt = 0; attempt < 16 && err == EAGAIN; attempt++) {
		snprintf(t, n, "%s.tmp-tk%ld-XXXXXX", path, (long)getpid());
		int f = mkstemp(t);
		if (f < 0) {
			err = errno;
			break;
		}
		/* mkstemp makes the file 0600; a finished file gets the usual 0666 & ~umask */
		if (fcntl(f, F_SETFD, FD_CLOEXEC) != 0 || fchmod(f, 0666 & ~mask) != 0 ||
		    (err = lock_own(f, t)) != 0) {
			if (!err)
				err = errno;
			if (err != EAGAIN) /* EAGAIN: the name is no longer ours */
				unlink(t);
			close(f);
			continue;
		}
		*fd = f;
		*tmp = t;
		return 0;
	}
	free(t);
	return err;
}

int tko_tmp_commit(int fd, const char *tmp, const char *path)
{
	if (fsync(fd) != 0 || rename(tmp, path) != 0)
		return errno;
	const char *base;
	char *dir = split_path(path, &base);
	int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) { /* best effort: some file systems refuse to sync a directory */
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

/* ---- tk_output: a stdio stream on a temporary file ---- */

struct tk_output {
	FILE *fp;
	int fd; /* until fp owns it */
	char *path, *tmp;
	tk_error *err; /* the last failure (tk_output_error()) */
};

static int out_fail(tk_output *o, int e, const char *what)
{
	int status = e == ENOMEM ? TK_ENOMEM : TK_EIO;
	tk_error_clear(o->err);
	tk_error_push_from(o->err, "os", status, "%s", strerror(e));
	return tk_error_push_from(o->err, "store", status, "cannot %s '%s'", what,
				  o->path ? o->path : "");
}

int tk_output_open(const char *path, tk_output **out)
{
	if (!out)
		return TK_EINVAL;
	tk_output *o = calloc(1, sizeof(*o));
	if (o && !(o->err = tk_error_new())) {
		free(o);
		o = NULL;
	}
	*out = o;
	if (!o)
		return TK_ENOMEM;
	o->fd = -1;
	if (!path || !*path)
		return out_fail(o, EINVAL, "write");
	if (!(o->path = strdup(path)))
		return out_fail(o, ENOMEM, "write");
	int e = tko_tmp_create(path, &o->tmp, &o->fd);
	if (e)
		return out_fail(o, e, "write");
	if (!(o->fp = fdopen(o->fd, "w")))
		return out_fail(o, errno, "write");
	o->fd = -1;
	return TK_OK;
}

FILE *tk_output_stream(tk_output *o)
{
	return o ? o->fp : NULL;
}

const char *tk_output_temp_path(const tk_output *o)
{
	return o && o->tmp ? o->tmp : "";
}

tk_error *tk_output_error(tk_output *o)
{
	return o ? o->err : NULL;
}

const char *tk_output_errmsg(const tk_output *o)
{
	return o ? tk_error_message(o->err) : "";
}

int tk_output_commit(tk_output *o)
{
	if (!o || !o->fp || !o->tmp || !o->tmp[0])
		return TK_EINVAL;
	int e = 0;
	errno = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp))
		e = errno ? errno : EIO;
	else
		e = tko_tmp_commit(fileno(o->fp), o->tmp, o->path);
	if (e) {
		unlink(o->tmp);
		o->tmp[0] = 0;
		return out_fail(o, e, "write");
	}
	o->tmp[0] = 0; /* renamed: nothing to remove */
	return TK_OK;
}

void tk_output_close(tk_output *o)
{
	if (!o)
		return;
	if (o->tmp && o->tmp[0]) /* removed while still locked, then closed */
		unlink(o->tmp);
	if (o->fp)
		fclose(o->fp);
	else if (o->fd >= 0)
		close(o->fd);
	free(o->tmp);
	free(o->path);
	tk_error_free(o->err);
	free(o);
}
