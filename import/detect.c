/*
 * Input format detection by content: a file (gzip looked through) whose first non-blank byte opens
 * a JSON object or array is Chrome/Kineto JSON; one that starts with a protobuf tag of an XSpace
 * field is XPlane. Reads at most the first few hundred bytes.
 */
#include <tracekit/error.h>
#include <tracekit/import.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "store_internal.h"

void tk_import_options_init(struct tk_import_options *o)
{
	memset(o, 0, sizeof(*o));
	o->rank = TK_NONE;
}

int tk_import_detect(const char *path, enum tk_import_format *out, char *err, size_t errlen)
{
	*out = TK_FORMAT_UNKNOWN;
	struct stat sb;
	if (stat(path, &sb) != 0) {
		tk_fmt(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return TK_EIO;
	}
	if (!S_ISREG(sb.st_mode)) {
		tk_fmt(err, errlen, "cannot read '%s': not a regular file", path);
		return TK_EIO;
	}
	gzFile f = gzopen(path, "rb"); /* reads plain files as they are */
	if (!f) {
		tk_fmt(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return TK_EIO;
	}
	unsigned char buf[512];
	int n = gzread(f, buf, sizeof(buf));
	int gzerr;
	const char *gzmsg = gzerror(f, &gzerr);
	if (n < 0) {
		tk_fmt(err, errlen, "'%s': byte 0: cannot decompress: %s", path, gzmsg);
		gzclose(f);
		return TK_EFORMAT;
	}
	gzclose(f);
	int i = 0;
	if (n >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < n && (buf[i] == '{' || buf[i] == '[')) {
		*out = TK_FORMAT_CHROME_JSON;
		return TK_OK;
	}
	/* XSpace fields: 1 planes, 2 errors, 3 warnings, 4 hostnames (all length-delimited) */
	if (n > 0 && (buf[0] == 0x0a || buf[0] == 0x12 || buf[0] == 0x1a || buf[0] == 0x22)) {
		*out = TK_FORMAT_XPLANE;
		return TK_OK;
	}
	tk_fmt(err, errlen,
	       "'%s': byte 0: neither an XPlane (.xplane.pb) nor a Chrome/Kineto JSON trace%s",
	       path, n == 0 ? " (the file is empty)" : "");
	return TK_EFORMAT;
}
