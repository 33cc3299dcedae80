// SPDX-License-Identifier: MIT
/*
 * The result files of run, stats, compare and bench (--json FILE, --csv
 * FILE).  A path is opened for writing before any work starts, so that a
 * missing directory, a directory, or a file that may not be written is
 * refused at once; but an existing file keeps its contents until the
 * results are written out whole.  Once they are ready (start()), a regular
 * file is written to a temporary file beside it (mkstemp on "PATH.XXXXXX",
 * the file's mode) that close() renames over it; a symbolic link is
 * followed, so the file it names is replaced, not the link.  A file is
 * written in place, truncated by start(), where renaming would change
 * more than its contents -- another owner's file, a file with other hard
 * links -- or cannot be done: a directory we may not write, a FIFO, a
 * device.  A name for the file stdout or stderr already writes
 * (/dev/stdout, /dev/fd/1) writes through that stream.  A command that
 * fails therefore leaves the user's file as it was, and removes only a
 * file it created.
 */
#include "io/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_identity(struct mpm_output *o, const struct stat *st)
{
	o->dev = st->st_dev;
	o->ino = st->st_ino;
	o->regular = S_ISREG(st->st_mode);
}

/* Does @f write through stdout or stderr (flushed, never closed or renamed)? */
static bool std_stream(const FILE *f)
{
	return f == stdout || f == stderr;
}

/* stdout or stderr if @st is the file that stream writes, else NULL. */
static FILE *std_stream_of(const struct stat *st)
{
	static const int fds[2] = { STDOUT_FILENO, STDERR_FILENO };
	struct stat s;

	for (int i = 0; i < 2; i++)
		if (!fstat(fds[i], &s) && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			return i ? stderr : stdout;
	return NULL;
}

int mpm_output_open(struct mpm_output *o, const char *path, const char *what, char *err,
		    size_t len)
{
	struct stat st;
	FILE *std;
	int fd, e;

	*o = (struct mpm_output){ .path = path, .what = what };
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		if (!fstat(STDOUT_FILENO, &st))
			set_identity(o, &st);
		return 0;
	}
	/* no O_TRUNC: an existing file keeps its contents until the results are in */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		o->created = fd >= 0;
	}
	if (fd >= 0 && !fstat(fd, &st)) {
		set_identity(o, &st);
		if (!o->created && (std = std_stream_of(&st))) {
			close(fd);
			o->f = std;
			return 0;
		}
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		errno = e;
	}
	if (!o->f) {
		e = errno;
		if (o->created)
			unlink(path);
		o->created = false;
		snprintf(err, len, "cannot write %s file '%s': %s", what, path, strerror(e));
		return -1;
	}
	return 0;
}

/*
 * Swap @o's file for a temporary file beside it, if it is a regular file
 * that a rename would replace with nothing but new contents.  Returns
 * whether it did; if not, the file is written in place.
 */
static bool open_temporary(struct mpm_output *o, const struct stat *st)
{
	static const char suffix[] = ".XXXXXX";
	size_t len;
	FILE *f;
	int fd;

	if (!S_ISREG(st->st_mode) || st->st_uid != geteuid() || st->st_nlink != 1)
		return false;
	o->target = realpath(o->path, NULL);
	if (!o->target)
		return false;
	len = strlen(o->target);
	o->tmp = malloc(len + sizeof(suffix));
	if (!o->tmp)
		goto fail;
	memcpy(o->tmp, o->target, len);
	memcpy(o->tmp + len, suffix, sizeof(suffix));
	fd = mkstemp(o->tmp);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, st->st_mode & 07777) || !(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->tmp);
		goto fail;
	}
	fclose(o->f);		/* the file itself: nothing was written to it */
	o->f = f;
	return true;
fail:
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return false;
}

int mpm_output_start(struct mpm_output *o, char *err, size_t len)
{
	struct stat st;

	if (!o->f || std_stream(o->f))
		return 0;
	if (fstat(fileno(o->f), &st))
		goto fail;
	if (open_temporary(o, &st))
		return 0;
	/* in place; a FIFO or a device has nothing to truncate */
	if (S_ISREG(st.st_mode) && ftruncate(fileno(o->f), 0))
		goto fail;
	return 0;
fail:
	snprintf(err, len, "cannot write %s file '%s': %s", o->what, o->path, strerror(errno));
	return -1;
}

int mpm_output_close(struct mpm_output *o, bool failed)
{
	int r = 0, e;

	if (!o->f)
		return 0;
	if (std_stream(o->f))
		r = fflush(o->f) ? -1 : 0;
	else if (fclose(o->f))
		r = -1;
	o->f = NULL;
	if (o->tmp) {
		/* the whole result, or the old file untouched */
		if (!failed && !r && rename(o->tmp, o->target))
			r = -1;
		e = errno;
		if (failed || r)
			unlink(o->tmp);
		free(o->tmp);
		free(o->target);
		o->tmp = o->target = NULL;
		errno = e;
	}
	if ((failed || r) && o->created) {
		e = errno;
		unlink(o->path);
		errno = e;
	}
	return r;
}

/* Two devices (/dev/null twice) may take both; one file or stdout may not. */
bool mpm_output_same(const struct mpm_output *a, const struct mpm_output *b)
{
	if (!a->f || !b->f)
		return false;
	if (a->f == b->f && std_stream(a->f))
		return true;
	return a->regular && b->regular && a->dev == b->dev && a->ino == b->ino;
}
