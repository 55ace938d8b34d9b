/*
 * Fuzz target: a mutated store through the readers only: tk_store_open (with its schema check),
 * meta lookups and the direct page reader (tscan, every column of every row of every table).
 * fuzz_store.c adds analyze, report and export over the same store; this one is the fast half.
 */
#define FZ_STORE_READ_ONLY 1
#include "fuzz_store.c"
