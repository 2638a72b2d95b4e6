/* The reference firmware as a loadable shared object. */
#include "firmware/ref_fw.h"

__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);

const struct bcfw_firmware *bcfw_entry(void)
{
	return ref_fw_get();
}
