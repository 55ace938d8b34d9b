/* PLACEHOLDER: the device_time analysis (issue 5), being written. */
#include "analyze_internal.h"

int tka_device_time(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}
