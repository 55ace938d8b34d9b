/*
 * The args of a communication kernel that identify its collective (analyze/comm.c reads them), as
 * an SQL list: the only args a job summary keeps (import/merge.c).
 */
#ifndef TKU_COMM_ARGS_H
#define TKU_COMM_ARGS_H

#define TKU_COMM_ARG_KEYS "'Process Group Name', 'Seq', 'In msg nelems', 'dtype', 'Collective name'"

#endif
