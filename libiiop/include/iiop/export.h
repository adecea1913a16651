/* iiop/export.h - symbol visibility for libiiop (built -fvisibility=hidden),
 * and IIOP_WUR: the result of a function so marked must be looked at (it
 * hands out an object or reports an error that nothing else reports). */
#ifndef IIOP_EXPORT_H
#define IIOP_EXPORT_H

#if defined(IIOP_BUILDING) && defined(__GNUC__)
#define IIOP_API __attribute__((visibility("default")))
#else
#define IIOP_API
#endif

#if defined(__GNUC__)
#define IIOP_WUR __attribute__((warn_unused_result))
#else
#define IIOP_WUR
#endif

#endif
