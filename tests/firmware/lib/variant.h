/* What the faulty firmware variants share. A variant is the reference
 * firmware with one thing wrong, either
 *  - a changed tunable or behaviour knob: FW_TUNED_VARIANT(name, tune), or
 *  - a HAL shim between the reference and the bench: struct fw_shim first
 *    in the variant's context, fw_shim_setup(), replace the HAL members
 *    the fault needs, fw_shim_start(); the variant's wake() ends in
 *    fw_shim_wake().
 * Linked into every tests/firmware/NAME.so by the Makefile. */
#ifndef BN_TESTS_FIRMWARE_VARIANT_H
#define BN_TESTS_FIRMWARE_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/ref_fw.h"

#define FW_NEVER UINT64_MAX

struct fw_shim {
	_Alignas(max_align_t) unsigned char ref[REF_FW_CTX_SIZE]; /* the reference's context */
	const struct bcfw_hal *real; /* the bench's HAL */
	struct bcfw_hal hal;         /* what the reference sees; hal.bench is this struct */
	uint64_t ref_wake_at;        /* the reference's own wake-up request */
	uint64_t own_wake_at;        /* the variant's timer */
};

/* Fill s->hal with pass-throughs to real; wake_at merges the reference's
 * request with the variant's timer. */
void fw_shim_setup(struct fw_shim *s, const struct bcfw_hal *real);
/* Start the reference behind the shim. */
int fw_shim_start(struct fw_shim *s, const struct bcfw_decl *decl, const struct ref_fw_tunables *t);
uint64_t fw_shim_now(const struct fw_shim *s);
/* Arm the variant's own timer. */
void fw_shim_set_timer(struct fw_shim *s, uint64_t t_us);
/* True, once, when the variant's own timer is due. */
bool fw_shim_timer_due(struct fw_shim *s);
/* Hand ev to the reference; its timer bit only when its own wake-up is due. */
void fw_shim_wake(struct fw_shim *s, uint32_t ev);

/* A bench-fault variant (crash, hang, exit): the reference behind a
 * shim until delay_us after VBUS first reads valid, then its fault. */
struct fw_fault {
	struct fw_shim shim; /* first: the reference's HAL points here */
	int armed;
};

int fw_fault_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl);
/* True, once, in the wake-up when the fault is due; arms it on the first
 * wake-up with VBUS valid. */
bool fw_fault_due(struct fw_fault *f, uint64_t delay_us);

/* A variant's firmware table and bcfw_entry(). */
#define FW_VARIANT_EXPORT(NAME, CTX_SIZE, INIT, WAKE)                                          \
	static const struct bcfw_firmware fw_variant_table = {                                 \
		.abi_version = BCFW_ABI_VERSION,                                               \
		.name = NAME,                                                                  \
		.version = "faulty",                                                           \
		.ctx_size = (CTX_SIZE),                                                        \
		.init = INIT,                                                                  \
		.wake = WAKE,                                                                  \
	};                                                                                     \
	__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void);   \
	const struct bcfw_firmware *bcfw_entry(void)                                           \
	{                                                                                      \
		return &fw_variant_table;                                                      \
	}

/* The reference with its tunables changed by TUNE(struct ref_fw_tunables *). */
#define FW_TUNED_VARIANT(NAME, TUNE)                                                           \
	static int fw_tuned_init(void *ctx, const struct bcfw_hal *hal,                        \
				 const struct bcfw_decl *decl)                                 \
	{                                                                                      \
		struct ref_fw_tunables t = ref_fw_tunables;                                    \
                                                                                               \
		TUNE(&t);                                                                      \
		return ref_fw_init_with(ctx, hal, decl, &t);                                   \
	}                                                                                      \
	FW_VARIANT_EXPORT(NAME, REF_FW_CTX_SIZE, fw_tuned_init, ref_fw_wake)

#endif
