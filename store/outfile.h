/*
 * Temporary files beside an output (store/outfile.c), shared by the store writer, the exporters
 * and tk_output: "<target>.tmp-tk<pid>-XXXXXX", locked (flock) by the process that writes it for
 * as long as it exists, fsynced and renamed onto the target; temporaries nobody holds any more
 * are removed by the next write into the same directory. Not part of the public API.
 */
#ifndef TK_STORE_OUTFILE_H
#define TK_STORE_OUTFILE_H

/* Seconds after its last change that an old-style temporary ("<target>.tmp-XXXXXX", written by
 * tracekit versions that did not lock) counts as abandoned when nobody holds a lock on it. */
#define TKO_OLD_TEMP_AGE_S 3600

/*
 * Remove the stale temporaries in @path's directory: every "<name>.tmp-tk<pid>-XXXXXX" regular
 * file whose lock can be taken (its writer is gone), and old-style "<base of path>.tmp-XXXXXX"
 * ones unlocked and unchanged for TKO_OLD_TEMP_AGE_S. Never follows links; best effort.
 */
void tko_sweep(const char *path);

/*
 * Sweep, then create and lock a new temporary file beside @path, mode 0666 & ~umask (what
 * the finished file gets). On success *@tmp (malloc'd)
 * is its path and *@fd its descriptor (close-on-exec; keep it open until the file is renamed
 * or removed: it holds the lock). Returns 0 or an errno value.
 */
int tko_tmp_create(const char *path, char **tmp, int *fd);

/* fsync @fd, rename @tmp onto @path, fsync the directory (best effort). 0 or an errno value. */
int tko_tmp_commit(int fd, const char *tmp, const char *path);

#endif
