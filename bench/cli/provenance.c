#include "cli/provenance.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/text.h"

const char *bn_cli_operator(const char *opt, char *buf, size_t len)
{
	const char *env = getenv("BCBENCH_OPERATOR");
	struct passwd *pw;

	if (opt && opt[0])
		return opt;
	if (env && env[0])
		return env;
	env = getenv("USER");
	if (env && env[0])
		return env;
	pw = getpwuid(getuid());
	if (pw && pw->pw_name && pw->pw_name[0]) {
		bn_str_copy(buf, len, pw->pw_name);
		return buf;
	}
	return "unknown";
}

/* What an instrument says it is, else its backend's name. */
static const char *identity_of(void (*identity)(void *, char *, size_t), void *priv,
			       const char *name, char *buf, size_t len)
{
	if (identity)
		identity(priv, buf, len);
	else
		bn_str_copy(buf, len, name);
	return buf;
}

static void add_instrument(cJSON *list, const char *role, const char *spec, const char *identity)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "role", role);
	cJSON_AddStringToObject(o, "spec", spec);
	cJSON_AddStringToObject(o, "identity", identity);
	cJSON_AddItemToArray(list, o);
}

void bn_cli_provenance_begin(struct bn_report *rep, const char *operator_name,
			     const struct bn_conf *conf, const struct bn_bench_hw *hw)
{
	char host[256] = "", id[512];
	bool real = conf && bn_conf_has_hardware(conf);

	bn_report_utc_now(rep->started_utc, sizeof(rep->started_utc));
	if (gethostname(host, sizeof(host) - 1) == 0)
		bn_str_copy(rep->host, sizeof(rep->host), host);
	bn_str_copy(rep->operator_name, sizeof(rep->operator_name), operator_name);
	if (!conf)
		return;
	if (real)
		bn_bench_lock_name(conf, rep->bench_name, sizeof(rep->bench_name));
	else
		bn_str_copy(rep->bench_name, sizeof(rep->bench_name), "simulated");
	cJSON_Delete(rep->instruments);
	rep->instruments = cJSON_CreateArray();
	if (hw && hw->fixture.ops) {
		cJSON *o;
		char sha[65] = "";
		struct bn_err e = { 0 };

		add_instrument(rep->instruments, "fixture", conf->fixture,
			       identity_of(hw->fixture.ops->identity, hw->fixture.priv,
					   hw->fixture.ops->name, id, sizeof(id)));
		o = cJSON_GetArrayItem(rep->instruments, cJSON_GetArraySize(rep->instruments) - 1);
		if (hw->fixture_file[0]) {
			cJSON_AddStringToObject(o, "file", hw->fixture_file);
			if (bn_file_sha256(hw->fixture_file, sha, &e) == 0)
				cJSON_AddStringToObject(o, "file_sha256", sha);
		}
	} else {
		add_instrument(rep->instruments, "fixture", "sim",
			       real ? "simulated (nothing it does reaches a verdict)" : "simulated");
	}
	if (hw && hw->load.ops)
		add_instrument(rep->instruments, "load", conf->load,
			       identity_of(hw->load.ops->identity, hw->load.priv, hw->load.ops->name, id,
					   sizeof(id)));
	if (hw && hw->supply.ops)
		add_instrument(rep->instruments, "supply", conf->supply,
			       identity_of(hw->supply.ops->identity, hw->supply.priv, hw->supply.ops->name,
					   id, sizeof(id)));
	if (conf->capture_driver[0]) {
		snprintf(id, sizeof(id), "sigrok:%s%s%.300s", conf->capture_driver,
			 conf->capture_conn[0] ? " conn=" : "", conf->capture_conn);
		add_instrument(rep->instruments, "capture", conf->capture_driver, id);
	}
	if (conf->console[0])
		add_instrument(rep->instruments, "console", conf->console, "the device's console");
}

void bn_cli_provenance_end(struct bn_report *rep)
{
	bn_report_utc_now(rep->ended_utc, sizeof(rep->ended_utc));
}
