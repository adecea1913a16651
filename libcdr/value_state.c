/* value_state.c - the per-stream state of value graphs: options,
 * indirection tables and the frame stack, hung on the stream's ext pointer;
 * its tables give their arrays to the per-thread table pool when the stream
 * closes, and the states themselves go to a small per-thread pool (at thread
 * exit: to the shared pool of states). */
#include "value_impl.h"
#include "pool_impl.h"

void cdr_value_opts_default(cdr_value_opts *v)
{
  memset(v, 0, sizeof *v);
  v->typeinfo = CDR_TYPEINFO_MINIMAL;
  v->max_depth = 1000000;
  v->max_values = 16u << 20;
  v->max_indirections = 16u << 20;
  v->max_recursion = 4096;
}

static void vstate_reset(void *self)
{
  vstate *s = self;
  cdr_itab_reuse(&s->values, s->aux_strings == CDR_ITAB_STR); /* an encoder searches */
  for (unsigned k = 0; k < 3; k++)
    if (s->aux_live & (1u << k))
      cdr_itab_clear(&s->aux[k]);
  s->nvalues = 0;
  s->nindirect = 0;
  s->tc_octets = 0;
  s->sp = 0;
  s->reentry = 0;
}

/* A few released states per thread, on their shelf of the per-thread cache
 * (pool_impl.h), so that a stream per call allocates nothing in steady
 * state. */
static void vstate_destroy(vstate *s)
{
  cdr_itab_drop(&s->values);
  if (s->frames != s->inline_frames)
    cdr__free(s->alloc, s->frames);
  cdr__free(s->alloc, s);
}

/* The cache client: cdr_pool_flush() frees the shelf, thread exit hands it
 * to the shared pool of states. */
static void vstate_shelf_free(cdr__tcache *tc)
{
  while (tc->nvalue_states)
    vstate_destroy(tc->value_states[--tc->nvalue_states]);
}

static void vstate_shelf_exit(cdr__tcache *tc)
{
  while (tc->nvalue_states) {
    vstate *s = tc->value_states[--tc->nvalue_states];
    if (!cdr__shared_put(tc, CDR_POOL_VALUE_STATES, s, 0))
      vstate_destroy(s);
  }
}

static bool vstate_fits(const void *obj, const cdr_allocator *a, size_t min)
{
  (void)min;
  return ((const vstate *)obj)->alloc == a;
}

static void vstate_destroy_obj(void *obj)
{
  vstate_destroy(obj);
}

static const cdr__shared_ops vstate_shared = { vstate_fits, vstate_destroy_obj };
static const cdr__tcache_client vstate_client = { NULL, vstate_shelf_free, vstate_shelf_exit,
                                                  CDR_POOL_VALUE_STATES, &vstate_shared };

static __attribute__((constructor)) void vstate_register(void)
{
  cdr__tcache_add_client(&vstate_client);
}

static void vstate_release(void *self)
{
  vstate *s = self;
  cdr__tcache *tc = &cdr__tc;
  for (unsigned k = 0; k < 3; k++)
    if (s->aux_live & (1u << k))
      cdr_itab_release(&s->aux[k]);
  s->aux_live = 0;
  bool global = s->alloc == cdr_mem_global();
  if (global && cdr__tcache_live(tc) && tc->nvalue_states < CDR__POOL_CFG(value_states)) {
    /* The value table keeps its block for the state's next stream, within
     * the table pool's bounds (cdr/tables.h): the block would go to that
     * pool otherwise, and the next stream's table would take it from
     * there at its 9th value. */
    if (!CDR__POOL_CFG(tables) || cdr_itab_block_cap(&s->values) > CDR__POOL_CFG(table_max_entries))
      cdr_itab_release(&s->values);
    tc->value_states[tc->nvalue_states++] = s;
    return;
  }
  cdr_itab_release(&s->values);
  /* After the thread's exit hook: to the shared pool of states. */
  if (global && !cdr__tcache_live(tc) && cdr__shared_put(tc, CDR_POOL_VALUE_STATES, s, 0))
    return;
  vstate_destroy(s);
}

/* A state for a stream; STRINGS: how repository IDs and codebases are keyed
 * (by content when writing, by position when reading). */
static vstate *vstate_new(const cdr_allocator *alloc, cdr_itab_kind strings)
{
  const cdr_allocator *a = cdr__alloc_or_global(alloc);
  vstate *s = NULL;
  cdr__tcache *tc = &cdr__tc;
  if (a == cdr_mem_global())
    s = tc->nvalue_states ? tc->value_states[--tc->nvalue_states]
                          : cdr__shared_take(tc, CDR_POOL_VALUE_STATES, a, 0, false);
  if (!s) {
    s = cdr__malloc(a, sizeof *s);
    if (!s)
      return NULL;
    s->frames = s->inline_frames;
    s->cap = INLINE_FRAMES;
    cdr_itab_init(&s->values, CDR_ITAB_PTR, a);
  }
  s->ext.reset = vstate_reset;
  s->ext.release = vstate_release;
  s->alloc = a;
  if (cdr_itab_block_cap(&s->values)) /* a pooled state's table, its block kept */
    cdr_itab_reuse(&s->values, strings == CDR_ITAB_STR);
  else
    cdr_itab_init(&s->values, CDR_ITAB_PTR, a);
  s->aux_live = 0;
  s->aux_strings = (uint8_t)strings;
  cdr_value_opts_default(&s->vo);
  s->fast = 1;
  s->nvalues = 0;
  s->nindirect = 0;
  s->tc_octets = 0;
  s->sp = 0;
  s->reentry = 0;
  return s;
}

vstate *cdr__value_out_state_new(cdr_out *o)
{
  if (o->status != CDR_OK)
    return NULL;
  vstate *s = vstate_new(o->opts.alloc, CDR_ITAB_STR);
  if (!s) {
    cdr_out_fail(o, CDR_E_NOMEM, "no memory for the value-graph state");
    return NULL;
  }
  o->ext = s;
  return s;
}

vstate *cdr__value_in_state_new(cdr_in *i)
{
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

int cdr__value_frames_grow(vstate *s)
{
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
    return CDR_E_NOMEM;
  s->frames = nf;
  s->cap = ncap;
  return CDR_OK;
}
