/* value_in.c - the decoder of value graphs: value tags, type information,
 * indirections, chunks and end tags in both forms, truncation (the general
 * walk), and cdr_get_value(). */
#include "value_impl.h"

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

/* After an indirection tag (0xffffffff, GIOP chapter "Value Types",
 * "Indirection"): read its offset, which must point back at least 4 octets
 * (past the offset field itself) and inside the stream, to an item recorded
 * in TAB; *V gets what was recorded there.  Else CDR_E_INDIRECTION with WHAT
 * as the message, the position left at the offset field; CDR_E_LIMIT past
 * the stream's vo.max_indirections. */
static int in_indirect(cdr_in *i, vstate *s, cdr_itab *tab, uintptr_t *v, const char *what)
{
  size_t off_pos = i->pos;
  if (CDR_UNLIKELY(++s->nindirect > s->vo.max_indirections))
    return cdr_in_fail(i, CDR_E_LIMIT, "more indirections than max_indirections");
  int32_t off = cdr_get_long(i);
  if (i->status != CDR_OK)
    return i->status;
  if (off >= -4 || (size_t)(-(int64_t)off) > off_pos
      || !cdr_itab_find(tab, off_pos + (size_t)(int64_t)off, v)) {
    i->pos = off_pos;
    return cdr_in_fail(i, CDR_E_INDIRECTION, what);
  }
  return CDR_OK;
}

/* A string (repository ID or codebase URL) or an indirection to one
 * recorded in TAB, as UTF-8: *S points into the buffer (NUL-terminated
 * there) when the octets are ASCII or the transmission code set is UTF-8,
 * else at a copy converted from ISO-8859-1 in the stream's arena
 * (CDR_E_STATE without one, CDR_E_NOMEM). */
static int in_string_indirect(cdr_in *i, vstate *st, cdr_itab *tab, const char **s, uint32_t *len)
{
  uint32_t u = 0;
  size_t at = 0;
  if (in_raw_long(i, &u, &at) != CDR_OK)
    return i->status;
  if (u == INDIRECTION) {
    uintptr_t v;
    if (in_indirect(i, st, tab, &v, "repository ID or codebase indirection to no such string") != CDR_OK)
      return i->status;
    *s = (const char *)v;
    *len = (uint32_t)strlen(*s);
    return CDR_OK;
  }
  i->pos = at;
  int rc = cdr_get_string_utf8(i, s, len); /* as descriptors and registries hold it (repoid.h) */
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
    uintptr_t v;
    if (in_indirect(i, s, aux_tab(s, AUX_LISTS), &v, "repository ID list indirection to no such list")
        == CDR_OK)
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
    if (in_string_indirect(i, s, aux_tab(s, AUX_IDS), &l->id[k], &l->len[k]) != CDR_OK)
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
  if (CDR_UNLIKELY(t->flags & CDR_VT_NOCACHE)) {
    /* A type from a TypeCode off the wire may be large in C and small on
     * the wire (a union with a large unused branch): its objects together
     * take at most 64 times the stream's octets, plus 4096. */
    vstate *s = i->ext;
    s->tc_octets += t->size;
    if (s->tc_octets > (uint64_t)i->len * 64 + 4096) {
      cdr_in_fail(i, CDR_E_LENGTH, "values of a TypeCode's types larger in C than the message allows");
      return NULL;
    }
  }
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

/* Read the tag of a value member (null, an indirection, or a value tag) at
 * the aligned position into *TAG and *TAG_POS.  Inside the enclosing
 * value's chunk only null or an indirection may sit; where its chunk is
 * used up a new chunk (holding null or an indirection) or the nested
 * value's header follows, which lies between chunks.  CDR_OK or the
 * stream's error. */
static int in_value_tag(cdr_in *i, const vframe *parent, uint32_t *tag, size_t *tag_pos)
{
  int in_chunk = parent && parent->chunked;
  for (;;) {
    if (in_chunk && !in_chunk_used_up(i)) {
      *tag_pos = i->pos + ((i->origin - i->pos) & 3);
      *tag = cdr_get_ulong(i);
      if (i->status != CDR_OK)
        return i->status;
      if (*tag != 0 && *tag != INDIRECTION) {
        i->pos = *tag_pos;
        return cdr_in_fail(i, CDR_E_TAG, "value tag inside a chunk");
      }
      return CDR_OK;
    }
    if (in_raw_long(i, tag, tag_pos) != CDR_OK)
      return i->status;
    if (!in_chunk || *tag < 1 || *tag > CHUNK_MAX)
      break;
    /* A new chunk of the enclosing value, holding null or an indirection. */
    if (*tag > i->chunk_lim - i->pos) {
      i->pos = *tag_pos;
      return cdr_in_fail(i, CDR_E_LENGTH, "chunk longer than what remains");
    }
    i->end = i->pos + *tag;
  }
  if (i->in_chunk) {
    /* Between the enclosing value's chunks: what follows (an offset, a
     * nested value's header) is bounded by the chunks' limit. */
    i->in_chunk = 0;
    i->end = i->chunk_lim;
  }
  return CDR_OK;
}

/* Null (TAG 0) or an indirection (TAG 0xffffffff, its offset next) to an
 * earlier value compatible with T, stored in *SLOT; then back inside the
 * enclosing value's chunk state.  CDR_OK or the stream's error. */
static int in_value_ref(cdr_in *i, vstate *s, const vframe *parent, const cdr_value_type *t,
                        uint32_t tag, void **slot)
{
  void *v = NULL;
  if (tag == INDIRECTION) {
    size_t off_pos = i->pos;
    uintptr_t found;
    if (in_indirect(i, s, &s->values, &found, "value indirection to no earlier value") != CDR_OK)
      return i->status;
    v = (void *)found;
    if (!cdr__value_type_compatible(t, ((cdr_value *)v)->type)) {
      i->pos = off_pos;
      return cdr_in_fail(i, CDR_E_INDIRECTION,
                         "value indirection to a value of an incompatible type");
    }
  }
  if (parent && parent->chunked && !i->in_chunk) {
    i->in_chunk = 1; /* back inside the enclosing value: its chunk is used up */
    i->chunk_lim = parent->chunk_lim;
    i->end = i->pos;
  }
  *slot = v;
  return CDR_OK;
}

/* The actual type of a value whose tag TAG (at TAG_POS, declared type T) was
 * read: its codebase and repository ID(s) read, the type resolved (the
 * first known one of an ID list: *TRUNCATED when that is not the first) and
 * checked against T.  NULL with the stream's error set. */
static const cdr_value_type *in_value_type(cdr_in *i, vstate *s, const cdr_value_type *t,
                                           uint32_t tag, size_t tag_pos, int *truncated)
{
  if (tag < TAG_MIN || tag > 0x7fffffffu || (tag & TAG_ID_MASK) == 0x04) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TAG, (tag & TAG_ID_MASK) != 0x04 || tag < TAG_MIN || tag > 0x7fffffffu
                                ? "not a value tag" : "value tag with reserved ID bits 0x04");
    return NULL;
  }
  if (tag & TAG_CODEBASE) {
    const char *cb;
    uint32_t cblen;
    if (in_string_indirect(i, s, aux_tab(s, AUX_CODEBASES), &cb, &cblen) != CDR_OK)
      return NULL;
  }
  const cdr_value_type *vt = NULL;
  *truncated = 0;
  if ((tag & TAG_ID_MASK) == TAG_ID_ONE) {
    const char *id;
    uint32_t len;
    if (in_string_indirect(i, s, aux_tab(s, AUX_IDS), &id, &len) != CDR_OK)
      return NULL;
    vt = resolve_id(s, t, id, len);
  } else if ((tag & TAG_ID_MASK) == TAG_ID_LIST) {
    const id_list *l = NULL;
    if (in_id_list(i, s, &l) != CDR_OK)
      return NULL;
    for (uint32_t k = 0; k < l->n && !vt; k++) {
      vt = resolve_id(s, t, l->id[k], l->len[k]);
      *truncated = vt && k > 0;
    }
  } else {
    vt = t;
  }
  if (!vt) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TYPE, "unknown repository ID and no known truncatable base");
    return NULL;
  }
  if (!cdr__value_type_compatible(t, vt) || (vt->flags & CDR_VT_ABSTRACT)) {
    i->pos = tag_pos;
    cdr_in_fail(i, CDR_E_TYPE, "value of a type not compatible with the declared type");
    return NULL;
  }
  return vt;
}

/* Whether a value of type VT (TRUNCATED, CHUNKED as its tag at TAG_POS says)
 * may start here: chunked encoding where it is needed, and the limits on
 * nesting (VDEPTH) and values.  CDR_OK or the stream's error. */
static int in_value_check(cdr_in *i, const vstate *s, const vframe *parent,
                          const cdr_value_type *vt, int truncated, int chunked, size_t tag_pos,
                          uint32_t vdepth)
{
  if ((truncated || (vt->flags & CDR_VT_CUSTOM)) && !chunked) {
    i->pos = tag_pos;
    return cdr_in_fail(i, CDR_E_TAG, "truncated or custom value without chunked encoding");
  }
  if (parent && parent->chunked && !chunked) {
    i->pos = tag_pos;
    return cdr_in_fail(i, CDR_E_TAG, "value nested in a chunked value is not chunked");
  }
  if (vdepth > s->vo.max_depth || s->nvalues >= s->vo.max_values) {
    i->pos = tag_pos;
    return cdr_in_fail(i, CDR_E_LIMIT, "values nested too deeply or too many values");
  }
  if (!i->arena)
    return cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
  return CDR_OK;
}

/* Start reading a value whose declared type is T into *SLOT.  Null and
 * indirections are stored at once (returns 0); a new value is allocated,
 * recorded, stored and pushed (returns 1).  TAIL: the top frame is done
 * once this member is read, so it is replaced. */
static int in_value_start(cdr_in *i, vstate *s, const cdr_value_type *t, void **slot, int tail)
{
  vframe *parent = top_frame(s);
  uint32_t tag = 0;
  size_t tag_pos = 0;
  if (in_value_tag(i, parent, &tag, &tag_pos) != CDR_OK)
    return 0;
  if (tag == 0 || tag == INDIRECTION) {
    (void)in_value_ref(i, s, parent, t, tag, slot);
    return 0;
  }
  int truncated;
  const cdr_value_type *vt = in_value_type(i, s, t, tag, tag_pos, &truncated);
  int chunked = (tag & TAG_CHUNKED) != 0;
  uint32_t vdepth = parent ? parent->vdepth + 1 : 1;
  if (!vt || in_value_check(i, s, parent, vt, truncated, chunked, tag_pos, vdepth) != CDR_OK)
    return 0;
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
          && in_string_indirect(i, s, aux_tab(s, AUX_CODEBASES), &str, &len) != CDR_OK)
        return -2;
      if ((u & TAG_ID_MASK) == TAG_ID_ONE
          && in_string_indirect(i, s, aux_tab(s, AUX_IDS), &str, &len) != CDR_OK)
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

/* The walk loop for F, in the stream's byte order. */
static inline int in_fast(cdr_in *i, vstate *s, vframe *f)
{
  const vplan *p = plan_get(f->vt);
  if (CDR_UNLIKELY(!p))
    return 0; /* no memory for it: the general walk */
  return i->swap ? cdr__value_in_fast_swap(i, s, f, p) : cdr__value_in_fast_host(i, s, f, p);
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
