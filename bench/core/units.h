/* Quantities with written units ("500mA", "4.75V", "250ms", "45min",
 * "100kHz", "15k" for ohms is not accepted: write "15kohm").
 * Values are converted to SI base units: V, A, ohm, s, Hz, Ah. */
#ifndef BN_CORE_UNITS_H
#define BN_CORE_UNITS_H

#include <stddef.h>

enum bn_dim {
	BN_DIM_NONE = 0, /* a plain number */
	BN_DIM_V,
	BN_DIM_A,
	BN_DIM_OHM,
	BN_DIM_S,
	BN_DIM_HZ,
	BN_DIM_AH,
	BN_DIM_F,
};

/* Look up a unit symbol: "mV" -> BN_DIM_V, scale 1e-3. Accepts
 * V mV uV, A mA uA, ohm kohm Mohm (also "Ω", "kΩ"), s ms us min h,
 * Hz kHz MHz, Ah mAh, F nF pF uF. BN_ERR_DATA for an unknown symbol. */
int bn_unit_lookup(const char *unit, enum bn_dim *dim, double *scale);

/* Parse "<number><unit>" (no space, or one space) as dimension want.
 * BN_DIM_NONE accepts a bare number only. Returns BN_OK, or BN_ERR_DATA
 * with a short reason in why (may be NULL), e.g.
 * "expected a current such as 500mA, got \"5V\"". */
int bn_quantity_parse(const char *text, enum bn_dim want, double *out_si,
		      char *why, unsigned why_len);

/* Parse any quantity and report its dimension. */
int bn_quantity_parse_any(const char *text, enum bn_dim *dim, double *out_si,
			  char *why, unsigned why_len);

/* v (SI) in unit with an SI prefix where it helps, 4 significant digits:
 * 0.0001019 A -> "101.9 µA", 4.95 V -> "4.95 V", 0.0035 s -> "3.5 ms",
 * 47000 ohm -> "47 kohm". A value below a picounit is 0 (a computed
 * difference's rounding, 6.5e-18 A, is "0 A"). No unit: the plain number. */
void bn_qty_format(double v, const char *unit, char *buf, size_t len);
/* A limit as a person reads it: "IDEV_CHG <= 1.5 A", ">= 4.75 V",
 * "VDP_SRC 500 mV..700 mV"; min or max NAN when open; name may be NULL or
 * "" or already a comparison (">= 0.9 A": kept as written). */
void bn_limit_format(const char *name, double min, double max, const char *unit, char *buf,
		     size_t len);

/* The most a USB charger or port gives: a value beyond it was most
 * likely written in milli-units (800 for 0.8 A). */
#define BN_PLAUSIBLE_USB_A 10.0
#define BN_PLAUSIBLE_USB_V 50.0

/* v (SI, of dim) above max_si: BN_ERR_DATA with why saying so and what
 * was likely meant; bare: it was written as a plain number ("800 A is
 * more than USB carries (at most 10 A): did you write mA? write
 * 0.8 or \"800mA\""), else as a quantity ("did you mean \"800mA\"?").
 * BN_OK when v <= max_si. */
int bn_plausible_max(double v, enum bn_dim dim, double max_si, int bare, char *why, size_t len);

/* "a voltage", "a current", ... for messages; base unit symbol "V", "A". */
const char *bn_dim_name(enum bn_dim dim);
const char *bn_dim_unit(enum bn_dim dim);

#endif
