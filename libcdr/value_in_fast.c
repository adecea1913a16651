/* value_in_fast.c - the decoder's walk loop: values with no type
 * information, outside chunks. */
#include "value_impl.h"

_Static_assert(CDR__ARENA_SLACK >= 64, "the walk loop zeroes objects in 32/64-octet stores");

/* Leave the decoder's walk loop: the value table takes back its entries
 * from cursor TC, the values the loop made count in S (one entry each: the
 * table had N0 entries when the loop began), and ARENA (if any) takes back
 * its bump pointer ACUR. */
static inline void in_fast_settle(vstate *s, const cdr_itab_cur *tc, uint32_t n0,
                                  cdr_arena *arena, uint8_t *acur)
{
  cdr_itab__cur_store(&s->values, tc, 0);
  s->nvalues += s->values.n - n0;
  if (arena)
    arena->cur = acur;
}

/* A new value for value member OP from the arena's bump pointer *ACUR
 * (limit ALIM), zeroed, with its type set; NULL when the block is full or
 * past the arena's maximum (the general walk allocates then). */
static inline __attribute__((always_inline)) void *in_fast_new(uint8_t **acur, uint8_t *alim,
                                                               const vop *op)
{
  const uint32_t size = op->u.size;
  void *child = cdr_arena__bump(acur, alim, size, op->align);
  if (CDR_UNLIKELY(!child))
    return NULL;
  /* Zeroed with fixed-size stores of 32 or 64 octets, which may run into
   * free space or the block's slack (CDR__ARENA_SLACK). */
  if (size <= 32) {
    memset(child, 0, 32);
  } else if (size <= 64) {
    memset(child, 0, 64);
  } else {
    memset(child, 0, size);
  }
  ((cdr_value *)child)->type = op->dt;
  return child;
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
 * the object OBJ from *POS (after its padding: from the plan when FIXED,
 * but for 8-octet members, whose padding depends on the position mod 8),
 * bounded by END.  0 when the input ends first (nothing read). */
static inline __attribute__((always_inline)) int
in_prim(uint8_t *obj, const vop *op, const uint8_t *buf, size_t *pos, size_t end, size_t origin,
        int fixed, const uint32_t code, const int swap)
{
  const size_t size = code == P_K4 ? 4 : code == P_K8 ? 8 : code == P_K2 ? 2 : 1;
  size_t q = *pos + (fixed && code != P_K8 ? op->pad : (origin - *pos) & (size - 1));
  if (!fixed && (ptrdiff_t)(end - q) < (ptrdiff_t)size) /* q may pass end by the padding */
    return 0;
  prim_copy(obj + op->offset, buf + q, code, swap);
  *pos = q + size;
  return 1;
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
  const vop *op = p->ops + start;
  const vop *const tail_at = p->tail_same ? p->ops + p->nops : NULL; /* restart there */
  uint8_t *obj = f->obj;
  const uint8_t *const buf = i->buf;
  const size_t end = i->end, origin = i->origin;
  size_t pos = i->pos, q;
  cdr_arena *const arena = i->arena;
  /* The arena's bump pointer is held in a local while the loop runs
   * (nothing else allocates from it meanwhile); a full block or the
   * arena's maximum leaves the allocation to the general walk. */
  uint8_t *acur = arena ? arena->cur : NULL;
  uint8_t *const alim = arena ? arena->lim : NULL;
  cdr_itab_cur tc;
  cdr_itab__cur_load(&s->values, &tc, 0);
  /* No arena: no values here (the general walk says why). */
  const uint32_t n0 = tc.n, vdepth0 = f->vdepth;
  const uint32_t nmax = arena ? value_nmax(s, n0, vdepth0) : n0;
  uint32_t nlim = tc.lim < nmax ? tc.lim : nmax;
  /* The last start of an object with room_in octets after it (negative:
   * none). */
  const ptrdiff_t rsafe = (ptrdiff_t)end - (ptrdiff_t)p->room_in;
  int fixed = start == 0 && ((origin - pos) & 3) == 0 && (ptrdiff_t)pos <= rsafe;
  uint32_t u32;
  int rc = CDR_OK;
  if (fixed && p->list)
    goto list;
  for (;;) {
  resume:;
    const uint32_t code = op->code;
    uint8_t *dst = obj + op->offset;
    if (CDR_LIKELY(code == P_K4)) {
      if (!in_prim(obj, op, buf, &pos, end, origin, fixed, P_K4, swap))
        goto out;
    } else if (code == P_VAL) {
      goto value;
    } else if (code == P_K8) {
      if (!in_prim(obj, op, buf, &pos, end, origin, fixed, P_K8, swap))
        goto out;
    } else if (code == P_K2) {
      if (!in_prim(obj, op, buf, &pos, end, origin, fixed, P_K2, swap))
        goto out;
    } else if (code == P_K1) {
      if (!in_prim(obj, op, buf, &pos, end, origin, fixed, P_K1, swap))
        goto out;
    } else {
      goto out; /* P_STOP: the end, or a member for the general walk */
    }
    op++;
    continue;
  value:;
    /* A value member: null, or a tag with no type information. */
    if (fixed) {
      q = pos + op->pad;
    } else {
      q = pos + ((origin - pos) & 3);
      if ((ptrdiff_t)(end - q) < 4)
        goto out;
    }
    memcpy(&u32, buf + q, 4);
    if (u32 == 0) {
      *(void **)dst = NULL;
      pos = q + 4;
      op++;
      continue;
    }
    if (u32 != (swap ? __builtin_bswap32(TAG_MIN) : TAG_MIN) || tc.n >= nmax)
      goto out; /* the general walk reads it, or fails with the right error */
    const cdr_value_type *dt = op->dt;
    void *child = in_fast_new(&acur, alim, op);
    if (CDR_UNLIKELY(!child))
      goto out;
    rc = in_fast_record(s, &tc, &nlim, nmax, q, (uintptr_t)child);
    if (rc < 0)
      goto fail;
    *(void **)dst = child;
    pos = q + 4;
    op++;
    if (op == tail_at) {
      /* The tail value replaces F's object: the walk restarts, 4-aligned. */
      obj = child;
      op = p->ops;
      fixed = (ptrdiff_t)pos <= rsafe;
      if (fixed && p->list)
        goto list;
      continue;
    }
    /* Any other nested value gets a frame (replacing F when it is the
     * tail); F's fields are saved first, since stacking may move them. */
    int last = op == p->ops + p->nops && p->nops < PLAN_MAX_OPS;
    in_fast_settle(s, &tc, n0, arena, acur);
    uint32_t depth = f->depth, vdepth = vdepth0 + (tc.n - n0) - 1;
    f->obj = obj;
    f->vdepth = vdepth;
    plan_leave(f, p, op);
    i->pos = pos;
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
list:
  /* A list plan, whole objects from a 4-aligned start with room: the
   * primitives from their fixed places, then the tail.  Anything else goes
   * back to the loop above, at the tail or after it. */
  for (const vop *const tail = p->ops + p->nops - 1;;) {
    unsigned ph = 0;
    if (p->k4len) {
      /* 4-octet members side by side on both sides: a block copy. */
      block4_copy(obj + p->ops[0].offset, buf + pos, p->k4len, swap);
    } else {
      ph = (unsigned)((pos - origin) >> 2) & 1;
      for (const vop *o = p->ops; o < tail; o++)
        prim_copy(obj + o->offset, buf + pos + o->u.wof[ph], o->code, swap);
    }
    pos += p->pre_len[ph];
    q = pos + p->tail_pad[ph];
    memcpy(&u32, buf + q, 4);
    void **dst = (void **)(obj + tail->offset);
    op = tail + 1; /* the object is done, unless the tail goes back */
    if (u32 == 0) {
      *dst = NULL;
      pos = q + 4;
      goto resume;
    }
    void *child = NULL;
    if (u32 == (swap ? __builtin_bswap32(TAG_MIN) : TAG_MIN) && tc.n < nmax)
      child = in_fast_new(&acur, alim, tail);
    if (!child) {
      op = tail; /* the loop above takes it (fixed: the room is there) */
      goto resume;
    }
    rc = in_fast_record(s, &tc, &nlim, nmax, q, (uintptr_t)child);
    if (rc < 0)
      goto fail;
    *dst = child;
    pos = q + 4;
    obj = child;
    op = p->ops;
    if ((ptrdiff_t)pos > rsafe) {
      fixed = 0;
      goto resume;
    }
  }
out:
  in_fast_settle(s, &tc, n0, arena, acur);
  f->obj = obj;
  f->vdepth = vdepth0 + (s->values.n - n0);
  plan_leave(f, p, op);
  i->pos = pos;
  return 0;
fail:
  in_fast_settle(s, &tc, n0, arena, acur);
  f->vdepth = vdepth0 + (s->values.n - n0);
  i->pos = q;
  cdr_in_fail(i, rc, "no memory for indirection table");
  return 1;
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
