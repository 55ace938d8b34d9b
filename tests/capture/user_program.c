/*
 * A user program against the public headers (tests/capture/public_headers.sh compiles it as C
 * and as C++ with gcc, clang, g++ and clang++, -Wall -Wextra -Wpedantic -Wshadow -Werror): every
 * header, every public macro, annotations nested in one block, several on one line, in a
 * function with nothing after them (where clang used to say -Wunused-variable); and, through the
 * umbrella header alone, a call of every module with the error convention (tk_error and its
 * causes, a handle's error, context pushed by the caller). Compiled only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/tracekit.h>

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

/* Import @trace into @store, analyse it, report and export it: every module through tracekit.h,
 * each failure printed with the context the program adds. */
static int pipeline(const char *trace, const char *store)
{
	tk_error *err = tk_error_new();
	tk_writer *w = NULL;
	tk_exporter *x = NULL;
	tk_check *c = NULL;
	struct tk_import_options io;
	struct tk_export_options eo;
	struct tk_report_options ro;
	enum tk_import_format fmt;
	tk_import_options_init(&io);
	tk_export_options_init(&eo);
	tk_report_options_init(&ro);
	int rc = tk_import_detect(trace, &fmt, err);
	if (rc == TK_OK && (rc = tk_writer_create(store, &w)) == TK_OK) {
		rc = fmt == TK_FORMAT_XPLANE ? tk_import_xplane(w, trace, &io)
					     : tk_import_chrome_json(w, trace, &io);
		if (rc != TK_OK)
			tk_error_copy(err, tk_writer_error(w)); /* the message is on the writer */
	}
	if (rc == TK_OK)
		rc = tk_writer_finish(w, err); /* frees the writer: its causes land in err */
	else
		tk_writer_abort(w);
	if (rc == TK_OK)
		rc = tk_analyze(store, NULL, err);
	if (rc == TK_OK)
		rc = tk_report_write(stdout, store, &ro, err);
	if (rc == TK_OK && (rc = tk_exporter_create(&x)) == TK_OK &&
	    (rc = tk_exporter_run(x, store, "user.pftrace", &eo)) != TK_OK)
		tk_error_copy(err, tk_exporter_error(x));
	if (rc == TK_OK && (rc = tk_check_new(&c)) == TK_OK &&
	    (rc = tk_check_add_run(c, store, store)) != TK_OK)
		tk_error_copy(err, tk_check_error(c));
	if (rc != TK_OK) {
		tk_error_push(err, rc, "processing '%s'", trace);
		fprintf(stderr, "%s (%zu causes, the root: %s)\n", tk_error_message(err),
			tk_error_cause_count(err),
			tk_error_cause(err, tk_error_cause_count(err) - 1));
	}
	char *shown = tk_text_escape(trace, 1, TK_TEXT_TERMINAL, NULL);
	rc = tk_error_status(err) == rc && shown ? rc : TK_EINTERNAL;
	free(shown);
	tk_check_free(c);
	tk_exporter_destroy(x);
	tk_error_free(err);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3)
		return tk_exit_code(pipeline(argv[1], argv[2]));
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
