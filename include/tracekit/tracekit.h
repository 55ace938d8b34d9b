/*
 * tracekit umbrella header: include this one to use the library (every public header below).
 * Conventions of the whole API: functions return a status (include/tracekit/error.h, TK_OK = 0,
 * errors < 0) and report why through a tk_error: on the handle they were given (tk_writer_error(),
 * tk_store_error(), ...) or in the `tk_error *err` argument of the calls without a handle.
 */
#ifndef TRACEKIT_TRACEKIT_H
#define TRACEKIT_TRACEKIT_H

#include <tracekit/analyze.h>
#include <tracekit/annotate.h>
#include <tracekit/check.h>
#include <tracekit/error.h>
#include <tracekit/export.h>
#include <tracekit/import.h>
#include <tracekit/output.h>
#include <tracekit/report.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>
#include <tracekit/text.h>
#include <tracekit/version.h>

#endif
