/* value_in_fast.c - the decoder's walk loop: values with no type
 * information, outside chunks.
 *
 * The loop reads the state of a frame from its walk position on in steps:
 * in_list() takes whole objects of a list plan, in_members() the members
 * one by one (in_prim() a primitive, in_child() a value member), and each
 * way the loop ends has one step (in_fast_leave(), in_fast_nest(),
 * in_fast_fail()).  Its state (struct in_walk) is a local that the inlined
 * steps share, so that it stays in registers; the unlikely branches are
 * marked, which keeps the list loop's state in registers too.  SWAP is a
 * constant in each of the two copies of the loop. */
#include "value_impl.h"

_Static_assert(CDR__ARENA_SLACK >= 64, "the walk loop zeroes objects in 32/64-octet stores");

/* The loop's state, in locals while it runs (the steps below are inlined
 * into the loop, so that it stays in registers). */
typedef struct in_walk {
  const uint8_t *buf;        /* the stream's input */
  size_t end, origin;        /* its end and alignment origin */
  ptrdiff_t rsafe;           /* the last start of an object with room_in octets
                              * after it (negative: none) */
  size_t pos;                /* the read position */
  uint8_t *obj;              /* the object being read */
  const vop *op;             /* its member being read */
  int fixed;                 /* the object is read fixed (see in_fast_impl) */
  /* The arena's bump pointer and block end (nothing else allocates from
   * it while the loop runs; a full block or the arena's maximum leaves the
   * allocation to the general walk). */
  uint8_t *acur, *alim;
  cdr_itab_cur tc;           /* the value table */
  uint32_t n0;               /* its entry count when the loop began */
  uint32_t nmax;             /* the count the limits allow (value_nmax) */
  uint32_t nlim;             /* the count the cursor may add up to */
} in_walk;

/* What a value member came to (in_child). */
enum { C_DONE, C_NEW, C_LEAVE, C_FAIL };

/* What the member loop came to (in_members). */
enum { M_LEAVE, M_RESTART, M_NEST, M_FAIL };

/* Leave the loop WW for F: the value table takes back its entries from
 * the cursor, the values the loop made count in S and in F's nesting (one
 * entry each), and the arena (if any) takes back its bump pointer. */
static inline __attribute__((always_inline)) void in_fast_settle(cdr_in *i, vstate *s, vframe *f,
                                                                 const in_walk *ww)
{
  cdr_itab__cur_store(&s->values, &ww->tc, 0);
  s->nvalues += s->values.n - ww->n0;
  f->vdepth += s->values.n - ww->n0;
  if (i->arena)
    i->arena->cur = ww->acur;
}

/* A new value of type DT (SIZE octets, aligned to AMASK + 1) from the
 * arena's bump pointer *ACUR (limit ALIM), zeroed, with its type set, in
 * *CHILD: cdr_arena__bump() with the mask worked out once and one bound
 * check.  0 when the block is full or past the arena's maximum (the general
 * walk allocates then). */
static inline __attribute__((always_inline)) int in_fast_new(uint8_t **acur, uint8_t *alim,
                                                             const cdr_value_type *dt,
                                                             size_t size, uintptr_t amask,
                                                             void **child)
{
  uintptr_t at = ((uintptr_t)*acur + amask) & ~amask, end = at + size;
  if (CDR_UNLIKELY(end > (uintptr_t)alim)) /* the padding may pass ALIM too */
    return 0;
  *acur = (uint8_t *)end;
  void *c = (void *)at;
  /* Zeroed with fixed-size stores of 32 or 64 octets, which may run into
   * free space or the block's slack (CDR__ARENA_SLACK). */
  if (size <= 32) {
    memset(c, 0, 32);
  } else if (size <= 64) {
    memset(c, 0, 64);
  } else {
    memset(c, 0, size);
  }
  ((cdr_value *)c)->type = dt;
  *child = c;
  return 1;
}

/* Record the value read at tag position KEY as VAL in the decoder's value
 * table through cursor TC (the cursor while it can, else the table's own
 * functions).  Returns CDR_OK or CDR_E_NOMEM. */
static inline __attribute__((always_inline)) int
in_fast_record(vstate *s, cdr_itab_cur *tc, uint32_t *nlim, uint32_t nmax, uintptr_t key,
               uintptr_t val)
{
  if (CDR_LIKELY(tc->n < *nlim)) {
    cdr_itab__cur_append(tc, key, val);
    return CDR_OK;
  }
  cdr_itab__cur_store(&s->values, tc, 0);
  int rc = cdr_itab__append_k(&s->values, key, val, CDR_ITAB_PTR);
  cdr_itab__cur_load(&s->values, tc, 0);
  *nlim = tc->lim < nmax ? tc->lim : nmax;
  return rc;
}

/* Primitive member OP (op code CODE, a constant where this is inlined) of
 * the object being read, from the read position (after its padding: from
 * the plan when fixed, but for 8-octet members, whose padding depends on
 * the position mod 8).  0 when the input ends first (nothing read). */
static inline __attribute__((always_inline)) int in_prim(in_walk *ww, const vop *op,
                                                         const uint32_t code, const int swap)
{
  const size_t size = code == P_K4 ? 4 : code == P_K8 ? 8 : code == P_K2 ? 2 : 1;
  size_t q = ww->pos + (ww->fixed && code != P_K8 ? op->pad : (ww->origin - ww->pos) & (size - 1));
  if (!ww->fixed && (ptrdiff_t)(ww->end - q) < (ptrdiff_t)size) /* q may pass end by the padding */
    return 0;
  prim_copy(ww->obj + op->offset, ww->buf + q, code, swap);
  ww->pos = q + size;
  return 1;
}

/* A value member of the object being read (at offset OFF in it, of
 * declared type DT: SIZE octets aligned to ALIGN), its tag or null at Q
 * (inside the input): null (C_DONE), or a new value with no type
 * information (C_NEW: *CHILD, from the arena, zeroed with its type set and
 * recorded in the value table), stored in the member with the read
 * position after it.  C_LEAVE when the general walk must take it
 * (anything else, past the limits, a full arena block: nothing done),
 * C_FAIL (CDR_E_NOMEM). */
static inline __attribute__((always_inline)) int
in_child_at(vstate *s, in_walk *ww, uint32_t off, const cdr_value_type *dt, size_t size,
            uintptr_t amask, size_t q, void **child, const int swap)
{
  uint32_t u32;
  memcpy(&u32, ww->buf + q, 4);
  /* The hints keep the list loop's state in registers (a null ends a
   * list): one test for the likely case, a plain value's tag. */
  if (CDR_UNLIKELY(u32 != (swap ? __builtin_bswap32(TAG_MIN) : TAG_MIN))) {
    if (u32 != 0)
      return C_LEAVE; /* the general walk reads it, or fails with the right error */
    *(void **)(ww->obj + off) = NULL;
    ww->pos = q + 4;
    return C_DONE;
  }
  void *c;
  if (CDR_LIKELY(ww->tc.n < ww->nlim)) { /* the cursor has room: the limits allow it */
    if (CDR_UNLIKELY(!in_fast_new(&ww->acur, ww->alim, dt, size, amask, &c)))
      return C_LEAVE;
    cdr_itab__cur_append(&ww->tc, q, (uintptr_t)c);
  } else {
    if (ww->tc.n >= ww->nmax)
      return C_LEAVE;
    if (CDR_UNLIKELY(!in_fast_new(&ww->acur, ww->alim, dt, size, amask, &c)))
      return C_LEAVE;
    if (CDR_UNLIKELY(in_fast_record(s, &ww->tc, &ww->nlim, ww->nmax, q, (uintptr_t)c) < 0))
      return C_FAIL;
  }
  *(void **)(ww->obj + off) = *child = c;
  ww->pos = q + 4;
  return C_NEW;
}

/* in_child_at() for value member OP. */
static inline __attribute__((always_inline)) int in_child(vstate *s, in_walk *ww, const vop *op,
                                                          size_t q, void **child, const int swap)
{
  return in_child_at(s, ww, op->offset, op->dt, op->u.size, (uintptr_t)op->align - 1, q, child,
                     swap);
}

/* Whole objects of a list plan whose primitives are 4-octet members side
 * by side on both sides (k4len octets, K4: that constant or 0), from a
 * 4-aligned start with room: no padding before them or the tail's tag, so
 * the plan's fields are read once into locals and each object is a block
 * copy and its tail.  As in_list(). */
static inline __attribute__((always_inline)) int in_list_k4(vstate *s, in_walk *ww, const vplan *p,
                                                            size_t *q, const size_t k4,
                                                            const int swap)
{
  const vop *const tail = p->ops + p->nops - 1;
  const size_t len = k4 ? k4 : p->k4len;
  const uint32_t off0 = p->ops[0].offset, toff = tail->offset;
  const size_t size = tail->u.size;
  const uintptr_t amask = (uintptr_t)tail->align - 1;
  const cdr_value_type *const dt = tail->dt;
  const ptrdiff_t rsafe = ww->rsafe;
  for (;;) {
    block4_copy(ww->obj + off0, ww->buf + ww->pos, len, swap);
    *q = ww->pos + len;
    void *child;
    int r = in_child_at(s, ww, toff, dt, size, amask, *q, &child, swap);
    if (CDR_UNLIKELY(r != C_NEW)) {
      if (r != C_DONE)
        ww->pos = *q; /* the primitives are read */
      ww->op = r == C_LEAVE ? tail : tail + 1;
      return r == C_FAIL ? C_FAIL : C_DONE;
    }
    ww->obj = child;
    if (CDR_UNLIKELY((ptrdiff_t)ww->pos > rsafe)) {
      ww->op = p->ops;
      ww->fixed = 0;
      return C_DONE;
    }
  }
}

/* Whole objects of a list plan from a 4-aligned start with room: the
 * primitives from their fixed places, then the tail, and on to the next
 * object while it is a new value with room.  Leaves with the walk position
 * on the tail (the member loop takes it: fixed, the room is there) or
 * after it (the object is done), or at the start of an object without room
 * (not fixed).  C_FAIL with *Q (the tail's position), else C_DONE. */
static inline __attribute__((always_inline)) int in_list(vstate *s, in_walk *ww, const vplan *p,
                                                         size_t *q, const int swap)
{
  if (p->k4len == 4)
    return in_list_k4(s, ww, p, q, 4, swap);
  if (p->k4len)
    return in_list_k4(s, ww, p, q, 0, swap);
  const vop *const tail = p->ops + p->nops - 1;
  for (;;) {
    unsigned ph = (unsigned)((ww->pos - ww->origin) >> 2) & 1;
    for (const vop *o = p->ops; o < tail; o++)
      prim_copy(ww->obj + o->offset, ww->buf + ww->pos + o->u.wof[ph], o->code, swap);
    ww->pos += p->pre_len[ph];
    *q = ww->pos + p->tail_pad[ph];
    void *child;
    int r = in_child(s, ww, tail, *q, &child, swap);
    if (CDR_UNLIKELY(r != C_NEW)) {
      ww->op = r == C_LEAVE ? tail : tail + 1;
      return r == C_FAIL ? C_FAIL : C_DONE;
    }
    ww->obj = child;
    ww->op = p->ops;
    if (CDR_UNLIKELY((ptrdiff_t)ww->pos > ww->rsafe)) {
      ww->fixed = 0;
      return C_DONE;
    }
  }
}

/* F goes on with the walk position of the loop (F's object, the op it
 * stopped at): the value table, the arena and the stream's position are
 * stored back, and F's nesting counts the values the loop made.  Returns 0
 * (the loop's result). */
static inline __attribute__((always_inline)) int in_fast_leave(cdr_in *i, vstate *s, vframe *f,
                                                               const vplan *p, const in_walk *ww)
{
  in_fast_settle(i, s, f, ww);
  f->obj = ww->obj;
  plan_leave(f, p, ww->op);
  i->pos = ww->pos;
  return 0;
}

/* A new value CHILD of the member before the walk position (its tag read,
 * the read position after it) that is not the tail of an object of its own
 * type: it gets a frame, stacked on F or replacing F when it is F's last
 * member.  F's fields are saved first, since stacking may move them.
 * Returns 1 (the loop's result). */
static inline __attribute__((always_inline)) int in_fast_nest(cdr_in *i, vstate *s, vframe *f,
                                                              const vplan *p, const in_walk *ww,
                                                              void *child)
{
  const cdr_value_type *dt = ww->op[-1].dt;
  int last = ww->op == p->ops + p->nops && p->nops < PLAN_MAX_OPS;
  uint32_t depth = f->depth;
  (void)in_fast_leave(i, s, f, p, ww);
  uint32_t vdepth = --f->vdepth; /* CHILD nests in F's object */
  vframe *nf = last ? f : push_frame(s);
  if (!nf) {
    cdr_in_fail(i, CDR_E_NOMEM, "no memory for value frames");
    return 1;
  }
  frame_init(nf, dt, child);
  nf->vdepth = vdepth + 1;
  nf->depth = nf->tail_lo = depth;
  return 1;
}

/* The value table could not take the value tagged at Q: the loop ends with
 * the stream failed there.  Returns 1 (the loop's result). */
static inline __attribute__((always_inline)) int in_fast_fail(cdr_in *i, vstate *s, vframe *f,
                                                              const in_walk *ww, size_t q)
{
  in_fast_settle(i, s, f, ww);
  i->pos = q;
  cdr_in_fail(i, CDR_E_NOMEM, "no memory for indirection table");
  return 1;
}

/* Member by member from the walk position, to the end of the object or the
 * first member left to the general walk (M_LEAVE, the walk position on
 * it).  M_RESTART: a new tail value of the object's own type (tail_same)
 * replaced the object, and the walk starts on it, 4-aligned.  M_NEST: any
 * other new value, *CHILD, for the member before the walk position.
 * M_FAIL: the value table could not take the value tagged at *Q. */
static inline __attribute__((always_inline)) int in_members(vstate *s, in_walk *ww,
                                                            const vplan *p, size_t *q,
                                                            void **child, const int swap)
{
  for (;;) {
    const vop *op = ww->op;
    const uint32_t code = op->code;
    if (CDR_LIKELY(code == P_K4)) {
      if (!in_prim(ww, op, P_K4, swap))
        return M_LEAVE;
    } else if (code == P_VAL) {
      /* A value member: null, or a tag with no type information. */
      *q = ww->pos + (ww->fixed ? op->pad : (ww->origin - ww->pos) & 3);
      if (!ww->fixed && (ptrdiff_t)(ww->end - *q) < 4)
        return M_LEAVE;
      int r = in_child(s, ww, op, *q, child, swap);
      if (r == C_LEAVE)
        return M_LEAVE;
      if (r == C_FAIL)
        return M_FAIL;
      ww->op = op + 1;
      if (r == C_NEW) {
        if (!p->tail_same || ww->op != p->ops + p->nops)
          return M_NEST;
        ww->obj = *child;
        ww->op = p->ops;
        ww->fixed = (ptrdiff_t)ww->pos <= ww->rsafe;
        return M_RESTART;
      }
      continue;
    } else if (code == P_K8) {
      if (!in_prim(ww, op, P_K8, swap))
        return M_LEAVE;
    } else if (code == P_K2) {
      if (!in_prim(ww, op, P_K2, swap))
        return M_LEAVE;
    } else if (code == P_K1) {
      if (!in_prim(ww, op, P_K1, swap))
        return M_LEAVE;
    } else {
      return M_LEAVE; /* P_STOP: the end, or a member for the general walk */
    }
    ww->op = op + 1;
  }
}

/* Read the state of F (not chunked, outside chunks) from its walk position
 * on, with the stream's position held in a local: primitives, nulls, and
 * values with no type information (exactly their declared type); a tail
 * value of F's own type replaces F's object in the same loop.  Stops at the
 * first member it leaves to the general walk (indirections, type
 * information, anything else, short input), with F's walk position on that
 * member, and returns 0; or returns 1 after an error or after stacking or
 * replacing a frame for a nested value.  SWAP is a constant in each copy.
 *
 * As in out_fast_impl(): an object that starts 4-aligned with the plan's
 * room_in octets left is read "fixed" (padding from the plan, no bound
 * checks per member), a list plan copies its primitives from fixed places,
 * and the value table is held in a cursor whose entry count also counts
 * the values made and their nesting. */
static inline __attribute__((always_inline)) int in_fast_impl(cdr_in *i, vstate *s, vframe *f,
                                                              const vplan *p, const int swap)
{
  unsigned start = p->lvl_start[f->lvl] + f->member;
  if (start >= p->nops || f->truncated)
    return 0;
  in_walk ww;
  cdr_arena *const arena = i->arena;
  ww.acur = arena ? arena->cur : NULL;
  ww.alim = arena ? arena->lim : NULL;
  cdr_itab__cur_load(&s->values, &ww.tc, 0);
  ww.buf = i->buf;
  ww.end = i->end;
  ww.origin = i->origin;
  ww.pos = i->pos;
  ww.rsafe = (ptrdiff_t)ww.end - (ptrdiff_t)p->room_in;
  ww.obj = f->obj;
  ww.op = p->ops + start;
  ww.fixed = start == 0 && ((ww.origin - ww.pos) & 3) == 0 && (ptrdiff_t)ww.pos <= ww.rsafe;
  /* No arena: no values here (the general walk says why). */
  ww.n0 = ww.tc.n;
  ww.nmax = arena ? value_nmax(s, ww.n0, f->vdepth) : ww.n0;
  ww.nlim = ww.tc.lim < ww.nmax ? ww.tc.lim : ww.nmax;
  size_t q;
  void *child;
  int r;
  do {
    if (ww.fixed && p->list && in_list(s, &ww, p, &q, swap) == C_FAIL) {
      r = M_FAIL;
      break;
    }
    r = in_members(s, &ww, p, &q, &child, swap);
  } while (r == M_RESTART);
  if (r == M_LEAVE)
    return in_fast_leave(i, s, f, p, &ww);
  if (r == M_NEST)
    return in_fast_nest(i, s, f, p, &ww, child);
  return in_fast_fail(i, s, f, &ww, q);
}

/* The two copies: byte order swapped or not. */
__attribute__((noinline)) int cdr__value_in_fast_host(cdr_in *i, vstate *s, vframe *f,
                                                      const vplan *p)
{
  return in_fast_impl(i, s, f, p, 0);
}

__attribute__((noinline)) int cdr__value_in_fast_swap(cdr_in *i, vstate *s, vframe *f,
                                                      const vplan *p)
{
  return in_fast_impl(i, s, f, p, 1);
}
