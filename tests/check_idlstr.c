/* check_idlstr.c - strings through idl2c's stubs and skeletons (Shop::Store
 * rename: a string result, an in, an inout and an out string): the values
 * at the boundaries of the by-reference paths (CDR_OUT_REF_MIN) and past
 * one GIOP fragment; the allocations of a call in the steady state and
 * when the blocks a reply sends by reference are freed (docs/c-mapping.md,
 * "Strings: views and replies by reference"); hostile strings refused
 * before the servant runs (docs/hostile-input.md C05); a request in
 * another char code set (the converting paths).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "shop.h"
#include "octets.h"
#include "netutil.h"
#include "orbutil.h"
#include "testutil.h"

typedef struct Impl {
  POA_Shop_Store servant;
  int renames; /* rename calls the servant saw */
  int pings;
} Impl;

/* rename(from, inout to, out old): returns a copy of FROM, hands the
 * caller's TO back as OLD and puts FROM with its first octet made 'T'
 * into TO. */
static CORBA_string i_rename(PortableServer_Servant s, const CORBA_char *from, CORBA_string *to,
                             CORBA_string *old, CORBA_Environment *ev)
{
  (void)ev;
  ((Impl *)s)->renames++;
  *old = *to;
  *to = CORBA_string_dup(from);
  if ((*to)[0])
    (*to)[0] = 'T';
  return CORBA_string_dup(from);
}

static CORBA_long i_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)ev;
  ((Impl *)s)->pings++;
  return x + 1;
}

static PortableServer_ServantBase__epv i_base = { NULL, NULL, NULL };
static POA_Shop_Base__epv i_base_epv = { NULL, i_ping, NULL };
static POA_Shop_Counter__epv i_counter_epv = { NULL, NULL, NULL, NULL };
static POA_Shop_Store__epv i_store_epv = { .rename = i_rename };
static POA_Shop_Store__vepv i_vepv = { &i_base, &i_base_epv, &i_counter_epv, &i_store_epv };

typedef struct fixture {
  CORBA_Environment ev;
  CORBA_ORB orb;
  Impl im;
  Shop_Store ref;
} fixture;

static void up(fixture *f)
{
  CORBA_exception_init(&f->ev);
  f->orb = ou_orb_local(&f->ev);
  PortableServer_POA root = ou_root_poa(f->orb, &f->ev);
  memset(&f->im, 0, sizeof f->im);
  f->im.servant.vepv = &i_vepv;
  POA_Shop_Store__init(&f->im, &f->ev);
  f->ref = PortableServer_POA_servant_to_reference(root, &f->im, &f->ev);
  ck_assert_int_eq(f->ev._major, CORBA_NO_EXCEPTION);
}

static void down(fixture *f)
{
  CORBA_Object_release(f->ref, &f->ev);
  CORBA_ORB_destroy(f->orb, &f->ev);
  POA_Shop_Store__fini(&f->im, &f->ev);
}

/* N octets of a string with no NUL, a pattern shifted by SEED. */
static char *pattern(size_t n, unsigned seed)
{
  char *s = malloc(n + 1);
  ck_assert_ptr_nonnull(s);
  for (size_t k = 0; k < n; k++)
    s[k] = (char)('a' + (k * 7 + seed) % 26);
  s[n] = 0;
  return s;
}

/* One rename of FROM (N octets) and TO (M octets), every value checked. */
static void one_rename(fixture *f, size_t n, size_t m)
{
  char *from = pattern(n, 1), *was = pattern(m, 5);
  CORBA_string to = CORBA_string_dup(was), old = NULL;
  CORBA_string r = Shop_Store_rename(f->ref, from, &to, &old, &f->ev);
  ck_assert_msg(f->ev._major == CORBA_NO_EXCEPTION, "rename(%zu, %zu): %s", n, m,
                CORBA_exception_id(&f->ev));
  ck_assert_uint_eq(strlen(r), n);
  ck_assert(!memcmp(r, from, n + 1));
  ck_assert_uint_eq(strlen(old), m);
  ck_assert(!memcmp(old, was, m + 1));
  ck_assert_uint_eq(strlen(to), n);
  if (n) {
    ck_assert_int_eq(to[0], 'T');
    ck_assert(!memcmp(to + 1, from + 1, n));
  }
  CORBA_free(r);
  CORBA_free(to);
  CORBA_free(old);
  free(from);
  free(was);
}

/* Every string position at the lengths around the by-reference threshold
 * (CDR_OUT_REF_MIN, 512), at 64 KiB and past 8 KiB fragments. */
START_TEST(test_values)
{
  fixture f;
  up(&f);
  static const size_t len[] = { 0, 1, 100, 511, 512, 513, 4096, 65536, 200000 };
  size_t nl = sizeof len / sizeof len[0];
  for (size_t a = 0; a < nl; a++)
    for (size_t b = 0; b < nl; b += 2)
      one_rename(&f, len[a], len[b]);
  ck_assert_int_eq(f.im.renames, (int)(nl * ((nl + 1) / 2)));
  down(&f);
}
END_TEST

/* Allocations (server and client in this process, libcdr's global
 * allocator, which CORBA_string_dup uses) of calls with 64 KiB and 100
 * octet strings: exactly the mapping's blocks, none of the ORB's own; the
 * blocks a reply sends by reference are freed when the connection's next
 * request arrives. */
START_TEST(test_steady_state)
{
  fixture f;
  up(&f);
  static cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_mem_set_global(&c.alloc);
  char *big = pattern(65536, 3), *small = pattern(100, 4);
  for (int i = 0; i < 20; i++) { /* warm the pools, buffers and the connection */
    CORBA_string to = CORBA_string_dup(i & 1 ? small : big), old = NULL;
    CORBA_free(Shop_Store_rename(f.ref, i & 1 ? big : small, &to, &old, &f.ev));
    CORBA_free(to);
    CORBA_free(old);
  }
  ck_assert_int_eq(Shop_Base_ping(f.ref, 1, &f.ev), 2);
  ck_assert_int_eq(f.ev._major, CORBA_NO_EXCEPTION);
  uint64_t m0 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  int64_t l0 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 50; i++) {
    CORBA_string to = CORBA_string_dup(big), old = NULL;
    CORBA_string r = Shop_Store_rename(f.ref, big, &to, &old, &f.ev);
    ck_assert_int_eq(f.ev._major, CORBA_NO_EXCEPTION);
    ck_assert(!strcmp(r, big) && !strcmp(old, big) && to[0] == 'T' && !strcmp(to + 1, big + 1));
    CORBA_free(r);
    CORBA_free(to);
    CORBA_free(old);
  }
  uint64_t m1 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  int64_t l1 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  ck_assert_int_eq(Shop_Base_ping(f.ref, 1, &f.ev), 2);
  int64_t l2 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 50; i++) {
    CORBA_string to = CORBA_string_dup(small), old = NULL;
    CORBA_string r = Shop_Store_rename(f.ref, small, &to, &old, &f.ev);
    ck_assert_int_eq(f.ev._major, CORBA_NO_EXCEPTION);
    ck_assert(!strcmp(r, small) && !strcmp(old, small));
    CORBA_free(r);
    CORBA_free(to);
    CORBA_free(old);
  }
  uint64_t m2 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  int64_t l3 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  free(big);
  free(small);
  down(&f);
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
  /* per call: the caller's TO; the server's copy of the inout TO, the
   * servant's two copies; the client's result, new TO and OLD */
  ck_assert_msg(m1 - m0 == 50 * 7, "%llu allocations in 50 calls of 64 KiB strings",
                (unsigned long long)(m1 - m0));
  ck_assert_msg(m2 - m1 == 50 * 7, "%llu allocations in 50 calls of 100-octet strings",
                (unsigned long long)(m2 - m1));
  /* the last 64 KiB reply's result, OLD and TO were sent by reference:
   * held until the next request (the ping); 100 octets are copied */
  ck_assert_int_eq(l1 - l0, 3);
  ck_assert_int_eq(l2, l0);
  ck_assert_int_eq(l3, l0);
}
END_TEST

/* A raw request to rename through libiiop's client: IN (INLEN octets as
 * the string's octets, its length ulong first), then TO ("x"); the reply's
 * status and, for a system exception, *ID. */
static int raw_rename(iiop_ref *r, const void *in, uint32_t inlen, const void *to, uint32_t tolen,
                      char *id, size_t cap)
{
  iiop_call *call;
  cdr_out *o;
  ck_assert_int_eq(iiop_call_begin(r, "rename", 0, &call, &o), CDR_OK);
  cdr_put_ulong(o, inlen);
  cdr_put_raw(o, in, inlen);
  cdr_put_ulong(o, tolen);
  cdr_put_raw(o, to, tolen);
  cdr_in *res = NULL;
  int rc = iiop_call_invoke(call, &res);
  id[0] = 0;
  if (rc == IIOP_R_SYSTEM_EXCEPTION) {
    const giop_system_exception *e = iiop_call_exception(call);
    snprintf(id, cap, "%s/%u", e->repo_id, (unsigned)e->completed);
  } else if (rc == CDR_OK) {
    const char *v;
    uint32_t n;
    ck_assert_int_eq(cdr_get_string_view(res, &v, &n), CDR_OK);
    snprintf(id, cap, "ok %.*s", (int)n, v);
  }
  iiop_call_end(call);
  return rc;
}

/* C05 through the skeleton: an in string or an inout string with a NUL
 * inside, without its NUL, of length 0: MARSHAL, completion NO, and the
 * servant never runs; the connection stays good. */
START_TEST(test_hostile)
{
  fixture f;
  up(&f);
  CORBA_char *ior = CORBA_ORB_object_to_string(f.orb, f.ref, &f.ev);
  iiop_client *cl = iiop_client_new(NULL);
  ck_assert_ptr_nonnull(cl);
  iiop_ref *r;
  ck_assert_int_eq(iiop_client_resolve(cl, ior, &r), CDR_OK);
  char id[160];
  static const struct { const char *in; uint32_t inlen; const char *to; uint32_t tolen; } bad[] = {
    { "ab\0cd", 6, "x", 2 },   /* a NUL inside the in string */
    { "abcde", 5, "x", 2 },    /* no NUL at its end */
    { "", 0, "x", 2 },         /* length 0 */
    { "ab", 3, "x\0y", 4 },    /* a NUL inside the inout string */
    { "ab", 3, "xy", 2 },      /* the inout without its NUL */
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ck_assert_int_eq(raw_rename(r, bad[k].in, bad[k].inlen, bad[k].to, bad[k].tolen, id, sizeof id),
                     IIOP_R_SYSTEM_EXCEPTION);
    ck_assert_msg(!strcmp(id, "IDL:omg.org/CORBA/MARSHAL:1.0/1"), "case %zu: %s", k, id);
  }
  /* a NUL inside 4 KiB (past the NUL check's wide steps) */
  char *big = pattern(4096, 2);
  big[4000] = 0;
  ck_assert_int_eq(raw_rename(r, big, 4097, "x", 2, id, sizeof id), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(id, "IDL:omg.org/CORBA/MARSHAL:1.0/1");
  free(big);
  ck_assert_int_eq(f.im.renames, 0);
  ck_assert_int_eq(raw_rename(r, "ab", 3, "x", 2, id, sizeof id), CDR_OK);
  ck_assert_str_eq(id, "ok ab");
  ck_assert_int_eq(f.im.renames, 1);
  iiop_ref_free(r);
  iiop_client_free(cl);
  CORBA_free(ior);
  down(&f);
}
END_TEST

/* A client whose native char code set is UTF-8 (transmission code set
 * UTF-8, the server's conversion code set): the server converts the in
 * and inout strings to ISO-8859-1 for the servant and its result back, so
 * neither views nor references apply; the octets must still round-trip. */
START_TEST(test_converted)
{
  fixture f;
  up(&f);
  CORBA_char *ior = CORBA_ORB_object_to_string(f.orb, f.ref, &f.ev);
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.native_char = CDR_CS_UTF8;
  iiop_client *cl = NULL;
  ck_assert_int_eq(iiop_client_create(&o, &cl), CDR_OK);
  iiop_ref *r;
  ck_assert_int_eq(iiop_client_resolve(cl, ior, &r), CDR_OK);
  for (size_t n = 1; n <= 2000; n += 999) {
    /* N times U+00E9, two octets each in UTF-8, one in ISO-8859-1 */
    char *in = malloc(2 * n + 1);
    ck_assert_ptr_nonnull(in);
    for (size_t k = 0; k < n; k++) {
      in[2 * k] = (char)0xC3;
      in[2 * k + 1] = (char)0xA9;
    }
    in[2 * n] = 0;
    iiop_call *call;
    cdr_out *out;
    ck_assert_int_eq(iiop_call_begin(r, "rename", 0, &call, &out), CDR_OK);
    cdr_put_string(out, in);
    cdr_put_string(out, "old");
    cdr_in *res = NULL;
    ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
    uint32_t l1 = 0, l2 = 0, l3 = 0;
    char *ret = cdr_get_string(res, &l1), *to = cdr_get_string(res, &l2),
         *old = cdr_get_string(res, &l3);
    ck_assert_ptr_nonnull(ret);
    ck_assert_ptr_nonnull(to);
    ck_assert_ptr_nonnull(old);
    ck_assert_uint_eq(l1, 2 * n);
    ck_assert(!memcmp(ret, in, 2 * n));
    ck_assert_uint_eq(l2, 2 * n - 1); /* 'T' replaced the first (one-octet) character */
    ck_assert_int_eq(to[0], 'T');
    ck_assert(!memcmp(to + 1, in + 2, 2 * n - 2));
    ck_assert_str_eq(old, "old");
    iiop_call_end(call);
    free(in);
  }
  ck_assert_int_eq(f.im.renames, 3); /* 1, 1000 and 1999 characters */
  iiop_ref_free(r);
  iiop_client_free(cl);
  CORBA_free(ior);
  down(&f);
}
END_TEST

/* ---------------------------------------------------------------- sequence<octet> */

typedef struct Pipe {
  POA_Oct_Pipe servant;
  int swaps;
} Pipe;

static Oct_Bytes *new_bytes(const CORBA_octet *p, CORBA_unsigned_long n, int reverse)
{
  Oct_Bytes *b = Oct_Bytes__alloc();
  ck_assert_ptr_nonnull(b);
  b->_maximum = b->_length = n;
  b->_buffer = n ? Oct_Bytes_allocbuf(n) : NULL;
  b->_release = CORBA_TRUE;
  for (CORBA_unsigned_long k = 0; k < n; k++)
    b->_buffer[k] = p[reverse ? n - 1 - k : k];
  return b;
}

/* swap(b, s, out rev, inout io, out sum): sum of B's and S's octets, REV
 * B reversed, IO's octets each plus one, the result a copy of B.  An in
 * sequence is borrowed (_release 0). */
static Oct_Bytes *p_swap(PortableServer_Servant sv, const Oct_Bytes *b, const Oct_Bytes8 *s,
                         Oct_Bytes **rev, Oct_Bytes *io, CORBA_unsigned_long *sum,
                         CORBA_Environment *ev)
{
  (void)ev;
  ((Pipe *)sv)->swaps++;
  ck_assert(!b->_release && !s->_release);
  CORBA_unsigned_long t = 0;
  for (CORBA_unsigned_long k = 0; k < b->_length; k++)
    t += b->_buffer[k];
  for (CORBA_unsigned_long k = 0; k < s->_length; k++)
    t += s->_buffer[k];
  *sum = t;
  for (CORBA_unsigned_long k = 0; k < io->_length; k++)
    io->_buffer[k]++;
  *rev = new_bytes(b->_buffer, b->_length, 1);
  return new_bytes(b->_buffer, b->_length, 0);
}

static PortableServer_ServantBase__epv p_base = { NULL, NULL, NULL };
static POA_Oct_Pipe__epv p_epv = { NULL, p_swap };
static POA_Oct_Pipe__vepv p_vepv = { &p_base, &p_epv };

typedef struct pipe_fix {
  CORBA_Environment ev;
  CORBA_ORB orb;
  Pipe pipe;
  Oct_Pipe ref;
} pipe_fix;

static void pipe_up(pipe_fix *f)
{
  CORBA_exception_init(&f->ev);
  f->orb = ou_orb_local(&f->ev);
  PortableServer_POA root = ou_root_poa(f->orb, &f->ev);
  memset(&f->pipe, 0, sizeof f->pipe);
  f->pipe.servant.vepv = &p_vepv;
  POA_Oct_Pipe__init(&f->pipe, &f->ev);
  f->ref = PortableServer_POA_servant_to_reference(root, &f->pipe, &f->ev);
  ck_assert_int_eq(f->ev._major, CORBA_NO_EXCEPTION);
}

static void pipe_down(pipe_fix *f)
{
  CORBA_Object_release(f->ref, &f->ev);
  CORBA_ORB_destroy(f->orb, &f->ev);
  POA_Oct_Pipe__fini(&f->pipe, &f->ev);
}

/* One swap of N octets (IO: M octets), every value checked. */
static void one_swap(pipe_fix *f, CORBA_unsigned_long n, CORBA_unsigned_long m)
{
  CORBA_octet *p = malloc(n + m + 1);
  ck_assert_ptr_nonnull(p);
  CORBA_unsigned_long want = 0;
  for (CORBA_unsigned_long k = 0; k < n + m; k++)
    p[k] = (CORBA_octet)(k * 13 + 7);
  for (CORBA_unsigned_long k = 0; k < n; k++)
    want += p[k];
  CORBA_octet eight[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  Oct_Bytes b = { n, n, p, CORBA_FALSE };
  Oct_Bytes8 s = { 8, 8, eight, CORBA_FALSE };
  Oct_Bytes *io = new_bytes(p + n, m, 0);
  Oct_Bytes *rev = NULL;
  CORBA_unsigned_long sum = 0;
  Oct_Bytes *r = Oct_Pipe_swap(f->ref, &b, &s, &rev, io, &sum, &f->ev);
  ck_assert_msg(f->ev._major == CORBA_NO_EXCEPTION, "swap(%u, %u): %s", (unsigned)n,
                (unsigned)m, CORBA_exception_id(&f->ev));
  ck_assert_uint_eq(sum, want + 36);
  ck_assert_uint_eq(r->_length, n);
  ck_assert_uint_eq(rev->_length, n);
  ck_assert_uint_eq(io->_length, m);
  ck_assert(r->_release && rev->_release && io->_release);
  for (CORBA_unsigned_long k = 0; k < n; k++) {
    ck_assert_uint_eq(r->_buffer[k], p[k]);
    ck_assert_uint_eq(rev->_buffer[k], p[n - 1 - k]);
  }
  for (CORBA_unsigned_long k = 0; k < m; k++)
    ck_assert_uint_eq(io->_buffer[k], (CORBA_octet)(p[n + k] + 1));
  CORBA_free(r);
  CORBA_free(rev);
  CORBA_free(io);
  free(p);
}

/* sequence<octet> in every position around CDR_OUT_REF_MIN and past a
 * fragment; the bound of Bytes8 refused by the stub before anything is
 * sent, and by the skeleton before the servant runs. */
START_TEST(test_octets)
{
  pipe_fix f;
  pipe_up(&f);
  static const CORBA_unsigned_long len[] = { 0, 1, 511, 512, 513, 70000 };
  size_t nl = sizeof len / sizeof len[0];
  for (size_t a = 0; a < nl; a++)
    for (size_t b = 0; b < nl; b++)
      one_swap(&f, len[a], len[b]);
  ck_assert_int_eq(f.pipe.swaps, (int)(nl * nl));

  CORBA_octet nine[9] = { 0 };
  Oct_Bytes b = { 0, 0, NULL, CORBA_FALSE };
  Oct_Bytes8 s = { 9, 9, nine, CORBA_FALSE };
  Oct_Bytes io = { 0, 0, NULL, CORBA_FALSE };
  Oct_Bytes *rev = NULL;
  CORBA_unsigned_long sum = 0;
  ck_assert_ptr_null(Oct_Pipe_swap(f.ref, &b, &s, &rev, &io, &sum, &f.ev));
  ck_assert_int_eq(f.ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_int_eq(((CORBA_SystemException *)CORBA_exception_value(&f.ev))->completed,
                   CORBA_COMPLETED_NO);
  CORBA_exception_free(&f.ev);
  ck_assert_int_eq(f.pipe.swaps, (int)(nl * nl));

  /* the server's check: 9 octets for Bytes8 on the wire */
  CORBA_char *ior = CORBA_ORB_object_to_string(f.orb, f.ref, &f.ev);
  iiop_client *cl = iiop_client_new(NULL);
  iiop_ref *r;
  ck_assert_int_eq(iiop_client_resolve(cl, ior, &r), CDR_OK);
  iiop_call *call;
  cdr_out *o;
  ck_assert_int_eq(iiop_call_begin(r, "swap", 0, &call, &o), CDR_OK);
  cdr_put_ulong(o, 0);
  cdr_put_seq(o, nine, 9, 1);
  cdr_put_ulong(o, 0);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(iiop_call_exception(call)->repo_id, "IDL:omg.org/CORBA/MARSHAL:1.0");
  iiop_call_end(call);
  ck_assert_int_eq(f.pipe.swaps, (int)(nl * nl));
  iiop_ref_free(r);
  iiop_client_free(cl);
  CORBA_free(ior);
  pipe_down(&f);
}
END_TEST

/* Allocations of a 64 KiB swap: the mapping's blocks only; the result and
 * REV are sent by reference and held until the next request. */
START_TEST(test_octets_steady_state)
{
  pipe_fix f;
  pipe_up(&f);
  static cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_mem_set_global(&c.alloc);
  static CORBA_octet p[65536], eight[8];
  Oct_Bytes b = { sizeof p, sizeof p, p, CORBA_FALSE }, sb = { 10, 10, p, CORBA_FALSE };
  Oct_Bytes8 s = { 8, 8, eight, CORBA_FALSE };
  CORBA_unsigned_long sum;
  for (int i = 0; i < 20; i++) {
    Oct_Bytes *io = new_bytes(p, 65536, 0), *rev = NULL;
    CORBA_free(Oct_Pipe_swap(f.ref, i & 1 ? &sb : &b, &s, &rev, io, &sum, &f.ev));
    CORBA_free(rev);
    CORBA_free(io);
  }
  ck_assert_int_eq(f.ev._major, CORBA_NO_EXCEPTION);
  int64_t l0 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  uint64_t m0 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 30; i++) {
    Oct_Bytes io = { 4096, 4096, Oct_Bytes_allocbuf(4096), CORBA_TRUE };
    Oct_Bytes *rev = NULL;
    Oct_Bytes *r = Oct_Pipe_swap(f.ref, &b, &s, &rev, &io, &sum, &f.ev);
    ck_assert_int_eq(f.ev._major, CORBA_NO_EXCEPTION);
    ck_assert(r->_length == 65536 && rev->_length == 65536 && io._length == 4096);
    CORBA_free(r);
    CORBA_free(rev);
    CORBA_free(io._buffer);
  }
  uint64_t m1 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  int64_t l1 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  Oct_Bytes io = { 0, 0, NULL, CORBA_FALSE };
  Oct_Bytes *rev = NULL;
  CORBA_free(Oct_Pipe_swap(f.ref, &sb, &s, &rev, &io, &sum, &f.ev));
  CORBA_free(rev);
  CORBA_free(io._buffer);
  int64_t l2 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  pipe_down(&f);
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
  /* per call: the caller's IO buffer; the server's copy of IO's buffer,
   * the servant's REV and result (a block and a buffer each); the
   * client's REV and result (the same) and IO's new buffer */
  ck_assert_msg(m1 - m0 == 30 * 11, "%llu allocations in 30 calls",
                (unsigned long long)(m1 - m0));
  ck_assert_int_eq(l1 - l0, 2 * 2); /* the last reply's REV and result, held */
  ck_assert_int_eq(l2, l0);
}
END_TEST

/* ---------------------------------------------------------------- iiop_request_hold() */

static int held_runs; /* hold_fn calls (the server's connection thread) */
static char held_buf[4096];

static void hold_fn(void *p)
{
  ck_assert_ptr_eq(p, held_buf);
  __atomic_add_fetch(&held_runs, 1, __ATOMIC_SEQ_CST);
}

/* hold(n): N holds of held_buf, each one's status (ulong per hold), then
 * held_buf as a string by reference. */
static int op_hold(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)servant;
  uint32_t n = cdr_get_ulong(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  for (uint32_t k = 0; k < n; k++)
    cdr_put_long(result, iiop_request_hold(req, hold_fn, held_buf));
  cdr_put_string_view(result, held_buf, sizeof held_buf - 1);
  return CDR_OK;
}

static int op_bad_hold(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)servant;
  (void)args;
  cdr_put_long(result, iiop_request_hold(req, NULL, held_buf));
  cdr_put_long(result, iiop_request_hold(NULL, hold_fn, held_buf));
  return CDR_OK;
}

static const iiop_operation hold_ops[] = { { "hold", op_hold }, { "bad", op_bad_hold } };
static const iiop_interface hold_iface = { "IDL:T/Hold:1.0", hold_ops, 2, NULL };

/* One hold(N) call: each hold's status checked (CDR_OK for the first
 * IIOP_REQUEST_HOLD_MAX, CDR_E_LIMIT after), and the string sent from
 * held_buf, which the holds keep until the reply is out. */
static void call_hold(iiop_ref *r, uint32_t n)
{
  iiop_call *call;
  cdr_out *o;
  ck_assert_int_eq(iiop_call_begin(r, "hold", 0, &call, &o), CDR_OK);
  cdr_put_ulong(o, n);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  for (uint32_t k = 0; k < n; k++)
    ck_assert_int_eq(cdr_get_long(res), k < IIOP_REQUEST_HOLD_MAX ? CDR_OK : CDR_E_LIMIT);
  const char *v;
  uint32_t len;
  ck_assert_int_eq(cdr_get_string_view(res, &v, &len), CDR_OK);
  ck_assert_uint_eq(len, sizeof held_buf - 1);
  ck_assert(!memcmp(v, held_buf, len));
  iiop_call_end(call);
}

static int runs_now(void)
{
  return __atomic_load_n(&held_runs, __ATOMIC_SEQ_CST);
}

/* libiiop's holds: run when the connection's next message comes, or when
 * the connection ends, never before the reply is out; at most
 * IIOP_REQUEST_HOLD_MAX a request; CDR_E_INVALID for a NULL request or
 * function. */
START_TEST(test_request_hold)
{
  memset(held_buf, 'h', sizeof held_buf - 1);
  __atomic_store_n(&held_runs, 0, __ATOMIC_SEQ_CST);
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  iiop_server *srv;
  srv = nu_serve(&so, "H", &hold_iface, NULL);
  cdr_arena *a = cdr_arena_get();
  char *ior;
  ck_assert_int_eq(iiop_server_ior(srv, "H", 1, a, &ior), CDR_OK);
  iiop_client *cl = iiop_client_new(NULL);
  iiop_ref *r;
  ck_assert_int_eq(iiop_client_resolve(cl, ior, &r), CDR_OK);

  call_hold(r, 2);
  ck_assert_int_eq(runs_now(), 0); /* the reply is out, but nothing else came yet */
  call_hold(r, IIOP_REQUEST_HOLD_MAX + 2);
  ck_assert_int_eq(runs_now(), 2); /* the first call's, as the second request arrived */
  call_hold(r, 0);
  ck_assert_int_eq(runs_now(), 2 + IIOP_REQUEST_HOLD_MAX);

  iiop_call *call;
  cdr_out *o;
  ck_assert_int_eq(iiop_call_begin(r, "bad", 0, &call, &o), CDR_OK);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  ck_assert_int_eq(cdr_get_long(res), CDR_E_INVALID);
  ck_assert_int_eq(cdr_get_long(res), CDR_E_INVALID);
  iiop_call_end(call);

  /* the connection's end runs what its last request held */
  call_hold(r, 3);
  ck_assert_int_eq(runs_now(), 2 + IIOP_REQUEST_HOLD_MAX);
  iiop_ref_free(r);
  iiop_client_free(cl);
  for (int k = 0; k < 500 && runs_now() != 5 + IIOP_REQUEST_HOLD_MAX; k++) {
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  ck_assert_int_eq(runs_now(), 5 + IIOP_REQUEST_HOLD_MAX);
  iiop_server_free(srv);
  cdr_arena_put(a);
}
END_TEST

static Suite *idlstr_suite(void)
{
  Suite *s = suite_create("idlstr");
  TCase *tc = tcase_create("idlstr");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_values);
  tcase_add_test(tc, test_steady_state);
  tcase_add_test(tc, test_hostile);
  tcase_add_test(tc, test_converted);
  tcase_add_test(tc, test_request_hold);
  tcase_add_test(tc, test_octets);
  tcase_add_test(tc, test_octets_steady_state);
  suite_add_tcase(s, tc);
  return s;
}

static int idlstr_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = idlstr_suite, .setup = idlstr_setup };
