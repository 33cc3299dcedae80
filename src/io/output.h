/* SPDX-License-Identifier: MIT */
/*
 * A --json or --csv result file (output.c).  open() before the work checks
 * that @path can be written (NULL: none asked for; "-": stdout) without
 * touching an existing file's contents.  start(), once the results are
 * ready, points @f at a temporary file beside a regular file, which close()
 * renames over it once every byte is out, so that a failure at any point
 * leaves the old file whole -- or truncates the few files written in place
 * (see output.c).  close() removes the file after a failure if open()
 * created it.  open() and start() return 0, or -1 with a one-line reason in
 * @err; close() 0, or -1 if the file could not be written out.  same()
 * tells whether two outputs would write one regular file, or one of
 * stdout and stderr.
 */
#ifndef MPM_IO_OUTPUT_H
#define MPM_IO_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct mpm_output {
	const char *path;
	const char *what;	/* "JSON", "CSV": for messages */
	FILE *f;
	bool created;		/* ours to remove if the command fails */
	char *target;		/* with a temporary file: the file it replaces */
	char *tmp;		/* the temporary file @f writes, or NULL: in place */
	dev_t dev;		/* the file's identity, for same() */
	ino_t ino;
	bool regular;		/* ... is a regular file's */
};

int mpm_output_open(struct mpm_output *o, const char *path, const char *what, char *err,
		    size_t len);
int mpm_output_start(struct mpm_output *o, char *err, size_t len);
int mpm_output_close(struct mpm_output *o, bool failed);
bool mpm_output_same(const struct mpm_output *a, const struct mpm_output *b);

#endif /* MPM_IO_OUTPUT_H */
