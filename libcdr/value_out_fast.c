/* value_out_fast.c - the encoder's walk loop: plain values of exactly
 * their declared type, minimal type information, not chunked. */
#include "value_impl.h"

/* Leave the encoder's walk loop: the value table takes back its entries
 * from cursor TC, and the values the loop wrote count in S (one entry
 * each: the table had N0 entries when the loop began). */
static inline void out_fast_settle(vstate *s, const cdr_itab_cur *tc, uint32_t n0)
{
  cdr_itab__cur_store(&s->values, tc, 1);
  s->nvalues += s->values.n - n0;
}


/* Find CHILD in the encoder's value table through cursor TC, or record it
 * at tag position VAL (the cursor while it can, else the table's own
 * functions).  Returns 1 and *AT (found), 0 (recorded), 2 when the limits
 * allow no more values (nothing done), or an error (CDR_E_NOMEM). */
static inline __attribute__((always_inline)) int
out_fast_record(vstate *s, cdr_itab_cur *tc, uint32_t *nlim, uint32_t nmax, uintptr_t child,
                uintptr_t val, uintptr_t *at)
{
  if (CDR_LIKELY(tc->n < *nlim))
    return cdr_itab__cur_get_or_add(tc, child, val, at);
  if (tc->n >= nmax)
    return 2;
  cdr_itab__cur_store(&s->values, tc, 1);
  int found = cdr_itab__get_or_add_k(&s->values, child, val, at, CDR_ITAB_PTR);
  cdr_itab__cur_load(&s->values, tc, 1);
  *nlim = tc->lim < nmax ? tc->lim : nmax;
  return found;
}
/* Write the state of F (not chunked, minimal type information) from its
 * walk position on, with the stream's position and buffer held in locals:
 * primitives, nulls, indirections, and values of exactly their declared
 * type with no type information (a tail value of F's own type replaces F's
 * object in the same loop, so a list is one loop).  Stops at the first
 * member it leaves to the general walk (anything else, or a buffer that must
 * grow), with F's walk position on that member, and returns 0; or returns 1
 * after an error or after stacking or replacing a frame for a nested value.
 * SWAP is a constant in each copy, so the byte order costs nothing.
 *
 * An object whose state starts 4-aligned with the plan's room_out octets
 * left is written "fixed": the padding comes from the plan and the members
 * need no bound checks; otherwise each member works out its padding and
 * checks its room.  The value table is held in a cursor (locals), and the
 * limits on values are a bound on its entry count (each value the loop
 * writes adds one entry), so that the loop carries few variables through
 * its stores. */
static inline __attribute__((always_inline)) int out_fast_impl(cdr_out *o, vstate *s, vframe *f,
                                                               const vplan *p,
                                                               uint8_t *const buf, const int swap)
{
  unsigned start = p->lvl_start[f->lvl] + f->member;
  if (start >= p->nops)
    return 0;
  const vop *op = p->ops + start;
  const vop *const tail_at = p->tail_same ? p->ops + p->nops : NULL; /* restart there */
  const uint8_t *obj = f->obj;
  uint8_t *const wo = buf + o->origin; /* the alignment origin */
  uint8_t *const wlim = buf + o->lim;
  uint8_t *w = buf + o->pos;
  /* The last start of an object with room_out octets after it (NULL: none,
   * and no fixed walk). */
  const uint8_t *const wsafe = (size_t)(wlim - buf) >= p->room_out ? wlim - p->room_out : NULL;
  int fixed = start == 0 && ((wo - w) & 3) == 0 && wsafe && w <= wsafe;
  cdr_itab_cur tc; /* the value table, in locals while the loop runs */
  cdr_itab__cur_load(&s->values, &tc, 1);
  /* Each value the loop writes adds one table entry and, but for one that
   * gets its own frame, nests the walk one level deeper: the entry count
   * stands for both. */
  const uint32_t n0 = tc.n, vdepth0 = f->vdepth, nmax = value_nmax(s, n0, vdepth0);
  uint32_t nlim = tc.lim < nmax ? tc.lim : nmax; /* entries the cursor may add up to */
  size_t pad;
  uint32_t u32;
  int rc = CDR_OK;
  if (fixed && p->list)
    goto list;
  for (;;) {
  resume:;
    const uint32_t code = op->code;
    const uint8_t *src = obj + op->offset;
    if (CDR_LIKELY(code == P_K4)) {
      if (fixed) {
        pad = op->pad;
      } else {
        pad = (size_t)(wo - w) & 3;
        if ((size_t)(wlim - w) < pad + 4)
          goto out;
      }
      memset(w, 0, 4); /* the padding (pad < 4) */
      prim_copy(w + pad, src, P_K4, swap);
      w += pad + 4;
      op++;
      continue;
    }
    if (code == P_VAL)
      goto value;
    if (code == P_K8) {
      pad = (size_t)(wo - w) & 7;
      if (!fixed && (size_t)(wlim - w) < pad + 8)
        goto out;
      memset(w, 0, 8);
      prim_copy(w + pad, src, P_K8, swap);
      w += pad + 8;
    } else if (code == P_K2) {
      if (fixed) {
        pad = op->pad;
      } else {
        pad = (size_t)(wo - w) & 1;
        if ((size_t)(wlim - w) < pad + 2)
          goto out;
      }
      memset(w, 0, 2);
      prim_copy(w + pad, src, P_K2, swap);
      w += pad + 2;
    } else if (code == P_K1) {
      if (!fixed && w == wlim)
        goto out;
      *w++ = *src;
    } else {
      goto out; /* P_STOP: the end, or a member for the general walk */
    }
    op++;
    continue;
  value:;
    /* A value member: null, an indirection, or a tag and the value. */
    const cdr_value *child = *(const cdr_value *const *)src;
    if (fixed) {
      pad = op->pad;
    } else {
      pad = (size_t)(wo - w) & 3;
      if ((size_t)(wlim - w) < pad + 8)
        goto out;
    }
    memset(w, 0, 8); /* the padding and a null (pad + 4 <= 8 octets) */
    uint8_t *tag = w + pad;
    if (!child) {
      w = tag + 4; /* null: the long 0 */
      op++;
      continue;
    }
    const cdr_value_type *dt = op->dt;
    /* Type information: the general walk (which fails, or writes an
     * indirection; the table must not have this value yet). */
    if (child->type != dt)
      goto out;
    uintptr_t at;
    int found = out_fast_record(s, &tc, &nlim, nmax, (uintptr_t)child, (uintptr_t)(tag - buf), &at);
    if (found == 2)
      goto out; /* past the limits: the general walk says which */
    if (found < 0) {
      rc = found;
      goto fail;
    }
    if (found) {
      u32 = INDIRECTION;
      memcpy(tag, &u32, 4);
      u32 = (uint32_t)(int32_t)((intptr_t)at - (intptr_t)(tag + 4 - buf));
      if (swap)
        u32 = __builtin_bswap32(u32);
      memcpy(tag + 4, &u32, 4);
      w = tag + 8;
      op++;
      continue;
    }
    u32 = swap ? __builtin_bswap32(TAG_MIN) : TAG_MIN;
    memcpy(tag, &u32, 4);
    w = tag + 4;
    op++;
    if (op == tail_at) {
      /* The tail value replaces F's object: the walk restarts, 4-aligned. */
      obj = (const uint8_t *)child;
      op = p->ops;
      fixed = wsafe && w <= wsafe;
      if (fixed && p->list)
        goto list;
      continue;
    }
    /* Any other nested value gets a frame (replacing F when it is the
     * tail); F's fields are saved first, since stacking may move them. */
    int last = op == p->ops + p->nops && p->nops < PLAN_MAX_OPS;
    uint32_t depth = f->depth, vdepth = vdepth0 + (tc.n - n0) - 1;
    uint8_t direct = last ? f->direct : 1; /* a tail inherits how F was started */
    out_fast_settle(s, &tc, n0);
    f->obj = (void *)obj;
    f->vdepth = vdepth;
    plan_leave(f, p, op);
    o->pos = (size_t)(w - buf);
    vframe *nf = last ? f : push_frame(s);
    if (!nf) {
      cdr_out_fail(o, CDR_E_NOMEM);
      return 1;
    }
    frame_init(nf, dt, (void *)child);
    nf->direct = direct;
    nf->vdepth = vdepth + 1;
    nf->depth = nf->tail_lo = depth;
    return 1;
  }
list:
  /* A list plan, whole objects from a 4-aligned start with room: the
   * primitives to their fixed places, then the tail.  Anything else goes
   * back to the loop above, at the tail or after it. */
  for (const vop *const tail = p->ops + p->nops - 1;;) {
    unsigned ph = 0;
    if (p->k4len) {
      /* 4-octet members side by side on both sides: a block copy. */
      block4_copy(w, obj + p->ops[0].offset, p->k4len, swap);
    } else {
      ph = (unsigned)((size_t)(w - wo) >> 2) & 1;
      if (p->pre_zero[ph])
        memset(w, 0, p->pre_len[ph]);
      for (const vop *q = p->ops; q < tail; q++)
        prim_copy(w + q->u.wof[ph], obj + q->offset, q->code, swap);
    }
    w += p->pre_len[ph];
    const cdr_value *child = *(const cdr_value *const *)(obj + tail->offset);
    memset(w, 0, 8); /* the padding and a null */
    uint8_t *tag = w + p->tail_pad[ph];
    op = tail + 1; /* the object is done, unless the tail goes back */
    if (!child) {
      w = tag + 4;
      goto resume;
    }
    uintptr_t at;
    int found = 2;
    if (child->type == tail->dt)
      found = out_fast_record(s, &tc, &nlim, nmax, (uintptr_t)child, (uintptr_t)(tag - buf), &at);
    if (found < 0) {
      rc = found;
      goto fail;
    }
    if (found == 2) {
      op = tail; /* the loop above takes it (fixed: the room is there) */
      goto resume;
    }
    if (found) {
      u32 = INDIRECTION;
      memcpy(tag, &u32, 4);
      u32 = (uint32_t)(int32_t)((intptr_t)at - (intptr_t)(tag + 4 - buf));
      if (swap)
        u32 = __builtin_bswap32(u32);
      memcpy(tag + 4, &u32, 4);
      w = tag + 8;
      goto resume;
    }
    u32 = swap ? __builtin_bswap32(TAG_MIN) : TAG_MIN;
    memcpy(tag, &u32, 4);
    w = tag + 4;
    obj = (const uint8_t *)child;
    op = p->ops;
    if (w > wsafe) { /* wsafe is not NULL here */
      fixed = 0;
      goto resume;
    }
  }
out:
  out_fast_settle(s, &tc, n0);
  f->obj = (void *)obj;
  f->vdepth = vdepth0 + (s->values.n - n0);
  plan_leave(f, p, op);
  o->pos = (size_t)(w - buf);
  return 0;
fail:
  out_fast_settle(s, &tc, n0);
  f->vdepth = vdepth0 + (s->values.n - n0);
  o->pos = (size_t)(w - buf);
  cdr_out_fail(o, rc);
  return 1;
}

/* The two copies: byte order swapped or not. */
__attribute__((noinline)) int cdr__value_out_fast_host(cdr_out *o, vstate *s, vframe *f,
                                                       const vplan *p)
{
  return out_fast_impl(o, s, f, p, o->buf, 0);
}

__attribute__((noinline)) int cdr__value_out_fast_swap(cdr_out *o, vstate *s, vframe *f,
                                                       const vplan *p)
{
  return out_fast_impl(o, s, f, p, o->buf, 1);
}
