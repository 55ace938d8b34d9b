/*
 * Profiling windows over steps (start step N, K steps, a profile every E steps, at most M
 * profiles, each at most D ms), shared by the annotation API and the CUPTI injection. Pure
 * state machine: the callers hold their own lock and pass the time in. Also the TRACEKIT_*
 * environment variables that set the windows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "host.h"

void tk_trace_options_init(struct tk_trace_options *o)
{
	o->start_step = o->steps = o->every = o->max_profiles = o->duration_ms = -1;
}

static int parse_env(const char *name, int64_t *out, tk_error *err)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return TK_OK;
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || x < 0) {
		return tk_error_push_from(err, "capture", TK_EINVAL,
					  "%s='%s' is not a non-negative integer", name, v);
	}
	*out = x;
	return TK_OK;
}

int tk_trace_options_from_env(struct tk_trace_options *o, tk_error *err)
{
	tk_error_clear(err);
	tk_trace_options_init(o);
	int rc = parse_env("TRACEKIT_START_STEP", &o->start_step, err);
	if (rc == TK_OK)
		rc = parse_env("TRACEKIT_STEPS", &o->steps, err);
	if (rc == TK_OK)
		rc = parse_env("TRACEKIT_EVERY", &o->every, err);
	if (rc == TK_OK)
		rc = parse_env("TRACEKIT_MAX_PROFILES", &o->max_profiles, err);
	if (rc == TK_OK)
		rc = parse_env("TRACEKIT_DURATION_MS", &o->duration_ms, err);
	return rc;
}

static void open_profile(struct tkcap_window *w, int64_t p, int64_t now_ns)
{
	w->open = 1;
	w->profile = p;
	w->profiles++;
	w->deadline_ns = w->o.duration_ms > 0 ? now_ns + w->o.duration_ms * 1000000 : 0;
}

void tkcap_window_start(struct tkcap_window *w, const struct tk_trace_options *o, int64_t now_ns)
{
	memset(w, 0, sizeof(*w));
	w->o = *o;
	w->closed_profile = -1;
	w->by_steps = o->start_step >= 0 || o->steps > 0 || o->every > 0;
	if (!w->by_steps)
		open_profile(w, 0, now_ns);
}

int tkcap_window_tick(struct tkcap_window *w, int64_t now_ns)
{
	if (w->open && w->deadline_ns && now_ns >= w->deadline_ns) {
		w->open = 0;
		w->closed_profile = w->profile;
	}
	return w->open;
}

int tkcap_window_step(struct tkcap_window *w, int64_t n, int64_t now_ns)
{
	tkcap_window_tick(w, now_ns);
	if (!w->by_steps)
		return w->open;
	int64_t first = w->o.start_step > 0 ? w->o.start_step : 0, p = 0;
	int in = n >= first;
	if (in) {
		int64_t off = n - first;
		if (w->o.every > 0) {
			p = off / w->o.every;
			off %= w->o.every;
		}
		in = w->o.steps <= 0 || off < w->o.steps;
	}
	if (in && w->o.max_profiles >= 0 && p >= w->o.max_profiles)
		in = 0;
	if (in && p == w->closed_profile)
		in = 0; /* that profile already ran out of time */
	if (w->open && (!in || p != w->profile))
		w->open = 0;
	if (!w->open && in)
		open_profile(w, p, now_ns);
	return w->open;
}

int tkcap_window_next_opens(const struct tkcap_window *w, int64_t n, int64_t now_ns)
{
	struct tkcap_window c = *w; /* pure state: a copy answers "what if" */
	return tkcap_window_step(&c, n, now_ns);
}
