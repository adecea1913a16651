/* value.c - valuetype graphs: value tags, type information, indirection,
 * chunking with compacted end tags, truncation, and the registry.
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
 *
 * Per-stream state (indirection tables and the frame stack) hangs on the
 * stream's ext pointer; its tables give their arrays to the per-thread
 * table pool when the stream closes.
 */
#include "internal.h"
#include "stream_impl.h"
#include "pool_impl.h"
#include "itab.h"
#include "internal_type.h"
#include <cdr/value.h>
#include <pthread.h>
#include <xxhash.h>

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

/* ---------------------------------------------------------------- descriptors */

const char *cdr_value_type_id(const cdr_value_type *t, int *status)
{
  cdr_value_type *m = (cdr_value_type *)t; /* only the atomic cache is written */
  const char *id = __atomic_load_n(&m->id.id, __ATOMIC_ACQUIRE);
  if (__builtin_expect(id != NULL, 1)) {
    if (status)
      *status = CDR_OK;
    return id;
  }
  if (t->repo_id) {
    const char *expected = NULL;
    if (!__atomic_compare_exchange_n(&m->id.id, &expected, t->repo_id, 0, __ATOMIC_RELEASE,
                                     __ATOMIC_ACQUIRE))
      return expected;
    return t->repo_id;
  }
  if (t->rmi)
    return cdr_repoid_cache_get(&m->id, NULL, cdr_repoid_rmi_compute, t->rmi, status);
  if (t->idl.scoped)
    return cdr_repoid_cache_get(&m->id, NULL, cdr_repoid_idl_compute, &t->idl, status);
  if (status)
    *status = CDR_E_INVALID;
  return NULL;
}

int cdr_value_type_is_base_of(const cdr_value_type *t, const cdr_value_type *d)
{
  for (unsigned k = 0; d && k < MAX_LEVELS; d = d->base, k++)
    if (d == t)
      return 1;
  return 0;
}

/* Member kinds the walk loops copy themselves, by size. */
#define FAST_K4 ((1u << CDR_K_LONG) | (1u << CDR_K_ULONG) | (1u << CDR_K_FLOAT))
#define FAST_K8 ((1u << CDR_K_LONGLONG) | (1u << CDR_K_ULONGLONG) | (1u << CDR_K_DOUBLE))
#define FAST_K2 ((1u << CDR_K_SHORT) | (1u << CDR_K_USHORT))
#define FAST_K1 ((1u << CDR_K_OCTET) | (1u << CDR_K_CHAR))
_Static_assert(CDR_K_CUSTOM < 32, "member kinds fit a 32-bit mask");
_Static_assert(CDR__ARENA_SLACK >= 64, "the walk loop zeroes objects in 32/64-octet stores");

/* Types the fast paths leave to the general ones. */
#define VT_SLOW (CDR_VT_TRUNCATABLE | CDR_VT_CUSTOM | CDR_VT_ABSTRACT)

static int needs_chunking(const cdr_value_type *t)
{
  return (t->flags & (CDR_VT_TRUNCATABLE | CDR_VT_CUSTOM)) != 0;
}

/* ---------------------------------------------------------------- registry */

#define REG_SLOTS 8192u /* power of two, twice the type limit */
#define REG_MAX 4096u

struct cdr_registry {
  pthread_mutex_t lock;
  uint32_t count;
  const cdr_value_type *slot[REG_SLOTS]; /* published with release stores */
  const char *ids[REG_SLOTS];            /* written before slot[] */
  uint32_t lens[REG_SLOTS];
};

static cdr_registry *global_registry;
static pthread_once_t global_registry_once = PTHREAD_ONCE_INIT;

static void global_registry_make(void) { global_registry = cdr_registry_new(); }

cdr_registry *cdr_registry_global(void)
{
  pthread_once(&global_registry_once, global_registry_make);
  return global_registry;
}

cdr_registry *cdr_registry_new(void)
{
  cdr_registry *r = cdr__malloc(NULL, sizeof *r);
  if (!r)
    return NULL;
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->lock, NULL);
  return r;
}

void cdr_registry_free(cdr_registry *r)
{
  if (!r)
    return;
  pthread_mutex_destroy(&r->lock);
  cdr__free(NULL, r);
}

static uint32_t reg_hash(const char *id, size_t len)
{
  return (uint32_t)XXH3_64bits(id, len);
}

const cdr_value_type *cdr_registry_find(const cdr_registry *r, const char *id, size_t len)
{
  for (uint32_t h = reg_hash(id, len) & (REG_SLOTS - 1);; h = (h + 1) & (REG_SLOTS - 1)) {
    const cdr_value_type *t = __atomic_load_n(&r->slot[h], __ATOMIC_ACQUIRE);
    if (!t)
      return NULL;
    if (r->lens[h] == len && memcmp(r->ids[h], id, len) == 0)
      return t;
  }
}

int cdr_registry_add(cdr_registry *r, const cdr_value_type *t)
{
  for (unsigned lvl = 0; t && lvl < MAX_LEVELS; t = t->base, lvl++) {
    int st;
    const char *id = cdr_value_type_id(t, &st);
    if (!id)
      return st;
    size_t len = strlen(id);
    pthread_mutex_lock(&r->lock);
    uint32_t h = reg_hash(id, len) & (REG_SLOTS - 1);
    int rc = CDR_OK;
    for (;; h = (h + 1) & (REG_SLOTS - 1)) {
      const cdr_value_type *x = r->slot[h];
      if (!x) {
        if (r->count >= REG_MAX) {
          rc = CDR_E_LIMIT;
          break;
        }
        r->ids[h] = id;
        r->lens[h] = (uint32_t)len;
        __atomic_store_n(&r->slot[h], t, __ATOMIC_RELEASE);
        r->count++;
        break;
      }
      if (r->lens[h] == len && memcmp(r->ids[h], id, len) == 0) {
        if (x != t)
          rc = CDR_E_INVALID;
        break;
      }
    }
    pthread_mutex_unlock(&r->lock);
    if (rc != CDR_OK)
      return rc;
  }
  return CDR_OK;
}

void cdr_value_opts_default(cdr_value_opts *v)
{
  memset(v, 0, sizeof *v);
  v->typeinfo = CDR_TYPEINFO_MINIMAL;
  v->max_depth = 1000000;
  v->max_values = 16u << 20;
  v->max_recursion = 4096;
}

/* ---------------------------------------------------------------- per-stream state */

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

/* A walk plan: the members of a value type's levels (root base first)
 * flattened into ops that the walk loops dispatch on, with the checks that
 * depend only on the type done once.  Plans are cached in the stream state,
 * keyed by descriptor.  A descriptor may be freed between messages and
 * another one allocated at its address: a plan is kept across messages only
 * when its descriptor's repository ID was given as a string and published
 * (a new descriptor starts with none), else forgotten when the state is
 * taken from the pool or reset. */
enum {
  P_STOP = 0, /* the general walk takes this member */
  P_K4, P_K8, P_K2, P_K1, /* a primitive of that many octets, copied */
  P_VAL       /* a value member whose declared type the loops handle */
};
#define PLAN_SLOTS 8
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

typedef struct vplan {
  const cdr_value_type *vt;   /* NULL: empty slot */
  const char *idp;            /* vt's published repository ID when the plan may
                               * outlive the message (see plan_get), else NULL */
  const cdr_member *members;  /* what the plan was built from */
  const cdr_value_type *base;
  uint32_t nmembers;
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
  vop ops[PLAN_MAX_OPS + 1];
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
  uint32_t reentry;           /* nested cdr_put_value/cdr_get_value calls open */
  uint32_t sp, cap;
  vframe *frames;
  vframe inline_frames[INLINE_FRAMES];
  uint32_t plans_live;        /* bit K: plans[K] was built for this stream */
  vplan plans[PLAN_SLOTS];
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

/* Plans of descriptors without a published repository ID string live for
 * one message: a descriptor freed after it (and another allocated at its
 * address) must not find a stale plan.  The others are checked against the
 * published ID (plan_get). */
static void plans_forget(vstate *s)
{
  for (uint32_t m = s->plans_live; m; m &= m - 1)
    s->plans[__builtin_ctz(m)].vt = NULL;
  s->plans_live = 0;
}

static void vstate_reset(void *self)
{
  vstate *s = self;
  plans_forget(s);
  cdr_itab_clear(&s->values);
  for (unsigned k = 0; k < 3; k++)
    if (s->aux_live & (1u << k))
      cdr_itab_clear(&s->aux[k]);
  s->nvalues = 0;
  s->sp = 0;
  s->reentry = 0;
}

/* A few released states per thread, on their shelf of the per-thread cache
 * (pool_impl.h), so that a stream per call allocates nothing in steady
 * state. */
static void vstate_destroy(vstate *s)
{
  if (s->frames != s->inline_frames)
    cdr__free(s->alloc, s->frames);
  cdr__free(s->alloc, s);
}

/* The cache client: cdr_pool_flush() and thread exit free the shelf. */
static void vstate_shelf_free(cdr__tcache *tc)
{
  while (tc->nvalue_states)
    vstate_destroy(tc->value_states[--tc->nvalue_states]);
}

static const cdr__tcache_client vstate_client = { NULL, vstate_shelf_free, vstate_shelf_free };

static __attribute__((constructor)) void vstate_register(void)
{
  cdr__tcache_add_client(&vstate_client);
}

static void vstate_release(void *self)
{
  vstate *s = self;
  cdr__tcache *tc = &cdr__tc;
  cdr_itab_release(&s->values);
  for (unsigned k = 0; k < 3; k++)
    if (s->aux_live & (1u << k))
      cdr_itab_release(&s->aux[k]);
  s->aux_live = 0;
  if (s->alloc == cdr_mem_global() && tc->nvalue_states < CDR__POOL_CFG(value_states)
      && cdr__tcache_live(tc)) {
    tc->value_states[tc->nvalue_states++] = s;
    return;
  }
  vstate_destroy(s);
}

/* A state for a stream; STRINGS: how repository IDs and codebases are keyed
 * (by content when writing, by position when reading). */
static vstate *vstate_new(const cdr_allocator *alloc, cdr_itab_kind strings)
{
  const cdr_allocator *a = cdr__alloc_or_global(alloc);
  vstate *s = NULL;
  cdr__tcache *tc = &cdr__tc;
  if (a == cdr_mem_global() && tc->nvalue_states)
    s = tc->value_states[--tc->nvalue_states];
  if (!s) {
    s = cdr__malloc(a, sizeof *s);
    if (!s)
      return NULL;
    s->frames = s->inline_frames;
    s->cap = INLINE_FRAMES;
    for (unsigned k = 0; k < PLAN_SLOTS; k++)
      s->plans[k].vt = NULL;
    s->plans_live = 0;
  }
  plans_forget(s);
  s->ext.reset = vstate_reset;
  s->ext.release = vstate_release;
  s->alloc = a;
  cdr_itab_init(&s->values, CDR_ITAB_PTR, a);
  s->aux_live = 0;
  s->aux_strings = (uint8_t)strings;
  cdr_value_opts_default(&s->vo);
  s->fast = 1;
  s->nvalues = 0;
  s->sp = 0;
  s->reentry = 0;
  return s;
}

static vstate *out_state(cdr_out *o)
{
  if (__builtin_expect(o->ext != NULL, 1))
    return o->ext;
  if (o->status != CDR_OK)
    return NULL;
  vstate *s = vstate_new(o->opts.alloc, CDR_ITAB_STR);
  if (!s) {
    cdr_out_fail(o, CDR_E_NOMEM);
    return NULL;
  }
  o->ext = s;
  return s;
}

static vstate *in_state(cdr_in *i)
{
  if (__builtin_expect(i->ext != NULL, 1))
    return i->ext;
  if (i->status != CDR_OK)
    return NULL;
  vstate *s = vstate_new(i->opts.alloc, CDR_ITAB_PTR); /* keyed by position */
  if (!s) {
    cdr_in_fail(i, CDR_E_NOMEM, "no memory for value state");
    return NULL;
  }
  i->ext = s;
  return s;
}

int cdr_out_set_value_opts(cdr_out *o, const cdr_value_opts *v)
{
  vstate *s = out_state(o);
  if (!s)
    return o->status;
  s->vo = *v;
  s->fast = v->typeinfo == CDR_TYPEINFO_MINIMAL && !v->chunk_all;
  return CDR_OK;
}

int cdr_in_set_value_opts(cdr_in *i, const cdr_value_opts *v)
{
  vstate *s = in_state(i);
  if (!s)
    return i->status;
  s->vo = *v;
  return CDR_OK;
}

static vframe *push_frame(vstate *s)
{
  if (s->sp == s->cap) {
    uint32_t ncap = s->cap * 2;
    vframe *nf;
    if (s->frames == s->inline_frames) {
      nf = cdr__malloc(s->alloc, ncap * sizeof *nf);
      if (nf)
        memcpy(nf, s->frames, s->sp * sizeof *nf);
    } else {
      nf = cdr__realloc(s->alloc, s->frames, ncap * sizeof *nf);
    }
    if (!nf)
      return NULL;
    s->frames = nf;
    s->cap = ncap;
  }
  return &s->frames[s->sp++]; /* the caller sets every field (frame_init) */
}

static inline vframe *top_frame(vstate *s) { return s->sp ? &s->frames[s->sp - 1] : NULL; }

/* Level LVL of a type with NLV levels (0: the root base). */
static const cdr_value_type *level_type(const cdr_value_type *vt, unsigned nlv, unsigned lvl)
{
  const cdr_value_type *x = vt;
  for (unsigned k = nlv - 1; k > lvl; k--)
    x = x->base;
  return x;
}

/* Levels of VT: itself and its bases (at most MAX_LEVELS). */
static unsigned level_count(const cdr_value_type *vt)
{
  unsigned n = 0;
  for (const cdr_value_type *x = vt; x && n < MAX_LEVELS; x = x->base)
    n++;
  return n;
}

static void frame_init(vframe *f, const cdr_value_type *vt, void *obj)
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

/* ================================================================ writing */

static void put_long_aligned(cdr_out *o, uint32_t v) { cdr_put_ulong(o, v); }

/* An indirection to what was written at AT: 0xffffffff, then the offset
 * from the offset field (after alignment) back to AT. */
static void put_indirection(cdr_out *o, size_t at)
{
  put_long_aligned(o, INDIRECTION);
  put_long_aligned(o, (uint32_t)(int32_t)((intptr_t)at - (intptr_t)o->pos));
}

/* Close F's current chunk: patch its length, or drop an empty one. */
static void out_close_chunk(cdr_out *o, vframe *f)
{
  if (f->chunk_start == NONE || o->status != CDR_OK)
    return;
  size_t len = o->pos - f->chunk_start - 4;
  if (len == 0) {
    o->pos = f->chunk_start;
  } else if (len > CHUNK_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT);
  } else {
    (void)cdr_out_patch_ulong(o, f->chunk_start, (uint32_t)len, o->opts.byte_order);
  }
  f->chunk_start = NONE;
}

static void out_open_chunk(cdr_out *o, vframe *f)
{
  cdr_out_align(o, 4);
  f->chunk_start = o->pos;
  put_long_aligned(o, 0);
}

/* Write F's pending end tag (a nested chunked value ended and F went on)
 * at the position, followed by a new chunk of F when NEW_CHUNK.  Pending
 * tags exist only in values walked by the library, which calls this before
 * it writes anything more of F. */
static void out_flush_pending(cdr_out *o, vframe *f, int new_chunk)
{
  if (!f->pend_level || o->status != CDR_OK)
    return;
  uint32_t level = f->pend_level;
  f->pend_level = 0;
  if (o->pos != f->pend_pos) {
    cdr_out_fail(o, CDR_E_STATE); /* cannot happen: nothing writes in between */
    return;
  }
  cdr_put_long(o, -(int32_t)level);
  if (new_chunk)
    out_open_chunk(o, f);
}

/* A string (repository ID or codebase URL), or an indirection to the same
 * string written earlier in this stream.  The string is UTF-8 (repoid.h),
 * whatever the stream's native char code set: it goes out converted from
 * UTF-8 to the transmission code set (CDR_E_CODESET: a character that
 * ISO-8859-1 lacks). */
static void out_string_indirect(cdr_out *o, cdr_itab *tab, const char *s)
{
  uintptr_t at;
  cdr_out_align(o, 4);
  if (cdr_itab_get(tab, (uintptr_t)s, &at)) {
    put_indirection(o, at);
    return;
  }
  size_t here = o->pos;
  const uint32_t ncs = o->opts.ncs_c;
  o->opts.ncs_c = CDR_CS_UTF8;
  cdr_put_string(o, s);
  o->opts.ncs_c = ncs;
  if (o->status == CDR_OK) {
    int rc = cdr_itab_put(tab, (uintptr_t)s, here);
    if (rc != CDR_OK)
      cdr_out_fail(o, rc);
  }
}

/* Start writing VALUE (declared type T) nested in the current top frame (or
 * at top level).  Writes null or an indirection and returns 0, or writes
 * the tag and type information, pushes a frame and returns 1.  With TAIL,
 * the top frame (whose last member this is) is popped first. */
static int out_value_start(cdr_out *o, vstate *s, const cdr_value_type *t, const void *value,
                           int tail)
{
  vframe *parent = top_frame(s);
  if (!value) {
    if (parent && parent->chunked)
      out_flush_pending(o, parent, 1); /* null goes inside a chunk */
    put_long_aligned(o, 0);
    return 0;
  }
  const cdr_value_type *actual = ((const cdr_value *)value)->type;
  if (!actual || (actual != t && !cdr_value_type_is_base_of(t, actual))
      || (actual->flags & CDR_VT_ABSTRACT)) {
    cdr_out_fail(o, CDR_E_TYPE);
    return 0;
  }
  uint32_t vdepth = parent ? parent->vdepth + 1 : 1;
  int in_chunk = parent && parent->chunked;
  uintptr_t at;
  if (in_chunk && cdr_itab_get(&s->values, (uintptr_t)value, &at)) {
    out_flush_pending(o, parent, 1);
    put_indirection(o, at); /* inside the current chunk */
    return 0;
  }
  if (in_chunk) {
    out_flush_pending(o, parent, 0);
    out_close_chunk(o, parent); /* a nested value's tag goes between chunks */
  }
  /* The tag's position, found or recorded with one probe. */
  size_t tag_pos = o->pos + ((o->origin - o->pos) & 3);
  int found = cdr_itab_get_or_add(&s->values, (uintptr_t)value, tag_pos, &at);
  if (found < 0) {
    cdr_out_fail(o, found);
    return 0;
  }
  if (found) {
    put_indirection(o, at);
    return 0;
  }
  if (s->nvalues >= s->vo.max_values) {
    cdr_out_fail(o, CDR_E_LIMIT);
    return 0;
  }
  if (vdepth > s->vo.max_depth) {
    cdr_out_fail(o, CDR_E_LIMIT);
    return 0;
  }
  int chunked = in_chunk || needs_chunking(actual) || s->vo.chunk_all;
  int list = (actual->flags & CDR_VT_TRUNCATABLE) && actual->base;
  int one = !list && (actual != t || in_chunk || s->vo.typeinfo == CDR_TYPEINFO_ALWAYS
                      || (actual->flags & CDR_VT_CUSTOM));
  uint32_t pdepth = parent ? parent->depth : 0;
  uint32_t tail_lo = 0;
  if (tail && parent) {
    tail_lo = parent->chunked ? parent->tail_lo : 0;
    s->sp--;
  }
  if (o->status != CDR_OK)
    return 0;
  int rc;
  s->nvalues++;
  uint32_t tag = TAG_MIN | (actual->codebase ? TAG_CODEBASE : 0)
                 | (list ? TAG_ID_LIST : one ? TAG_ID_ONE : 0) | (chunked ? TAG_CHUNKED : 0);
  put_long_aligned(o, tag);
  if (actual->codebase)
    out_string_indirect(o, aux_tab(s, AUX_CODEBASES), actual->codebase);
  if (list || one) {
    int st;
    if (list) {
      uintptr_t lat;
      cdr_out_align(o, 4);
      if (cdr_itab_get(aux_tab(s, AUX_LISTS), (uintptr_t)actual, &lat)) {
        put_indirection(o, lat);
      } else {
        size_t count_pos = o->pos;
        uint32_t n = 1;
        for (const cdr_value_type *x = actual; (x->flags & CDR_VT_TRUNCATABLE) && x->base
             && n < MAX_ID_LIST; x = x->base)
          n++;
        put_long_aligned(o, n);
        const cdr_value_type *x = actual;
        for (uint32_t k = 0; k < n; k++, x = x->base) {
          const char *id = cdr_value_type_id(x, &st);
          if (!id) {
            cdr_out_fail(o, st);
            return 0;
          }
          out_string_indirect(o, aux_tab(s, AUX_IDS), id);
        }
        if (o->status == CDR_OK
            && (rc = cdr_itab_put(aux_tab(s, AUX_LISTS), (uintptr_t)actual, count_pos)))
          cdr_out_fail(o, rc);
      }
    } else {
      const char *id = cdr_value_type_id(actual, &st);
      if (!id) {
        cdr_out_fail(o, st);
        return 0;
      }
      out_string_indirect(o, aux_tab(s, AUX_IDS), id);
    }
  }
  if (o->status != CDR_OK)
    return 0;
  vframe *f = push_frame(s);
  if (!f) {
    cdr_out_fail(o, CDR_E_NOMEM);
    return 0;
  }
  frame_init(f, actual, (void *)value);
  f->chunked = (uint8_t)chunked;
  f->depth = chunked ? pdepth + 1 : pdepth;
  f->tail_lo = tail_lo && chunked ? tail_lo : f->depth;
  f->vdepth = vdepth;
  if (chunked)
    out_open_chunk(o, f);
  return 1;
}

/* Finish the top frame: close its chunk and end it.  Its end tag is left
 * pending in the enclosing chunked value, so that when that value ends at
 * the same point one compacted end tag closes both (omniORB requires it). */
static void out_value_end(cdr_out *o, vstate *s)
{
  vframe *f = top_frame(s);
  if (f->chunked && o->status == CDR_OK) {
    if (f->pend_level && o->pos == f->pend_pos)
      f->pend_level = 0; /* our end tag closes the nested value's levels too */
    else
      out_flush_pending(o, f, 1);
    out_close_chunk(o, f);
    if (f->eager_end != NONE && o->pos == f->eager_end + 4)
      o->pos = f->eager_end; /* likewise after a custom value's last nested value */
    uint32_t level = f->tail_lo;
    s->sp--;
    vframe *p = top_frame(s);
    cdr_out_align(o, 4);
    if (p && p->chunked && f->direct && !(p->vt->flags & CDR_VT_CUSTOM)) {
      p->pend_level = level; /* written when p goes on, or compacted */
      p->pend_pos = o->pos;
    } else {
      /* A custom marshaller or a constructed member goes on writing by
       * itself: the end tag and a new chunk go now (and are taken back if
       * nothing follows). */
      size_t at = o->pos;
      cdr_put_long(o, -(int32_t)level);
      if (p && p->chunked) {
        p->eager_end = at;
        out_open_chunk(o, p);
      }
    }
    return;
  }
  s->sp--;
}

/* Build VT's plan into P. */
static void plan_build(vplan *p, const cdr_value_type *vt)
{
  unsigned nlv = level_count(vt);
  unsigned k = 0, total = 0;
  for (unsigned lvl = 0; lvl < nlv; lvl++) {
    const cdr_value_type *x = level_type(vt, nlv, lvl);
    p->lvl_start[lvl] = (uint8_t)(k < PLAN_MAX_OPS ? k : PLAN_MAX_OPS);
    total += x->nmembers;
    for (uint32_t mi = 0; mi < x->nmembers && k < PLAN_MAX_OPS; mi++, k++) {
      const cdr_member *m = &x->members[mi];
      vop *op = &p->ops[k];
      op->lvl = (uint8_t)lvl;
      op->member = (uint16_t)mi;
      op->offset = (uint32_t)m->offset;
      op->dt = NULL;
      op->code = P_STOP;
      if (k == PLAN_MAX_OPS - 1 || m->offset > UINT32_MAX)
        continue; /* the general walk from here on */
      uint32_t kind = m->type->kind;
      uint32_t bit = kind < 32 ? 1u << kind : 0;
      if (bit & FAST_K4)
        op->code = P_K4;
      else if (bit & FAST_K8)
        op->code = P_K8;
      else if (bit & FAST_K2)
        op->code = P_K2;
      else if (bit & FAST_K1)
        op->code = P_K1;
      else if (kind == CDR_K_VALUE) {
        const cdr_value_type *dt = m->type->u.val.vt;
        if (dt && !(dt->flags & VT_SLOW) && !dt->codebase && !dt->factory && dt->size
            && (dt->align & (dt->align - 1)) == 0 && dt->align <= 16) {
          op->code = P_VAL;
          op->dt = dt;
          op->u.size = dt->size;
          op->align = (uint8_t)(dt->align ? dt->align : 8);
        }
      }
    }
  }
  p->lvl_start[nlv] = (uint8_t)(k < PLAN_MAX_OPS ? k : PLAN_MAX_OPS);
  p->nops = (uint16_t)k;
  p->ops[k].code = P_STOP; /* the loops stop at the end without counting */
  p->ops[k].lvl = 0;
  p->ops[k].member = 0;
  p->ops[k].offset = 0;
  p->ops[k].dt = NULL;
  p->tail_same = k == total && k > 0 && p->ops[k - 1].code == P_VAL && p->ops[k - 1].dt == vt;
  /* The padding of each member from a 4-aligned start (position mod 4
   * tracked; a value member ends 4-aligned: null, tag or indirection, or
   * the loop leaves), and the most octets from there to the end. */
  uint32_t mod = 0, room_out = 0, room_in = 0;
  for (unsigned j = 0; j < k; j++) {
    vop *op = &p->ops[j];
    uint32_t pad = 0;
    switch (op->code) {
    case P_K4:
      pad = (4 - mod) & 3;
      room_out += pad + 4;
      room_in += pad + 4;
      mod = 0;
      break;
    case P_K8:
      room_out += 7 + 8; /* the padding depends on the position mod 8 */
      room_in += 7 + 8;
      mod = 0;
      break;
    case P_K2:
      pad = mod & 1;
      room_out += pad + 2;
      room_in += pad + 2;
      mod = (mod + pad + 2) & 3;
      break;
    case P_K1:
      room_out += 1;
      room_in += 1;
      mod = (mod + 1) & 3;
      break;
    case P_VAL:
      pad = (4 - mod) & 3;
      room_out += pad + 8;
      room_in += pad + 4;
      mod = 0;
      break;
    default:
      break; /* P_STOP: the loops leave there */
    }
    op->pad = (uint8_t)pad;
  }
  p->room_out = room_out;
  p->room_in = room_in;
  /* A list plan: the wire layout of the primitives for both starts. */
  p->list = p->tail_same && k < PLAN_MAX_OPS;
  for (unsigned j = 0; p->list && j + 1 < k; j++)
    if (p->ops[j].code < P_K4 || p->ops[j].code > P_K1)
      p->list = 0;
  for (unsigned ph = 0; p->list && ph < 2; ph++) {
    uint32_t at = ph * 4, zero = 0; /* position mod 8 of the start, then on */
    for (unsigned j = 0; j + 1 < k; j++) {
      vop *op = &p->ops[j];
      uint32_t sz = op->code == P_K4 ? 4 : op->code == P_K8 ? 8 : op->code == P_K2 ? 2 : 1;
      uint32_t pad = (sz - (at & (sz - 1))) & (sz - 1);
      zero |= pad;
      op->u.wof[ph] = (uint16_t)(at + pad - ph * 4);
      at += pad + sz;
    }
    uint32_t tpad = (4 - (at & 3)) & 3;
    p->pre_len[ph] = (uint16_t)(at - ph * 4);
    p->pre_zero[ph] = zero != 0;
    p->tail_pad[ph] = (uint8_t)tpad;
  }
  p->k4len = 0;
  if (p->list && k > 1) {
    uint32_t j = 0;
    while (j + 1 < k && p->ops[j].code == P_K4 && p->ops[j].offset == p->ops[0].offset + 4 * j)
      j++;
    if (j + 1 == k)
      p->k4len = (uint16_t)(4 * j); /* no padding: 4-aligned from a 4-aligned start */
  }
  p->nlv = (uint8_t)nlv;
  p->vt = vt;
  p->members = vt->members;
  p->base = vt->base;
  p->nmembers = vt->nmembers;
  /* A descriptor with its repository ID given as a string gets it published
   * (no allocation: the string itself) and keeps its plan across messages:
   * a descriptor built anew at this address starts with no published ID.
   * Others keep theirs for one message. */
  p->idp = NULL;
  if (vt->repo_id && cdr_value_type_id(vt, NULL) == vt->repo_id)
    p->idp = vt->repo_id;
}

/* VT's plan from S's cache, built on a miss. */
static inline const vplan *plan_get(vstate *s, const cdr_value_type *vt)
{
  unsigned k = ((uintptr_t)vt >> 4) & (PLAN_SLOTS - 1);
  vplan *p = &s->plans[k];
  if (CDR_UNLIKELY(p->vt != vt || p->members != vt->members || p->base != vt->base
                   || p->nmembers != vt->nmembers
                   || (p->idp && p->idp != __atomic_load_n(&vt->id.id, __ATOMIC_RELAXED)))) {
    plan_build(p, vt);
    if (!p->idp)
      s->plans_live |= 1u << k; /* forgotten after this message */
    else
      s->plans_live &= ~(1u << k);
  }
  return p;
}

/* Leave a walk loop at op OP of plan P (OP == the end: the state is done)
 * with F's walk position on it, for the general walk. */
static void plan_leave(vframe *f, const vplan *p, const vop *op)
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

/* Leave the encoder's walk loop: the value table takes back its entries
 * from cursor TC, and the values the loop wrote count in S (one entry
 * each: the table had N0 entries when the loop began). */
static inline void out_fast_settle(vstate *s, const cdr_itab_cur *tc, uint32_t n0)
{
  cdr_itab__cur_store(&s->values, tc, 1);
  s->nvalues += s->values.n - n0;
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

/* The entry count of S's value table up to which a walk loop that starts
 * with N0 entries at nesting VDEPTH may add values: value_budget() more,
 * saturated. */
static inline uint32_t value_nmax(const vstate *s, uint32_t n0, uint32_t vdepth)
{
  uint32_t b = value_budget(s, vdepth);
  return b > UINT32_MAX - n0 ? UINT32_MAX : n0 + b;
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
static __attribute__((noinline)) int out_fast_host(cdr_out *o, vstate *s, vframe *f, const vplan *p)
{
  return out_fast_impl(o, s, f, p, o->buf, 0);
}

static __attribute__((noinline)) int out_fast_swap(cdr_out *o, vstate *s, vframe *f, const vplan *p)
{
  return out_fast_impl(o, s, f, p, o->buf, 1);
}

static inline int out_fast(cdr_out *o, vstate *s, vframe *f)
{
  const vplan *p = plan_get(s, f->vt);
  return o->swap ? out_fast_swap(o, s, f, p) : out_fast_host(o, s, f, p);
}

/* The top-level value of cdr_put_value() when it is what the walk loop
 * writes (a plain value of exactly its declared type, minimal type
 * information, not written yet): its tag and frame, without the general
 * checks.  Returns 1 after pushing its frame, 0 when done (an indirection
 * to it, or an error), -1 when the general path must take it (nothing
 * written). */
static int root_plain_out(cdr_out *o, vstate *s, const cdr_value_type *t, const void *value)
{
  if (((const cdr_value *)value)->type != t || !s->fast || (t->flags & VT_SLOW) || t->codebase
      || s->vo.max_depth < 1 || s->nvalues >= s->vo.max_values)
    return -1;
  size_t tag_pos = o->pos + ((o->origin - o->pos) & 3);
  uintptr_t at;
  int found = cdr_itab__get_or_add_k(&s->values, (uintptr_t)value, tag_pos, &at, CDR_ITAB_PTR);
  if (found) {
    if (found < 0) {
      cdr_out_fail(o, found);
      return 0;
    }
    put_indirection(o, at);
    return 0;
  }
  cdr_put_ulong(o, TAG_MIN);
  vframe *f = o->status == CDR_OK ? push_frame(s) : NULL;
  if (!f) {
    if (o->status == CDR_OK)
      cdr_out_fail(o, CDR_E_NOMEM);
    return 0;
  }
  s->nvalues++;
  frame_init(f, t, (void *)value);
  f->vdepth = 1;
  return 1;
}

/* Write the state of frames above BASE_SP until they are all done. */
static void out_run(cdr_out *o, vstate *s, uint32_t base_sp)
{
  while (s->sp > base_sp && o->status == CDR_OK) {
    vframe *f = top_frame(s);
    if (f->vt->flags & CDR_VT_CUSTOM) {
      if (!f->custom_done) {
        f->custom_done = 1;
        int rc = f->vt->marshal ? f->vt->marshal(o, f->obj, f->vt) : CDR_E_INVALID;
        if (rc != CDR_OK) {
          cdr_out_fail(o, rc);
          return;
        }
        continue; /* the marshaller may have pushed and popped frames */
      }
      out_value_end(o, s);
      continue;
    }
    if (!f->chunked && s->fast) {
      if (out_fast(o, s, f)) /* as far as it goes; then one member the long way */
        continue; /* it failed, or stacked or replaced a frame */
    }
    int last;
    const cdr_member *m = next_member(f, &last);
    if (!m) {
      out_value_end(o, s);
      continue;
    }
    const uint8_t *src = (const uint8_t *)f->obj + m->offset;
    if (f->pend_level && m->type->kind != CDR_K_VALUE)
      out_flush_pending(o, f, 1); /* data after a nested value: a new chunk */
    if (m->type->kind == CDR_K_VALUE) {
      const cdr_value *child = *(const cdr_value *const *)src;
      const cdr_value_type *dt = m->type->u.val.vt;
      /* A member walked here is "direct" (its end tag may stay pending in
       * F's chunk); a tail that replaces F inherits F's own flag: F may
       * have been started by a custom marshaller or a constructed member,
       * which write on by themselves after it. */
      uint8_t direct = last ? f->direct : 1;
      if (out_value_start(o, s, dt, child, last))
        top_frame(s)->direct = direct;
      continue;
    }
    switch (m->type->kind) { /* the common primitives inline */
    case CDR_K_LONG: case CDR_K_ULONG:
      cdr_put_ulong(o, *(const uint32_t *)src);
      break;
    case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE:
      cdr_put_ulonglong(o, *(const uint64_t *)src);
      break;
    default:
      (void)cdr__write_at(o, m->type, src, 1);
    }
  }
}

int cdr_put_value(cdr_out *o, const cdr_value_type *t, const void *value)
{
  if (o->status != CDR_OK)
    return o->status;
  vstate *s = out_state(o);
  if (!s)
    return o->status;
  uint32_t base_sp = s->sp;
  if (base_sp) {
    /* Called from inside a value (custom marshalling, or a constructed
     * member holding values): that nests on the C stack, so it is bounded. */
    if (s->reentry >= s->vo.max_recursion)
      return cdr_out_fail(o, CDR_E_LIMIT);
    s->reentry++;
  }
  int r = !base_sp && value ? root_plain_out(o, s, t, value) : -1;
  if (r > 0)
    out_run(o, s, 0);
  else if (r < 0 && out_value_start(o, s, t, value, 0))
    out_run(o, s, base_sp);
  if (base_sp)
    s->reentry--;
  if (o->status != CDR_OK)
    s->sp = base_sp;
  return o->status;
}

int cdr__value_write(cdr_out *o, const cdr_type *t, const void *src)
{
  /* Values inside constructed types count against the stream's nesting
   * limit, as the constructed types themselves do. */
  const vstate *s = o->ext;
  if (s && s->reentry >= o->opts.max_depth)
    return cdr_out_fail(o, CDR_E_LIMIT);
  return cdr_put_value(o, t->u.val.vt, *(const void *const *)src);
}

/* ================================================================ reading */

/* Read a raw long at the aligned position, bounded by the chunks' limit
 * rather than the current chunk (tags and end tags sit between chunks). */
static int in_raw_long(cdr_in *i, uint32_t *v, size_t *at)
{
  if (i->status != CDR_OK)
    return i->status;
  size_t lim = i->in_chunk ? i->chunk_lim : i->end;
  size_t q = i->pos + ((i->origin - i->pos) & 3);
  if (q > lim || lim - q < 4)
    return cdr_in_fail(i, CDR_E_SHORT, "input ends inside a value");
  uint32_t u;
  memcpy(&u, i->buf + q, 4);
  if (i->swap)
    u = __builtin_bswap32(u);
  *v = u;
  *at = q;
  i->pos = q + 4;
  return CDR_OK;
}

/* Whether the current chunk is used up (the next long lies past it). */
static int in_chunk_used_up(const cdr_in *i)
{
  return !i->in_chunk || i->pos + ((i->origin - i->pos) & 3) >= i->end;
}

/* Enter F's chunk state after reading its tag (F chunked): the first chunk
 * length, or an end tag at once (a value with empty state). */
static void in_enter_chunks(cdr_in *i, vframe *f)
{
  size_t lim = i->in_chunk ? i->chunk_lim : i->end;
  f->chunk_lim = lim;
  i->chunk_lim = lim;
  i->in_chunk = 1;
  i->end = i->pos; /* used up: the first read fetches the first chunk */
  uint32_t u = 0;
  size_t at = 0;
  if (in_raw_long(i, &u, &at) != CDR_OK)
    return;
  if (u == 0) {
    i->pos = at;
    cdr_in_fail(i, CDR_E_TAG, "chunk length 0");
    return;
  }
  i->pos = at; /* leave it: the reader of the state or the end tag takes it */
  i->end = at;
}

/* Leave a value: restore the enclosing frame's chunk state (its chunk was
 * closed before the nested value, so it is used up). */
static void in_restore_chunks(cdr_in *i, vstate *s)
{
  vframe *p = top_frame(s);
  if (p && p->chunked) {
    i->in_chunk = 1;
    i->chunk_lim = p->chunk_lim;
    i->end = i->pos;
  } else if (i->in_chunk) {
    i->in_chunk = 0;
    i->end = i->chunk_lim;
  }
}

/* The N octets at S are all ASCII. */
static int is_ascii(const char *s, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++)
    if ((unsigned char)s[k] >= 0x80)
      return 0;
  return 1;
}

/* A string (repository ID or codebase URL) or an indirection to one
 * recorded in TAB, as UTF-8: *S points into the buffer (NUL-terminated
 * there) when the octets are ASCII or the transmission code set is UTF-8,
 * else at a copy converted from ISO-8859-1 in the stream's arena
 * (CDR_E_STATE without one, CDR_E_NOMEM). */
static int in_string_indirect(cdr_in *i, cdr_itab *tab, const char **s, uint32_t *len)
{
  uint32_t u = 0;
  size_t at = 0;
  if (in_raw_long(i, &u, &at) != CDR_OK)
    return i->status;
  if (u == INDIRECTION) {
    size_t off_pos = i->pos;
    int32_t off = cdr_get_long(i);
    if (i->status != CDR_OK)
      return i->status;
    uintptr_t v;
    if (off >= -4 || (size_t)(-(int64_t)off) > off_pos
        || !cdr_itab_find(tab, off_pos + (size_t)(int64_t)off, &v)) {
      i->pos = off_pos;
      return cdr_in_fail(i, CDR_E_INDIRECTION, "repository ID or codebase indirection to no such string");
    }
    *s = (const char *)v;
    *len = (uint32_t)strlen(*s);
    return CDR_OK;
  }
  i->pos = at;
  int rc = cdr_get_string_view(i, s, len);
  if (rc == CDR_OK && i->opts.tcs_c != CDR_CS_UTF8 && !is_ascii(*s, *len)) {
    /* ISO-8859-1 octets past ASCII: the string as UTF-8 (what descriptors
     * and registries hold, repoid.h), copied into the arena. */
    const uint32_t ncs = i->opts.ncs_c;
    i->pos = at;
    i->opts.ncs_c = CDR_CS_UTF8;
    const char *conv = cdr_get_string(i, len);
    i->opts.ncs_c = ncs;
    if (!conv)
      return i->status;
    *s = conv;
  }
  if (rc == CDR_OK && (rc = cdr_itab_put(tab, at, (uintptr_t)*s)) != CDR_OK)
    return cdr_in_fail(i, rc, "no memory for indirection table");
  return rc;
}

typedef struct id_list {
  uint32_t n;
  const char *id[MAX_ID_LIST];
  uint32_t len[MAX_ID_LIST];
} id_list;

static int in_id_list(cdr_in *i, vstate *s, const id_list **out)
{
  uint32_t u = 0;
  size_t at = 0;
  if (in_raw_long(i, &u, &at) != CDR_OK)
    return i->status;
  if (u == INDIRECTION) {
    size_t off_pos = i->pos;
    int32_t off = cdr_get_long(i);
    uintptr_t v;
    if (i->status == CDR_OK
        && (off >= -4 || (size_t)(-(int64_t)off) > off_pos
            || !cdr_itab_find(aux_tab(s, AUX_LISTS), off_pos + (size_t)(int64_t)off, &v))) {
      i->pos = off_pos;
      return cdr_in_fail(i, CDR_E_INDIRECTION, "repository ID list indirection to no such list");
    }
    if (i->status == CDR_OK)
      *out = (const id_list *)v;
    return i->status;
  }
  if (u == 0 || u > MAX_ID_LIST) {
    i->pos = at;
    return cdr_in_fail(i, u ? CDR_E_LIMIT : CDR_E_TAG, "repository ID list count out of range");
  }
  if (!i->arena)
    return cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
  id_list *l = cdr_arena_alloc(i->arena, sizeof *l, _Alignof(id_list));
  if (!l)
    return cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
  l->n = u;
  for (uint32_t k = 0; k < u; k++)
    if (in_string_indirect(i, aux_tab(s, AUX_IDS), &l->id[k], &l->len[k]) != CDR_OK)
      return i->status;
  int rc = cdr_itab_put(aux_tab(s, AUX_LISTS), at, (uintptr_t)l);
  if (rc != CDR_OK)
    return cdr_in_fail(i, rc, "no memory for indirection table");
  *out = l;
  return CDR_OK;
}

static const cdr_value_type *resolve_id(vstate *s, const cdr_value_type *declared,
                                        const char *id, uint32_t len)
{
  /* The declared type and its bases first: no hashing in the common case. */
  for (const cdr_value_type *x = declared; x; x = x->base) {
    const char *xid = cdr_value_type_id(x, NULL);
    if (xid && strlen(xid) == len && memcmp(xid, id, len) == 0)
      return x;
  }
  const cdr_registry *r = s->vo.registry ? s->vo.registry : cdr_registry_global();
  return cdr_registry_find(r, id, len);
}

static void *make_object(cdr_in *i, const cdr_value_type *t)
{
  void *obj;
  if (t->factory) {
    obj = t->factory(i->arena, t);
  } else {
    obj = cdr_arena_alloc(i->arena, t->size, t->align ? t->align : _Alignof(max_align_t));
    if (obj)
      memset(obj, 0, t->size);
  }
  if (obj)
    ((cdr_value *)obj)->type = t;
  return obj;
}

/* Start reading a value whose declared type is T into *SLOT.  Null and
 * indirections are stored at once (returns 0); a new value is allocated,
 * recorded, stored and pushed (returns 1).  TAIL: the top frame is done
 * once this member is read, so it is replaced. */
static int in_value_start(cdr_in *i, vstate *s, const cdr_value_type *t, void **slot, int tail)
{
  vframe *parent = top_frame(s);
  int in_chunk = parent && parent->chunked;
  uint32_t tag = 0;
  size_t tag_pos = 0;
  if (in_chunk && !in_chunk_used_up(i)) {
    /* Inside the chunk: only null or an indirection may be here. */
    tag_pos = i->pos + ((i->origin - i->pos) & 3);
    tag = cdr_get_ulong(i);
    if (i->status != CDR_OK)
      return 0;
    if (tag != 0 && tag != INDIRECTION) {
      i->pos = tag_pos;
      cdr_in_fail(i, CDR_E_TAG, "value tag inside a chunk");
      return 0;
    }
  } else {
    if (in_raw_long(i, &tag, &tag_pos) != CDR_OK)
      return 0;
    if (in_chunk && tag >= 1 && tag <= CHUNK_MAX) {
      /* A new chunk of the enclosing value, holding null or an indirection. */
      if (tag > i->chunk_lim - i->pos) {
        i->pos = tag_pos;
        cdr_in_fail(i, CDR_E_LENGTH, "chunk longer than what remains");
        return 0;
      }
      i->end = i->pos + tag;
      return in_value_start(i, s, t, slot, tail);
    }
    if (i->in_chunk) {
      /* Between the enclosing value's chunks: what follows (an offset, a
       * nested value's header) is bounded by the chunks' limit. */
      i->in_chunk = 0;
      i->end = i->chunk_lim;
    }
  }
  if (tag == 0 || tag == INDIRECTION) {
    void *v = NULL;
    if (tag == INDIRECTION) {
      size_t off_pos = i->pos;
      int32_t off = cdr_get_long(i);
      if (i->status != CDR_OK)
        return 0;
      uintptr_t found;
      if (off >= -4 || (size_t)(-(int64_t)off) > off_pos
          || !cdr_itab_find(&s->values, off_pos + (size_t)(int64_t)off, &found)) {
        i->pos = off_pos;
        cdr_in_fail(i, CDR_E_INDIRECTION, "value indirection to no earlier value");
        return 0;
      }
      v = (void *)found;
      if (!cdr_value_type_is_base_of(t, ((cdr_value *)v)->type)) {
        i->pos = off_pos;
        cdr_in_fail(i, CDR_E_INDIRECTION, "value indirection to a value of an incompatible type");
        return 0;
      }
    }
    if (in_chunk && !i->in_chunk) {
      i->in_chunk = 1; /* back inside the enclosing value: its chunk is used up */
      i->chunk_lim = parent->chunk_lim;
      i->end = i->pos;
    }
    *slot = v;
    return 0;
  }
  if (tag < TAG_MIN || tag > 0x7fffffffu || (tag & TAG_ID_MASK) == 0x04) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TAG, (tag & TAG_ID_MASK) != 0x04 || tag < TAG_MIN || tag > 0x7fffffffu
                                ? "not a value tag" : "value tag with reserved ID bits 0x04");
    return 0;
  }
  if (tag & TAG_CODEBASE) {
    const char *cb;
    uint32_t cblen;
    if (in_string_indirect(i, aux_tab(s, AUX_CODEBASES), &cb, &cblen) != CDR_OK)
      return 0;
  }
  const cdr_value_type *vt = NULL;
  int truncated = 0;
  if ((tag & TAG_ID_MASK) == TAG_ID_ONE) {
    const char *id;
    uint32_t len;
    if (in_string_indirect(i, aux_tab(s, AUX_IDS), &id, &len) != CDR_OK)
      return 0;
    vt = resolve_id(s, t, id, len);
  } else if ((tag & TAG_ID_MASK) == TAG_ID_LIST) {
    const id_list *l = NULL;
    if (in_id_list(i, s, &l) != CDR_OK)
      return 0;
    for (uint32_t k = 0; k < l->n && !vt; k++) {
      vt = resolve_id(s, t, l->id[k], l->len[k]);
      truncated = vt && k > 0;
    }
  } else {
    vt = t;
  }
  if (!vt) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TYPE, "unknown repository ID and no known truncatable base");
    return 0;
  }
  if (!cdr_value_type_is_base_of(t, vt) || (vt->flags & CDR_VT_ABSTRACT)) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TYPE, "value of a type not compatible with the declared type");
    return 0;
  }
  int chunked = (tag & TAG_CHUNKED) != 0;
  if ((truncated || (vt->flags & CDR_VT_CUSTOM)) && !chunked) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TAG, "truncated or custom value without chunked encoding");
    return 0;
  }
  if (in_chunk && !chunked) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TAG, "value nested in a chunked value is not chunked");
    return 0;
  }
  uint32_t vdepth = parent ? parent->vdepth + 1 : 1;
  if (vdepth > s->vo.max_depth || s->nvalues >= s->vo.max_values) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_LIMIT, "values nested too deeply or too many values");
    return 0;
  }
  if (!i->arena) {
    cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
    return 0;
  }
  void *obj = make_object(i, vt);
  if (!obj) {
    cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
    return 0;
  }
  int rc = cdr_itab_append(&s->values, tag_pos, (uintptr_t)obj);
  if (rc < 0) {
    cdr_in_fail(i, rc, "no memory for indirection table");
    return 0;
  }
  s->nvalues++;
  *slot = obj;
  uint32_t pdepth = parent ? parent->depth : 0;
  uint32_t tail_lo = 0;
  if (tail && parent && !parent->truncated) {
    tail_lo = parent->chunked ? parent->tail_lo : 0;
    s->sp--;
  }
  vframe *f = push_frame(s);
  if (!f) {
    cdr_in_fail(i, CDR_E_NOMEM, "no memory for value frames");
    return 0;
  }
  frame_init(f, vt, obj);
  f->chunked = (uint8_t)chunked;
  f->truncated = (uint8_t)truncated;
  f->depth = chunked ? pdepth + 1 : pdepth;
  f->tail_lo = tail_lo && chunked ? tail_lo : f->depth;
  f->vdepth = vdepth;
  if (chunked)
    in_enter_chunks(i, f);
  return 1;
}

/* Skip the rest of a truncated value: chunks, and nested values with their
 * own chunks, up to an end tag that closes the value's level.  Returns the
 * innermost level still open after that tag (levels of an elided tail chain
 * below this value), or -1 when the tag also closes enclosing values and is
 * left for them, or -2 on error. */
static long in_skip_rest(cdr_in *i, vstate *s, vframe *f)
{
  uint32_t open = f->depth; /* innermost open chunk level while skipping */
  for (;;) {
    i->pos = i->end > i->pos ? i->end : i->pos; /* the rest of the current chunk */
    uint32_t u = 0;
    size_t at = 0;
    if (in_raw_long(i, &u, &at) != CDR_OK)
      return -2;
    if (u >= 1 && u <= CHUNK_MAX) {
      if (u > i->chunk_lim - i->pos) {
        i->pos = at;
        cdr_in_fail(i, CDR_E_LENGTH, "chunk longer than what remains");
        return -2;
      }
      i->end = i->pos + u;
      continue;
    }
    if (u >= TAG_MIN && u <= 0x7fffffffu) {
      /* A nested value: skip its header, then its chunks at a deeper level. */
      const char *str;
      uint32_t len;
      const id_list *l;
      if (!(u & TAG_CHUNKED) || (u & TAG_ID_MASK) == 0x04) {
        i->pos = at;
        cdr_in_fail(i, CDR_E_TAG, "bad value tag inside a truncated value");
        return -2;
      }
      size_t lim = i->chunk_lim;
      i->in_chunk = 0; /* the header lies between chunks */
      i->end = lim;
      if ((u & TAG_CODEBASE)
          && in_string_indirect(i, aux_tab(s, AUX_CODEBASES), &str, &len) != CDR_OK)
        return -2;
      if ((u & TAG_ID_MASK) == TAG_ID_ONE
          && in_string_indirect(i, aux_tab(s, AUX_IDS), &str, &len) != CDR_OK)
        return -2;
      if ((u & TAG_ID_MASK) == TAG_ID_LIST && in_id_list(i, s, &l) != CDR_OK)
        return -2;
      open++;
      i->in_chunk = 1;
      i->chunk_lim = lim;
      i->end = i->pos;
      continue;
    }
    if (u == 0) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_TAG, "chunk length 0");
      return -2;
    }
    /* An end tag (0xffffffff is -1 here: indirections sit inside chunks). */
    uint32_t level = 0u - u; /* the end tag's magnitude (no signed overflow at INT32_MIN) */
    if (level > open) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_TAG, "end tag deeper than the open values");
      return -2;
    }
    i->end = i->pos;
    if (level > f->depth) {
      open = level - 1; /* closes skipped nested values only */
      continue;
    }
    if (level < f->tail_lo) {
      i->pos = i->end = at; /* closes enclosing values too: leave it for them */
      return -1;
    }
    return (long)level - 1;
  }
}

/* Finish the top frame: read the end tag(s) of a chunked value, pop it. */
static void in_value_end(cdr_in *i, vstate *s)
{
  vframe *f = top_frame(s);
  if (!f->chunked) {
    s->sp--;
    in_restore_chunks(i, s);
    return;
  }
  long open = f->depth;
  if (f->truncated) {
    open = in_skip_rest(i, s, f);
    if (open == -2)
      return;
  } else if (i->pos < i->end) {
    cdr_in_fail(i, CDR_E_TAG, "value state longer than its type");
    return;
  }
  /* End tags until every level from tail_lo to depth is closed; a tag
   * closing enclosing levels too is left for them. */
  while (open >= (long)f->tail_lo) {
    uint32_t u = 0;
    size_t at = 0;
    if (in_raw_long(i, &u, &at) != CDR_OK)
      return;
    int32_t e = (int32_t)u;
    if (e >= 0) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_TAG, u >= 1 && u <= CHUNK_MAX ? "value state longer than its type"
                                                         : "end tag expected");
      return;
    }
    uint32_t level = 0u - u; /* no signed overflow at INT32_MIN */
    if (level > (uint32_t)open) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_TAG, "end tag deeper than the open values");
      return;
    }
    if (level < f->tail_lo) {
      i->pos = at; /* closes enclosing values too: leave it for them */
      break;
    }
    open = (long)level - 1;
  }
  s->sp--;
  in_restore_chunks(i, s);
}

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
      if (fixed) {
        q = pos + op->pad;
      } else {
        q = pos + ((origin - pos) & 3);
        if ((ptrdiff_t)(end - q) < 4) /* q may pass end by the padding */
          goto out;
      }
      prim_copy(dst, buf + q, P_K4, swap);
      pos = q + 4;
      op++;
      continue;
    }
    if (code == P_VAL)
      goto value;
    if (code == P_K8) {
      q = pos + ((origin - pos) & 7);
      if (!fixed && (ptrdiff_t)(end - q) < 8)
        goto out;
      prim_copy(dst, buf + q, P_K8, swap);
      pos = q + 8;
    } else if (code == P_K2) {
      if (fixed) {
        q = pos + op->pad;
      } else {
        q = pos + ((origin - pos) & 1);
        if ((ptrdiff_t)(end - q) < 2)
          goto out;
      }
      prim_copy(dst, buf + q, P_K2, swap);
      pos = q + 2;
    } else if (code == P_K1) {
      if (!fixed && pos >= end)
        goto out;
      *dst = buf[pos++];
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

static __attribute__((noinline)) int in_fast_host(cdr_in *i, vstate *s, vframe *f, const vplan *p)
{
  return in_fast_impl(i, s, f, p, 0);
}

static __attribute__((noinline)) int in_fast_swap(cdr_in *i, vstate *s, vframe *f, const vplan *p)
{
  return in_fast_impl(i, s, f, p, 1);
}

static inline int in_fast(cdr_in *i, vstate *s, vframe *f)
{
  const vplan *p = plan_get(s, f->vt);
  return i->swap ? in_fast_swap(i, s, f, p) : in_fast_host(i, s, f, p);
}

/* The top-level value of cdr_get_value() when it is null or what the walk
 * loop reads (a value tag with no type information, a plain declared type,
 * outside chunks): 1 after pushing its frame, 0 when done (null, or an
 * error), -1 when the general path must take it (nothing read). */
static int root_plain_in(cdr_in *i, vstate *s, const cdr_value_type *t, void **value)
{
  if (i->in_chunk)
    return -1;
  size_t q = i->pos + ((i->origin - i->pos) & 3);
  if (q > i->end || i->end - q < 4)
    return -1;
  uint32_t tag;
  memcpy(&tag, i->buf + q, 4);
  if (tag == 0) {
    i->pos = q + 4;
    *value = NULL;
    return 0;
  }
  if (i->swap)
    tag = __builtin_bswap32(tag);
  if (tag != TAG_MIN || (t->flags & VT_SLOW) || t->factory || !i->arena || s->vo.max_depth < 1
      || s->nvalues >= s->vo.max_values)
    return -1;
  void *obj = make_object(i, t);
  if (!obj) {
    cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
    return 0;
  }
  int rc = cdr_itab_append(&s->values, q, (uintptr_t)obj);
  vframe *f = rc == CDR_OK ? push_frame(s) : NULL;
  if (!f) {
    cdr_in_fail(i, rc != CDR_OK ? rc : CDR_E_NOMEM, rc != CDR_OK ? "no memory for indirection table"
                                                                 : "no memory for value frames");
    return 0;
  }
  i->pos = q + 4;
  s->nvalues++;
  frame_init(f, t, obj);
  f->vdepth = 1;
  *value = obj;
  return 1;
}

static void in_run(cdr_in *i, vstate *s, uint32_t base_sp)
{
  while (s->sp > base_sp && i->status == CDR_OK) {
    vframe *f = top_frame(s);
    if (f->vt->flags & CDR_VT_CUSTOM) {
      if (!f->custom_done) {
        f->custom_done = 1;
        int rc = f->vt->unmarshal ? f->vt->unmarshal(i, f->obj, f->vt) : CDR_E_INVALID;
        if (rc != CDR_OK) {
          cdr_in_fail(i, rc, "custom unmarshal failed");
          return;
        }
        continue;
      }
      in_value_end(i, s);
      continue;
    }
    if (!f->chunked && !i->in_chunk) {
      if (in_fast(i, s, f)) /* as far as it goes; then one member the long way */
        continue; /* it failed, or stacked or replaced a frame */
    }
    int last;
    const cdr_member *m = next_member(f, &last);
    if (!m) {
      in_value_end(i, s);
      continue;
    }
    uint8_t *dst = (uint8_t *)f->obj + m->offset;
    if (m->type->kind == CDR_K_VALUE) {
      const cdr_value_type *dt = m->type->u.val.vt;
      (void)in_value_start(i, s, dt, (void **)dst, last && !f->truncated);
      continue;
    }
    switch (m->type->kind) { /* the common primitives inline */
    case CDR_K_LONG: case CDR_K_ULONG:
      *(uint32_t *)dst = cdr_get_ulong(i);
      break;
    case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE:
      *(uint64_t *)dst = cdr_get_ulonglong(i);
      break;
    default:
      (void)cdr__read_at(i, m->type, dst, 1);
    }
  }
}

int cdr_get_value(cdr_in *i, const cdr_value_type *t, void **value)
{
  if (i->status != CDR_OK)
    return i->status;
  vstate *s = in_state(i);
  if (!s)
    return i->status;
  uint32_t base_sp = s->sp;
  if (base_sp) {
    /* Nested on the C stack (custom unmarshalling, constructed members). */
    if (s->reentry >= s->vo.max_recursion)
      return cdr_in_fail(i, CDR_E_LIMIT, "values nested through custom or constructed types too deeply");
    s->reentry++;
  }
  void *v = NULL;
  int r = base_sp ? -1 : root_plain_in(i, s, t, &v);
  if (r > 0)
    in_run(i, s, 0);
  else if (r < 0 && in_value_start(i, s, t, &v, 0))
    in_run(i, s, base_sp);
  if (base_sp)
    s->reentry--;
  if (i->status != CDR_OK) {
    s->sp = base_sp;
    return i->status;
  }
  *value = v;
  return CDR_OK;
}

int cdr__value_read(cdr_in *i, const cdr_type *t, void *dst)
{
  const vstate *s = i->ext;
  if (s && s->reentry >= i->opts.max_depth)
    return cdr_in_fail(i, CDR_E_LIMIT, "values nested in constructed types too deeply");
  void *v = NULL;
  int rc = cdr_get_value(i, t->u.val.vt, &v);
  if (rc == CDR_OK)
    *(void **)dst = v;
  return rc;
}
