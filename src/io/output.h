/* SPDX-License-Identifier: MIT */
/*
 * A --json or --csv result file (output.c).  open() before the work checks
 * that @path can be written (NULL: none asked for; "-": stdout) without
 * truncating an existing file; start() truncates it once the results are
 * ready; close() removes it after a failure if open() created it.  open()
 * and start() return 0, or -1 with a one-line reason in @err; close() 0,
 * or -1 if the file could not be closed (flushed).
 */
#ifndef MPM_IO_OUTPUT_H
#define MPM_IO_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mpm_output {
	const char *path;
	const char *what;	/* "JSON", "CSV": for messages */
	FILE *f;
	bool created;		/* ours to remove if the command fails */
};

int mpm_output_open(struct mpm_output *o, const char *path, const char *what, char *err,
		    size_t len);
int mpm_output_start(struct mpm_output *o, char *err, size_t len);
int mpm_output_close(struct mpm_output *o, bool failed);

#endif /* MPM_IO_OUTPUT_H */
