/* ior_any.c - iiop_ior <-> cdr_ior (iiop/ior_any.h): one form written, the
 * other read from the octets, copied into the caller's arena. */
#include <string.h>
#include <iiop/ior_any.h>

/* The octets of O (status checked) copied into A, as an input stream I. */
static int reopen(cdr_out *o, cdr_arena *a, cdr_in *i)
{
  int st = cdr_out_status(o);
  if (st != CDR_OK) {
    cdr_out_close(o);
    return st;
  }
  size_t n = cdr_out_size(o);
  uint8_t *d = cdr_arena_alloc(a, n ? n : 1, 8);
  if (!d) {
    cdr_out_close(o);
    return CDR_E_NOMEM;
  }
  memcpy(d, cdr_out_data(o), n);
  cdr_opts op = o->opts;
  cdr_out_close(o);
  cdr_in_init(i, d, n, op.byte_order, &op);
  cdr_in_set_arena(i, a);
  return CDR_OK;
}

int iiop_ior_to_cdr(const iiop_ior *ior, cdr_arena *a, cdr_ior *out)
{
  if (!ior || !a || !out)
    return CDR_E_INVALID;
  cdr_out o;
  cdr_out_init(&o, NULL);
  (void)iiop_ior_write(&o, ior);
  cdr_in i;
  int st = reopen(&o, a, &i);
  if (st != CDR_OK)
    return st;
  cdr_ior r;
  st = cdr_read(&i, &cdr_type_ior, &r);
  cdr_in_close(&i);
  if (st == CDR_OK)
    *out = r;
  return st;
}

int iiop_ior_from_cdr(const cdr_ior *ior, cdr_arena *a, iiop_ior *out)
{
  if (!ior || !a || !out || !ior->type_id)
    return CDR_E_INVALID;
  cdr_out o;
  cdr_out_init(&o, NULL);
  (void)cdr_write(&o, &cdr_type_ior, ior);
  cdr_in i;
  int st = reopen(&o, a, &i);
  if (st != CDR_OK)
    return st;
  iiop_ior r;
  st = iiop_ior_read(&i, &r);
  cdr_in_close(&i);
  if (st == CDR_OK)
    *out = r;
  return st;
}
