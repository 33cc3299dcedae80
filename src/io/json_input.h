/* SPDX-License-Identifier: MIT */
/*
 * Reading a JSON input file (a machine file, a memspec) without hanging on
 * a FIFO that no one writes: json_load_file() opens it blocking, and
 * open(2) of a FIFO waits for a writer.
 */
#ifndef MPM_IO_JSON_INPUT_H
#define MPM_IO_JSON_INPUT_H

#include <jansson.h>

/*
 * json_load_file(@path, JSON_REJECT_DUPLICATES, @jerr), but opened without
 * blocking: a FIFO with no writer reads as an empty file, one with a
 * writer (a shell's <(...)) is read as usual.  On failure @jerr says why;
 * its line is -1 when the file could not be opened.
 */
json_t *mpm_json_load_path(const char *path, json_error_t *jerr);

#endif /* MPM_IO_JSON_INPUT_H */
