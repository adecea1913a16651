/* value_state.c - the per-stream state of value graphs: options,
 * indirection tables and the frame stack, hung on the stream's ext pointer;
 * its tables give their arrays to the per-thread table pool when the stream
 * closes, and the states themselves go to a small per-thread pool. */
#include "value_impl.h"
#include "pool_impl.h"

void cdr_value_opts_default(cdr_value_opts *v)
{
  memset(v, 0, sizeof *v);
  v->typeinfo = CDR_TYPEINFO_MINIMAL;
  v->max_depth = 1000000;
  v->max_values = 16u << 20;
  v->max_recursion = 4096;
}

static void vstate_reset(void *self)
{
  vstate *s = self;
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
  }
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
