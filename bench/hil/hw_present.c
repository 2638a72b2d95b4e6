/* Linked only beside the real hardware modules (the Makefile's HW_SRC);
 * hil/absent.c says false. */
#include "hil/hw_present.h"

const bool bn_hw_present = true;
