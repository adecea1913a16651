/* cdr/export.h - symbol visibility for libcdr.  The library is built with
 * -fvisibility=hidden; only functions marked CDR_API are exported. */
#ifndef CDR_EXPORT_H
#define CDR_EXPORT_H

#if defined(CDR_BUILDING) && defined(__GNUC__)
#define CDR_API __attribute__((visibility("default")))
#else
#define CDR_API
#endif

#if defined(__GNUC__)
#define CDR_WUR __attribute__((warn_unused_result))
#define CDR_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#define CDR_LIKELY(x) __builtin_expect(!!(x), 1)
#define CDR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CDR_INLINE static inline __attribute__((always_inline))
#else
#define CDR_WUR
#define CDR_NONNULL(...)
#define CDR_LIKELY(x) (x)
#define CDR_UNLIKELY(x) (x)
#define CDR_INLINE static inline
#endif

#endif
