/* adapter.h - the server's object adapter (internal to libiiop): object
 * key -> servant and interface, each object with its operation table
 * (built once at activation), persistent and generated keys, and the
 * epochs that let readers look objects up without a lock.
 *
 * Readers (the dispatching threads of iiop/orb.h's server) load the table
 * pointer with one load and no lock; activation and deactivation build a
 * new table under the adapter's mutex and publish it.  A replaced table,
 * and a deactivated object, are freed once no reader can still hold them,
 * found by epochs: a reader registered with the adapter (one per
 * connection) stores the global epoch in its record (iiop__reader_enter,
 * 0: not reading) before it loads the table and clears it when done
 * (iiop__reader_exit); a writer publishes, then increments the epoch and
 * tags what it retired with the new value E; an item is freed once every
 * reader's epoch is 0 or >= E.  The reader's store, the reader's table
 * load, the writer's publishing store and its scan of the epochs are
 * sequentially consistent, so a reader the scan saw idle loads the new
 * table.  Per request that is one load of the epoch (read-mostly) and two
 * stores to the reader's own record.
 *
 * The lookups are inline: they are on every request's path.
 */
#ifndef IIOP_ADAPTER_H
#define IIOP_ADAPTER_H

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <iiop/orb.h>
#include "internal.h"

enum { IIOP__OP_USER, IIOP__OP_IS_A, IIOP__OP_NON_EXISTENT };

typedef struct iiop__op_slot {
  const char *name;          /* NULL: empty slot */
  uint32_t len, hash;
  uint32_t kind;             /* IIOP__OP_* */
  iiop_op_fn fn;
} iiop__op_slot;

typedef struct iiop__obj {
  const iiop_interface *iface;
  void *servant;
  struct iiop__obj *retired_next; /* deactivated, waiting to be freed */
  uint64_t retire_epoch;
  uint32_t key_len, key_hash;
  uint32_t op_mask;
  iiop__op_slot *ops;        /* op_mask + 1 slots, after the key */
  uint8_t key[];
} iiop__obj;

typedef struct iiop__obj_table {
  struct iiop__obj_table *retired; /* replaced tables waiting to be freed */
  uint64_t retire_epoch;
  uint32_t mask, n;
  iiop__obj *slot[];
} iiop__obj_table;

/* One thread of dispatch's record (see the top). */
typedef struct iiop__reader {
  struct iiop__reader *prev, *next; /* under the adapter's mutex */
  uint64_t epoch;            /* atomic: the epoch while reading, else 0 */
} iiop__reader;

typedef struct iiop__adapter {
  const cdr_allocator *alloc;
  pthread_mutex_t mu;        /* writers; the lists below */
  iiop__obj_table *objs;     /* atomic, sequentially consistent (see the top) */
  uint64_t epoch;            /* atomic: reclamation epoch, from 1 */
  iiop__obj_table *old_tables; /* under mu: retired tables */
  iiop__obj *old_objs;       /* under mu: deactivated objects */
  iiop__reader *readers;     /* under mu */
  uint64_t key_counter;      /* atomic: generated keys */
  uint64_t key_seed;         /* if getrandom() fails */
} iiop__adapter;

/* The repository ID every object also is (_is_a), and the type ID of a
 * reference to a key not active. */
#define IIOP__OBJECT_REPO_ID "IDL:omg.org/CORBA/Object:1.0"

/* An empty adapter allocating from A (not NULL). */
IIOP_HIDDEN void iiop__adapter_init(iiop__adapter *ad, const cdr_allocator *a);
/* Free every table and object (no reader may be left). */
IIOP_HIDDEN void iiop__adapter_destroy(iiop__adapter *ad);

/* As iiop_server_activate(), iiop_server_activate_generated() and
 * iiop_server_deactivate() (iiop/orb.h): the same arguments checked, the
 * same errors, the same waiting rule. */
IIOP_HIDDEN int iiop__adapter_activate(iiop__adapter *ad, const void *key, size_t key_len,
                                       const iiop_interface *iface, void *servant) IIOP_WUR;
IIOP_HIDDEN int iiop__adapter_activate_generated(iiop__adapter *ad, const iiop_interface *iface,
                                                 void *servant, uint8_t *key_out,
                                                 size_t *key_len) IIOP_WUR;
IIOP_HIDDEN int iiop__adapter_deactivate(iiop__adapter *ad, const void *key, size_t key_len)
  IIOP_WUR;
/* The repository ID of the object under KEY, or IIOP__OBJECT_REPO_ID when
 * none is active (looked up under the mutex: for a thread that is not a
 * reader; the string is the interface's, static). */
IIOP_HIDDEN const char *iiop__adapter_type_id(iiop__adapter *ad, const void *key, size_t key_len);

/* Register R (its epoch 0) before its thread first reads; remove it once
 * it reads no more. */
IIOP_HIDDEN void iiop__adapter_reader_add(iiop__adapter *ad, iiop__reader *r);
IIOP_HIDDEN void iiop__adapter_reader_remove(iiop__adapter *ad, iiop__reader *r);
/* Mark the calling thread as one that dispatches requests (of any
 * server): iiop__adapter_deactivate() called from it does not wait. */
IIOP_HIDDEN void iiop__adapter_thread_dispatches(void);

/* FNV-1a: operation names and object keys are a few octets long. */
/* The hash of object keys and operation names (this process only: never
 * on the wire or stored).  Eight octets at a time, the last 1-7 as two
 * overlapping loads: a 4-octet operation name or a 16-octet key costs a
 * few multiplications, not one per octet. */
static inline uint32_t iiop__hash_bytes(const void *p, size_t n)
{
  const uint8_t *b = p;
  const uint64_t m = 0xff51afd7ed558ccdull;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
  for (; n >= 8; b += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    h = (h ^ w) * m;
    h ^= h >> 29;
  }
  uint64_t t = 0;
  if (n >= 4) {
    uint32_t x, y;
    memcpy(&x, b, 4);
    memcpy(&y, b + n - 4, 4);
    t = (uint64_t)x << 32 | y;
  } else if (n) {
    t = (uint64_t)b[0] << 16 | (uint64_t)b[n >> 1] << 8 | b[n - 1];
  }
  h = (h ^ t) * m;
  h ^= h >> 32;
  return (uint32_t)h;
}

/* Whether the N octets at A and B are equal: short keys and operation
 * names without a memcmp call (two overlapping loads up to 16 octets,
 * four up to 32). */
static inline bool iiop__same_bytes(const void *a, const void *b, size_t n)
{
  const uint8_t *x = a, *y = b;
  if (n >= 8 && n <= 16) {
    uint64_t p, q, r, t;
    memcpy(&p, x, 8);
    memcpy(&q, y, 8);
    memcpy(&r, x + n - 8, 8);
    memcpy(&t, y + n - 8, 8);
    return ((p ^ q) | (r ^ t)) == 0;
  }
  if (n > 16 && n <= 32) {           /* generated keys (20 octets): four loads a side */
    uint64_t p[4], q[4];
    memcpy(&p[0], x, 8);
    memcpy(&p[1], x + 8, 8);
    memcpy(&p[2], x + n - 16, 8);
    memcpy(&p[3], x + n - 8, 8);
    memcpy(&q[0], y, 8);
    memcpy(&q[1], y + 8, 8);
    memcpy(&q[2], y + n - 16, 8);
    memcpy(&q[3], y + n - 8, 8);
    return ((p[0] ^ q[0]) | (p[1] ^ q[1]) | (p[2] ^ q[2]) | (p[3] ^ q[3])) == 0;
  }
  if (n >= 4 && n < 8) {
    uint32_t p, q, r, t;
    memcpy(&p, x, 4);
    memcpy(&q, y, 4);
    memcpy(&r, x + n - 4, 4);
    memcpy(&t, y + n - 4, 4);
    return ((p ^ q) | (r ^ t)) == 0;
  }
  return n == 0 || memcmp(x, y, n) == 0;
}

static inline void iiop__reader_enter(iiop__adapter *ad, iiop__reader *r)
{
  uint64_t e = __atomic_load_n(&ad->epoch, __ATOMIC_ACQUIRE);
  __atomic_store_n(&r->epoch, e, __ATOMIC_SEQ_CST);
}

static inline void iiop__reader_exit(iiop__reader *r)
{
  __atomic_store_n(&r->epoch, 0, __ATOMIC_RELEASE);
}

/* A reader's load of the table: between iiop__reader_enter() and
 * iiop__reader_exit(). */
static inline const iiop__obj_table *iiop__adapter_objects(const iiop__adapter *ad)
{
  return __atomic_load_n(&ad->objs, __ATOMIC_SEQ_CST);
}

/* The object under KEY in T (NULL: none; T may be NULL). */
static inline const iiop__obj *iiop__table_find(const iiop__obj_table *t, const void *key,
                                                size_t len)
{
  if (!t)
    return NULL;
  uint32_t h = iiop__hash_bytes(key, len);
  for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
    const iiop__obj *o = t->slot[i];
    if (!o)
      return NULL;
    if (o->key_hash == h && o->key_len == len && iiop__same_bytes(o->key, key, len))
      return o;
  }
}

/* The operation NAME (LEN octets) of O, or NULL. */
static inline const iiop__op_slot *iiop__find_op(const iiop__obj *o, const char *name,
                                                 uint32_t len)
{
  uint32_t h = iiop__hash_bytes(name, len);
  for (uint32_t i = h & o->op_mask;; i = (i + 1) & o->op_mask) {
    const iiop__op_slot *s = &o->ops[i];
    if (!s->name)
      return NULL;
    if (s->hash == h && s->len == len && iiop__same_bytes(s->name, name, len))
      return s;
  }
}

#endif
