/* stream.c - what the output and input streams share: their options, the
 * defaults and the check of a caller's. */
#include "stream_impl.h"
#include <cdr/codeset.h>

void cdr_opts_default(cdr_opts *o)
{
  *o = cdr__opts_defaults;
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
