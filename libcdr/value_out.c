/* value_out.c - the encoder of value graphs: value tags, type information,
 * indirections, chunking with compacted end tags (the general walk), and
 * cdr_put_value(). */
#include "value_impl.h"

static int needs_chunking(const cdr_value_type *t)
{
  return (t->flags & (CDR_VT_TRUNCATABLE | CDR_VT_CUSTOM)) != 0;
}

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
    cdr_out_fail(o, CDR_E_LIMIT, "value chunk longer than 0x7ffffeff octets");
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
    cdr_out_fail(o, CDR_E_STATE, "pending end tag no longer at the end of the stream"); /* cannot happen */
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
  cdr_put_string_utf8(o, s);
  if (o->status == CDR_OK) {
    int rc = cdr_itab_put(tab, (uintptr_t)s, here);
    if (rc != CDR_OK)
      cdr_out_fail(o, rc, "no memory for the repository ID or codebase table");
  }
}

/* Null, a value of the wrong type, or an indirection to VALUE (declared
 * type T) as a member of PARENT (NULL: at top level): written (or the
 * stream failed: CDR_E_TYPE, CDR_E_NOMEM), and 0.  Otherwise 1 with the
 * position of VALUE's tag recorded in the value table; in a chunk, the
 * chunk is closed first (a nested value's tag goes between chunks). */
static int out_value_ref(cdr_out *o, vstate *s, vframe *parent, const cdr_value_type *t,
                         const void *value)
{
  int in_chunk = parent && parent->chunked;
  if (!value) {
    if (in_chunk)
      out_flush_pending(o, parent, 1); /* null goes inside a chunk */
    put_long_aligned(o, 0);
    return 0;
  }
  const cdr_value_type *actual = ((const cdr_value *)value)->type;
  if (!actual || (actual != t && !cdr__value_type_compatible(t, actual))
      || (actual->flags & CDR_VT_ABSTRACT)) {
    cdr_out_fail(o, CDR_E_TYPE, !actual ? "value without a type"
                                : (actual->flags & CDR_VT_ABSTRACT) ? "value of an abstract type"
                                : "value's type not the declared type or derived from it");
    return 0;
  }
  uintptr_t at;
  if (in_chunk && cdr_itab_get(&s->values, (uintptr_t)value, &at)) {
    out_flush_pending(o, parent, 1);
    put_indirection(o, at); /* inside the current chunk */
    return 0;
  }
  if (in_chunk) {
    out_flush_pending(o, parent, 0);
    out_close_chunk(o, parent);
  }
  /* The tag's position, found or recorded with one probe. */
  size_t tag_pos = o->pos + ((o->origin - o->pos) & 3);
  int found = cdr_itab_get_or_add(&s->values, (uintptr_t)value, tag_pos, &at);
  if (found < 0) {
    cdr_out_fail(o, found, "no memory for the value table");
    return 0;
  }
  if (found) {
    put_indirection(o, at);
    return 0;
  }
  return 1;
}

/* The repository ID of VT, or an indirection to it: 1, or 0 with O failed
 * (VT's ID cannot be made: cdr_value_type_id()). */
static int out_type_id(cdr_out *o, vstate *s, const cdr_value_type *vt)
{
  int st;
  const char *id = cdr_value_type_id(vt, &st);
  if (!id) {
    cdr_out_fail(o, st, "value type's repository ID cannot be made");
    return 0;
  }
  out_string_indirect(o, aux_tab(s, AUX_IDS), id);
  return 1;
}

/* The repository IDs of truncatable type VT and its truncatable bases
 * (at most MAX_ID_LIST), after their count, or an indirection to the same
 * list written earlier in the stream.  Errors in O's status. */
static void out_id_list(cdr_out *o, vstate *s, const cdr_value_type *vt)
{
  uintptr_t at;
  cdr_out_align(o, 4);
  if (cdr_itab_get(aux_tab(s, AUX_LISTS), (uintptr_t)vt, &at)) {
    put_indirection(o, at);
    return;
  }
  size_t count_pos = o->pos;
  uint32_t n = 1;
  for (const cdr_value_type *x = vt; (x->flags & CDR_VT_TRUNCATABLE) && x->base && n < MAX_ID_LIST;
       x = x->base)
    n++;
  put_long_aligned(o, n);
  const cdr_value_type *x = vt;
  for (uint32_t k = 0; k < n; k++, x = x->base)
    if (!out_type_id(o, s, x))
      return;
  int rc;
  if (o->status == CDR_OK && (rc = cdr_itab_put(aux_tab(s, AUX_LISTS), (uintptr_t)vt, count_pos)))
    cdr_out_fail(o, rc, "no memory for the repository ID list table");
}

/* The type information after the tag of a value of type VT: its codebase
 * URL (if it has one), then its list of repository IDs (LIST) or its own
 * (ONE), or nothing.  Errors in O's status. */
static void out_value_type(cdr_out *o, vstate *s, const cdr_value_type *vt, int list, int one)
{
  if (vt->codebase)
    out_string_indirect(o, aux_tab(s, AUX_CODEBASES), vt->codebase);
  if (list)
    out_id_list(o, s, vt);
  else if (one)
    (void)out_type_id(o, s, vt);
}

/* Start writing VALUE (declared type T) nested in the current top frame (or
 * at top level).  Writes null or an indirection and returns 0, or writes
 * the tag and type information, pushes a frame and returns 1.  With TAIL,
 * the top frame (whose last member this is) is popped first. */
static int out_value_start(cdr_out *o, vstate *s, const cdr_value_type *t, const void *value,
                           int tail)
{
  vframe *parent = top_frame(s);
  if (!out_value_ref(o, s, parent, t, value))
    return 0;
  const cdr_value_type *actual = ((const cdr_value *)value)->type;
  uint32_t vdepth = parent ? parent->vdepth + 1 : 1;
  if (s->nvalues >= s->vo.max_values || vdepth > s->vo.max_depth) {
    cdr_out_fail(o, CDR_E_LIMIT, s->nvalues >= s->vo.max_values ? "more values than max_values"
                                                                 : "values nested deeper than max_depth");
    return 0;
  }
  int in_chunk = parent && parent->chunked;
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
  s->nvalues++;
  uint32_t tag = TAG_MIN | (actual->codebase ? TAG_CODEBASE : 0)
                 | (list ? TAG_ID_LIST : one ? TAG_ID_ONE : 0) | (chunked ? TAG_CHUNKED : 0);
  put_long_aligned(o, tag);
  out_value_type(o, s, actual, list, one);
  if (o->status != CDR_OK)
    return 0;
  vframe *f = push_frame(s);
  if (!f) {
    cdr_out_fail(o, CDR_E_NOMEM, "no memory for the value frame stack");
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

/* The walk loop for F, in the stream's byte order. */
static inline int out_fast(cdr_out *o, vstate *s, vframe *f)
{
  const vplan *p = plan_get(f->vt);
  if (CDR_UNLIKELY(!p))
    return 0; /* no memory for it: the general walk */
  return o->swap ? cdr__value_out_fast_swap(o, s, f, p) : cdr__value_out_fast_host(o, s, f, p);
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
      cdr_out_fail(o, found, "no memory for the value table");
      return 0;
    }
    put_indirection(o, at);
    return 0;
  }
  cdr_put_ulong(o, TAG_MIN);
  vframe *f = o->status == CDR_OK ? push_frame(s) : NULL;
  if (!f) {
    if (o->status == CDR_OK)
      cdr_out_fail(o, CDR_E_NOMEM, "no memory for the value frame stack");
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
        /* F may move: the marshaller pushes frames, which may grow the stack. */
        const cdr_value_type *vt = f->vt;
        int rc = vt->marshal ? vt->marshal(o, f->obj, vt) : CDR_E_INVALID;
        if (rc != CDR_OK) {
          cdr_out_fail(o, rc, vt->marshal ? "custom value's marshal function failed"
                                          : "custom value type without a marshal function");
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
      return cdr_out_fail(o, CDR_E_LIMIT, "values nested through custom marshalling deeper than max_recursion");
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
    return cdr_out_fail(o, CDR_E_LIMIT, "values in constructed types nested deeper than opts.max_depth");
  return cdr_put_value(o, t->u.val.vt, *(const void *const *)src);
}
