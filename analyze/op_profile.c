/* PLACEHOLDER: the op_profile analysis (issue 5), being written. */
#include "analyze_internal.h"

int tka_op_profile(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}
