/* The decision rules' names, as the reports write them. */
#include "core/check_ctx.h"

const char *bn_acceptance_name(enum bn_acceptance a)
{
	return a == BN_ACCEPT_SIMPLE ? "simple" : "guarded";
}
