/* value_impl.h - what the value modules share: wire constants, the walk
 * frames, the per-stream state, walk plans and the inline helpers of the
 * walk loops.  Internal; not installed.
 *
 * Files of the value module, by concern:
 *   value_type.c      descriptors (repository IDs, base types) and the registry
 *   value_state.c     per-stream state: options, tables, frames, their pool
 *   value_plan.c      walk plans: a descriptor's members flattened for the loops
 *   value_out.c       the encoder's general walk and cdr_put_value()
 *   value_out_fast.c  the encoder's walk loop (plain values, minimal type information)
 *   value_in.c        the decoder's general walk and cdr_get_value()
 *   value_in_fast.c   the decoder's walk loop
 *
 * Both directions walk values nested directly in values with an explicit
 * stack of frames (no C recursion), and a value member that is the last
 * member of its enclosing value replaces the enclosing frame instead of
 * stacking on it ("tail" position: nothing of the enclosing value follows
 * on the wire but, for chunked values, its end tag, which the compacted
 * end tag of the nested value covers).  A linked list of any length thus
 * needs one frame.  A value inside another constructed member (a struct
 * holding a value) goes through type.c and back here, on the C stack,
 * bounded by opts.max_depth.
 */
#ifndef CDR_VALUE_IMPL_H
#define CDR_VALUE_IMPL_H

#include "internal.h"
#include "stream_impl.h"
#include "itab.h"
#include "internal_type.h"
#include <cdr/value.h>

#define TAG_MIN 0x7fffff00u
#define TAG_CODEBASE 0x01u
#define TAG_ID_MASK 0x06u
#define TAG_ID_ONE 0x02u
#define TAG_ID_LIST 0x06u
#define TAG_CHUNKED 0x08u
#define INDIRECTION 0xffffffffu
#define CHUNK_MAX 0x7ffffeffu
#define NONE SIZE_MAX
#define MAX_ID_LIST 64
#define MAX_LEVELS 32
#define INLINE_FRAMES 16

/* Types the fast paths leave to the general ones. */
#define VT_SLOW (CDR_VT_TRUNCATABLE | CDR_VT_CUSTOM | CDR_VT_ABSTRACT)

/* ---------------------------------------------------------------- frames and state */

typedef struct vframe {
  const cdr_value_type *vt;   /* actual type (reading a truncated value: the known base) */
  const cdr_value_type *cur;  /* the level being walked */
  const cdr_value_type *root; /* level 0 (the root base) */
  void *obj;
  uint8_t lvl, nlv;           /* level being walked (0 = root base), number of levels */
  uint8_t chunked, truncated;
  uint8_t custom_done;
  uint32_t member;            /* next member of the level */
  uint32_t depth;             /* chunked nesting level of this value (0: not chunked) */
  uint32_t tail_lo;           /* lowest chunk level its end tag closes */
  uint32_t vdepth;            /* values nested in values */
  size_t chunk_start;         /* out: current chunk's length field, NONE when closed */
  uint32_t pend_level;        /* out: a nested chunked value ended here and its end tag
                               * (closing levels pend_level and deeper) is not written yet */
  size_t pend_pos;            /*   where it goes (4-aligned) */
  uint8_t direct;             /* out: walked as a member by out_run (not written through
                               * a custom marshaller or a constructed member) */
  size_t eager_end;           /* out, custom values: an end tag written right after a
                               * nested value (a custom marshaller writes on at once) */
  size_t chunk_lim;           /* in: limit of the chunks */
} vframe;

/* A walk plan (cdr_value_plan): the members of a value type's levels (root
 * base first) flattened into ops that the walk loops dispatch on, with the
 * checks that depend only on the type done once.  A plan hangs on its
 * descriptor (cdr_value_type.plan), built on first use and published with
 * one compare-and-set (value_plan.c); read-only afterwards, it serves every
 * stream and thread, and cdr_value_type_clear() frees it. */
enum {
  P_STOP = 0, /* the general walk takes this member */
  P_K4, P_K8, P_K2, P_K1, /* a primitive of that many octets, copied */
  P_VAL       /* a value member whose declared type the loops handle */
};
#define PLAN_MAX_OPS 48

typedef struct vop {
  uint8_t code;               /* P_* */
  uint8_t lvl;                /* level of the member (for resuming the general walk) */
  uint16_t member;            /* its index in the level */
  uint32_t offset;            /* in the C struct */
  const cdr_value_type *dt;   /* P_VAL: the declared type */
  union {
    uint32_t size;            /* P_VAL: dt->size */
    uint16_t wof[2];          /* primitives of a list plan: octets from the object's
                               * start on the wire when it starts at a position
                               * 0 / 4 mod 8 */
  } u;
  uint8_t align;              /* P_VAL: dt's alignment (8 when not given) */
  uint8_t pad;                /* padding before the member when the object's state
                               * starts 4-aligned (P_K8: worked out each time) */
} vop;

typedef struct cdr_value_plan {
  const cdr_allocator *alloc; /* what the plan was allocated from */
  uint16_t nops;              /* ops[0..nops), then a P_STOP */
  uint8_t nlv;                /* levels of vt */
  uint8_t tail_same;          /* the last member is a value of type vt itself */
  /* Most octets the ops write (an indirection for each value member) and
   * read (a tag or null for each) from a 4-aligned start, padding included:
   * with that much room the walk loops use the fixed padding and skip the
   * bound checks of the members. */
  uint32_t room_out, room_in;
  /* A list plan: primitives, then the tail value (tail_same, nothing for
   * the general walk).  From a 4-aligned start with the room above, the
   * loops copy the primitives to and from fixed places (wof), then handle
   * the tail, for a start at a position 0 / 4 mod 8: */
  uint8_t list;
  uint8_t pre_zero[2];        /* the primitives' octets include padding */
  uint8_t tail_pad[2];        /* padding before the tail's tag */
  uint16_t pre_len[2];        /* octets of the primitives, padding included */
  uint16_t k4len;             /* the primitives are 4-octet members side by side
                               * in the C struct from ops[0].offset, and side by
                               * side on the wire from a start at either phase:
                               * their octets (0: not so) */
  uint8_t lvl_start[MAX_LEVELS + 1]; /* first op of each level (<= nops) */
  vop ops[];                  /* nops + 1 of them (nops <= PLAN_MAX_OPS) */
} vplan;

typedef struct vstate {
  cdr__ext ext;
  cdr_itab values;            /* out: object -> tag position; in: tag position -> object */
  /* Initialised on first use (bit K of aux_live for aux[K]): most streams
   * never send type information.  ids: out: ID string -> position; in:
   * position -> ID string; codebases: the same for codebase URLs; lists:
   * out: type -> count position; in: position -> list. */
  cdr_itab aux[3];
  uint8_t aux_live;
  uint8_t aux_strings;        /* cdr_itab_kind of ids and codebases */
  cdr_value_opts vo;
  int fast;                   /* vo allows the short path (minimal type information) */
  const cdr_allocator *alloc;
  uint32_t nvalues;
  uint32_t nindirect;          /* indirections read (vo.max_indirections) */
  uint64_t tc_octets;         /* in: C octets of objects of TypeCode-built types (CDR_VT_NOCACHE) */
  uint32_t reentry;           /* nested cdr_put_value/cdr_get_value calls open */
  uint32_t sp, cap;
  vframe *frames;
  vframe inline_frames[INLINE_FRAMES];
} vstate;

enum { AUX_IDS = 0, AUX_CODEBASES = 1, AUX_LISTS = 2 };

/* S's table K (AUX_*), initialised on first use. */
static inline cdr_itab *aux_tab(vstate *s, unsigned k)
{
  if (CDR_UNLIKELY(!(s->aux_live & (1u << k)))) {
    cdr_itab_init(&s->aux[k], k == AUX_LISTS ? CDR_ITAB_PTR : (cdr_itab_kind)s->aux_strings,
                  s->alloc);
    s->aux_live |= (uint8_t)(1u << k);
  }
  return &s->aux[k];
}

/* Grow S's frame stack (full): CDR_OK or CDR_E_NOMEM. */
CDR_HIDDEN int cdr__value_frames_grow(vstate *s);

/* cdr_value_type_is_base_of(T, D), or T and one of D's levels have the
 * same repository ID and the same C layout, and one of them was built from
 * a TypeCode (CDR_VT_NOCACHE): a value of type D may stand where T is
 * declared. */
CDR_HIDDEN int cdr__value_type_compatible_id(const cdr_value_type *t, const cdr_value_type *d);
/* Whether value types A and B (with their bases) give their objects the
 * same C layout (any_value.c). */
CDR_HIDDEN int cdr__vt_same_layout(const cdr_value_type *a, const cdr_value_type *b);
static inline int cdr__value_type_compatible(const cdr_value_type *t, const cdr_value_type *d)
{
  const cdr_value_type *x = d;
  for (unsigned k = 0; x && k < MAX_LEVELS; x = x->base, k++)
    if (x == t)
      return 1;
  return cdr__value_type_compatible_id(t, d);
}

/* A new frame on top of S's stack, or NULL when it cannot grow; the caller
 * sets every field (frame_init). */
static inline vframe *push_frame(vstate *s)
{
  if (CDR_UNLIKELY(s->sp == s->cap) && cdr__value_frames_grow(s) != CDR_OK)
    return NULL;
  return &s->frames[s->sp++];
}

static inline vframe *top_frame(vstate *s) { return s->sp ? &s->frames[s->sp - 1] : NULL; }

/* Level LVL of a type with NLV levels (0: the root base). */
static inline const cdr_value_type *level_type(const cdr_value_type *vt, unsigned nlv, unsigned lvl)
{
  const cdr_value_type *x = vt;
  for (unsigned k = nlv - 1; k > lvl; k--)
    x = x->base;
  return x;
}

/* Levels of VT: itself and its bases (at most MAX_LEVELS). */
static inline unsigned level_count(const cdr_value_type *vt)
{
  unsigned n = 0;
  for (const cdr_value_type *x = vt; x && n < MAX_LEVELS; x = x->base)
    n++;
  return n;
}

static inline void frame_init(vframe *f, const cdr_value_type *vt, void *obj)
{
  unsigned n = level_count(vt);
  f->vt = vt;
  f->obj = obj;
  f->nlv = (uint8_t)n;
  f->lvl = 0;
  f->cur = f->root = n > 1 ? level_type(vt, n, 0) : vt;
  f->member = 0;
  f->chunked = f->truncated = f->custom_done = 0;
  f->depth = f->tail_lo = f->vdepth = 0;
  f->chunk_start = NONE;
  f->pend_level = 0;
  f->pend_pos = 0;
  f->eager_end = NONE;
  f->direct = 0;
  f->chunk_lim = 0;
}

/* The next member of F's state (base levels first), or NULL when done;
 * *IS_LAST: nothing of the value's own state follows it. */
static inline const cdr_member *next_member(vframe *f, int *is_last)
{
  for (;;) {
    const cdr_value_type *t = f->cur;
    if (f->member < t->nmembers) {
      const cdr_member *m = &t->members[f->member++];
      *is_last = f->lvl == f->nlv - 1 && f->member == t->nmembers;
      return m;
    }
    if (f->lvl + 1 >= f->nlv)
      return NULL;
    f->lvl++;
    f->member = 0;
    f->cur = level_type(f->vt, f->nlv, f->lvl);
  }
}

/* The value state of O / I, made on first use; NULL with the stream's
 * error set (CDR_E_NOMEM) or when the stream has failed already. */
CDR_HIDDEN vstate *cdr__value_out_state_new(cdr_out *o);
CDR_HIDDEN vstate *cdr__value_in_state_new(cdr_in *i);

static inline vstate *out_state(cdr_out *o)
{
  if (__builtin_expect(o->ext != NULL, 1))
    return o->ext;
  return cdr__value_out_state_new(o);
}

static inline vstate *in_state(cdr_in *i)
{
  if (__builtin_expect(i->ext != NULL, 1))
    return i->ext;
  return cdr__value_in_state_new(i);
}

/* ---------------------------------------------------------------- walk plans */

/* VT's plan, built and published now (the first use): NULL when it cannot
 * be allocated. */
CDR_HIDDEN const vplan *cdr__value_plan_make(const cdr_value_type *vt);
/* Free plan P (taken off its descriptor). */
CDR_HIDDEN void cdr__value_plan_free(const vplan *p);

/* VT's plan (cdr_value_type_plan() without the status): NULL when it cannot
 * be built, and the general walk goes on without it. */
static inline const vplan *plan_get(const cdr_value_type *vt)
{
  const vplan *p = __atomic_load_n(&vt->plan, __ATOMIC_ACQUIRE);
  if (CDR_LIKELY(p != NULL))
    return p;
  return cdr__value_plan_make(vt);
}

/* Leave a walk loop at op OP of plan P (OP == the end: the state is done)
 * with F's walk position on it, for the general walk. */
static inline void plan_leave(vframe *f, const vplan *p, const vop *op)
{
  if (op < p->ops + p->nops) {
    f->lvl = op->lvl;
    f->member = op->member;
  } else if (p->nops < PLAN_MAX_OPS) {
    f->lvl = (uint8_t)(f->nlv - 1); /* every member done */
    f->member = f->vt->nmembers;
  } else {
    return; /* ops end at a P_STOP: not reached */
  }
  f->cur = level_type(f->vt, f->nlv, f->lvl);
}

/* New values the limits allow in a walk loop at nesting VDEPTH before the

 * general walk must decide: nested values (max_depth) and values in the
 * stream (max_values). */
static inline uint32_t value_budget(const vstate *s, uint32_t vdepth)
{
  uint32_t by_depth = s->vo.max_depth > vdepth ? s->vo.max_depth - vdepth : 0;
  uint32_t by_count = s->vo.max_values > s->nvalues ? s->vo.max_values - s->nvalues : 0;
  return by_depth < by_count ? by_depth : by_count;
}



/* The entry count of S's value table up to which a walk loop that starts
 * with N0 entries at nesting VDEPTH may add values: value_budget() more,
 * saturated. */
static inline uint32_t value_nmax(const vstate *s, uint32_t n0, uint32_t vdepth)
{
  uint32_t b = value_budget(s, vdepth);
  return b > UINT32_MAX - n0 ? UINT32_MAX : n0 + b;
}

/* Copy one primitive (op code CODE: P_K4, P_K8, P_K2 or P_K1) from SRC
 * to DST, byte-swapped when SWAP: the same in both directions. */
static inline __attribute__((always_inline)) void prim_copy(uint8_t *dst, const uint8_t *src,
                                                            uint32_t code, const int swap)
{
  if (CDR_LIKELY(code == P_K4)) {
    uint32_t u32;
    memcpy(&u32, src, 4);
    if (swap)
      u32 = __builtin_bswap32(u32);
    memcpy(dst, &u32, 4);
  } else if (code == P_K8) {
    uint64_t u64;
    memcpy(&u64, src, 8);
    if (swap)
      u64 = __builtin_bswap64(u64);
    memcpy(dst, &u64, 8);
  } else if (code == P_K2) {
    uint16_t u16;
    memcpy(&u16, src, 2);
    if (swap)
      u16 = __builtin_bswap16(u16);
    memcpy(dst, &u16, 2);
  } else {
    *dst = *src;
  }
}

/* Copy LEN octets of 4-octet members (LEN a multiple of 4) from SRC to
 * DST, each byte-swapped when SWAP: a list plan's k4len block. */
static inline __attribute__((always_inline)) void block4_copy(uint8_t *dst, const uint8_t *src,
                                                              size_t len, const int swap)
{
  size_t j = 0;
  if (CDR_LIKELY(len == 4)) { /* one member: laid out in line with the loops */
    prim_copy(dst, src, P_K4, swap);
    return;
  }
  if (!swap)
    for (; j + 8 <= len; j += 8)
      memcpy(dst + j, src + j, 8);
  for (; j < len; j += 4)
    prim_copy(dst + j, src + j, P_K4, swap);
}

/* The walk loops (value_out_fast.c, value_in_fast.c), one copy per byte
 * order: write / read F's state from its walk position on with plan P as far
 * as the loop goes.  Return 0 with F's walk position on the first member
 * left to the general walk, or 1 after an error or after stacking or
 * replacing a frame for a nested value. */
CDR_HIDDEN int cdr__value_out_fast_host(cdr_out *o, vstate *s, vframe *f, const vplan *p);
CDR_HIDDEN int cdr__value_out_fast_swap(cdr_out *o, vstate *s, vframe *f, const vplan *p);
CDR_HIDDEN int cdr__value_in_fast_host(cdr_in *i, vstate *s, vframe *f, const vplan *p);
CDR_HIDDEN int cdr__value_in_fast_swap(cdr_in *i, vstate *s, vframe *f, const vplan *p);

#endif
