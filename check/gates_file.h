/*
 * Shared by the two readers of a gates file (gates_file.c: the file and its JSON form,
 * gates_toml.c: its TOML form): where the entries go while the file is read, and the messages
 * that name the file and line.
 */
#ifndef TKC_GATES_FILE_H
#define TKC_GATES_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "check_internal.h"

#define TKC_GATES_FILE_MAX (1u << 20) /* bytes of a gates file (decoded) */
#define TKC_GATES_KEYS "gates, max, min, allow_different_hardware"

/* The file's entries while it is read: the caller's list gets them when the whole file is good. */
struct tkc_gsink {
	const char *path;
	struct tkc_gates g;
	int allow_hw, has_allow_hw;
	char *err;
	size_t errlen;
};

/* An error at @line (and @col when not 0) of the file: "'f': line 3, column 7: ..."; @st. */
int tkc_gsink_fail(struct tkc_gsink *k, int st, uint64_t line, uint64_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Append the gate @text of @kind read at @line/@col; errors name the place. */
int tkc_gsink_gate(struct tkc_gsink *k, const char *text, enum tkc_gate_kind kind, uint64_t line,
		   uint64_t col);

/* Append the bound "@metric=@value" of the table max (@max = 1) or min. */
int tkc_gsink_bound(struct tkc_gsink *k, int max, const char *metric, const char *value,
		    uint64_t line, uint64_t col);

/* A number as the shortest text that reads back as the same double ("80", "0.1"). */
void tkc_number_text(double v, char *buf, size_t len);

/* Read the TOML gates file text @s (@len bytes, NUL-terminated) into @k. */
int tkc_gates_toml(struct tkc_gsink *k, const char *s, size_t len);

#endif
