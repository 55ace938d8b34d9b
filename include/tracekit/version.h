/* tracekit version and the optional features compiled into this build. */
#ifndef TRACEKIT_VERSION_H
#define TRACEKIT_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** tk_version() - the library version, e.g. "0.1.0". */
const char *tk_version(void);

/**
 * tk_build_features() - one line per optional dependency, "name: yes (detail)" or "name: no",
 * for `tracekit --version`. The string is static.
 */
const char *tk_build_features(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
