/* iiop/export.h - symbol visibility for libiiop (built -fvisibility=hidden). */
#ifndef IIOP_EXPORT_H
#define IIOP_EXPORT_H

#if defined(IIOP_BUILDING) && defined(__GNUC__)
#define IIOP_API __attribute__((visibility("default")))
#else
#define IIOP_API
#endif

#endif
