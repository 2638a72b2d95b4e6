/* A sigrok session file's samplerate ("1 MHz", "1.5 MHz", "250 Hz"), read
 * as libsigrok 0.5.2's sr_parse_sizestring (src/strutil.c) reads it, so a
 * file means the same rate to the bench and to sigrok's tools, without
 * libsigrok in the process (a bench on the simulation does not load it).
 *
 * Its quirks are kept on purpose: a number, then spaces, a fraction
 * (".5", which also eats the next character) and one multiplier letter
 * (k M G T P E, either case), then nothing or "Hz" in any case; the
 * fraction is added in double, so "1.5kHz" is 1 Hz and a size past 2^53
 * rounds. One difference: a fraction that ends the string ("1.5") makes
 * libsigrok read the byte past its end; here the parse stops there, as
 * libsigrok does when that byte is a NUL. tests/unit/test_sizestr.c
 * compares the two on many inputs (each with NULs after it). */
#ifndef BN_CAPTURE_SIZESTR_H
#define BN_CAPTURE_SIZESTR_H

#include <stdbool.h>
#include <stdint.h>

/* BN_OK with *size, or BN_ERR_DATA where sr_parse_sizestring returns
 * SR_ERR (then *size is what it would hold). *overflow: the value is at
 * or past 2^64, where libsigrok's conversion from double is undefined
 * (*size is then 0). */
int bn_sizestr_parse(const char *s, uint64_t *size, bool *overflow);

#endif
