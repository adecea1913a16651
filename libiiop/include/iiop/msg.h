/* iiop/msg.h - GIOP messages 1.0-1.2 without I/O: encode into a CDR output
 * stream, parse from a complete message (OMG CORBA 3.x, Part 2, GIOP
 * chapter: "GIOP Message Formats", "Request Message", "Reply Message",
 * "CancelRequest", "LocateRequest", "LocateReply", "CloseConnection",
 * "MessageError", "Fragment"; "Service Context").
 *
 * Positions: a message is encoded into a cdr_out whose position 0 is the
 * first octet of the 12-octet GIOP header, so CDR alignment is relative to
 * the message start, as the spec requires.  A parsed message's body is a
 * cdr_in over the whole message with the position at the body, so body
 * alignment is right too.  A fragmented message must be reassembled first
 * (iiop/frag.h): its bodies concatenated, fragment headers removed.
 *
 * Memory: parsing stores pointers into the message buffer (operation names,
 * object keys, service context data) and allocates lists (service contexts)
 * from the caller's arena; the buffer and arena must outlive the parsed
 * message.  Encoding allocates only what the output stream grows by.
 */
#ifndef IIOP_MSG_H
#define IIOP_MSG_H

#include <stdbool.h>
#include <cdr/cdr.h>
#include <iiop/giop.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- service contexts */

#define GIOP_SC_CODE_SETS 1u          /* IOP::CodeSets */
#define GIOP_SC_BI_DIR_IIOP 5u
#define GIOP_SC_SENDING_CONTEXT_RUNTIME 6u

typedef struct giop_service_context {
  uint32_t id;
  uint32_t len;              /* octets of context_data (an encapsulation) */
  const uint8_t *data;
} giop_service_context;

typedef struct giop_sc_list {
  uint32_t n;
  giop_service_context *v;
} giop_sc_list;

/* The CodeSets service context's data: an encapsulation holding
 * CONV_FRAME::CodeSetContext { char_data, wchar_data }. */
typedef struct giop_codeset_context {
  uint32_t char_data;
  uint32_t wchar_data;
} giop_codeset_context;

/* Find the context with ID in L (the first one), or NULL. */
IIOP_API const giop_service_context *giop_sc_find(const giop_sc_list *l, uint32_t id);
/* Decode the CodeSets context C into *OUT (either byte order; octets after
 * the 12 are ignored).  Errors: CDR_E_SHORT (fewer than 12 octets),
 * CDR_E_VALUE (bad byte-order octet), CDR_E_INVALID (NULL); *OUT is
 * untouched on error. */
IIOP_API int giop_codeset_context_decode(const giop_service_context *c, giop_codeset_context *out) IIOP_WUR;
/* The BI_DIR_IIOP context's data (CORBA 3.x Part 2, 15.8.1 "Bi-Directional
 * IIOP"): an encapsulation holding IIOP::BiDirIIOPServiceContext
 * { sequence<ListenPoint { string host; unsigned short port; }> }: the
 * addresses, as its IORs carry them, that a client offering bidirectional
 * GIOP 1.2 lets the server reach over the connection the context came on.
 * HOST is NUL-terminated (no brackets added or removed). */
typedef struct giop_listen_point {
  const char *host;
  uint16_t port;
} giop_listen_point;
#define GIOP_LISTEN_POINTS_MAX 16  /* points one context may carry (more: CDR_E_LIMIT) */
#define GIOP_LISTEN_HOST_MAX 255   /* octets of one host name, NUL excluded */
/* Encode N points of P into BUF (CAP octets, the caller's): byte-order
 * octet (host order), padding, the count, each host as a CDR string and
 * its port; *LEN the octets written.  Errors: CDR_E_INVALID (a NULL
 * argument, an empty host or one over GIOP_LISTEN_HOST_MAX, N over
 * GIOP_LISTEN_POINTS_MAX), CDR_E_LIMIT (CAP too small: BUF partly
 * written); 8 + N * (GIOP_LISTEN_HOST_MAX + 9) octets always suffice. */
IIOP_API int giop_bidir_context_encode(const giop_listen_point *p, uint32_t n, uint8_t *buf,
                                       size_t cap, size_t *len) IIOP_WUR;
/* Decode the BI_DIR_IIOP context C (either byte order) into OUT (CAP
 * entries, the caller's), *N the count; the hosts are copied into arena A
 * (the caller's; they live as long as it).  Octets after the list are
 * ignored.  Errors: CDR_E_INVALID (a NULL argument), CDR_E_LIMIT (more
 * than CAP or GIOP_LISTEN_POINTS_MAX points, a host over
 * GIOP_LISTEN_HOST_MAX octets), the stream's errors for malformed data
 * (CDR_E_SHORT / CDR_E_LENGTH: truncated or a length past the end,
 * CDR_E_VALUE: a bad byte-order octet, an empty string, a string without its
 * NUL), CDR_E_NOMEM; *OUT and *N are unspecified on error. */
IIOP_API int giop_bidir_context_decode(const giop_service_context *c, cdr_arena *a,
                                       giop_listen_point *out, uint32_t cap, uint32_t *n)
  IIOP_WUR;
/* Encode a CodeSets context's data (12 octets: byte-order octet, padding,
 * two ulongs in host order) into OUT. */
IIOP_API void giop_codeset_context_encode(const giop_codeset_context *cs, uint8_t out[12]);

/* ---------------------------------------------------------------- target addresses */

enum { GIOP_KEY_ADDR = 0, GIOP_PROFILE_ADDR = 1, GIOP_REFERENCE_ADDR = 2 };

/* GIOP 1.2 TargetAddress (1.0/1.1 carry an object key only: KeyAddr). */
typedef struct giop_target {
  uint16_t disposition;      /* GIOP_KEY_ADDR, GIOP_PROFILE_ADDR, GIOP_REFERENCE_ADDR */
  const uint8_t *key;        /* KeyAddr: the object key */
  uint32_t key_len;
  uint32_t profile_tag;      /* ProfileAddr: an IOP::TaggedProfile */
  const uint8_t *profile;    /*   its profile_data (an encapsulation), not decoded */
  uint32_t profile_len;
  uint32_t profile_index;    /* ReferenceAddr: selected_profile_index */
  const uint8_t *ior;        /*   the IOR's CDR octets (type_id, profiles), not decoded */
  uint32_t ior_len;
} giop_target;

/* ---------------------------------------------------------------- headers */

/* Response flags of GIOP 1.2 (1.0/1.1 response_expected maps to
 * GIOP_RESPONSE_EXPECTED when true, 0 when false; encoding 1.0/1.1 sends
 * response_expected = bit 0 of the flags, so SYNC_WITH_SERVER is TRUE). */
enum {
  GIOP_RESPONSE_NONE = 0x00,            /* oneway, SYNC_NONE / SYNC_WITH_TRANSPORT */
  GIOP_RESPONSE_SYNC_WITH_SERVER = 0x01,
  GIOP_RESPONSE_EXPECTED = 0x03         /* two-way (SYNC_WITH_TARGET) */
};

typedef struct giop_request_header {
  uint32_t request_id;
  uint8_t response_flags;
  giop_target target;
  const char *operation;     /* NUL-terminated (inside the message when parsed) */
  uint32_t operation_len;    /* without the NUL */
  giop_sc_list contexts;
  const uint8_t *principal;  /* 1.0/1.1 requesting_principal (usually empty) */
  uint32_t principal_len;
} giop_request_header;

typedef enum giop_reply_status {
  GIOP_NO_EXCEPTION = 0,
  GIOP_USER_EXCEPTION = 1,
  GIOP_SYSTEM_EXCEPTION = 2,
  GIOP_LOCATION_FORWARD = 3,
  GIOP_LOCATION_FORWARD_PERM = 4,       /* GIOP 1.2 */
  GIOP_NEEDS_ADDRESSING_MODE = 5        /* GIOP 1.2 */
} giop_reply_status;

typedef struct giop_reply_header {
  uint32_t request_id;
  uint32_t reply_status;     /* giop_reply_status */
  giop_sc_list contexts;
} giop_reply_header;

typedef enum giop_locate_status {
  GIOP_UNKNOWN_OBJECT = 0,
  GIOP_OBJECT_HERE = 1,
  GIOP_OBJECT_FORWARD = 2,
  GIOP_OBJECT_FORWARD_PERM = 3,         /* GIOP 1.2 */
  GIOP_LOC_SYSTEM_EXCEPTION = 4,        /* GIOP 1.2 */
  GIOP_LOC_NEEDS_ADDRESSING_MODE = 5    /* GIOP 1.2 */
} giop_locate_status;

typedef struct giop_locate_request_header {
  uint32_t request_id;
  giop_target target;
} giop_locate_request_header;

typedef struct giop_locate_reply_header {
  uint32_t request_id;
  uint32_t locate_status;    /* giop_locate_status */
} giop_locate_reply_header;

/* A system exception's body (CORBA 3.x "Reply Message", SYSTEM_EXCEPTION):
 * the repository ID string, ulong minor code, ulong completion status. */
typedef enum giop_completion {
  GIOP_COMPLETED_YES = 0, GIOP_COMPLETED_NO = 1, GIOP_COMPLETED_MAYBE = 2
} giop_completion;

typedef struct giop_system_exception {
  const char *repo_id;       /* "IDL:omg.org/CORBA/MARSHAL:1.0" */
  uint32_t minor;
  uint32_t completed;        /* giop_completion */
} giop_system_exception;

/* OMG vendor minor code set ID: standard minor codes are 0x4f4d0000 | n. */
#define GIOP_OMGVMCID 0x4f4d0000u

/* The repository ID of the standard system exception NAME ("MARSHAL",
 * "COMM_FAILURE", ...) as "IDL:omg.org/CORBA/NAME:1.0", or NULL if NAME is
 * not a standard system exception.  The string is static. */
IIOP_API const char *giop_system_exception_id(const char *name);
/* The bare name of a standard system exception's repository ID, or NULL. */
IIOP_API const char *giop_system_exception_name(const char *repo_id, size_t len);

/* A parsed message.  body is positioned at the message body (GIOP 1.2:
 * aligned on 8 when a body exists); reading it uses the message's byte
 * order, GIOP version and the code sets given to giop_parse(). */
typedef struct giop_message {
  giop_header hdr;
  union {
    giop_request_header request;
    giop_reply_header reply;
    giop_locate_request_header locate_request;
    giop_locate_reply_header locate_reply;
    uint32_t cancel_request_id;          /* CancelRequest */
    uint32_t fragment_request_id;        /* Fragment (1.2) */
  } u;
  cdr_in body;
} giop_message;

/* Parse the complete (reassembled) message of LEN octets at BUF: the
 * 12-octet header, then the header of its type, leaving m->body at the
 * body.  OPTS gives code sets and limits for the body (NULL: defaults; its
 * giop version and byte order are taken from the message).  Lists go into
 * ARENA (also set as the body's arena); ARENA may be NULL for a message
 * without service contexts (CDR_E_STATE otherwise).  Reserved octets (GIOP
 * 1.1/1.2 Request) are ignored.  A GIOP 1.2 Request/Reply body is aligned
 * on 8 only when octets follow the message header; a LocateReply body
 * follows its header unaligned in every version (CORBA 3.0 15.4.6.2, as
 * TAO, omniORB and the Java ORB do).  Octets after a header-only message
 * are left in the body.  Errors: CDR_E_PROTOCOL (the header: LEN < 12, bad
 * magic, version, flags or type, LEN not 12 + message_size, a Fragment or
 * more-fragments flag given here); CDR_E_SHORT / CDR_E_LENGTH /
 * CDR_E_VALUE / CDR_E_STRING / CDR_E_LIMIT (a malformed message header:
 * MARSHAL), with the body stream holding the error and its offset;
 * CDR_E_NOMEM; CDR_E_INVALID (bad OPTS, NULL BUF).  m->body always holds
 * the status returned. */
IIOP_API int giop_parse(giop_message *m, const uint8_t *buf, size_t len, const cdr_opts *opts,
                        cdr_arena *arena) IIOP_WUR;

/* ---------------------------------------------------------------- encoding
 * Each giop_begin_* writes the 12-octet GIOP header (message_size left 0,
 * byte order from the stream) and the message header into O, which must be
 * empty (position 0) and whose opts give the GIOP version (giop_minor).
 * The caller then writes the body (for Request and Reply bodies call
 * giop_begin_body() first: GIOP 1.2 aligns a body on 8; a LocateReply body
 * is written right after its header, unaligned) and ends with giop_end(),
 * which patches message_size.  Reserved octets are written as zero.
 * Errors are the stream's (cdr_out_status): CDR_E_INVALID for a header
 * this version cannot carry (a non-KeyAddr target in 1.0/1.1, LocateReply
 * status > 2 in 1.0/1.1 or > 5, a reply status > 3 in 1.0/1.1 or > 5) or a
 * malformed one (NULL operation, NULL data with a non-zero length, an
 * unknown disposition, a ReferenceAddr IOR under 12 octets); CDR_E_STATE
 * when O is not empty; nothing is written on these errors. */
IIOP_API int giop_begin_request(cdr_out *o, const giop_request_header *h);
IIOP_API int giop_begin_reply(cdr_out *o, const giop_reply_header *h);
IIOP_API int giop_begin_locate_request(cdr_out *o, const giop_locate_request_header *h);
IIOP_API int giop_begin_locate_reply(cdr_out *o, const giop_locate_reply_header *h);
IIOP_API int giop_begin_cancel_request(cdr_out *o, uint32_t request_id);
IIOP_API int giop_begin_close_connection(cdr_out *o);
IIOP_API int giop_begin_message_error(cdr_out *o);
/* GIOP 1.2: pad to 8 (relative to the message start); 1.0/1.1: nothing. */
IIOP_API void giop_begin_body(cdr_out *o);
/* Write a system exception body (repository ID, minor, completed).  The
 * ID is UTF-8 whatever the native code set, converted to the transmission
 * code set (cdr_put_string_utf8()); CDR_E_INVALID: no ID, or a completion
 * status above 2. */
IIOP_API void giop_put_system_exception(cdr_out *o, const giop_system_exception *e);
/* Read one from a body; repo_id is UTF-8 (cdr_get_string_utf8()): it
 * points into the message, or at a converted copy in the stream's arena
 * when the transmission code set is ISO-8859-1 and the ID is not ASCII.
 * Errors: the stream's (a completion status above 2 is CDR_E_VALUE; that
 * ID without an arena is CDR_E_STATE); *E is untouched on error. */
IIOP_API int giop_get_system_exception(cdr_in *i, giop_system_exception *e) IIOP_WUR;
/* Patch message_size: cdr_out_total() - 12, so that a stream holding
 * by-reference segments (cdr_out_set_gather()) counts them; such a message
 * is sent as cdr_out_iov() lists it.  Errors: the stream's status; CDR_E_LIMIT when the
 * message exceeds 4 GiB - 1 octets; CDR_E_STATE without a GIOP header. */
IIOP_API int giop_end(cdr_out *o);

/* Rewrite, in a Request or Reply that O holds (begun with an empty service
 * context list in GIOP 1.0/1.1, where the list comes first), the request
 * ID (4 octets at 12 in GIOP 1.2, at 16 in 1.0/1.1) or the reply status
 * (at 16 in 1.2, at 20 in 1.0/1.1), in the stream's byte order; nothing
 * else moves, so a message can be prepared once and reissued, or a reply
 * written before the operation's outcome is known.  Errors: CDR_E_STATE
 * (O holds no such message: another type, a service context in 1.0/1.1, or
 * too few octets), the stream's status (nothing is written then). */
IIOP_API int giop_patch_request_id(cdr_out *o, uint32_t request_id) IIOP_WUR;
IIOP_API int giop_patch_reply_status(cdr_out *o, uint32_t reply_status) IIOP_WUR;

/* The request ID of the complete message of LEN octets at BUF, without
 * parsing the rest and without an arena (a GIOP 1.0/1.1 Request's or
 * Reply's service contexts, which come first, are skipped): Request, Reply,
 * CancelRequest, LocateRequest, LocateReply, and a GIOP 1.2 Fragment.
 * Errors: CDR_E_PROTOCOL (the GIOP header is malformed, or the ID, or the
 * contexts before it, do not fit in LEN), CDR_E_INVALID (a message type
 * with no request ID: CloseConnection, MessageError, a GIOP 1.1 Fragment;
 * a NULL argument); *ID is untouched on error. */
IIOP_API int giop_peek_request_id(const uint8_t *buf, size_t len, uint32_t *id) IIOP_WUR;

#ifdef __cplusplus
}
#endif
#endif
