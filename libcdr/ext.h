/* ext.h - hooks between the streams and the modules that keep per-stream
 * state (value graphs) or convert data (code sets, numbers). Internal. */
#ifndef CDR_EXT_H
#define CDR_EXT_H

#include "internal.h"
#include <cdr/out.h>
#include <cdr/in.h>

/* Per-stream state hung on cdr_out.ext / cdr_in.ext.  reset empties it for
 * a stream reset; release gives its memory back (stream close). */
typedef struct cdr__ext {
  void (*reset)(void *self);
  void (*release)(void *self);
} cdr__ext;

CDR_HIDDEN int cdr__opts_check(const cdr_opts *o);
/* The default options, made once. */
CDR_HIDDEN const cdr_opts *cdr__opts_defaults(void);
/* Move to the next chunk of a chunked value's state (see in.c). */
CDR_HIDDEN int cdr__chunk_next(cdr_in *i);
CDR_HIDDEN void cdr__swap_copy(uint8_t *dst, const uint8_t *src, size_t n, size_t esize);

/* Free the calling thread's pooled value states (cdr_pool_flush). */
CDR_HIDDEN void cdr__value_pool_flush(void);

/* Strings whose native and transmission code sets differ. */
CDR_HIDDEN void cdr__put_string_convert(cdr_out *o, const char *s, size_t len);
/* Copy wire string V (N octets) converted to the native code set into the
 * arena; NULL with the error recorded. */
CDR_HIDDEN char *cdr__get_string_convert(cdr_in *i, const char *v, uint32_t n, uint32_t *len);

#endif
