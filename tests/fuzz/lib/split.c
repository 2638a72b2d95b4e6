#include "split.h"

#include <string.h>

int bn_fuzz_split_json(const uint8_t *data, size_t size, cJSON **docs, int max)
{
	size_t off = 0;
	int n = 0;

	while (n < max) {
		const uint8_t *nul = off < size ? memchr(data + off, 0, size - off) : NULL;
		size_t len = nul ? (size_t)(nul - (data + off)) : size - off;

		docs[n++] = cJSON_ParseWithLength((const char *)data + off, len);
		if (!nul)
			break;
		off += len + 1;
	}
	return n;
}
