/* memory.c - the mapping's memory rules (corbaorb/corba.h, "Memory"):
 * blocks with a hidden header naming their element TypeCode, deep free,
 * deep copy and the variable-length test, all driven by TypeCodes.
 */
#include "orb_impl.h"
#include <stdlib.h>
#include <string.h>

/* Blocks come from the process-wide allocator (cdr_mem_global()), so that
 * the tests count and fail them as every other allocation.
 *
 * The header before every block CORBA_free accepts.  Aligned as max_align_t
 * so that the memory after it is aligned for every C type. */
typedef struct block_hdr {
  _Alignas(max_align_t) CORBA_TypeCode tc; /* element type; NULL: flat memory */
  uint32_t count;                          /* elements */
  uint32_t magic;
} block_hdr;

#define BLOCK_MAGIC 0xC0DBA11Cu
#define DEPTH_MAX 64

/* ---------------------------------------------------------------- value graphs
 *
 * The references to graphs (corbaorb/corba.h, "Values") are kept in one
 * table: value pointer -> (graph, count), open addressing with linear
 * probing, under one mutex.  CORBA_free looks a pointer up there first
 * while any reference is live (one atomic load otherwise). */

struct corbaorb_graph {
  cdr_arena arena;
  uint32_t refs;             /* references to this graph (under ref_lock) */
};

typedef struct ref_ent {
  const void *p;             /* NULL: empty slot */
  corbaorb_graph *g;
  uint32_t n;                /* references through this pointer */
} ref_ent;

static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
static ref_ent *ref_tab;
static size_t ref_cap, ref_used;  /* slots (a power of two, or 0), entries */
static size_t ref_live;           /* entries, read without the lock by CORBA_free */
static const cdr_allocator *ref_tab_alloc; /* what ref_tab came from */

corbaorb_graph *corbaorb_graph_new(void)
{
  const cdr_allocator *m = cdr_mem_global();
  corbaorb_graph *g = m->malloc(sizeof *g, m->ud);
  if (!g)
    return NULL;
  cdr_arena_init(&g->arena, m);
  g->refs = 0;
  return g;
}

cdr_arena *corbaorb_graph_arena(corbaorb_graph *g)
{
  return &g->arena;
}

static void graph_free(corbaorb_graph *g)
{
  cdr_arena_free(&g->arena);
  const cdr_allocator *m = cdr_mem_global();
  m->free(g, m->ud);
}

void corbaorb_graph_done(corbaorb_graph *g)
{
  if (!g)
    return;
  pthread_mutex_lock(&ref_lock);
  uint32_t refs = g->refs;
  pthread_mutex_unlock(&ref_lock);
  if (!refs)
    graph_free(g);
}

static size_t ref_hash(const void *p)
{
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 29;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 17);
}

/* The slot of P, or of the empty slot where it would go.  Lock held,
 * ref_cap > 0. */
static size_t ref_slot(const void *p)
{
  size_t mask = ref_cap - 1, i = ref_hash(p) & mask;
  while (ref_tab[i].p && ref_tab[i].p != p)
    i = (i + 1) & mask;
  return i;
}

static int ref_grow(void)
{
  size_t cap = ref_cap ? ref_cap * 2 : 64;
  const cdr_allocator *m = cdr_mem_global();
  ref_ent *t = m->malloc(cap * sizeof *t, m->ud);
  if (!t)
    return CDR_E_NOMEM;
  memset(t, 0, cap * sizeof *t);
  ref_ent *old = ref_tab;
  size_t oldcap = ref_cap;
  const cdr_allocator *om = ref_tab_alloc;
  ref_tab = t;
  ref_cap = cap;
  ref_tab_alloc = m;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].p)
      ref_tab[ref_slot(old[i].p)] = old[i];
  if (old)
    om->free(old, om->ud);
  return CDR_OK;
}

/* One more reference through P to G.  CDR_OK or CDR_E_NOMEM; CDR_E_INVALID
 * when P is a reference to another graph. */
static int ref_add(const void *p, corbaorb_graph *g)
{
  pthread_mutex_lock(&ref_lock);
  int rc = CDR_OK;
  if ((ref_used + 1) * 2 > ref_cap)
    rc = ref_grow();
  if (rc == CDR_OK) {
    ref_ent *e = &ref_tab[ref_slot(p)];
    if (!e->p) {
      e->p = p;
      e->g = g;
      e->n = 1;
      ref_used++;
      __atomic_store_n(&ref_live, ref_used, __ATOMIC_RELEASE);
      g->refs++;
    } else if (e->g != g) {
      rc = CDR_E_INVALID;
    } else {
      e->n++;
      g->refs++;
    }
  }
  pthread_mutex_unlock(&ref_lock);
  return rc;
}

/* Another reference through P, if P is one: 1, else 0. */
static int ref_dup(const void *p)
{
  int found = 0;
  pthread_mutex_lock(&ref_lock);
  if (ref_cap) {
    ref_ent *e = &ref_tab[ref_slot(p)];
    if (e->p) {
      e->n++;
      e->g->refs++;
      found = 1;
    }
  }
  pthread_mutex_unlock(&ref_lock);
  return found;
}

/* The graph P is a reference to, or NULL. */
static corbaorb_graph *ref_graph(const void *p)
{
  corbaorb_graph *g = NULL;
  pthread_mutex_lock(&ref_lock);
  if (ref_cap) {
    ref_ent *e = &ref_tab[ref_slot(p)];
    if (e->p)
      g = e->g;
  }
  pthread_mutex_unlock(&ref_lock);
  return g;
}

/* Give back one reference through P, if P is one (the last one of its
 * graph frees the graph): 1, else 0. */
static int ref_drop(const void *p)
{
  corbaorb_graph *dead = NULL;
  int found = 0;
  pthread_mutex_lock(&ref_lock);
  if (ref_cap) {
    size_t mask = ref_cap - 1, i = ref_slot(p);
    ref_ent *e = &ref_tab[i];
    if (e->p) {
      found = 1;
      if (--e->g->refs == 0)
        dead = e->g;
      if (--e->n == 0) {
        /* remove, then move the rest of the cluster back where it belongs */
        e->p = NULL;
        ref_used--;
        __atomic_store_n(&ref_live, ref_used, __ATOMIC_RELEASE);
        for (size_t j = (i + 1) & mask; ref_tab[j].p; j = (j + 1) & mask) {
          ref_ent t = ref_tab[j];
          ref_tab[j].p = NULL;
          ref_tab[ref_slot(t.p)] = t;
        }
      }
    }
  }
  pthread_mutex_unlock(&ref_lock);
  if (dead)
    graph_free(dead);
  return found;
}

void *corbaorb_value_new(const cdr_value_type *vt, const void *graph)
{
  if (!vt || (vt->flags & CDR_VT_ABSTRACT) || vt->size < sizeof(cdr_value))
    return NULL;
  size_t align = vt->align ? vt->align : _Alignof(cdr_value);
  cdr_value *v;
  if (graph) {
    corbaorb_graph *g = ref_graph(graph);
    if (!g)
      return NULL;
    pthread_mutex_lock(&ref_lock); /* G's arena: one allocation at a time */
    v = cdr_arena_alloc(&g->arena, vt->size, align);
    pthread_mutex_unlock(&ref_lock);
    if (!v)
      return NULL;
  } else {
    corbaorb_graph *g = corbaorb_graph_new();
    if (!g)
      return NULL;
    v = cdr_arena_alloc(&g->arena, vt->size, align);
    if (!v || ref_add(v, g) != CDR_OK) {
      graph_free(g);
      return NULL;
    }
  }
  memset(v, 0, vt->size);
  v->type = vt;
  return v;
}

CORBA_char *corbaorb_value_strdup(const void *graph, const CORBA_char *str)
{
  corbaorb_graph *g = graph && str ? ref_graph(graph) : NULL;
  if (!g)
    return NULL;
  size_t n = strlen(str) + 1;
  pthread_mutex_lock(&ref_lock);
  char *s = cdr_arena_alloc(&g->arena, n, 1);
  pthread_mutex_unlock(&ref_lock);
  if (s)
    memcpy(s, str, n);
  return s;
}

void *corbaorb_value_dup(const void *v)
{
  return v && ref_dup(v) ? (void *)v : NULL;
}

/* A block of OCTETS after its header; ZERO: the octets are zeroed too
 * (the header always is). */
static void *block_make(CORBA_TypeCode tc, uint32_t count, size_t octets, bool zero)
{
  if (octets > SIZE_MAX - sizeof(block_hdr))
    return NULL;
  const cdr_allocator *m = cdr_mem_global();
  block_hdr *h = m->malloc(sizeof(block_hdr) + octets, m->ud);
  if (!h)
    return NULL;
  memset(h, 0, sizeof(block_hdr) + (zero ? octets : 0));
  h->tc = tc;
  h->count = count;
  h->magic = BLOCK_MAGIC;
  return h + 1;
}

static void *block_new(CORBA_TypeCode tc, uint32_t count, size_t octets)
{
  return block_make(tc, count, octets, true);
}

void *corbaorb_alloc(CORBA_TypeCode tc, CORBA_unsigned_long count)
{
  if (!tc)
    return NULL;
  size_t sz = tc->size;
  if (sz && count > SIZE_MAX / sz)
    return NULL;
  return block_new(corbaorb_tc_variable_depth(tc, 0) ? tc : NULL, count, sz * count);
}

void *corbaorb_allocbuf(CORBA_TypeCode tc, CORBA_unsigned_long len)
{
  return corbaorb_alloc(tc, len);
}

CORBA_char *CORBA_string_alloc(CORBA_unsigned_long len)
{
  char *s = block_new(NULL, 0, (size_t)len + 1);
  if (s)
    s[len] = 0;
  return s;
}

char *corbaorb_string_n(const char *str, size_t n)
{
  if (n > UINT32_MAX - 1)
    return NULL;
  char *s = block_make(NULL, 0, n + 1, false); /* every octet written below */
  if (s) {
    memcpy(s, str, n);
    s[n] = 0;
  }
  return s;
}

void *corbaorb_octets_n(const void *p, size_t n)
{
  if (n > UINT32_MAX)
    return NULL;
  void *b = block_make(NULL, (uint32_t)n, n, false); /* every octet written below */
  if (b)
    memcpy(b, p, n);
  return b;
}

CORBA_char *CORBA_string_dup(const CORBA_char *str)
{
  if (!str)
    return NULL;
  /* The in string of the running upcall (a view into its request, which
   * the servant may not change): its length is known. */
  const corbaorb_upcall_state *up = &corbaorb_upcall;
  size_t n = str == up->in_view ? up->in_view_len : strlen(str);
  return corbaorb_string_n(str, n);
}

CORBA_wchar *CORBA_wstring_alloc(CORBA_unsigned_long len)
{
  if ((size_t)len + 1 > SIZE_MAX / sizeof(CORBA_wchar))
    return NULL;
  CORBA_wchar *s = block_new(NULL, 0, ((size_t)len + 1) * sizeof(CORBA_wchar));
  if (s)
    s[len] = 0;
  return s;
}

CORBA_unsigned_long CORBA_wstring_len(const CORBA_wchar *str)
{
  CORBA_unsigned_long n = 0;
  if (str)
    while (str[n])
      n++;
  return n;
}

CORBA_wchar *CORBA_wstring_dup(const CORBA_wchar *str)
{
  if (!str)
    return NULL;
  CORBA_unsigned_long n = CORBA_wstring_len(str);
  CORBA_wchar *s = CORBA_wstring_alloc(n);
  if (s)
    memcpy(s, str, (size_t)n * sizeof *s);
  return s;
}

CORBA_any *CORBA_any__alloc(void)
{
  CORBA_any *a = corbaorb_alloc(TC_CORBA_any, 1);
  if (a)
    a->_type = TC_null;
  return a;
}

/* ---------------------------------------------------------------- by TypeCode */

CORBA_TypeCode corbaorb_tc_unalias(CORBA_TypeCode tc)
{
  for (int n = 0; tc && tc->kind == CDR_K_ALIAS && n < DEPTH_MAX; n++)
    tc = tc->u.alias.type;
  return tc;
}

/* The union branch selected by the discriminator at P (a cdr_type union
 * descriptor), or NULL when none. */
const cdr_union_case *corbaorb_union_case(CORBA_TypeCode tc, const void *p)
{
  CORBA_TypeCode d = corbaorb_tc_unalias(tc->u.un.disc);
  const uint8_t *dp = (const uint8_t *)p + tc->u.un.disc_offset;
  int64_t v = 0;
  switch (d->kind) {
  case CDR_K_BOOLEAN: case CDR_K_CHAR: case CDR_K_OCTET: v = *dp; break;
  case CDR_K_SHORT: { int16_t x; memcpy(&x, dp, 2); v = x; break; }
  case CDR_K_USHORT: { uint16_t x; memcpy(&x, dp, 2); v = x; break; }
  case CDR_K_LONG: { int32_t x; memcpy(&x, dp, 4); v = x; break; }
  case CDR_K_ULONG: case CDR_K_ENUM: case CDR_K_WCHAR: { uint32_t x; memcpy(&x, dp, 4); v = x; break; }
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: { int64_t x; memcpy(&x, dp, 8); v = x; break; }
  default: return NULL;
  }
  for (uint32_t i = 0; i < tc->u.un.ncases; i++)
    if ((int32_t)i != tc->u.un.default_case && tc->u.un.cases[i].label == v)
      return &tc->u.un.cases[i];
  if (tc->u.un.default_case >= 0 && (uint32_t)tc->u.un.default_case < tc->u.un.ncases)
    return &tc->u.un.cases[tc->u.un.default_case];
  return NULL;
}

int corbaorb_tc_variable_depth(CORBA_TypeCode tc, int depth)
{
  tc = corbaorb_tc_unalias(tc);
  if (!tc || depth > DEPTH_MAX)
    return 1;
  switch (tc->kind) {
  case CDR_K_STRING: case CDR_K_WSTRING: case CDR_K_SEQUENCE: case CDR_K_ANY:
  case CDR_K_TYPECODE: case CDR_K_PRINCIPAL: case CDR_K_OBJREF: case CDR_K_VALUE:
  case CDR_K_CUSTOM: case CDR_K_ABSTRACT_INTERFACE: case CDR_K_LOCAL_INTERFACE:
  case CDR_K_NATIVE:
    return 1;
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    for (uint32_t i = 0; i < tc->u.st.count; i++)
      if (corbaorb_tc_variable_depth(tc->u.st.members[i].type, depth + 1))
        return 1;
    return 0;
  case CDR_K_UNION:
    for (uint32_t i = 0; i < tc->u.un.ncases; i++)
      if (corbaorb_tc_variable_depth(tc->u.un.cases[i].type, depth + 1))
        return 1;
    return 0;
  case CDR_K_ARRAY:
    return corbaorb_tc_variable_depth(tc->u.arr.elem, depth + 1);
  default:
    return 0;
  }
}

int corbaorb_tc_has_refs(CORBA_TypeCode tc, int depth)
{
  tc = corbaorb_tc_unalias(tc);
  if (!tc || depth > DEPTH_MAX)
    return 1;
  switch (tc->kind) {
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: case CDR_K_ANY:
    return 1;
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    for (uint32_t i = 0; i < tc->u.st.count; i++)
      if (corbaorb_tc_has_refs(tc->u.st.members[i].type, depth + 1))
        return 1;
    return 0;
  case CDR_K_UNION:
    for (uint32_t i = 0; i < tc->u.un.ncases; i++)
      if (corbaorb_tc_has_refs(tc->u.un.cases[i].type, depth + 1))
        return 1;
    return 0;
  case CDR_K_ARRAY:
    return corbaorb_tc_has_refs(tc->u.arr.elem, depth + 1);
  case CDR_K_SEQUENCE:
    return corbaorb_tc_has_refs(tc->u.seq.elem, depth + 1);
  default:
    return 0;
  }
}

int corbaorb_tc_has_values(CORBA_TypeCode tc, int depth)
{
  tc = corbaorb_tc_unalias(tc);
  if (!tc || depth > DEPTH_MAX)
    return 1;
  switch (tc->kind) {
  case CDR_K_VALUE: case CDR_K_ANY:
    return 1;
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    for (uint32_t i = 0; i < tc->u.st.count; i++)
      if (corbaorb_tc_has_values(tc->u.st.members[i].type, depth + 1))
        return 1;
    return 0;
  case CDR_K_UNION:
    for (uint32_t i = 0; i < tc->u.un.ncases; i++)
      if (corbaorb_tc_has_values(tc->u.un.cases[i].type, depth + 1))
        return 1;
    return 0;
  case CDR_K_ARRAY:
    return corbaorb_tc_has_values(tc->u.arr.elem, depth + 1);
  case CDR_K_SEQUENCE:
    return corbaorb_tc_has_values(tc->u.seq.elem, depth + 1);
  default:
    return 0;
  }
}

/* Release the object references inside a decoded value (in an arena: only
 * the references, which the objref hooks made on the heap, are given back). */
static void release_refs(CORBA_TypeCode tc, void *p, int depth)
{
  tc = corbaorb_tc_unalias(tc);
  if (!tc || !p || depth > DEPTH_MAX)
    return;
  switch (tc->kind) {
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: {
    CORBA_Object *o = p;
    corbaorb_object_release(*o);
    *o = NULL;
    break;
  }
  case CDR_K_ANY: {
    cdr_any *a = p;
    if (a->_type && a->_value && !a->_release)
      release_refs(a->_type, a->_value, depth + 1);
    break;
  }
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    for (uint32_t i = 0; i < tc->u.st.count; i++)
      release_refs(tc->u.st.members[i].type, (uint8_t *)p + tc->u.st.members[i].offset,
                   depth + 1);
    break;
  case CDR_K_UNION: {
    const cdr_union_case *c = corbaorb_union_case(tc, p);
    if (c)
      release_refs(c->type, (uint8_t *)p + c->offset, depth + 1);
    break;
  }
  case CDR_K_ARRAY:
    for (uint32_t i = 0; i < tc->u.arr.count; i++)
      release_refs(tc->u.arr.elem, (uint8_t *)p + (size_t)i * tc->u.arr.elem->size, depth + 1);
    break;
  case CDR_K_SEQUENCE: {
    cdr_seq *q = p;
    for (uint32_t i = 0; q->_buffer && i < q->_length; i++)
      release_refs(tc->u.seq.elem, (uint8_t *)q->_buffer + (size_t)i * tc->u.seq.elem->size,
                   depth + 1);
    break;
  }
  default:
    break;
  }
}

void corbaorb_release_refs(CORBA_TypeCode tc, void *p)
{
  release_refs(tc, p, 0);
}

int corbaorb_tc_is_variable(CORBA_TypeCode tc)
{
  return corbaorb_tc_variable_depth(tc, 0);
}

static void free_contents(CORBA_TypeCode tc, void *p, int depth)
{
  tc = corbaorb_tc_unalias(tc);
  if (!tc || !p || depth > DEPTH_MAX)
    return;
  switch (tc->kind) {
  case CDR_K_STRING: case CDR_K_WSTRING: {
    void **s = p;
    CORBA_free(*s);
    *s = NULL;
    break;
  }
  case CDR_K_SEQUENCE: case CDR_K_PRINCIPAL: {
    cdr_seq *s = p;
    if (s->_release && s->_buffer)
      CORBA_free(s->_buffer);
    s->_buffer = NULL;
    s->_length = s->_maximum = 0;
    break;
  }
  case CDR_K_ANY: {
    cdr_any *a = p;
    if (a->_release && a->_value)
      CORBA_free(a->_value);
    cdr_tc_release(a->_type);
    a->_value = NULL;
    a->_type = TC_null;
    break;
  }
  case CDR_K_TYPECODE: {
    cdr_typecode *t = p;
    cdr_tc_release(*t);
    *t = NULL;
    break;
  }
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: case CDR_K_LOCAL_INTERFACE: {
    CORBA_Object *o = p;
    corbaorb_object_release(*o);
    *o = NULL;
    break;
  }
  case CDR_K_VALUE: {
    void **v = p;
    if (*v)
      ref_drop(*v); /* a reference to its graph, or nothing of the mapping's */
    *v = NULL;
    break;
  }
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    for (uint32_t i = 0; i < tc->u.st.count; i++)
      free_contents(tc->u.st.members[i].type, (uint8_t *)p + tc->u.st.members[i].offset,
                    depth + 1);
    break;
  case CDR_K_UNION: {
    const cdr_union_case *c = corbaorb_union_case(tc, p);
    if (c)
      free_contents(c->type, (uint8_t *)p + c->offset, depth + 1);
    break;
  }
  case CDR_K_ARRAY: {
    CORBA_TypeCode e = tc->u.arr.elem;
    if (!corbaorb_tc_variable_depth(e, depth + 1))
      break;
    for (uint32_t i = 0; i < tc->u.arr.count; i++)
      free_contents(e, (uint8_t *)p + (size_t)i * e->size, depth + 1);
    break;
  }
  default:
    break;
  }
}

void corbaorb_free_contents(CORBA_TypeCode tc, void *p)
{
  free_contents(tc, p, 0);
}

void CORBA_free(void *mem)
{
  if (!mem)
    return;
  if (__atomic_load_n(&ref_live, __ATOMIC_ACQUIRE) && ref_drop(mem))
    return; /* a value: a reference to its graph */
  block_hdr *h = (block_hdr *)mem - 1;
  if (h->magic != BLOCK_MAGIC)
    return; /* not ours: leaking is safer than freeing a foreign pointer */
  if (h->tc)
    for (uint32_t i = 0; i < h->count; i++)
      free_contents(h->tc, (uint8_t *)mem + (size_t)i * h->tc->size, 0);
  h->magic = 0;
  const cdr_allocator *m = cdr_mem_global();
  m->free(h, m->ud);
}

static int copy_value(CORBA_TypeCode tc, void *dst, const void *src, int depth,
                      corbaorb_graph *g)
{
  tc = corbaorb_tc_unalias(tc);
  if (!tc || depth > DEPTH_MAX)
    return CDR_E_LIMIT;
  switch (tc->kind) {
  case CDR_K_STRING: {
    const char *s = *(char *const *)src;
    *(char **)dst = NULL;
    if (s && !(*(char **)dst = CORBA_string_dup(s)))
      return CDR_E_NOMEM;
    return CDR_OK;
  }
  case CDR_K_WSTRING: {
    const CORBA_wchar *s = *(CORBA_wchar *const *)src;
    *(CORBA_wchar **)dst = NULL;
    if (s && !(*(CORBA_wchar **)dst = CORBA_wstring_dup(s)))
      return CDR_E_NOMEM;
    return CDR_OK;
  }
  case CDR_K_SEQUENCE: case CDR_K_PRINCIPAL: {
    const cdr_seq *s = src;
    cdr_seq *d = dst;
    CORBA_TypeCode e = tc->kind == CDR_K_SEQUENCE ? tc->u.seq.elem : TC_CORBA_octet;
    d->_maximum = d->_length = 0;
    d->_release = 1;
    d->_buffer = corbaorb_allocbuf(e, s->_length);
    if (!d->_buffer)
      return CDR_E_NOMEM;
    d->_maximum = s->_length;
    if (!corbaorb_tc_variable_depth(e, depth + 1)) {
      if (s->_length)
        memcpy(d->_buffer, s->_buffer, (size_t)s->_length * e->size);
      d->_length = s->_length;
      return CDR_OK;
    }
    for (uint32_t i = 0; i < s->_length; i++) {
      d->_length = i + 1;
      int rc = copy_value(e, (uint8_t *)d->_buffer + (size_t)i * e->size,
                          (const uint8_t *)s->_buffer + (size_t)i * e->size, depth + 1, g);
      if (rc != CDR_OK)
        return rc;
    }
    return CDR_OK;
  }
  case CDR_K_ANY: {
    const cdr_any *s = src;
    cdr_any *d = dst;
    memset(d, 0, sizeof *d); /* libcdr's private fields too: no original octets */
    d->_type = TC_null;
    d->_value = NULL;
    d->_release = 1;
    if (!s->_type)
      return CDR_OK;
    int st = CDR_OK;
    cdr_typecode t = cdr_tc_dup(s->_type, &st);
    if (!t)
      return st ? st : CDR_E_NOMEM;
    if (s->_value && t->size) {
      void *v = corbaorb_alloc(t, 1);
      if (!v) {
        cdr_tc_release(t);
        return CDR_E_NOMEM;
      }
      d->_value = v;
      d->_type = t;
      return copy_value(t, v, s->_value, depth + 1, g);
    }
    d->_type = t;
    return CDR_OK;
  }
  case CDR_K_TYPECODE: {
    cdr_typecode s = *(const cdr_typecode *)src;
    *(cdr_typecode *)dst = NULL;
    if (!s)
      return CDR_OK;
    int st = CDR_OK;
    cdr_typecode t = cdr_tc_dup(s, &st);
    if (!t)
      return st ? st : CDR_E_NOMEM;
    *(cdr_typecode *)dst = t;
    return CDR_OK;
  }
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: case CDR_K_LOCAL_INTERFACE:
    *(CORBA_Object *)dst = corbaorb_object_dup(*(CORBA_Object const *)src);
    return CDR_OK;
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    if (!corbaorb_tc_variable_depth(tc, depth)) {
      memcpy(dst, src, tc->size);
      return CDR_OK;
    }
    memset(dst, 0, tc->size);
    for (uint32_t i = 0; i < tc->u.st.count; i++) {
      const cdr_member *m = &tc->u.st.members[i];
      int rc = copy_value(m->type, (uint8_t *)dst + m->offset, (const uint8_t *)src + m->offset,
                          depth + 1, g);
      if (rc != CDR_OK)
        return rc;
    }
    return CDR_OK;
  case CDR_K_UNION: {
    if (!corbaorb_tc_variable_depth(tc, depth)) {
      memcpy(dst, src, tc->size);
      return CDR_OK;
    }
    memset(dst, 0, tc->size);
    CORBA_TypeCode d = tc->u.un.disc;
    memcpy((uint8_t *)dst + tc->u.un.disc_offset, (const uint8_t *)src + tc->u.un.disc_offset,
           corbaorb_tc_unalias(d)->size);
    const cdr_union_case *c = corbaorb_union_case(tc, src);
    if (!c)
      return CDR_OK;
    return copy_value(c->type, (uint8_t *)dst + c->offset, (const uint8_t *)src + c->offset,
                      depth + 1, g);
  }
  case CDR_K_ARRAY: {
    CORBA_TypeCode e = tc->u.arr.elem;
    if (!corbaorb_tc_variable_depth(e, depth + 1)) {
      memcpy(dst, src, tc->size);
      return CDR_OK;
    }
    memset(dst, 0, tc->size);
    for (uint32_t i = 0; i < tc->u.arr.count; i++) {
      int rc = copy_value(e, (uint8_t *)dst + (size_t)i * e->size,
                          (const uint8_t *)src + (size_t)i * e->size, depth + 1, g);
      if (rc != CDR_OK)
        return rc;
    }
    return CDR_OK;
  }
  case CDR_K_VALUE: {
    /* the same value, one more reference to its graph: G's when the value
     * was decoded there, else the graph SRC's value is a reference to */
    void *v = *(void *const *)src;
    *(void **)dst = NULL;
    if (!v)
      return CDR_OK;
    if (g) {
      int rc = ref_add(v, g);
      if (rc != CDR_OK)
        return rc;
    } else if (!ref_dup(v)) {
      return CDR_E_UNSUPPORTED; /* not a value of the mapping's */
    }
    *(void **)dst = v;
    return CDR_OK;
  }
  case CDR_K_CUSTOM: case CDR_K_NATIVE:
    return CDR_E_UNSUPPORTED;
  default:
    memcpy(dst, src, tc->size);
    return CDR_OK;
  }
}

/* corbaorb_copy()'s way for values that are no references (a request's in
 * values, a value on the stack): SRC written as CDR and read back into a
 * graph of its own (sharing and cycles as they were), which the copy in
 * DST holds references to.  On error DST holds nothing to free. */
static int copy_through_cdr(CORBA_TypeCode tc, void *dst, const void *src)
{
  cdr_out o;
  cdr_out_init(&o, NULL);
  int rc = cdr_write(&o, tc, src);
  if (rc == CDR_OK)
    rc = cdr_out_flatten(&o);
  corbaorb_graph *g = NULL;
  if (rc == CDR_OK && !(g = corbaorb_graph_new()))
    rc = CDR_E_NOMEM;
  memset(dst, 0, tc->size);
  if (rc == CDR_OK) {
    cdr_in i;
    cdr_in_init(&i, cdr_out_data(&o), cdr_out_size(&o), cdr_out_byte_order(&o), NULL);
    cdr_in_set_arena(&i, corbaorb_graph_arena(g));
    void *tmp = cdr_arena_alloc(corbaorb_graph_arena(g), tc->size ? tc->size : 1,
                                tc->align ? tc->align : 1);
    if (!tmp) {
      rc = CDR_E_NOMEM;
    } else {
      memset(tmp, 0, tc->size);
      rc = cdr_read(&i, tc, tmp);
      if (rc == CDR_OK)
        rc = corbaorb_copy_graph(tc, dst, tmp, g);
      if (corbaorb_tc_has_refs(tc, 0)) /* the copy holds references of its own */
        corbaorb_release_refs(tc, tmp);
      if (rc != CDR_OK) {
        corbaorb_free_contents(tc, dst);
        memset(dst, 0, tc->size);
      }
    }
    cdr_in_close(&i);
  }
  corbaorb_graph_done(g);
  cdr_out_close(&o);
  return rc;
}

/* copy_value(), and where SRC holds a value that is no reference, the
 * copy through CDR. */
static int copy_deep(CORBA_TypeCode tc, void *dst, const void *src)
{
  int rc = copy_value(tc, dst, src, 0, NULL);
  CORBA_TypeCode t = corbaorb_tc_unalias(tc);
  if (rc == CDR_E_UNSUPPORTED && t && corbaorb_tc_has_values(t, 0)) {
    corbaorb_free_contents(t, dst);
    rc = copy_through_cdr(t, dst, src);
  }
  return rc;
}

int corbaorb_copy(CORBA_TypeCode tc, void *dst, const void *src)
{
  return copy_deep(tc, dst, src);
}

int corbaorb_copy_graph(CORBA_TypeCode tc, void *dst, const void *src, corbaorb_graph *g)
{
  return copy_value(tc, dst, src, 0, g);
}

void CORBA_any__copy(CORBA_any *dst, const CORBA_any *src)
{
  if (!dst)
    return;
  if (!src || copy_deep(TC_CORBA_any, dst, src) != CDR_OK) {
    if (src)
      free_contents(TC_CORBA_any, dst, 0);
    dst->_type = TC_null;
    dst->_value = NULL;
  }
}
