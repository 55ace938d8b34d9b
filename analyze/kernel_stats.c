/* PLACEHOLDER: the kernel_stats analysis (issue 5), being written. */
#include "analyze_internal.h"

int tka_kernel_stats(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}
