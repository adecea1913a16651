/* adapter.c - the server's object adapter (adapter.h): activation of
 * persistent and generated keys, operation tables, publication of object
 * tables and their reclamation by epochs. */
#include "adapter.h"
#include <sched.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>

/* Set once in every thread that dispatches requests (connection threads,
 * pool workers, of any server): deactivation called from an operation must
 * not wait for requests to finish. */
static __thread int tl_dispatching;

void iiop__adapter_thread_dispatches(void) { tl_dispatching = 1; }

void iiop__adapter_init(iiop__adapter *ad, const cdr_allocator *a)
{
  memset(ad, 0, sizeof *ad);
  ad->alloc = a;
  ad->epoch = 1;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ad->key_seed = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec)
                 ^ (uint64_t)(uintptr_t)ad ^ ((uint64_t)getpid() << 32);
  pthread_mutex_init(&ad->mu, NULL);
}

void iiop__adapter_destroy(iiop__adapter *ad)
{
  iiop__obj_table *t = ad->objs;
  if (t)
    for (uint32_t k = 0; k <= t->mask; k++)
      iiop__free(ad->alloc, t->slot[k]);
  iiop__free(ad->alloc, t);
  ad->objs = NULL;
  while (ad->old_tables) {
    iiop__obj_table *r = ad->old_tables->retired;
    iiop__free(ad->alloc, ad->old_tables);
    ad->old_tables = r;
  }
  while (ad->old_objs) {
    iiop__obj *r = ad->old_objs->retired_next;
    iiop__free(ad->alloc, ad->old_objs);
    ad->old_objs = r;
  }
  pthread_mutex_destroy(&ad->mu);
}

/* ---------------------------------------------------------------- readers */

void iiop__adapter_reader_add(iiop__adapter *ad, iiop__reader *r)
{
  r->epoch = 0;
  r->prev = NULL;
  pthread_mutex_lock(&ad->mu);
  r->next = ad->readers;
  if (ad->readers)
    ad->readers->prev = r;
  ad->readers = r;
  pthread_mutex_unlock(&ad->mu);
}

void iiop__adapter_reader_remove(iiop__adapter *ad, iiop__reader *r)
{
  pthread_mutex_lock(&ad->mu);
  if (r->prev)
    r->prev->next = r->next;
  else
    ad->readers = r->next;
  if (r->next)
    r->next->prev = r->prev;
  r->prev = r->next = NULL;
  pthread_mutex_unlock(&ad->mu);
}

/* The smallest epoch of a reader still reading (UINT64_MAX: none).  Under
 * mu (the reader list). */
static uint64_t min_reader_epoch(const iiop__adapter *ad)
{
  uint64_t m = UINT64_MAX;
  for (const iiop__reader *r = ad->readers; r; r = r->next) {
    uint64_t e = __atomic_load_n(&r->epoch, __ATOMIC_SEQ_CST);
    if (e && e < m)
      m = e;
  }
  return m;
}

/* ---------------------------------------------------------------- tables */

static void table_put(iiop__obj_table *t, iiop__obj *o)
{
  uint32_t i = o->key_hash & t->mask;
  while (t->slot[i])
    i = (i + 1) & t->mask;
  t->slot[i] = o;
  t->n++;
}

static uint32_t pow2_at_least(uint32_t n)
{
  uint32_t c = 4;
  while (c < n)
    c <<= 1;
  return c;
}

/* Free the retired tables and objects no reader can still hold.  Under mu. */
static void reclaim(iiop__adapter *ad)
{
  if (!ad->old_tables && !ad->old_objs)
    return;
  uint64_t m = min_reader_epoch(ad);
  for (iiop__obj_table **pt = &ad->old_tables; *pt;) {
    iiop__obj_table *t = *pt;
    if (t->retire_epoch <= m) {
      *pt = t->retired;
      iiop__free(ad->alloc, t);
    } else {
      pt = &t->retired;
    }
  }
  for (iiop__obj **po = &ad->old_objs; *po;) {
    iiop__obj *o = *po;
    if (o->retire_epoch <= m) {
      *po = o->retired_next;
      iiop__free(ad->alloc, o);
    } else {
      po = &o->retired_next;
    }
  }
}

/* Publish T (replacing the current table), retire the old table and GONE
 * (a deactivated object, or NULL), free what can be.  Under mu.  Returns
 * the epoch the retired items are tagged with. */
static uint64_t publish(iiop__adapter *ad, iiop__obj_table *t, iiop__obj *gone)
{
  iiop__obj_table *old = ad->objs;
  __atomic_store_n(&ad->objs, t, __ATOMIC_SEQ_CST);
  uint64_t e = __atomic_add_fetch(&ad->epoch, 1, __ATOMIC_SEQ_CST);
  if (old) {
    old->retire_epoch = e;
    old->retired = ad->old_tables;
    ad->old_tables = old;
  }
  if (gone) {
    gone->retire_epoch = e;
    gone->retired_next = ad->old_objs;
    ad->old_objs = gone;
  }
  reclaim(ad);
  return e;
}

/* A new table with room for N objects: OLD's objects but SKIP. */
static iiop__obj_table *table_copy(iiop__adapter *ad, const iiop__obj_table *old, uint32_t n,
                                   const iiop__obj *skip)
{
  uint32_t cap = pow2_at_least(2 * n);
  iiop__obj_table *t = iiop__malloc(ad->alloc, sizeof *t + (size_t)cap * sizeof(iiop__obj *));
  if (!t)
    return NULL;
  t->retired = NULL;
  t->retire_epoch = 0;
  t->mask = cap - 1;
  t->n = 0;
  memset(t->slot, 0, (size_t)cap * sizeof(iiop__obj *));
  if (old)
    for (uint32_t k = 0; k <= old->mask; k++)
      if (old->slot[k] && old->slot[k] != skip)
        table_put(t, old->slot[k]);
  return t;
}

const char *iiop__adapter_type_id(iiop__adapter *ad, const void *key, size_t key_len)
{
  pthread_mutex_lock(&ad->mu);
  const iiop__obj *ob = iiop__table_find(ad->objs, key, key_len);
  const char *type_id = ob ? ob->iface->repo_id : IIOP__OBJECT_REPO_ID;
  pthread_mutex_unlock(&ad->mu);
  return type_id;
}

/* ---------------------------------------------------------------- activation */

static bool iface_ok(const iiop_interface *f)
{
  if (!f || !f->repo_id || (!f->ops && f->nops))
    return false;
  for (uint32_t k = 0; k < f->nops; k++) {
    if (!f->ops[k].name || !f->ops[k].name[0] || !f->ops[k].fn)
      return false;
    for (uint32_t j = 0; j < k; j++)
      if (strcmp(f->ops[j].name, f->ops[k].name) == 0)
        return false;
  }
  return true;
}

static void op_put(iiop__obj *o, const char *name, uint32_t kind, iiop_op_fn fn)
{
  uint32_t len = (uint32_t)strlen(name);
  uint32_t h = iiop__hash_bytes(name, len);
  uint32_t i = h & o->op_mask;
  for (;; i = (i + 1) & o->op_mask) {
    iiop__op_slot *s = &o->ops[i];
    if (!s->name)
      break;
    if (s->len == len && memcmp(s->name, name, len) == 0)
      return; /* a user operation overrides a built-in one */
  }
  o->ops[i] = (iiop__op_slot){ name, len, h, kind, fn };
}

static bool key_reserved(const void *key, size_t key_len)
{
  return key_len >= IIOP_GENERATED_KEY_PREFIX_LEN
         && memcmp(key, IIOP_GENERATED_KEY_PREFIX, IIOP_GENERATED_KEY_PREFIX_LEN) == 0;
}

static int activate_key(iiop__adapter *ad, const void *key, size_t key_len,
                        const iiop_interface *iface, void *servant)
{
  static const char *const builtin[] = { "_is_a", "_non_existent", "_not_existent" };
  static const uint32_t builtin_kind[] = { IIOP__OP_IS_A, IIOP__OP_NON_EXISTENT,
                                           IIOP__OP_NON_EXISTENT };
  const uint32_t nb = sizeof builtin / sizeof builtin[0];
  uint32_t nslots = pow2_at_least(2 * (iface->nops + nb));
  size_t koff = (key_len + _Alignof(iiop__op_slot) - 1) & ~(_Alignof(iiop__op_slot) - 1);
  iiop__obj *o = iiop__malloc(ad->alloc, sizeof *o + koff + (size_t)nslots * sizeof(iiop__op_slot));
  if (!o)
    return CDR_E_NOMEM;
  o->iface = iface;
  o->servant = servant;
  o->retired_next = NULL;
  o->retire_epoch = 0;
  o->key_len = (uint32_t)key_len;
  o->key_hash = iiop__hash_bytes(key, key_len);
  if (key_len)
    memcpy(o->key, key, key_len);
  o->ops = (iiop__op_slot *)(void *)(o->key + koff);
  o->op_mask = nslots - 1;
  memset(o->ops, 0, (size_t)nslots * sizeof(iiop__op_slot));
  for (uint32_t k = 0; k < iface->nops; k++)
    op_put(o, iface->ops[k].name, IIOP__OP_USER, iface->ops[k].fn);
  for (uint32_t k = 0; k < nb; k++)
    op_put(o, builtin[k], builtin_kind[k], NULL);

  pthread_mutex_lock(&ad->mu);
  iiop__obj_table *old = ad->objs;
  if (iiop__table_find(old, key, key_len)) {
    pthread_mutex_unlock(&ad->mu);
    iiop__free(ad->alloc, o);
    return CDR_E_INVALID;
  }
  iiop__obj_table *t = table_copy(ad, old, (old ? old->n : 0) + 1, NULL);
  if (!t) {
    pthread_mutex_unlock(&ad->mu);
    iiop__free(ad->alloc, o);
    return CDR_E_NOMEM;
  }
  table_put(t, o);
  publish(ad, t, NULL);
  pthread_mutex_unlock(&ad->mu);
  return CDR_OK;
}

int iiop__adapter_activate(iiop__adapter *ad, const void *key, size_t key_len,
                           const iiop_interface *iface, void *servant)
{
  if ((!key && key_len) || key_len > UINT32_MAX || !iface_ok(iface) || key_reserved(key, key_len))
    return CDR_E_INVALID;
  return activate_key(ad, key, key_len, iface, servant);
}

/* N octets for a generated key: getrandom(), or if that fails (no entropy
 * yet, no system call) a SplitMix64 sequence from the adapter's seed and
 * the key's counter value CTR. */
static void random_octets(const iiop__adapter *ad, uint8_t *p, size_t n, uint64_t ctr)
{
  if (getrandom(p, n, GRND_NONBLOCK) == (ssize_t)n)
    return;
  uint64_t x = ad->key_seed ^ (ctr * 0x9e3779b97f4a7c15u);
  for (size_t k = 0; k < n; k += 8) {
    x += 0x9e3779b97f4a7c15u;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    for (size_t j = 0; j < 8 && k + j < n; j++)
      p[k + j] = (uint8_t)(z >> (8 * j));
  }
}

int iiop__adapter_activate_generated(iiop__adapter *ad, const iiop_interface *iface,
                                     void *servant, uint8_t *key_out, size_t *key_len)
{
  if (!key_out || !key_len || !iface_ok(iface))
    return CDR_E_INVALID;
  uint8_t k[IIOP_GENERATED_KEY_LEN];
  memcpy(k, IIOP_GENERATED_KEY_PREFIX, IIOP_GENERATED_KEY_PREFIX_LEN);
  uint64_t n = __atomic_add_fetch(&ad->key_counter, 1, __ATOMIC_RELAXED);
  for (int j = 0; j < 8; j++)
    k[IIOP_GENERATED_KEY_PREFIX_LEN + j] = (uint8_t)(n >> (56 - 8 * j));
  random_octets(ad, k + IIOP_GENERATED_KEY_PREFIX_LEN + 8,
                IIOP_GENERATED_KEY_LEN - IIOP_GENERATED_KEY_PREFIX_LEN - 8, n);
  int rc = activate_key(ad, k, sizeof k, iface, servant);
  if (rc == CDR_OK) {
    memcpy(key_out, k, sizeof k);
    *key_len = sizeof k;
  }
  return rc;
}

int iiop__adapter_deactivate(iiop__adapter *ad, const void *key, size_t key_len)
{
  if ((!key && key_len) || key_len > UINT32_MAX)
    return CDR_E_INVALID;
  pthread_mutex_lock(&ad->mu);
  iiop__obj_table *old = ad->objs;
  iiop__obj *o = (iiop__obj *)iiop__table_find(old, key, key_len);
  if (!o) {
    pthread_mutex_unlock(&ad->mu);
    return CDR_E_INVALID;
  }
  iiop__obj_table *t = table_copy(ad, old, old->n - 1, o);
  if (!t) {
    pthread_mutex_unlock(&ad->mu);
    return CDR_E_NOMEM;
  }
  uint64_t e = publish(ad, t, o);
  pthread_mutex_unlock(&ad->mu);
  if (tl_dispatching)
    return CDR_OK; /* from an operation: waiting could deadlock */
  /* Wait until every request that may have found the object is done:
   * readers are not woken for this (nothing on the call path signals), so
   * poll; deactivation is rare. */
  for (int spins = 0;; spins++) {
    pthread_mutex_lock(&ad->mu);
    bool done = min_reader_epoch(ad) >= e;
    if (done)
      reclaim(ad);
    pthread_mutex_unlock(&ad->mu);
    if (done)
      return CDR_OK;
    if (spins < 16) {
      sched_yield();
    } else {
      struct timespec ts = { 0, 200 * 1000 };
      nanosleep(&ts, NULL);
    }
  }
}
