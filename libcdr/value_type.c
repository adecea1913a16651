/* value_type.c - value type descriptors: their repository IDs, base types,
 * and the registry that maps repository IDs to descriptors on the receive
 * side. */
#include "value_impl.h"
#include <pthread.h>
#include <xxhash.h>

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

void cdr_value_type_clear(cdr_value_type *t)
{
  const vplan *p = __atomic_exchange_n(&t->plan, NULL, __ATOMIC_ACQUIRE);
  if (p)
    cdr__value_plan_free(p);
  cdr__tc_value_clear(t);
  /* A repository ID given as a string is published as is: not allocated. */
  if (__atomic_load_n(&t->id.id, __ATOMIC_ACQUIRE) == t->repo_id)
    __atomic_store_n(&t->id.id, NULL, __ATOMIC_RELAXED);
  else
    cdr_repoid_cache_clear(&t->id, NULL);
}

int cdr_value_type_is_base_of(const cdr_value_type *t, const cdr_value_type *d)
{
  for (unsigned k = 0; d && k < MAX_LEVELS; d = d->base, k++)
    if (d == t)
      return 1;
  return 0;
}

int cdr__value_type_compatible_id(const cdr_value_type *t, const cdr_value_type *d)
{
  /* A value type a TypeCode built (CDR_VT_NOCACHE) and a program's type of
   * the same repository ID are one type: a value reached both inside an
   * any (declared by the any's TypeCode) and outside it (declared by the
   * program's descriptor) is one object -- when both lay it out alike. */
  const char *tid = cdr_value_type_id(t, NULL);
  for (unsigned k = 0; tid && d && k < MAX_LEVELS; d = d->base, k++) {
    if (!((d->flags | t->flags) & CDR_VT_NOCACHE))
      continue;
    const char *did = cdr_value_type_id(d, NULL);
    if (did && strcmp(did, tid) == 0)
      return cdr__vt_same_layout(t, d); /* else the object is not a T in C */
  }
  return 0;
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
  unsigned lvl = 0;
  for (const cdr_value_type *v = t; v && lvl < MAX_LEVELS; v = v->base, lvl++) {
    int st;
    const char *id = cdr_value_type_id(v, &st);
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
        __atomic_store_n(&r->slot[h], v, __ATOMIC_RELEASE);
        r->count++;
        break;
      }
      if (r->lens[h] == len && memcmp(r->ids[h], id, len) == 0) {
        if (x != v)
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
