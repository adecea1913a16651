/* cdr/stream.h - what CDR output and input streams share: byte order and
 * options (GIOP version, code sets, limits, compatibility switches).
 *
 * Reference: OMG CORBA 3.x, Part 2, chapter "General Inter-ORB Protocol",
 * section "CDR Transfer Syntax" (primitive types, alignment, byte order,
 * encapsulation, code set conversion).
 */
#ifndef CDR_STREAM_H
#define CDR_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/export.h>
#include <cdr/mem.h>
#include <cdr/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Byte orders, with the values of the GIOP flag bit / encapsulation octet. */
enum { CDR_BIG_ENDIAN = 0, CDR_LITTLE_ENDIAN = 1 };
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CDR_HOST_ORDER CDR_BIG_ENDIAN
#else
#define CDR_HOST_ORDER CDR_LITTLE_ENDIAN
#endif

/* Option flags (cdr_opts.flags). */
enum {
  /* Read a string of length 0 as "" instead of failing (docs/hostile-input.md C05 b).  The
   * spec requires length >= 1 (the NUL); some old ORBs send 0. */
  CDR_F_LENIENT_EMPTY_STRING = 1u << 0,
  /* GIOP 1.2 wstring/wchar without a byte-order mark: read it in the
   * stream's byte order instead of big-endian.  Default (flag clear): UTF-16
   * without a BOM is big-endian, as RFC 2781 and the CORBA spec say. */
  CDR_F_WCHAR_NOBOM_STREAM_ORDER = 1u << 1,
  /* long double as omniORB 4.2 on x86-64 sends it: the 80-bit x87 format in
   * the first 10 octets (stream byte order) of 16, instead of IEEE 754
   * binary128.  A compatibility switch for omniORB peers only. */
  CDR_F_LDOUBLE_X87 = 1u << 2,
  /* Replace a lone UTF-16 surrogate with U+FFFD when reading instead of
   * failing with CDR_E_CODESET. */
  CDR_F_WCHAR_REPLACE_INVALID = 1u << 3
};

/* Stream options.  Fill with cdr_opts_default() and change what you need.
 * Streams copy the options at init. */
typedef struct cdr_opts {
  uint8_t byte_order;    /* output: order to write (default CDR_HOST_ORDER); ignored on input */
  uint8_t giop_major;    /* GIOP version the stream's data belongs to (default 1.2): */
  uint8_t giop_minor;    /*   decides the wchar/wstring encoding (1.0: none) */
  uint32_t tcs_c;        /* char transmission code set (default CDR_CS_ISO8859_1) */
  uint32_t ncs_c;        /* code set of the C strings given/returned (default: same as
                          * tcs_c: no conversion).  ISO-8859-1 and UTF-8 are supported. */
  uint32_t tcs_w;        /* wchar transmission code set (default CDR_CS_UTF16; 0: none
                          * negotiated, so wchar/wstring fail with CDR_E_CODESET) */
  uint32_t max_string;   /* input: most octets a string/wstring may have (default 64 MiB) */
  uint32_t max_seq;      /* input: most elements a sequence may have (default 16 Mi) */
  uint32_t max_depth;    /* nesting limit: encapsulations, constructed types, values (default 64) */
  size_t max_size;       /* output: most octets the stream may grow to (default 1 GiB) */
  unsigned flags;        /* CDR_F_* */
  const cdr_allocator *alloc; /* NULL: cdr_mem_global() */
} cdr_opts;

/* Fill O with the defaults above. */
CDR_API void cdr_opts_default(cdr_opts *o) CDR_NONNULL(1);

/* Most encapsulations open at once in one stream. */
#define CDR_ENCAP_MAX 32

#ifdef __cplusplus
}
#endif
#endif
