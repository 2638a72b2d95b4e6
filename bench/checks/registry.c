/* Every rule, family by family, in report order. One family a file:
 * detection.c and aca_otg.c (task 1), advertise.c (task 2), host_choice.c (task 3),
 * current.c (task 4), dbp.c (task 5). */
#include <string.h>

#include "checks/check.h"
#include "checks/rules.h"

static const struct bn_rule *const *const families[] = {
	bn_rules_detection, bn_rules_aca_otg, bn_rules_advertise, bn_rules_host_choice, bn_rules_current, bn_rules_dbp,
	bn_rules_port,
};

#define N_FAMILIES (sizeof(families) / sizeof(families[0]))
int bn_rules_count(void)
{
	int n = 0;

	for (size_t f = 0; f < N_FAMILIES; f++)
		for (int i = 0; families[f][i]; i++)
			n++;
	return n;
}

const struct bn_rule *bn_rule_at(int idx)
{
	for (size_t f = 0; f < N_FAMILIES; f++)
		for (int i = 0; families[f][i]; i++)
			if (idx-- == 0)
				return families[f][i];
	return NULL;
}

const struct bn_rule *bn_rule_find(const char *id)
{
	for (int i = 0, n = bn_rules_count(); i < n; i++)
		if (!strcmp(bn_rule_at(i)->id, id))
			return bn_rule_at(i);
	return NULL;
}

/* The families, by id prefix: a check step may name one. */
static const char *const family_prefixes[] = {
	"bc12", "bc12.dcd", "bc12.det", "bc12.aca", "bc12.otg", "bc12.adv", "bc12.host", "bc12.cur",
	"bc12.dbp", "bc12.port", NULL,
};

bool bn_rule_name_known(const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; family_prefixes[i]; i++)
		if (!strcmp(family_prefixes[i], name))
			return true;
	for (int i = 0, cnt = bn_rules_count(); i < cnt; i++) {
		const char *id = bn_rule_at(i)->id;

		if (!strcmp(id, name) || (!strncmp(id, name, n) && id[n] == '.'))
			return true;
	}
	return false;
}
