/* The nearest name: what a newcomer who mistyped a profile, a telemetry
 * key, a rule id or a suite entry meant, and what there is to choose
 * from. Plain strings in, text out: any module may ask. */
#ifndef BN_CORE_SUGGEST_H
#define BN_CORE_SUGGEST_H

#include <stddef.h>

/* The optimal string alignment distance of a and b (insertions,
 * deletions, substitutions and swaps of two neighbours count 1 each:
 * "prot" is 1 from "port"). Strings longer than 63 bytes compare as far
 * apart (64). */
int bn_edit_distance(const char *a, const char *b);

/* Near enough to be a slip of the hand: at most 1 edit for a word of up
 * to 4 bytes, 2 up to 8, 3 beyond, and fewer edits than the word has
 * bytes. */
int bn_suggest_near(const char *word, const char *name);

/* The nearest of names[0..n) to word that is near (bn_suggest_near), the
 * first of equals; NULL when none is. */
const char *bn_suggest_nearest(const char *word, const char *const *names, int n);

/* "a, b, c; did you mean b?" (or without the question when nothing is
 * near) into buf; "none" for no names. Cut to len. */
void bn_suggest_text(const char *word, const char *const *names, int n, char *buf, size_t len);

/* The profile names of one kind: the stems of DATADIR/profiles/KIND/NAME.json,
 * sorted, in one malloc'ed block (*names, free() it once); *n their
 * count. 0, or -1 when the directory cannot be read (*names NULL, *n 0). */
int bn_profile_names(const char *datadir, const char *kind, char ***names, int *n);

/* " (available in DATADIR/profiles/KIND/: a, b; did you mean b?)" for an
 * unknown profile name, into buf; " (DATADIR/profiles/KIND/ cannot be
 * read)" when there is no such directory. */
void bn_suggest_profile(const char *datadir, const char *kind, const char *word, char *buf,
			size_t len);

#endif
