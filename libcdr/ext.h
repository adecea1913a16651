/* ext.h - hooks between the streams' pools and value graphs.  Internal. */
#ifndef CDR_EXT_H
#define CDR_EXT_H

#include "stream_impl.h"

/* Free the calling thread's pooled value states (cdr_pool_flush). */
CDR_HIDDEN void cdr__value_pool_flush(void);

#endif
