/* iiop/frag.h - GIOP fragmentation and reassembly without I/O (OMG CORBA
 * 3.x, Part 2, GIOP chapter, "Fragment Message").
 *
 * Sending: giop_fragmenter splits a complete encoded message into a first
 * message carrying the more-fragments flag and Fragment messages, as iovecs
 * that point into the message (no copy) plus small headers it owns.  GIOP
 * 1.2 (the default): each Fragment header carries the request ID (16
 * octets); every fragment message but the last is a multiple of 8 octets in
 * all (12-octet header included), so no primitive of 8 octets or less is
 * split and alignment continues across fragments.  GIOP 1.1: Fragment
 * headers of 12 octets without a request ID, split at stream positions that
 * are 4 mod 8 (every non-final fragment message is 4 mod 8 octets), so that
 * fragment data has the same alignment whether a receiver aligns relative to
 * the continued stream or to each Fragment message (as the Eclipse ORB
 * does); an 8-octet primitive may then straddle a split (ulong and smaller
 * never do).  GIOP 1.0 has no fragments.
 *
 * Receiving: giop_reasm is fed bytes in any chunks (as a socket delivers
 * them) and yields whole messages; a fragmented message comes out as one
 * message (its header's more-fragments flag cleared and message_size the
 * total) whose body is the concatenation of the fragments' bodies, so a
 * cdr_in over it reads positions that exclude fragment headers, as value
 * indirections need.  GIOP 1.2 fragments of different requests may
 * interleave; GIOP 1.1 allows one fragmented message at a time.  A cap on
 * one message's total size is checked on the running total (before any
 * buffer grows) and on every header's message_size.
 *
 * Neither object is thread-safe; use one per connection direction.
 */
#ifndef IIOP_FRAG_H
#define IIOP_FRAG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <cdr/cdr.h>
#include <iiop/giop.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- fragmenter */

#define GIOP_FRAG_DEFAULT 8192u      /* octets per fragment message, as omniORB */
#define GIOP_FRAG_MIN 64u
/* With no fragment size set (iiop_client_opts / iiop_server_opts
 * fragment_size 0, the default), a connection sends a complete message of
 * up to this many octets (12-octet header included) as one unfragmented
 * GIOP message, its by-reference pieces gathered from the caller's memory,
 * and only a larger one in GIOP_FRAG_DEFAULT fragments: 2 MiB, omniORB's
 * default giopMaxMsgSize, the most a default omniORB peer takes anyway. */
#define GIOP_WHOLE_DEFAULT ((size_t)2 << 20)

typedef struct giop_fragmenter {
  /* private */
  const uint8_t *msg;
  size_t len, pos;
  size_t frag_size;
  uint32_t request_id;
  uint8_t minor, flags, first_done, done;
  uint8_t hdr[16];
  const struct iovec *segs;  /* giop_fragmenter_init_iov(): the message's pieces */
  int nseg, si;              /*   how many; the one the next data starts in */
  size_t sbase;              /*   message offset of segs[si] */
} giop_fragmenter;

/* Prepare to split the complete message MSG (LEN octets, its 12-octet
 * header included, message_size = LEN - 12) into fragment messages of at
 * most FRAG_SIZE octets (rounded down to a multiple of 8, at least
 * GIOP_FRAG_MIN; 0: GIOP_FRAG_DEFAULT).  REQUEST_ID goes into GIOP 1.2
 * Fragment headers (the message's own request ID).  MSG must stay valid and
 * unchanged until the last giop_fragmenter_next().  The first fragment's
 * header is written into the fragmenter (MSG itself is not modified).
 * Errors: CDR_E_INVALID (LEN < 12, not a GIOP 1.1/1.2 message that may be
 * fragmented: Request, Reply, and in 1.2 also LocateRequest, LocateReply;
 * the more-fragments flag already set), CDR_E_PROTOCOL (message_size does
 * not match LEN).  *F is untouched on error. */
IIOP_API int giop_fragmenter_init(giop_fragmenter *f, const uint8_t *msg, size_t len,
                                  size_t frag_size, uint32_t request_id) IIOP_WUR;

/* As giop_fragmenter_init(), for a message given as the NSEG pieces of
 * SEGS (LEN octets in all; a gather list such as cdr_out_iov() gives),
 * the first piece holding at least the 12-octet header.  SEGS and what it
 * points to must stay valid and unchanged until the last
 * giop_fragmenter_nextv().  Errors: as giop_fragmenter_init(); also
 * CDR_E_INVALID when NSEG < 1, the first piece is shorter than 12 octets
 * or the pieces do not add up to LEN. */
IIOP_API int giop_fragmenter_init_iov(giop_fragmenter *f, const struct iovec *segs, int nseg,
                                      size_t len, size_t frag_size, uint32_t request_id) IIOP_WUR;

/* The next fragment message of a fragmenter set up by
 * giop_fragmenter_init_iov(), as IOV[0..*N): a header the fragmenter owns
 * (valid until the next call; absent when the message goes whole), then
 * the data as pieces of SEGS (a fragment's data may span several).  MAX
 * must be at least NSEG + 1.  Returns 1 with a fragment, 0 when all have
 * been given, CDR_E_INVALID (MAX too small, or a fragmenter not set up by
 * giop_fragmenter_init_iov()). */
IIOP_API int giop_fragmenter_nextv(giop_fragmenter *f, struct iovec *iov, int max, int *n)
  IIOP_WUR;

/* Up to NH fragment messages of a fragmenter set up by
 * giop_fragmenter_init_iov(), for one gather write: each one's header
 * (12 octets in GIOP 1.1, 16 in 1.2) is written into HDR[i] (the caller's,
 * valid as long as it keeps them) and IOV[0..*N) holds header, data pieces,
 * header, data pieces..., the same octets as that many
 * giop_fragmenter_nextv() calls give.  Stops early where the next fragment
 * might not fit in MAX entries (MAX >= NSEG + 1 always gives at least one).
 * Returns the number of fragments (0: all have been given) or
 * CDR_E_INVALID (NH < 1, MAX too small, or not set up by
 * giop_fragmenter_init_iov()). */
IIOP_API int giop_fragmenter_nextv_batch(giop_fragmenter *f, uint8_t (*hdr)[16], int nh,
                                         struct iovec *iov, int max, int *n) IIOP_WUR;

/* The next fragment message as IOV[0..*N) (at most 2 entries: a header the
 * fragmenter owns, valid until the next call, and data inside MSG).
 * Returns 1 with a fragment, 0 when all have been given.  A message that
 * fits in FRAG_SIZE comes out whole, unchanged, as one fragment. */
IIOP_API int giop_fragmenter_next(giop_fragmenter *f, struct iovec iov[2], int *n) IIOP_WUR;

/* ---------------------------------------------------------------- reassembler */

typedef struct giop_reasm giop_reasm;

/* Message buffers of more than this many octets are charged to a memory
 * budget (giop_reasm_opts.charge). */
#define GIOP_REASM_CHARGE_ABOVE ((size_t)65536)

typedef struct giop_reasm_opts {
  size_t max_message;        /* most octets one (reassembled) message may have,
                              * 12-octet header included (default 64 MiB) */
  size_t max_fragmented;     /* most octets of a fragmented message in all, its first
                              * message and every Fragment (0, the default: max_message;
                              * never more than it) */
  uint32_t max_pending;      /* GIOP 1.2 fragmented messages in progress at once (default 64) */
  const cdr_allocator *alloc;/* NULL: global */
  /* A memory budget (both NULL, the default: none).  Before a message
   * buffer grows past GIOP_REASM_CHARGE_ABOVE octets, charge(charge_ud, N)
   * is asked for the N octets it grows by (the first time: its whole
   * size); CDR_OK grants them, any other status refuses.  A buffer's
   * charge is given back with uncharge(charge_ud, N) when the buffer is
   * freed (released buffers kept for reuse stay charged).  A refusal in
   * giop_reasm_buffer() is returned as it is and is not sticky: nothing
   * changed, the call may be repeated, or the message dropped with
   * giop_reasm_skip_current().  A refusal in giop_reasm_commit() of octets
   * read into the buffer for a message start (Fragments of a message whose
   * buffer must grow) is not sticky either: the octets not yet stored are
   * held back, and the next giop_reasm_buffer() stores them first.  A
   * refusal while octets must be stored at once (giop_reasm_feed(), a
   * commit of octets read into a message's own buffer) is sticky, as any
   * error. */
  int (*charge)(void *ud, size_t n);
  void (*uncharge)(void *ud, size_t n);
  void *charge_ud;
} giop_reasm_opts;

IIOP_API void giop_reasm_opts_default(giop_reasm_opts *o);

/* A new reassembler (NULL on allocation failure); OPTS NULL: defaults. */
IIOP_API giop_reasm *giop_reasm_new(const giop_reasm_opts *opts) IIOP_WUR;
/* Free R and every buffer it holds (also messages taken and not released). */
IIOP_API void giop_reasm_free(giop_reasm *r);

/* Feed LEN octets.  They are copied (a message is assembled in a buffer
 * from the pool; an unfragmented message is one copy, from the read buffer
 * to the message buffer).  Returns CDR_OK; or the first error, after which
 * R accepts nothing more (the connection should send MessageError and
 * close): CDR_E_PROTOCOL (bad magic/version/type/flags; a Fragment with no
 * fragmented message pending for its request ID (1.2) or at all (1.1); a
 * non-final fragment message whose total is not a multiple of 8 (1.2); a
 * fragment whose byte order or version differs from its first message; a
 * new fragmented 1.2 message reusing a pending request ID; more than
 * max_pending), CDR_E_LIMIT (message_size or the running total of a
 * fragmented message over max_message: what was buffered for it is freed),
 * CDR_E_NOMEM.  On any error every incomplete message is freed; messages
 * completed before it can still be taken with giop_reasm_next(). */
IIOP_API int giop_reasm_feed(giop_reasm *r, const void *data, size_t len) IIOP_WUR;

/* Zero-copy feeding for sockets: a buffer of *ROOM octets (at least 1) to
 * read into, then giop_reasm_commit() with the count read (0 to N <= *ROOM).
 * At a message start the buffer is one that becomes the message when the
 * read holds nothing past it; inside a message it is the message's own
 * buffer (ROOM never reaches past the current part).  Same errors, plus
 * CDR_E_INVALID (not sticky) when N exceeds the reservation or there is none
 * (giop_reasm_feed() cancels one).  giop_reasm_cancel() in between is safe:
 * the buffer stays valid until the commit, which then discards the octets.
 * Octets a refused charge held back (giop_reasm_opts.charge) are stored by
 * giop_reasm_buffer() before it reserves: they may complete a message, so
 * after a refused commit call giop_reasm_next() once the buffer is given (a
 * peer waiting for its answer sends nothing more), and end the reservation
 * with giop_reasm_commit(R, 0) if no octets are to be read. */
IIOP_API int giop_reasm_buffer(giop_reasm *r, uint8_t **buf, size_t *room) IIOP_WUR;
IIOP_API int giop_reasm_commit(giop_reasm *r, size_t n);

/* As giop_reasm_buffer(), as a scatter list: *N (1 to MAX) iovecs to read
 * into with one readv()/recvmsg(), then giop_reasm_commit() with the count
 * read (at most the lists' total).  Where a GIOP 1.2 message arrives in
 * Fragments of one size (every non-final Fragment of a message is, with
 * our fragmenter and omniORB's), the list puts the next Fragments' 16-octet
 * headers into slots of R and their data straight at their final place in
 * the message buffer: the commit checks each header that arrived (type
 * Fragment, version, flags, byte order, request ID, size as predicted, or
 * a final Fragment no longer) and copies nothing where they are as
 * predicted; from the first one that is not, the octets are moved and
 * processed as giop_reasm_buffer()'s would be: results and errors are the
 * same.  At most GIOP_REASM_PRED_MAX Fragments and 131072 octets a list;
 * MAX < 3 gives one iovec, never predicted.  MAX >= GIOP_REASM_IOV_MAX
 * always suffices.  Errors: those of giop_reasm_buffer(), CDR_E_INVALID
 * (MAX < 1); *N is 0 then. */
#define GIOP_REASM_PRED_MAX 128
#define GIOP_REASM_IOV_MAX (1 + 2 * GIOP_REASM_PRED_MAX)
IIOP_API int giop_reasm_bufferv(giop_reasm *r, struct iovec *iov, int max, int *n) IIOP_WUR;

/* A complete message, oldest first: *MSG and *LEN (12-octet header
 * included).  Returns 1, or 0 when none is complete.  The buffer stays
 * valid until giop_reasm_release(R, *MSG). */
IIOP_API int giop_reasm_next(giop_reasm *r, uint8_t **msg, size_t *len);
IIOP_API void giop_reasm_release(giop_reasm *r, uint8_t *msg);
/* 1 when a complete message is buffered (giop_reasm_next() would return
 * one), else 0.  Reads nothing, changes nothing. */
IIOP_API int giop_reasm_ready(const giop_reasm *r);

/* Drop the fragments buffered for the GIOP 1.2 message REQUEST_ID (a
 * CancelRequest arrived; the rest of a Fragment being received is skipped,
 * and a later Fragment for it is CDR_E_PROTOCOL); returns 1 if there were
 * some.  A GIOP 1.1 fragmented message, having no request ID in its
 * Fragments, is not cancelled. */
IIOP_API int giop_reasm_cancel(giop_reasm *r, uint32_t request_id);

/* Octets buffered in incomplete messages (for tests and limits). */
IIOP_API size_t giop_reasm_pending_bytes(const giop_reasm *r);

/* After giop_reasm_feed() (or a commit) failed with CDR_E_PROTOCOL for a
 * message header: the GIOP minor version to send MessageError in (CORBA
 * 3.x GIOP, MessageError: a reply to a malformed message): the refused
 * header's own version when it is 1.0, 1.1 or 1.2 (a 1.0 header of a type
 * 1.0 lacks is answered in 1.0), 2 for a later one ("GIOP" 1.3 and up, or
 * major 2 and up: the highest version ours speaks below it).  -1 when no
 * such error, or the refused octets give no version (no "GIOP" magic,
 * major 0, an error in a Fragment's body): the caller's own (the version
 * of the last good message).  Reads nothing else, changes nothing. */
IIOP_API int giop_reasm_error_minor(const giop_reasm *r);

/* After giop_reasm_feed() (or a commit) failed with CDR_E_PROTOCOL or
 * CDR_E_LIMIT: what was refused, in words, for a log or an exception's
 * reason: "not GIOP: the stream begins 48 54 54 50 ("HTTP")" (octets that
 * cannot begin a GIOP header: no "GIOP" magic), "GIOP 9.9, a version this
 * ORB does not speak", "a malformed GIOP 1.2 message (type 9, flags
 * 0x00)" (an unknown message type, or flags or a size the type cannot
 * have), "a GIOP message of 2147483659 octets, over the limit of 67108864"
 * (max_message; the header's message_size plus its 12 octets), "a
 * fragmented GIOP message over the limit of N octets" (max_fragmented), "a
 * malformed GIOP message" (a fault found in a Fragment's body); the empty
 * string when nothing was refused (a charge refusal is not sticky and not
 * told here).  Copies at most CAP - 1 characters and a NUL into BUF (BUF
 * may be NULL with CAP 0); returns the text's whole length (less than
 * GIOP_REASM_TEXT_MAX).  Reads nothing else, changes nothing. */
#define GIOP_REASM_TEXT_MAX 96
IIOP_API size_t giop_reasm_error_text(const giop_reasm *r, char *buf, size_t cap);

/* Where the reader stands (a server times each phase):
 * GIOP_REASM_EMPTY: no octet of an incomplete message is buffered (between
 * messages); GIOP_REASM_HEADER: part of a 12-octet header (or of a GIOP 1.2
 * fragment's 16) has arrived; GIOP_REASM_BODY: a header is complete and its
 * body is not, or a fragmented message awaits further Fragments. */
enum { GIOP_REASM_EMPTY, GIOP_REASM_HEADER, GIOP_REASM_BODY };
IIOP_API int giop_reasm_phase(const giop_reasm *r);

/* The message being received, as far as it has arrived: *MSG and *LEN
 * (its 12-octet header first; for a fragmented message the first message's
 * header, still with the more-fragments flag).  Returns 1 for an
 * unfragmented message, 2 for a fragmented one, 0 when no message body is
 * being received (or after an error).  Valid until the next call on R. */
IIOP_API int giop_reasm_current(const giop_reasm *r, const uint8_t **msg, size_t *len);

/* Drop the message being received (a budget refused it): its buffer is
 * freed and the rest of its octets -- a fragmented message's later
 * Fragments too -- are skipped as they arrive.  Errors: CDR_E_STATE (no
 * message body being received).  A reservation from giop_reasm_buffer()
 * must not be open. */
IIOP_API int giop_reasm_skip_current(giop_reasm *r) IIOP_WUR;

#ifdef __cplusplus
}
#endif
#endif
