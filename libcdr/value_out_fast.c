/* value_out_fast.c - the encoder's walk loop: plain values of exactly
 * their declared type, minimal type information, not chunked.
 *
 * The loop writes the state of a frame from its walk position on, with the
 * stream's position and buffer held in locals: primitives, nulls,
 * indirections, and values of exactly their declared type with no type
 * information (a tail value of the frame's own type replaces its object in
 * the same loop, so a list is one loop).  It stops at the first member it
 * leaves to the general walk (anything else, or a buffer that must grow).
 *
 * An object whose state starts 4-aligned with the plan's room_out octets
 * left is written "fixed": the padding comes from the plan and the members
 * need no bound checks; otherwise each member works out its padding and
 * checks its room.  The value table is held in a cursor (locals), and the
 * limits on values are a bound on its entry count (each value the loop
 * writes adds one entry), so that the loop carries few variables through
 * its stores.  SWAP is a constant in each of the two copies of the loop,
 * so the byte order costs nothing. */
#include "value_impl.h"

/* The loop's state, in locals while it runs (the helpers below are inlined
 * into the loop, so that it stays in registers). */
typedef struct out_walk {
  uint8_t *buf;              /* the stream's buffer */
  uint8_t *wo;               /* the alignment origin in it */
  uint8_t *wlim;             /* its end */
  const uint8_t *wsafe;      /* the last start of an object with room_out octets
                              * after it (NULL: none, and no fixed walk) */
  uint8_t *w;                /* the write position */
  const uint8_t *obj;        /* the object being written */
  const vop *op;             /* its member being written */
  int fixed;                 /* the object is written fixed (see above) */
  cdr_itab_cur tc;           /* the value table */
  uint32_t n0;               /* its entry count when the loop began */
  uint32_t nmax;             /* the count the limits allow (value_nmax) */
  uint32_t nlim;             /* the count the cursor may add up to */
} out_walk;

/* What a value member came to (out_child). */
enum { C_DONE, C_NEW, C_LEAVE, C_FAIL };

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
 * allow no more values (nothing done), or an error (CDR_E_NOMEM).  HASHED
 * (a constant): the table is known to be hashed (cdr_itab__cur_get_or_add_h). */
static inline __attribute__((always_inline)) int
out_fast_record(vstate *s, cdr_itab_cur *tc, uint32_t *nlim, uint32_t nmax, uintptr_t child,
                uintptr_t val, uintptr_t *at, const int hashed)
{
  if (CDR_LIKELY(tc->n < *nlim))
    return cdr_itab__cur_get_or_add_h(tc, child, val, at, hashed);
  if (tc->n >= nmax)
    return 2;
  cdr_itab__cur_store(&s->values, tc, 1);
  int found = cdr_itab__get_or_add_k(&s->values, child, val, at, CDR_ITAB_PTR);
  cdr_itab__cur_load(&s->values, tc, 1);
  *nlim = tc->lim < nmax ? tc->lim : nmax;
  return found;
}

/* Primitive member OP (op code CODE, a constant where this is inlined) of
 * the object at the write position, with its padding zeroed.  0 when the
 * buffer has no room for it (nothing written). */
static inline __attribute__((always_inline)) int out_prim(out_walk *ww, const vop *op,
                                                          const uint32_t code, const int swap)
{
  const size_t size = code == P_K4 ? 4 : code == P_K8 ? 8 : code == P_K2 ? 2 : 1;
  uint8_t *w = ww->w;
  /* The plan's padding from a 4-aligned start, but for 8-octet members,
   * whose padding depends on the position mod 8. */
  size_t pad = ww->fixed && code != P_K8 ? op->pad : (size_t)(ww->wo - w) & (size - 1);
  if (!ww->fixed && (size_t)(ww->wlim - w) < pad + size)
    return 0;
  memset(w, 0, size); /* the padding (pad < size) */
  prim_copy(w + pad, ww->obj + op->offset, code, swap);
  ww->w = w + pad + size;
  return 1;
}

/* Value member CHILD of declared type DT at TAG (the padding before it
 * zeroed): null (the long 0), an indirection to CHILD written before, or
 * the value tag of a new value (C_NEW; CHILD's state is next), with the
 * write position after it.  C_LEAVE when the general walk must
 * take it (type information, past the limits: nothing written), C_FAIL
 * with *RC (CDR_E_NOMEM).  HASHED as for out_fast_record(). */
static inline __attribute__((always_inline)) int
out_child_h(vstate *s, out_walk *ww, const cdr_value *child, const cdr_value_type *dt,
            uint8_t *tag, int *rc, const int hashed, const int swap)
{
  uint32_t u32;
  if (!child) {
    u32 = 0;
    memcpy(tag, &u32, 4);
    ww->w = tag + 4;
    return C_DONE;
  }
  /* Type information: the general walk (which fails, or writes an
   * indirection; the table must not have this value yet). */
  if (child->type != dt)
    return C_LEAVE;
  uintptr_t at;
  int found = out_fast_record(s, &ww->tc, &ww->nlim, ww->nmax, (uintptr_t)child,
                              (uintptr_t)(tag - ww->buf), &at, hashed);
  if (found == 2)
    return C_LEAVE; /* past the limits: the general walk says which */
  if (found < 0) {
    *rc = found;
    return C_FAIL;
  }
  if (found) {
    u32 = INDIRECTION;
    memcpy(tag, &u32, 4);
    u32 = (uint32_t)(int32_t)((intptr_t)at - (intptr_t)(tag + 4 - ww->buf));
    if (swap)
      u32 = __builtin_bswap32(u32);
    memcpy(tag + 4, &u32, 4);
    ww->w = tag + 8;
    return C_DONE;
  }
  u32 = swap ? __builtin_bswap32(TAG_MIN) : TAG_MIN;
  memcpy(tag, &u32, 4);
  ww->w = tag + 4;
  return C_NEW;
}

static inline __attribute__((always_inline)) int
out_child(vstate *s, out_walk *ww, const cdr_value *child, const cdr_value_type *dt, uint8_t *tag,
          int *rc, const int swap)
{
  return out_child_h(s, ww, child, dt, tag, rc, 0, swap);
}

/* Whole objects of a list plan whose primitives are 4-octet members side
 * by side on both sides (k4len octets, K4: that constant or 0), from a
 * 4-aligned start with room: they need no padding, nor does the tail's tag
 * after them, so the plan's fields are read once into locals and each
 * object is a block copy and its tail.  HASHED: the value table is
 * hashed (as it stays through the loop), the common case of a pooled
 * stream state (cdr_itab_reuse).  As out_list(). */
static inline __attribute__((always_inline)) int out_list_k4(vstate *s, out_walk *ww, const vplan *p,
                                                             int *rc, const size_t k4,
                                                             const int hashed, const int swap)
{
  const vop *const tail = p->ops + p->nops - 1;
  const size_t len = k4 ? k4 : p->k4len;
  const uint32_t off0 = p->ops[0].offset, toff = tail->offset;
  const cdr_value_type *const dt = tail->dt;
  const uint8_t *const wsafe = ww->wsafe;
  uint8_t *w = ww->w;
  const uint8_t *obj = ww->obj;
  for (;;) {
    block4_copy(w, obj + off0, len, swap);
    const cdr_value *child = *(const cdr_value *const *)(obj + toff);
    int r = out_child_h(s, ww, child, dt, w + len, rc, hashed, swap);
    if (CDR_UNLIKELY(r != C_NEW)) {
      ww->obj = obj;
      ww->op = r == C_LEAVE ? tail : tail + 1;
      if (r != C_DONE)
        ww->w = w + len; /* the primitives are written */
      return r == C_FAIL ? C_FAIL : C_DONE;
    }
    w = ww->w;
    obj = (const uint8_t *)child;
    if (CDR_UNLIKELY(w > wsafe)) { /* wsafe is not NULL here */
      ww->obj = obj;
      ww->op = p->ops;
      ww->fixed = 0;
      return C_DONE;
    }
  }
}

/* Whole objects of a list plan from a 4-aligned start with room: the
 * primitives to their fixed places, then the tail, and on to the next
 * object while it is a new value with room.  Leaves with the walk position
 * on the tail (the member loop takes it: fixed, the room is there) or
 * after it (the object is done), or at the start of an object without room
 * (not fixed).  C_FAIL with *RC, else C_DONE. */
static inline __attribute__((always_inline)) int out_list(vstate *s, out_walk *ww, const vplan *p,
                                                          int *rc, const int swap)
{
  if (p->k4len == 4)
    return ww->tc.mask ? out_list_k4(s, ww, p, rc, 4, 1, swap) : out_list_k4(s, ww, p, rc, 4, 0, swap);
  if (p->k4len)
    return out_list_k4(s, ww, p, rc, 0, 0, swap);
  const vop *const tail = p->ops + p->nops - 1;
  uint8_t *w = ww->w;
  for (;;) {
    unsigned ph = (unsigned)((size_t)(w - ww->wo) >> 2) & 1;
    if (p->pre_zero[ph])
      memset(w, 0, p->pre_len[ph]);
    for (const vop *q = p->ops; q < tail; q++)
      prim_copy(w + q->u.wof[ph], ww->obj + q->offset, q->code, swap);
    w += p->pre_len[ph];
    ww->w = w; /* the object's primitives are written */
    const cdr_value *child = *(const cdr_value *const *)(ww->obj + tail->offset);
    memset(w, 0, 4); /* the padding */
    int r = out_child(s, ww, child, tail->dt, w + p->tail_pad[ph], rc, swap);
    if (r != C_NEW) {
      ww->op = r == C_LEAVE ? tail : tail + 1;
      return r == C_FAIL ? C_FAIL : C_DONE;
    }
    w = ww->w;
    ww->obj = (const uint8_t *)child;
    ww->op = p->ops;
    if (w > ww->wsafe) { /* wsafe is not NULL here */
      ww->fixed = 0;
      return C_DONE;
    }
  }
}

/* F goes on with the walk position of the loop (F's object, the op it
 * stopped at): the value table and the stream's position are stored back. */
static inline __attribute__((always_inline)) void out_fast_leave(cdr_out *o, vstate *s, vframe *f,
                                                                 const vplan *p,
                                                                 const out_walk *ww)
{
  out_fast_settle(s, &ww->tc, ww->n0);
  f->obj = (void *)ww->obj;
  f->vdepth += s->values.n - ww->n0;
  plan_leave(f, p, ww->op);
  o->pos = (size_t)(ww->w - ww->buf);
}

/* A new value CHILD of type DT (its tag written, the walk position after
 * it) that is not the tail of an object of its own type: it gets a frame,
 * stacked on F or replacing F when it is F's last member.  F's fields are
 * saved first, since stacking may move them.  Returns 1 (the loop's
 * result). */
static inline __attribute__((always_inline)) int
out_fast_nest(cdr_out *o, vstate *s, vframe *f, const vplan *p, const out_walk *ww,
              const cdr_value *child, const cdr_value_type *dt)
{
  int last = ww->op == p->ops + p->nops && p->nops < PLAN_MAX_OPS;
  uint32_t depth = f->depth;
  uint8_t direct = last ? f->direct : 1; /* a tail inherits how F was started */
  out_fast_leave(o, s, f, p, ww);
  uint32_t vdepth = --f->vdepth; /* CHILD nests in F's object */
  vframe *nf = last ? f : push_frame(s);
  if (!nf) {
    cdr_out_fail(o, CDR_E_NOMEM, "no memory for the value frame stack");
    return 1;
  }
  frame_init(nf, dt, (void *)child);
  nf->direct = direct;
  nf->vdepth = vdepth + 1;
  nf->depth = nf->tail_lo = depth;
  return 1;
}

/* The loop for F with plan P: returns 0 with F's walk position on the
 * first member left to the general walk, or 1 after an error or after
 * stacking or replacing a frame for a nested value. */
static inline __attribute__((always_inline)) int out_fast_impl(cdr_out *o, vstate *s, vframe *f,
                                                               const vplan *p,
                                                               uint8_t *const buf, const int swap)
{
  unsigned start = p->lvl_start[f->lvl] + f->member;
  if (start >= p->nops)
    return 0;
  out_walk ww;
  ww.buf = buf;
  ww.wo = buf + o->origin;
  ww.wlim = buf + o->lim;
  ww.w = buf + o->pos;
  ww.wsafe = (size_t)(ww.wlim - buf) >= p->room_out ? ww.wlim - p->room_out : NULL;
  ww.obj = f->obj;
  ww.op = p->ops + start;
  ww.fixed = start == 0 && ((ww.wo - ww.w) & 3) == 0 && ww.wsafe && ww.w <= ww.wsafe;
  cdr_itab__cur_load(&s->values, &ww.tc, 1);
  /* Each value the loop writes adds one table entry and, but for one that
   * gets its own frame, nests the walk one level deeper: the entry count
   * stands for both. */
  ww.n0 = ww.tc.n;
  ww.nmax = value_nmax(s, ww.n0, f->vdepth);
  ww.nlim = ww.tc.lim < ww.nmax ? ww.tc.lim : ww.nmax;
  const vop *const tail_at = p->tail_same ? p->ops + p->nops : NULL; /* restart there */
  int rc = CDR_OK;
  for (;;) {
    if (ww.fixed && p->list && out_list(s, &ww, p, &rc, swap) == C_FAIL)
      goto fail;
    /* Member by member, to the end of the object or the first member left
     * to the general walk. */
    for (;;) {
      const vop *op = ww.op;
      const uint32_t code = op->code;
      if (CDR_LIKELY(code == P_K4)) {
        if (!out_prim(&ww, op, P_K4, swap))
          goto leave;
      } else if (code == P_VAL) {
        /* A value member: null, an indirection, or a tag and the value. */
        size_t pad = ww.fixed ? op->pad : (size_t)(ww.wo - ww.w) & 3;
        if (!ww.fixed && (size_t)(ww.wlim - ww.w) < pad + 8)
          goto leave;
        memset(ww.w, 0, 4); /* the padding (pad < 4) */
        const cdr_value *child = *(const cdr_value *const *)(ww.obj + op->offset);
        int r = out_child(s, &ww, child, op->dt, ww.w + pad, &rc, swap);
        if (r == C_LEAVE)
          goto leave;
        if (r == C_FAIL)
          goto fail;
        ww.op = op + 1;
        if (r == C_NEW) {
          if (ww.op != tail_at)
            return out_fast_nest(o, s, f, p, &ww, child, op->dt);
          /* The tail value replaces F's object: the walk restarts,
           * 4-aligned. */
          ww.obj = (const uint8_t *)child;
          ww.op = p->ops;
          ww.fixed = ww.wsafe && ww.w <= ww.wsafe;
          break;
        }
        continue;
      } else if (code == P_K8) {
        if (!out_prim(&ww, op, P_K8, swap))
          goto leave;
      } else if (code == P_K2) {
        if (!out_prim(&ww, op, P_K2, swap))
          goto leave;
      } else if (code == P_K1) {
        if (!out_prim(&ww, op, P_K1, swap))
          goto leave;
      } else {
        goto leave; /* P_STOP: the end, or a member for the general walk */
      }
      ww.op = op + 1;
    }
  }
leave:
  out_fast_leave(o, s, f, p, &ww);
  return 0;
fail:
  out_fast_settle(s, &ww.tc, ww.n0);
  f->vdepth += s->values.n - ww.n0;
  o->pos = (size_t)(ww.w - buf);
  cdr_out_fail(o, rc, "no memory for the value table");
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
