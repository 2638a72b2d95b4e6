/* Hostile: the reference firmware, plus telemetry strings a careless
 * firmware could send: quotes, backslashes, control characters (ESC
 * sequences, BEL, DEL), broken UTF-8, and multi-byte text laid so that a
 * character straddles every fixed buffer it passes through (the bench's
 * telemetry key and value, a result's measured word) at every offset.
 * Nothing it says may break a JSON or XML file, or reach a terminal raw.
 * Used by tests/integration/hostile.sh. */
#include <stdio.h>
#include <string.h>

#include "lib/variant.h"

/* 2-, 3- and 4-byte characters */
#define MB2 "\xc3\xa9"         /* e acute */
#define MB3 "\xe2\x82\xac"     /* euro sign */
#define MB4 "\xf0\x9f\x98\x80" /* grinning face */
#define HOSTILE_PAD_MAX 3
#define HOSTILE_TEXT_LEN 200

struct hostile {
	struct fw_shim shim; /* first: the reference's HAL points here */
	int said;
};

/* "a" * pad, then reps copies of ch: a run of one character width laid
 * at offset pad, so some copy straddles any buffer end. */
static void run_of(char *buf, size_t len, int pad, const char *ch, int reps)
{
	size_t o = 0, w = strlen(ch);

	for (int i = 0; i < pad && o + 1 < len; i++)
		buf[o++] = 'a';
	for (int i = 0; i < reps && o + w < len; i++, o += w)
		memcpy(buf + o, ch, w);
	buf[o] = '\0';
}

static void say_all(const struct bcfw_hal *hal)
{
	static const struct {
		const char *name, *ch;
		int width;
	} runs[] = { { "mb2", MB2, 2 }, { "mb3", MB3, 3 }, { "mb4", MB4, 4 } };
	char key[48], val[HOSTILE_TEXT_LEN];

	hal->telemetry_str(hal->bench, "quote",
			   "say \"hi\" back\\slash \x01\x02 \x1b[31mred\x1b[0m \x1b]0;title\x07"
			   " bel\x07 del\x7f cr\r lf\n tab\t \x1f end");
	hal->telemetry_str(hal->bench, "broken",
			   "bad \xff\xfe lone\x80 cut\xc3( \xe2\x82 \xf0\x9f\x98 overlong\xc0\xaf"
			   " surrogate\xed\xa0\x80 big\xf4\x90\x80\x80 csi\xc2\x9b" "2J end");
	hal->telemetry_str(hal->bench, "key\x1b[2J\"\\\x01\xff", "hostile key");
	/* keys past the bench's key buffer, every alignment of a 2-byte character */
	for (int pad = 0; pad < 2; pad++) {
		run_of(key, sizeof(key), pad, MB2, 20);
		hal->telemetry_str(hal->bench, key, "long key");
	}
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
		for (int pad = 0; pad < runs[r].width && pad <= HOSTILE_PAD_MAX; pad++) {
			snprintf(key, sizeof(key), "%s_%d", runs[r].name, pad);
			run_of(val, sizeof(val), pad, runs[r].ch, 160 / runs[r].width);
			hal->telemetry_str(hal->bench, key, val);
		}
}

static int hostile_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	struct hostile *h = ctx;

	fw_shim_setup(&h->shim, hal);
	return fw_shim_start(&h->shim, decl, &ref_fw_tunables);
}

static void hostile_wake(void *ctx, uint32_t ev)
{
	struct hostile *h = ctx;

	fw_shim_wake(&h->shim, ev);
	if (!h->said) {
		/* after the reference's first wake-up: telemetry events of a
		 * running device, in events.json and the report */
		h->said = 1;
		say_all(h->shim.real);
	}
}

FW_VARIANT_EXPORT("hostile_telemetry", sizeof(struct hostile), hostile_init, hostile_wake)
