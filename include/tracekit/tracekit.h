/* tracekit umbrella header: include this one to use the library. */
#ifndef TRACEKIT_TRACEKIT_H
#define TRACEKIT_TRACEKIT_H

#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/output.h>
#include <tracekit/report.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>
#include <tracekit/text.h>
#include <tracekit/version.h>

#endif
