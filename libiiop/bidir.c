#include "config.h"
/* bidir.c - the BI_DIR_IIOP service context of bidirectional GIOP 1.2
 * (CORBA 3.x Part 2, 15.8 "Bi-Directional GIOP", 15.8.1): its encoding and
 * decoding.  The connection side of bidirectional GIOP -- requests read on
 * a client's connection, replies read on a server's -- is in client.c and
 * server.c (the blocks marked "bidirectional GIOP"). */
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include "internal.h"

int giop_bidir_context_encode(const giop_listen_point *p, uint32_t n, uint8_t *buf, size_t cap,
                              size_t *len)
{
  if ((!p && n) || !buf || !len || n > GIOP_LISTEN_POINTS_MAX)
    return CDR_E_INVALID;
  for (uint32_t k = 0; k < n; k++) {
    size_t hl = p[k].host ? strlen(p[k].host) : 0;
    if (hl == 0 || hl > GIOP_LISTEN_HOST_MAX)
      return CDR_E_INVALID;
  }
  int little = CDR_HOST_ORDER == CDR_LITTLE_ENDIAN;
  size_t pos = 0;
  if (cap < 8)
    return CDR_E_LIMIT;
  buf[0] = (uint8_t)CDR_HOST_ORDER;  /* byte-order octet, padding to 4 */
  buf[1] = buf[2] = buf[3] = 0;
  iiop__store32(buf + 4, n, little);
  pos = 8;
  for (uint32_t k = 0; k < n; k++) {
    size_t hl = strlen(p[k].host);
    /* string: aligned on 4 (pos is), length with the NUL, octets, NUL;
     * then the ushort aligned on 2, and the next string aligned on 4. */
    size_t need = 4 + hl + 1;
    size_t port_at = (pos + need + 1) & ~(size_t)1;
    if (port_at + 2 > cap)
      return CDR_E_LIMIT;
    iiop__store32(buf + pos, (uint32_t)(hl + 1), little);
    memcpy(buf + pos + 4, p[k].host, hl + 1);
    memset(buf + pos + need, 0, port_at - pos - need);
    buf[port_at + (little ? 0 : 1)] = (uint8_t)p[k].port;
    buf[port_at + (little ? 1 : 0)] = (uint8_t)(p[k].port >> 8);
    pos = port_at + 2;
    if (k + 1 < n) {
      size_t next = (pos + 3) & ~(size_t)3;
      if (next > cap)
        return CDR_E_LIMIT;
      memset(buf + pos, 0, next - pos);
      pos = next;
    }
  }
  *len = pos;
  return CDR_OK;
}

int giop_bidir_context_decode(const giop_service_context *c, cdr_arena *a, giop_listen_point *out,
                              uint32_t cap, uint32_t *n)
{
  if (!c || !a || !n || (!out && cap) || (!c->data && c->len))
    return CDR_E_INVALID;
  if (c->len < 1)
    return CDR_E_SHORT;
  cdr_opts o;
  cdr_opts_default(&o);
  o.max_string = GIOP_LISTEN_HOST_MAX + 1;
  cdr_in i;
  int rc = cdr_in_init_encap(&i, c->data, c->len, &o);
  if (rc != CDR_OK) {
    cdr_in_close(&i);
    return rc;
  }
  cdr_in_set_arena(&i, a);
  uint32_t cnt = cdr_get_ulong(&i);
  if (cdr_in_status(&i) == CDR_OK && (cnt > cap || cnt > GIOP_LISTEN_POINTS_MAX))
    rc = CDR_E_LIMIT;
  for (uint32_t k = 0; rc == CDR_OK && cdr_in_status(&i) == CDR_OK && k < cnt; k++) {
    uint32_t hl = 0;
    char *h = cdr_get_string(&i, &hl);
    uint16_t port = cdr_get_ushort(&i);
    if (cdr_in_status(&i) != CDR_OK)
      break;
    if (!h || hl == 0 || hl > GIOP_LISTEN_HOST_MAX) {
      rc = hl > GIOP_LISTEN_HOST_MAX ? CDR_E_LIMIT : CDR_E_VALUE;
      break;
    }
    out[k].host = h;
    out[k].port = port;
  }
  if (rc == CDR_OK)
    rc = cdr_in_status(&i);
  cdr_in_close(&i);
  if (rc == CDR_OK)
    *n = cnt;
  return rc;
}
