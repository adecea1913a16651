/* error.c - the status table of cdr/error.h: messages, CORBA system
 * exceptions and OMG minor codes. */
#include "internal.h"

typedef struct status_row {
  int value;
  const char *message;
  const char *exception;
  uint32_t minor;
} status_row;

static const status_row rows[] = {
#define ROW(name, value, message, exception, minor) { value, message, exception, minor },
  CDR_STATUS_MAP(ROW)
#undef ROW
};

#define NROWS (sizeof rows / sizeof rows[0])

/* The row of STATUS, or NULL.  Values run from 0 down without gaps, so
 * that the row of S is rows[-S]. */
static const status_row *row_of(int status)
{
  if (status > 0 || status < -(int)(NROWS - 1))
    return NULL;
  const status_row *r = &rows[-status];
  return r->value == status ? r : NULL;
}

const char *cdr_strerror(int status)
{
  const status_row *r = row_of(status);
  return r ? r->message : "unknown error";
}

const char *cdr_status_exception(int status)
{
  const status_row *r = row_of(status);
  return r ? r->exception : "MARSHAL";
}

uint32_t cdr_status_minor(int status)
{
  const status_row *r = row_of(status);
  return r ? r->minor : 0;
}
