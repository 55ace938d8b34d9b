/* PLACEHOLDER: the gaps analysis (issue 5), being written. */
#include "analyze_internal.h"

int tka_gaps(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}
