/* giop.c - the GIOP message header. */
#include "config.h"
#include <string.h>
#include <iiop/giop.h>
#include "internal.h"

static int header_valid(const giop_header *h)
{
  if (h->major != 1 || h->minor > 2 || h->type > GIOP_FRAGMENT)
    return 0;
  if (h->minor == 0)
    return h->type != GIOP_FRAGMENT && h->flags <= 1;
  return (h->flags & ~(GIOP_FLAG_LITTLE_ENDIAN | GIOP_FLAG_MORE_FRAGMENTS)) == 0;
}

int giop_header_parse(const uint8_t *buf, size_t len, giop_header *h)
{
  if (len < GIOP_HEADER_SIZE)
    return CDR_E_SHORT;
  if (memcmp(buf, "GIOP", 4) != 0)
    return CDR_E_PROTOCOL;
  giop_header t;
  t.major = buf[4];
  t.minor = buf[5];
  t.flags = buf[6];
  t.type = buf[7];
  if (!header_valid(&t))
    return CDR_E_PROTOCOL;
  t.size = iiop__load32(buf + 8, t.flags & GIOP_FLAG_LITTLE_ENDIAN);
  *h = t;
  return CDR_OK;
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
