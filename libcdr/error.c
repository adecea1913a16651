/* error.c - status strings and their CORBA system exceptions. */
#include "internal.h"

const char *cdr_strerror(int status)
{
  switch (status) {
  case CDR_OK: return "success";
  case CDR_E_SHORT: return "input ends before the item is complete";
  case CDR_E_LENGTH: return "length or count exceeds the bytes that remain";
  case CDR_E_LIMIT: return "configured limit exceeded";
  case CDR_E_VALUE: return "value outside its type's domain";
  case CDR_E_STRING: return "string terminator rules broken";
  case CDR_E_CODESET: return "character invalid in its code set";
  case CDR_E_TAG: return "bad value tag, chunk length or end tag";
  case CDR_E_INDIRECTION: return "bad indirection";
  case CDR_E_TYPE: return "unknown or incompatible type";
  case CDR_E_NOMEM: return "out of memory";
  case CDR_E_STATE: return "operation not allowed in this state";
  case CDR_E_INVALID: return "invalid argument";
  case CDR_E_UNSUPPORTED: return "not supported";
  case CDR_E_IO: return "I/O error";
  case CDR_E_PROTOCOL: return "GIOP protocol error";
  case CDR_E_TIMEOUT: return "timed out";
  case CDR_E_TLS: return "TLS error";
  case CDR_E_CLOSED: return "connection closed";
  default: return "unknown error";
  }
}

const char *cdr_status_exception(int status)
{
  switch (status) {
  case CDR_OK: return NULL;
  case CDR_E_LIMIT: return "IMP_LIMIT";
  case CDR_E_CODESET: return "DATA_CONVERSION";
  case CDR_E_NOMEM: return "NO_MEMORY";
  case CDR_E_STATE: return "BAD_INV_ORDER";
  case CDR_E_INVALID: return "BAD_PARAM";
  case CDR_E_UNSUPPORTED: return "NO_IMPLEMENT";
  case CDR_E_IO: case CDR_E_CLOSED: case CDR_E_TLS: case CDR_E_PROTOCOL: return "COMM_FAILURE";
  case CDR_E_TIMEOUT: return "TIMEOUT";
  default: return "MARSHAL";
  }
}
