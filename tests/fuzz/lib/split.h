/* Several documents in one fuzz input: parts separated by a NUL byte
 * (which no JSON text holds), each parsed by cJSON. */
#ifndef BN_FUZZ_SPLIT_H
#define BN_FUZZ_SPLIT_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Up to max parts of data parsed into docs[] (NULL where a part is not
 * JSON); returns how many parts there were. */
int bn_fuzz_split_json(const uint8_t *data, size_t size, cJSON **docs, int max);

#endif
