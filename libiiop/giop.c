/* giop.c - the GIOP message header. */
#include "config.h"
#include <string.h>
#include <iiop/giop.h>
#include "internal.h"

static int header_valid(const giop_header *h) { return iiop__header_valid(h); }

int giop_header_parse(const uint8_t *buf, size_t len, giop_header *h)
{
  return iiop__header_parse(buf, len, h);
}

int giop_header_write(const giop_header *h, uint8_t out[GIOP_HEADER_SIZE])
{
  if (!header_valid(h))
    return CDR_E_INVALID;
  memcpy(out, "GIOP", 4);
  out[4] = h->major;
  out[5] = h->minor;
  out[6] = h->flags;
  out[7] = h->type;
  iiop__store32(out + 8, h->size, h->flags & GIOP_FLAG_LITTLE_ENDIAN);
  return CDR_OK;
}

const char *giop_msg_type_name(int type)
{
  static const char *const names[] = {
    "Request", "Reply", "CancelRequest", "LocateRequest", "LocateReply",
    "CloseConnection", "MessageError", "Fragment"
  };
  return type >= 0 && type <= GIOP_FRAGMENT ? names[type] : "unknown";
}
