/* stream.c - what the output and input streams share: their options, the
 * defaults and the check of a caller's. */
#include "stream_impl.h"
#include <cdr/codeset.h>

/* The defaults, constant so that any thread may read them. */
static const cdr_opts default_opts = {
  .byte_order = CDR_HOST_ORDER,
  .giop_major = 1,
  .giop_minor = 2,
  .tcs_c = CDR_CS_ISO8859_1,
  .ncs_c = CDR_CS_ISO8859_1,
  .tcs_w = CDR_CS_UTF16,
  .max_string = 64u << 20,
  .max_seq = 16u << 20,
  .max_depth = 64,
  .max_size = (size_t)1 << 30,
  .flags = 0,
  .alloc = NULL,
};

void cdr_opts_default(cdr_opts *o)
{
  *o = default_opts;
}

const cdr_opts *cdr__opts_defaults(void)
{
  return &default_opts;
}

int cdr__opts_check(const cdr_opts *o)
{
  if (o->byte_order > 1 || o->giop_major != 1 || o->giop_minor > 2)
    return CDR_E_INVALID;
  if (o->tcs_c != CDR_CS_ISO8859_1 && o->tcs_c != CDR_CS_UTF8)
    return CDR_E_INVALID;
  if (o->ncs_c != CDR_CS_ISO8859_1 && o->ncs_c != CDR_CS_UTF8)
    return CDR_E_INVALID;
  if (o->tcs_w != 0 && o->tcs_w != CDR_CS_UTF16 && o->tcs_w != CDR_CS_UCS2)
    return CDR_E_INVALID;
  return CDR_OK;
}
