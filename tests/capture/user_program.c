/*
 * A user program against the public headers (tests/capture/public_headers.sh compiles it as C
 * and as C++ with gcc, clang, g++ and clang++, -Wall -Wextra -Wpedantic -Wshadow -Werror): every
 * header, every public macro, annotations nested in one block, several on one line, in a
 * function with nothing after them (where clang used to say -Wunused-variable). Compiled only.
 */
#include <tracekit/tracekit.h>
#include <tracekit/annotate.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/export.h>
#include <tracekit/import.h>
#include <tracekit/report.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>
#include <tracekit/version.h>

static const char *const status_names[] = {
#define NAME(name, value, text) #name,
    TK_ERRORS(NAME)
#undef NAME
};

static void load_batch(void)
{
	TK_FUNC();
}

static void empty_scope(void)
{
	TK_SCOPE("empty");
}

static int forward(int x)
{
	TK_SCOPE("forward");
	{
		TK_SCOPE("inner");
		TK_SCOPE("inner2");
		x += 1;
	}
	/* clang-format off */
	TK_SCOPE("a"); TK_SCOPE("b"); /* two on one line */
	/* clang-format on */
	return x;
}

int main(void)
{
	struct tk_trace_options o;
	tk_trace_options_init(&o);
	o.start_step = 1;
	o.steps = 2;
	if (tk_trace_begin("user.db", &o) != TK_OK)
		return tk_exit_code(TK_EINVAL);
	int x = 0;
	for (int s = 0; s < 4; s++) {
		tk_step(s);
		TK_SCOPE("train_step");
		load_batch();
		empty_scope();
		x = forward(x);
		struct tk_scope manual = tk_scope_begin("manual");
		tk_counter("x", (double)x);
		tk_mark(tk_trace_name("marker"));
		tk_record_alloc(&x, sizeof(x), NULL);
		tk_record_free(&x, sizeof(x), NULL);
		tk_scope_end(&manual);
	}
	int rc = tk_trace_end();
	int64_t none = TK_NONE;
	return rc == TK_OK && tk_trace_active() == 0 && none < 0 && TK_STORE_SCHEMA_VERSION > 0 &&
		       status_names[0] && tk_strerror(rc) && tk_version() && tk_build_features() &&
		       tk_trace_errmsg()
		   ? 0
		   : 1;
}
