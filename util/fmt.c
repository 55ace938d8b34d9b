/* Numbers as text (util/fmt.h): durations, byte counts, round-trip reals. */
#include "util/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tku_fmt_ns(struct tku_buf *b, double ns)
{
	double a = fabs(ns);
	const char *sign = ns < 0 ? "-" : "";
	if (a < 1e3)
		tku_printf(b, "%s%.0f ns", sign, a);
	else if (a < 1e6)
		tku_printf(b, "%s%.2f \xc2\xb5s", sign, a / 1e3);
	else if (a < 1e9)
		tku_printf(b, "%s%.2f ms", sign, a / 1e6);
	else
		tku_printf(b, "%s%.3f s", sign, a / 1e9);
}

void tku_fmt_bytes(struct tku_buf *b, double bytes, int prec, enum tku_byte_unit max_unit)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double a = fabs(bytes);
	const char *sign = bytes < 0 ? "-" : "";
	if (a < 1024) {
		tku_printf(b, "%s%.0f B", sign, a);
		return;
	}
	int u = -1;
	while (a >= 1024 && u < (int)max_unit) {
		a /= 1024;
		u++;
	}
	tku_printf(b, "%s%.*f %s", sign, prec, a, units[u]);
}

void tku_fmt_real(double v, char *out, size_t n)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, n, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	if (!strpbrk(out, ".eEn")) /* keep it visibly real: 2 -> 2.0 */
		strncat(out, ".0", n - strlen(out) - 1);
}

void tku_fmt_json_real(struct tku_buf *b, double v)
{
	char num[64];
	if (!isfinite(v)) {
		tku_puts(b, "null");
		return;
	}
	tku_fmt_real(v, num, sizeof(num));
	tku_puts(b, num);
}
