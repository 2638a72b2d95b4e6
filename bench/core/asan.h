/* BN_ASAN: 1 when built with AddressSanitizer (gcc's __SANITIZE_ADDRESS__,
 * clang's __has_feature), else 0. Its allocator ignores mallopt, and its
 * exit() must run for the leak report. */
#ifndef BN_CORE_ASAN_H
#define BN_CORE_ASAN_H

#if defined(__SANITIZE_ADDRESS__)
#define BN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BN_ASAN 1
#endif
#endif
#ifndef BN_ASAN
#define BN_ASAN 0
#endif

#endif
