/* iiop/giop.h - the GIOP message header (OMG CORBA 3.x, Part 2, GIOP
 * chapter, "GIOP Message Header").
 *
 * Every GIOP message starts with 12 octets: the magic "GIOP", the version
 * (major 1, minor 0-2), a flags octet (GIOP 1.0: the byte_order boolean;
 * 1.1 and 1.2: bit 0 byte order (1 = little-endian), bit 1 more fragments
 * follow), the message type, and message_size, an unsigned long in the
 * byte order of the flags giving the octets after the header.
 * These functions do no I/O and allocate nothing.
 */
#ifndef IIOP_GIOP_H
#define IIOP_GIOP_H

#include <stddef.h>
#include <stdint.h>
#include <iiop/export.h>
#include <cdr/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GIOP_HEADER_SIZE 12

typedef enum giop_msg_type {
  GIOP_REQUEST = 0,
  GIOP_REPLY = 1,
  GIOP_CANCEL_REQUEST = 2,
  GIOP_LOCATE_REQUEST = 3,
  GIOP_LOCATE_REPLY = 4,
  GIOP_CLOSE_CONNECTION = 5,
  GIOP_MESSAGE_ERROR = 6,
  GIOP_FRAGMENT = 7            /* GIOP 1.1 and later */
} giop_msg_type;

enum {
  GIOP_FLAG_LITTLE_ENDIAN = 0x01,
  GIOP_FLAG_MORE_FRAGMENTS = 0x02   /* GIOP 1.1 and later */
};

typedef struct giop_header {
  uint8_t major, minor;    /* 1, 0..2 */
  uint8_t flags;           /* GIOP_FLAG_*; in GIOP 1.0 only the byte-order bit */
  uint8_t type;            /* giop_msg_type */
  uint32_t size;           /* message_size: octets after the 12-octet header */
} giop_header;

/* Parse the 12-octet header at BUF (LEN octets available) into *H.
 * Errors: CDR_E_SHORT (LEN < 12; *H untouched), CDR_E_PROTOCOL (magic not
 * "GIOP", major not 1, minor > 2, an unknown message type, Fragment in GIOP
 * 1.0, a GIOP 1.0 byte_order octet other than 0/1, flag bits other than the
 * two defined ones) -- the cases where a receiver answers MessageError.
 * The size is not checked here: compare it with your maximum message size. */
IIOP_API int giop_header_parse(const uint8_t *buf, size_t len, giop_header *h) IIOP_WUR;

/* Write *H as 12 octets at OUT, message_size in the byte order that the
 * flags give.  Errors: CDR_E_INVALID for a header giop_header_parse() would
 * reject (OUT untouched). */
IIOP_API int giop_header_write(const giop_header *h, uint8_t out[GIOP_HEADER_SIZE]);

/* The message type's name as the spec spells it ("Request", ...), or
 * "unknown". */
IIOP_API const char *giop_msg_type_name(int type);

#ifdef __cplusplus
}
#endif
#endif
