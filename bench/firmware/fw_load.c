#include "firmware/fw_load.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "firmware/probe_fw.h"
#include "firmware/ref_fw.h"

int bn_fw_is_builtin(const char *spec)
{
	return !strcmp(spec, "reference") || !strcmp(spec, "probe");
}

int bn_fw_load(const char *spec, struct bn_fw_handle *out, struct bn_err *err)
{
	bcfw_entry_fn entry;
	const struct bcfw_firmware *fw;
	void *dl;

	out->fw = NULL;
	out->dl = NULL;
	if (bn_fw_is_builtin(spec)) {
		out->fw = strcmp(spec, "probe") ? ref_fw_get() : probe_fw_get();
		return BN_OK;
	}
	char path[1024];

	/* Without a slash dlopen searches the library path, not here. */
	snprintf(path, sizeof(path), "%s%s", strchr(spec, '/') ? "" : "./", spec);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	/* A file that is not there is a wrong name (bad input); one that is
	 * there and does not load (a library it needs is missing, a machine
	 * it was not built for) the machine's: a retry would repeat it. */
	if (!dl)
		return bn_err_set(err, access(path, F_OK) == 0 ? BN_ERR_ENV : BN_ERR_DATA,
				  "firmware %s: cannot load: %s", spec, dlerror());
	*(void **)&entry = dlsym(dl, "bcfw_entry");
	if (!entry) {
		dlclose(dl);
		return bn_err_set(err, BN_ERR_DATA,
				  "firmware %s: no bcfw_entry() symbol (see bench/firmware/bcfw.h)", spec);
	}
	fw = entry();
	/* Everything the message needs is read before dlclose: the table
	 * lives in the library's memory. The version first, since another
	 * ABI's table may not even have the fields after it. */
	if (!fw) {
		dlclose(dl);
		return bn_err_set(err, BN_ERR_DATA, "firmware %s: bcfw_entry() returned NULL", spec);
	}
	if (fw->abi_version != BCFW_ABI_VERSION) {
		int abi = fw->abi_version;

		dlclose(dl);
		return bn_err_set(err, BN_ERR_DATA,
				  "firmware %s: built for firmware ABI version %d, this bench speaks "
				  "version %d (rebuild it against this bench's bcfw.h)",
				  spec, abi, BCFW_ABI_VERSION);
	}
	if (!fw->name || !fw->init || !fw->wake) {
		dlclose(dl);
		return bn_err_set(err, BN_ERR_DATA,
				  "firmware %s: bcfw_entry() returned an incomplete table (name, init "
				  "and wake are required)",
				  spec);
	}
	out->fw = fw;
	out->dl = dl;
	return BN_OK;
}

void bn_fw_unload(struct bn_fw_handle *h)
{
	if (h->dl)
		dlclose(h->dl);
	h->dl = NULL;
	h->fw = NULL;
}
