/* Finding a firmware: "reference" is built in; anything else is a path to
 * a shared object exporting bcfw_entry() (see bcfw.h). */
#ifndef BN_FIRMWARE_FW_LOAD_H
#define BN_FIRMWARE_FW_LOAD_H

#include "core/err.h"
#include "firmware/bcfw.h"

struct bn_fw_handle {
	const struct bcfw_firmware *fw;
	void *dl; /* dlopen handle, NULL for built-ins */
};

int bn_fw_load(const char *spec, struct bn_fw_handle *out, struct bn_err *err);
void bn_fw_unload(struct bn_fw_handle *h);
/* True if spec names a built-in firmware. */
int bn_fw_is_builtin(const char *spec);

#endif
