/* check_idlhostile.c - bad input through idl2c's generated skeletons and
 * stubs: tests/idlzoo/zoo.idl's Zoo::Keeper (generated into tests/zoo-gen/
 * at build time) and tests/values/values.idl's V::Zoo (valuetypes:
 * tests/values-gen/), both ways, in one process:
 *
 * - the server: a Keeper servant (every op_X(a, inout b, out c) returns a,
 *   sets c to the old b and b to a, as tests/idlzoo/zoo-peer.c's) and a
 *   V::Zoo one; the generated stubs call them through a recording proxy
 *   (a thread between the two) once per operation, which keeps each valid
 *   request body and its reply body; then every body is sent again on raw
 *   sockets mutated -- truncated at every offset, each aligned ulong set
 *   to huge counts and lengths, just past the end, -4 and +4 (indirection
 *   offsets), 0, 2 and 5 (discriminators, enums), each octet set to 0x02,
 *   0x80 and 0xFF (booleans, byte-order octets), random octets from a
 *   fixed seed -- and each must come back within the socket's receive
 *   timeout as a Reply of the same request ID: NO_EXCEPTION, or a system
 *   exception of the kinds a decoder may raise (MARSHAL, DATA_CONVERSION,
 *   IMP_LIMIT...; a truncation exactly MARSHAL, COMPLETED_NO); after each
 *   operation's campaign a valid request on a fresh connection gets the
 *   recorded reply octet for octet; RSS grows by less than 64 MiB over it
 *   all (unchecked under AddressSanitizer and valgrind, whose allocators
 *   hold freed memory).  The Keeper's bodies again re-encoded in GIOP 1.0, 1.1 and
 *   1.2, both byte orders: the answers decoded, every truncation MARSHAL;
 * - the stubs: the proxy answers a stub's call with the recorded reply
 *   mutated -- truncated at every offset (MARSHAL), huge counts, octets
 *   0xFF, a bad reply status, a user exception unknown to the operation
 *   (UNKNOWN, minor OMG 1) or with a bogus ID length, LOCATION_FORWARD to
 *   a garbage IOR (MARSHAL) or to itself (IMP_LIMIT), NEEDS_ADDRESSING_MODE
 *   (NO_IMPLEMENT), CloseConnection (retried), MessageError and a short
 *   body then a hang-up (COMM_FAILURE), a Fragment after a complete reply
 *   (ignored) -- never a crash; valid calls right after get the right
 *   answers;
 * - the kinds of the bug-report cases through the generated code, each
 *   with its exact exception: huge string and sequence lengths (C01-C03),
 *   string terminators (C05), boolean octets (C06), union discriminators
 *   and enums out of range, bad fixed nibbles (C07), an IOR's nested
 *   encapsulations of both byte orders (C08), TypeCode indirections, kinds
 *   out of range and nesting (C09), chunked values (C14), a user
 *   exception's alignment after a service context (C17), wstrings
 *   (UTF-16, BOMs, odd lengths, surrogates; none without CodeSets: C18);
 *   and the faults found here: an IOR with no IIOP profile, an any of a
 *   known repository ID with another layout, a value reply cut after its
 *   result.
 *
 * Deterministic (fixed seeds); CHECK_IDLHOSTILE_QUICK=1 runs a few
 * operations' campaigns only (valgrind); IDLHOSTILE_DEBUG=1 prints every
 * exception other than MARSHAL and BAD_PARAM a campaign saw. */
#include <check.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/any.h>
#include <cdr/cdr.h>
#include <cdr/codeset.h>
#include <iiop/ior.h>
#include <iiop/msg.h>
#include "zoo.h"
#include "values.h"
#include "netutil.h"
#include "testutil.h"
#define PEER_NAME "check_idlhostile"
#include "idl/peer.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define MARSHAL ex_CORBA_MARSHAL
#define OMG(n) (0x4f4d0000u | (n))

/* ---------------------------------------------------------------- values */

static Zoo_Money money(const char *s)
{
  Zoo_Money m;
  memset(&m, 0, sizeof m);
  ck_assert_int_eq(cdr_fixed_from_string(s, strlen(s), 9, 2, &m), CDR_OK);
  return m;
}

static void strs(void *seq, int n, const char *const *v)
{
  CORBA_sequence_CORBA_string *s = seq;
  s->_buffer = CORBA_sequence_CORBA_string_allocbuf((CORBA_unsigned_long)n);
  s->_maximum = s->_length = (CORBA_unsigned_long)n;
  s->_release = CORBA_TRUE;
  for (int i = 0; i < n; i++)
    s->_buffer[i] = CORBA_string_dup(v[i]);
}

static void longs(CORBA_sequence_CORBA_long *s, int n, const CORBA_long *v)
{
  s->_buffer = CORBA_sequence_CORBA_long_allocbuf((CORBA_unsigned_long)n);
  s->_maximum = s->_length = (CORBA_unsigned_long)n;
  s->_release = CORBA_TRUE;
  for (int i = 0; i < n; i++)
    s->_buffer[i] = v[i];
}

static void cage(Zoo_Cage *c, const char *label, CORBA_long d, const char *k0, const char *k1,
                 const char *cost)
{
  memset(c, 0, sizeof *c);
  c->label = CORBA_string_dup(label);
  for (int i = 0; i < 6; i++)
    c->dims[i / 3][i % 3] = d + i;
  c->keepers[0] = CORBA_string_dup(k0);
  c->keepers[1] = CORBA_string_dup(k1);
  c->cost = money(cost);
}

static CORBA_wchar *wdup(const CORBA_wchar *w)
{
  size_t n = 0;
  while (w[n])
    n++;
  CORBA_wchar *p = CORBA_wstring_alloc((CORBA_unsigned_long)n);
  memcpy(p, w, (n + 1) * sizeof *w);
  return p;
}

/* ---------------------------------------------------------------- the servant */

typedef struct Keeper {
  POA_Zoo_Keeper servant;
  Zoo_Common_Tags labels;
} Keeper;

#define ROT(fn, T)                                                                    \
  static T *fn(PortableServer_Servant s, const T *a, T *b, T **c, CORBA_Environment *ev) \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    return rotate(TC_##T, a, b, (void **)c);                                          \
  }
ROT(s_cages, Zoo_Cages)
ROT(s_expr, Zoo_Expr)
ROT(s_ll, Zoo_ByLL)
ROT(s_ul, Zoo_ByUL)
ROT(s_us, Zoo_ByUS)
ROT(s_kind, Zoo_ByKind)
ROT(s_digests, Zoo_Digests)
ROT(s_bools, Zoo_Bools)
ROT(s_when, Zoo_When)
ROT(s_herd, Zoo_Herd)
ROT(s_any, CORBA_any)

#define ROTA(fn, T)                                                                   \
  static T##_slice *fn(PortableServer_Servant s, const T a, T b, T##_slice **c,      \
                       CORBA_Environment *ev)                                         \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    return rotate(TC_##T, a, b, (void **)c);                                          \
  }
ROTA(s_row, Zoo_Row)
ROTA(s_kinds3, Zoo_Kinds3)

#define ROTF(fn, T)                                                                   \
  static T fn(PortableServer_Servant s, const T *a, T *b, T *c, CORBA_Environment *ev) \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    *c = *b;                                                                          \
    *b = *a;                                                                          \
    return *a;                                                                        \
  }
ROTF(s_flag, Zoo_Flag)
ROTF(s_fee, Zoo_Fee)
ROTF(s_info, Zoo_Animal_Info)

static Zoo_Common_Tag s_tag(PortableServer_Servant s, const CORBA_char *a, Zoo_Common_Tag *b,
                            Zoo_Common_Tag *c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *c = *b;
  *b = CORBA_string_dup(a);
  return CORBA_string_dup(a);
}

static CORBA_TypeCode s_tc(PortableServer_Servant s, CORBA_TypeCode a, CORBA_TypeCode *b,
                           CORBA_TypeCode *c, CORBA_Environment *ev)
{
  (void)s;
  *c = *b;
  *b = (CORBA_TypeCode)CORBA_Object_duplicate((CORBA_Object)a, ev);
  return (CORBA_TypeCode)CORBA_Object_duplicate((CORBA_Object)a, ev);
}

static CORBA_Object s_obj(PortableServer_Servant s, CORBA_Object a, CORBA_Object *b,
                          CORBA_Object *c, CORBA_Environment *ev)
{
  (void)s;
  *c = *b;
  *b = CORBA_Object_duplicate(a, ev);
  return CORBA_Object_duplicate(a, ev);
}

static Zoo_Common_Tags *s_get_labels(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return dupv(TC_Zoo_Common_Tags, &((Keeper *)s)->labels);
}

static void s_set_labels(PortableServer_Servant s, const Zoo_Common_Tags *v, CORBA_Environment *ev)
{
  (void)ev;
  Keeper *k = s;
  corbaorb_free_contents(TC_Zoo_Common_Tags, &k->labels);
  ck_assert_int_eq(corbaorb_copy(TC_Zoo_Common_Tags, &k->labels, v), CDR_OK);
}

static void s_find(PortableServer_Servant s, const CORBA_char *what, CORBA_Environment *ev)
{
  (void)s;
  if (!strcmp(what, "closed"))
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Closed, NULL);
  else if (!strcmp(what, "nf")) {
    Zoo_Common_NotFound *nf = Zoo_Common_NotFound__alloc();
    nf->what = CORBA_string_dup("nf");
    nf->code = 404;
    strs(&nf->near, 2, (const char *const[]){ "x", "y" });
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Common_NotFound, nf);
  }
}

static int notes; /* note() calls that decoded */
static void s_note(PortableServer_Servant s, const Zoo_Cage *c, const Zoo_Common_Tags *t,
                   const CORBA_any *a, CORBA_Environment *ev)
{
  (void)s; (void)c; (void)t; (void)a; (void)ev;
  __atomic_add_fetch(&notes, 1, __ATOMIC_SEQ_CST);
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_Zoo_Common_Named__epv named_epv = { ._get_labels = s_get_labels,
                                               ._set_labels = s_set_labels };
static POA_Zoo_People_Visitor__epv visitor_epv = { NULL, NULL };
static POA_Zoo_People_Worker__epv worker_epv = { NULL, NULL };
static POA_Zoo_Keeper__epv keeper_epv = {
  .op_cages = s_cages, .op_expr = s_expr, .op_ll = s_ll, .op_ul = s_ul, .op_us = s_us,
  .op_kind = s_kind, .op_flag = s_flag, .op_row = s_row, .op_kinds3 = s_kinds3,
  .op_digests = s_digests, .op_bools = s_bools, .op_fee = s_fee, .op_tag = s_tag,
  .op_when = s_when, .op_any = s_any, .op_tc = s_tc, .op_obj = s_obj, .op_herd = s_herd,
  .op_info = s_info, .find = s_find, .note = s_note,
};
static POA_Zoo_Keeper__vepv keeper_vepv = { &base_epv, &named_epv, &visitor_epv, &worker_epv,
                                            &keeper_epv };


/* V::Zoo (tests/values/values.idl): pass(n, inout io, out o) returns a
 * new Named { n.name, n.secret + 1 } (a negative secret raises Bad),
 * adds 100 to io's secret, sets o to n; hold(h, out o) returns { the last
 * of h.many, -, h.label }, o two shared values; box(b, p, l) a StrBox of
 * them printed; wrap(a) a Named { a's name, its secret doubled } or an
 * empty any. */
static V_Named *new_named(const char *name, CORBA_long secret)
{
  V_Named *n = V_Named__alloc();
  n->name = corbaorb_value_strdup(n, name);
  n->secret = secret;
  return n;
}

static V_Named *z_pass(PortableServer_Servant s, const V_Named *n, V_Named **io, V_Named **o,
                       CORBA_Environment *ev)
{
  (void)s;
  if (n && n->secret < 0) {
    V_Bad *b = V_Bad__alloc();
    b->why = new_named("negative", n->secret);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_V_Bad, b);
    return NULL;
  }
  if (*io)
    (*io)->secret = (CORBA_long)((uint32_t)(*io)->secret + 100u);
  *o = (V_Named *)(uintptr_t)n;
  return new_named(n && n->name ? n->name : "-", n ? (CORBA_long)((uint32_t)n->secret + 1u) : -1);
}
static V_Named *z_get_current(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return NULL;
}
static void z_set_current(PortableServer_Servant s, const V_Named *v, CORBA_Environment *ev)
{
  (void)s; (void)v; (void)ev;
}
static V_Holder *z_hold(PortableServer_Servant s, const V_Holder *h, V_Holder **o,
                        CORBA_Environment *ev)
{
  (void)s; (void)ev;
  V_Holder *r = V_Holder__alloc();
  r->one = h->many._length ? h->many._buffer[h->many._length - 1] : NULL;
  r->label = V_StrBox__alloc();
  r->label->_value = corbaorb_value_strdup(r->label, h->label && h->label->_value ? h->label->_value : "none");
  *o = V_Holder__alloc();
  (*o)->many._buffer = V_NamedSeq_allocbuf(2);
  (*o)->many._maximum = (*o)->many._length = 2;
  (*o)->many._release = CORBA_TRUE;
  (*o)->many._buffer[0] = new_named("zero", 0);
  (*o)->many._buffer[1] = corbaorb_value_dup((*o)->many._buffer[0]);
  return r;
}
static V_Named *z_alias(PortableServer_Servant s, const V_Named *a, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return (V_Named *)(uintptr_t)a;
}
static V_StrBox *z_box(PortableServer_Servant s, const V_StrBox *b, const V_PtBox *p,
                       const V_LongsBox *l, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  char buf[96];
  snprintf(buf, sizeof buf, "%s %d,%d %u", b && b->_value ? b->_value : "-", p ? p->_value.x : 0,
           p ? p->_value.y : 0, l ? (unsigned)l->_value._length : 0u);
  V_StrBox *r = V_StrBox__alloc();
  r->_value = corbaorb_value_strdup(r, buf);
  return r;
}
static CORBA_any *z_wrap(PortableServer_Servant s, const CORBA_any *a, CORBA_Environment *ev)
{
  (void)s;
  CORBA_any *r = CORBA_any__alloc();
  if (a->_type && CORBA_TypeCode_equivalent(a->_type, TC_V_Named, ev) && a->_value &&
      *(V_Named *const *)a->_value) {
    const V_Named *n = *(V_Named *const *)a->_value;
    r->_type = TC_V_Named;
    r->_value = corbaorb_alloc(TC_V_Named, 1);
    r->_release = CORBA_TRUE;
    *(V_Named **)r->_value = new_named(n->name ? n->name : "-",
                                       (CORBA_long)((uint32_t)n->secret * 2u));
  }
  return r;
}

/* the custom value's hooks (values.idl: custom valuetype Blob): len, then
 * len octets 0, 1, 2 ... */
int V_Blob__marshal(cdr_out *o, const void *value, const cdr_value_type *t)
{
  (void)t;
  const V_Blob *b = value;
  cdr_put_long(o, b->len);
  for (CORBA_long k = 0; k < b->len; k++)
    cdr_put_octet(o, (uint8_t)k);
  return cdr_out_status(o);
}

int V_Blob__unmarshal(cdr_in *i, void *value, const cdr_value_type *t)
{
  (void)t;
  V_Blob *b = value;
  b->len = cdr_get_long(i);
  for (CORBA_long k = 0; k < b->len && cdr_in_status(i) == CDR_OK; k++)
    if (cdr_get_octet(i) != (uint8_t)k)
      return CDR_E_INVALID;
  return cdr_in_status(i);
}

static PortableServer_ServantBase__epv z_base = { NULL, NULL, NULL };
static POA_V_Zoo__epv z_epv = { NULL, z_pass, z_get_current, z_set_current, z_hold, z_alias,
                                z_box, z_wrap };
static POA_V_Zoo__vepv z_vepv = { &z_base, &z_epv };
static POA_V_Zoo vzoo = { NULL, &z_vepv };

/* ---------------------------------------------------------------- the world */

static CORBA_ORB orb;
static Keeper kp;
static Zoo_Keeper real;        /* the servant's reference */
static Zoo_Keeper via;         /* the same object through the proxy */
static uint16_t srv_port;
static uint8_t srv_key[256];
static uint32_t srv_key_len;
static uint8_t vz_key[256];    /* V::Zoo's (tests/values/values.idl: valuetypes) */
static uint32_t vz_key_len;
static V_Zoo vvia;             /* V::Zoo through the proxy */
/* the key build_request() addresses: the Keeper's unless a V::Zoo
 * operation's */
static const uint8_t *cur_key = srv_key;
static const uint32_t *cur_key_len = &srv_key_len;
static uint16_t proxy_port;

/* What the proxy recorded of one operation's call. */
#define MAXREC 64
typedef struct rec {
  char label[32];             /* the call's (calls[].op): the operation, or op/what */
  char op[32];
  int vz;                     /* a V::Zoo operation */
  uint8_t req[8192];          /* the request body */
  size_t req_len;
  uint8_t rep[8192];          /* the reply body */
  size_t rep_len;
  uint32_t rep_status;
} rec;
static rec recs[MAXREC];
static int nrecs;

static rec *rec_find(const char *label)
{
  for (int k = 0; k < nrecs; k++)
    if (!strcmp(recs[k].label, label))
      return &recs[k];
  return NULL;
}

static const char *rec_label; /* the label the proxy records the next call under */

/* How the proxy answers the stub (set before each call). */
enum pmode {
  P_PASS,            /* the server's reply */
  P_TRUNC,           /* its body cut to arg octets (message_size follows) */
  P_WORD,            /* the ulong at arg set to val */
  P_OCTET,           /* the octet at arg set to val */
  P_STATUS,          /* reply_status val, the body as it is */
  P_USEREX,          /* USER_EXCEPTION: repository ID text (arg 0) or length val (arg 1) */
  P_FORWARD,         /* LOCATION_FORWARD with a garbage body */
  P_NEEDS_ADDR,      /* NEEDS_ADDRESSING_MODE, body a short 0 */
  P_FRAG_AFTER,      /* the reply, then a GIOP 1.2 Fragment of the same ID */
  P_SHORT_CLOSE,     /* a header announcing the whole body, half of it, a hang-up */
  P_RAW,             /* status val, the body raw[0..arg) */
  P_RAWMSG,          /* the whole message raw[0..arg), its request ID (at 12) patched */
  P_FORWARD_SELF,    /* LOCATION_FORWARD to the proxy's own reference, every time */
  P_CLOSE_ONCE,      /* a CloseConnection instead of the reply, then P_PASS */
  P_MSGERR,          /* a MessageError instead of the reply */
};
static struct {
  enum pmode mode;
  size_t arg;
  uint32_t val;
  const char *text;
  const uint8_t *raw;
  int record;        /* keep what passes in recs[] */
} pm;

#define RNG_SEED 0x9E3779B97F4A7C15ull
static uint64_t rng = RNG_SEED; /* reset by world_up(): each test the same, forked or not */

static uint8_t proxy_ior[1024]; /* the proxy's reference as CDR (host order) */
static size_t proxy_ior_len;

static uint32_t req_tcs_c = CDR_CS_UTF8; /* the char code set the raw requests ask for */

static void codeset_sc(giop_sc_list *l, giop_service_context *c, uint8_t data[12])
{
  giop_codeset_context cs = { req_tcs_c, CDR_CS_UTF16 };
  giop_codeset_context_encode(&cs, data);
  c->id = GIOP_SC_CODE_SETS;
  c->len = 12;
  c->data = data;
  l->n = 1;
  l->v = c;
}

/* A GIOP 1.2 Request (host order, a CodeSets context) for the servant's
 * key, operation OP, request ID ID, with the body BODY[0..N) into BUF
 * (malloc'd; its length). */
static size_t build_request(uint8_t **buf, uint32_t id, const char *op, const uint8_t *body,
                            size_t n, uint8_t flags)
{
  cdr_opts o;
  cdr_opts_default(&o);
  o.giop_minor = 2;
  cdr_out out;
  ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
  giop_request_header h;
  memset(&h, 0, sizeof h);
  h.request_id = id;
  h.response_flags = flags;
  h.target.disposition = GIOP_KEY_ADDR;
  h.target.key = cur_key;
  h.target.key_len = *cur_key_len;
  h.operation = op;
  h.operation_len = (uint32_t)strlen(op);
  uint8_t csd[12];
  giop_service_context c;
  codeset_sc(&h.contexts, &c, csd);
  ck_assert_int_eq(giop_begin_request(&out, &h), CDR_OK);
  giop_begin_body(&out);
  ck_assert_uint_eq(cdr_out_size(&out) % 8, 0);
  if (n)
    cdr_put_raw(&out, body, n);
  ck_assert_int_eq(giop_end(&out), CDR_OK);
  size_t len = cdr_out_size(&out);
  *buf = malloc(len);
  memcpy(*buf, cdr_out_data(&out), len);
  cdr_out_close(&out);
  return len;
}

/* A GIOP 1.2 Reply (host order, no contexts) of ID, STATUS and BODY. */
static size_t build_reply(uint8_t **buf, uint32_t id, uint32_t status, const uint8_t *body,
                          size_t n)
{
  cdr_opts o;
  cdr_opts_default(&o);
  o.giop_minor = 2;
  cdr_out out;
  ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
  giop_reply_header h;
  memset(&h, 0, sizeof h);
  h.request_id = id;
  h.reply_status = status <= GIOP_NEEDS_ADDRESSING_MODE ? status : GIOP_NO_EXCEPTION;
  ck_assert_int_eq(giop_begin_reply(&out, &h), CDR_OK);
  giop_begin_body(&out);
  if (n)
    cdr_put_raw(&out, body, n);
  ck_assert_int_eq(giop_end(&out), CDR_OK);
  size_t len = cdr_out_size(&out);
  *buf = malloc(len);
  memcpy(*buf, cdr_out_data(&out), len);
  cdr_out_close(&out);
  if (status > GIOP_NEEDS_ADDRESSING_MODE) { /* a status the encoder refuses: patched */
    uint32_t s = status;
    memcpy(*buf + 16, &s, 4);
  }
  return len;
}

/* The proxy's answer to the stub's request (ID) from the server's reply
 * body REP (N octets, STATUS). */
static void proxy_answer(int cfd, uint32_t id, uint32_t status, const uint8_t *rep, size_t n)
{
  uint8_t tmp[8192];
  uint8_t *msg = NULL;
  size_t len;
  memcpy(tmp, rep, n);
  switch (pm.mode) {
  case P_PASS:
    len = build_reply(&msg, id, status, tmp, n);
    break;
  case P_TRUNC:
    len = build_reply(&msg, id, status, tmp, pm.arg < n ? pm.arg : n);
    break;
  case P_WORD:
    if (pm.arg + 4 <= n)
      memcpy(tmp + pm.arg, &pm.val, 4);
    len = build_reply(&msg, id, status, tmp, n);
    break;
  case P_OCTET:
    if (pm.arg < n)
      tmp[pm.arg] = (uint8_t)pm.val;
    len = build_reply(&msg, id, status, tmp, n);
    break;
  case P_STATUS:
    len = build_reply(&msg, id, pm.val, tmp, n);
    break;
  case P_USEREX: {
    uint8_t b[64];
    uint32_t l = pm.arg ? pm.val : (uint32_t)strlen(pm.text) + 1;
    memcpy(b, &l, 4);
    size_t bn = 4;
    if (!pm.arg) {
      memcpy(b + 4, pm.text, l);
      bn += l;
    } else {
      memcpy(b + 4, "IDL:", 4);
      bn += 4;
    }
    len = build_reply(&msg, id, GIOP_USER_EXCEPTION, b, bn);
    break;
  }
  case P_FORWARD: {
    static const uint8_t junk[] = { 3, 0, 0, 0, 'I', 'D', 0, 0, 0xff, 0xff, 0xff, 0x0f, 1, 2 };
    len = build_reply(&msg, id, GIOP_LOCATION_FORWARD, junk, sizeof junk);
    break;
  }
  case P_NEEDS_ADDR: {
    static const uint8_t two[] = { 0, 0 };
    len = build_reply(&msg, id, GIOP_NEEDS_ADDRESSING_MODE, two, 2);
    break;
  }
  case P_FRAG_AFTER: {
    len = build_reply(&msg, id, status, tmp, n);
    msg = realloc(msg, len + 24);
    uint8_t *f = msg + len;
    nu_header(f, 2, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN, 0, GIOP_FRAGMENT, 12);
    memcpy(f + 12, &id, 4);
    memset(f + 16, 0xAB, 8);
    len += 24;
    break;
  }
  case P_RAW:
    len = build_reply(&msg, id, pm.val, pm.raw, pm.arg);
    break;
  case P_RAWMSG:
    msg = malloc(pm.arg);
    memcpy(msg, pm.raw, len = pm.arg);
    memcpy(msg + 12, &id, 4);
    break;
  case P_FORWARD_SELF:
    len = build_reply(&msg, id, GIOP_LOCATION_FORWARD, proxy_ior, proxy_ior_len);
    break;
  case P_CLOSE_ONCE:
  case P_MSGERR:
    msg = malloc(12);
    nu_header(msg, 2, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN, 0,
              pm.mode == P_MSGERR ? GIOP_MESSAGE_ERROR : GIOP_CLOSE_CONNECTION, 0);
    len = 12;
    if (pm.mode == P_CLOSE_ONCE)
      pm.mode = P_PASS;
    (void)nu_send_all(cfd, msg, len);
    free(msg);
    shutdown(cfd, SHUT_RDWR);
    return;
  case P_SHORT_CLOSE:
    len = build_reply(&msg, id, status, tmp, n);
    (void)nu_send_all(cfd, msg, len - n / 2 - 1);
    free(msg);
    shutdown(cfd, SHUT_RDWR);
    return;
  default:
    abort();
  }
  (void)nu_send_all(cfd, msg, len);
  free(msg);
}

static int srv_fd = -1; /* the proxy's connection to the server */
static int raw_fd = -1; /* the raw requests' connection */

static int proxy_listen_fd;

static void *proxy_main(void *ud)
{
  (void)ud;
  for (;;) {
    int cfd = accept(proxy_listen_fd, NULL, NULL);
    if (cfd < 0)
      return NULL;
    for (;;) {
      size_t len;
      uint8_t *m = nu_recv_msg(cfd, 1 << 20, &len);
      if (!m)
        break;
      cdr_arena a;
      cdr_arena_init(&a, NULL);
      giop_message msg;
      if (giop_parse(&msg, m, len, NULL, &a) != CDR_OK || msg.hdr.type != GIOP_REQUEST) {
        int close_it = msg.hdr.type == GIOP_CLOSE_CONNECTION;
        cdr_arena_free(&a);
        free(m);
        if (close_it)
          break;
        continue;
      }
      size_t off = cdr_in_pos(&msg.body);
      const giop_request_header *rh = &msg.u.request;
      int vz = rh->target.key_len == 8 && !memcmp(rh->target.key, "via-vzoo", 8);
      cur_key = vz ? vz_key : srv_key;
      cur_key_len = vz ? &vz_key_len : &srv_key_len;
      uint8_t *fwd;
      size_t flen = build_request(&fwd, rh->request_id, rh->operation, m + off, len - off,
                                  rh->response_flags);
      cur_key = srv_key;
      cur_key_len = &srv_key_len;
      if (srv_fd < 0)
        srv_fd = nu_connect(NULL, srv_port, 10, NU_NODELAY);
      ck_assert(nu_send_all(srv_fd, fwd, flen));
      free(fwd);
      if (!(rh->response_flags & 2)) { /* oneway */
        cdr_arena_free(&a);
        free(m);
        continue;
      }
      size_t rlen;
      uint8_t *r = nu_recv_msg(srv_fd, 1 << 20, &rlen);
      ck_assert_ptr_nonnull(r);
      cdr_arena ra;
      cdr_arena_init(&ra, NULL);
      giop_message rm;
      ck_assert_int_eq(giop_parse(&rm, r, rlen, NULL, &ra), CDR_OK);
      size_t roff = cdr_in_pos(&rm.body);
      if (pm.record && nrecs < MAXREC && !rec_find(rec_label)) {
        rec *q = &recs[nrecs++];
        snprintf(q->label, sizeof q->label, "%s", rec_label);
        snprintf(q->op, sizeof q->op, "%s", rh->operation);
        q->vz = vz;
        ck_assert_uint_le(len - off, sizeof q->req);
        ck_assert_uint_le(rlen - roff, sizeof q->rep);
        memcpy(q->req, m + off, q->req_len = len - off);
        memcpy(q->rep, r + roff, q->rep_len = rlen - roff);
        q->rep_status = rm.u.reply.reply_status;
      }
      proxy_answer(cfd, rh->request_id, rm.u.reply.reply_status, r + roff, rlen - roff);
      cdr_arena_free(&ra);
      free(r);
      cdr_arena_free(&a);
      free(m);
    }
    close(cfd);
  }
  return NULL;
}

static pthread_t proxy_thread;

static void world_up(void)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char a0[] = "t", a1[] = "-ORBendPoint", a2[] = "giop:tcp:127.0.0.1:0";
  char *argv[] = { a0, a1, a2, NULL };
  int argc = 3;
  orb = CORBA_ORB_init(&argc, argv, "", &ev);
  check(&ev, "ORB_init");
  PortableServer_POA root =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(root, &ev), &ev);
  memset(&kp, 0, sizeof kp);
  kp.servant.vepv = &keeper_vepv;
  POA_Zoo_Keeper__init(&kp, &ev);
  real = PortableServer_POA_servant_to_reference(root, &kp, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  POA_V_Zoo__init(&vzoo, &ev);
  V_Zoo vreal = PortableServer_POA_servant_to_reference(root, &vzoo, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release((CORBA_Object)root, &ev);

  /* the servant's address and key; the proxy's reference: the same IOR
   * (its code set component included) on the proxy's port */
  CORBA_char *s = CORBA_ORB_object_to_string(orb, real, &ev);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_OK);
  CORBA_free(s);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_nonnull(p);
  srv_port = p->port;
  ck_assert_uint_le(p->key_len, sizeof srv_key);
  memcpy(srv_key, p->key, srv_key_len = p->key_len);
  {
    CORBA_char *vs = CORBA_ORB_object_to_string(orb, vreal, &ev);
    iiop_ior vi;
    ck_assert_int_eq(iiop_ior_from_string(vs, &a, &vi), CDR_OK);
    CORBA_free(vs);
    const iiop_profile *vp = iiop_ior_iiop_profile(&vi);
    ck_assert_uint_le(vp->key_len, sizeof vz_key);
    memcpy(vz_key, vp->key, vz_key_len = vp->key_len);
    CORBA_Object_release(vreal, &ev);
  }
  proxy_listen_fd = nu_listen(4, &proxy_port);
  iiop_ior pi;
  ck_assert_int_eq(iiop_ior_make(&a, ior.type_id, 1, 2, "127.0.0.1", proxy_port,
                                 (const uint8_t *)"via-proxy", 9, p->components,
                                 p->ncomponents, &pi), CDR_OK);
  char *ps = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&pi, CDR_HOST_ORDER, &a, &ps), CDR_OK);
  {
    cdr_out io;
    ck_assert_int_eq(cdr_out_init_buffer(&io, NULL, proxy_ior, sizeof proxy_ior), CDR_OK);
    ck_assert_int_eq(iiop_ior_write(&io, &pi), CDR_OK);
    proxy_ior_len = cdr_out_size(&io);
    cdr_out_close(&io);
  }
  via = CORBA_ORB_string_to_object(orb, ps, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  {
    CORBA_char *vs = CORBA_ORB_object_to_string(orb, real, &ev); /* for the components */
    iiop_ior vi;
    ck_assert_int_eq(iiop_ior_from_string(vs, &a, &vi), CDR_OK);
    CORBA_free(vs);
    const iiop_profile *vp = iiop_ior_iiop_profile(&vi);
    iiop_ior pv;
    ck_assert_int_eq(iiop_ior_make(&a, "IDL:V/Zoo:1.0", 1, 2, "127.0.0.1", proxy_port,
                                   (const uint8_t *)"via-vzoo", 8, vp->components,
                                   vp->ncomponents, &pv), CDR_OK);
    char *vps = NULL;
    ck_assert_int_eq(iiop_ior_to_string(&pv, CDR_HOST_ORDER, &a, &vps), CDR_OK);
    vvia = CORBA_ORB_string_to_object(orb, vps, &ev);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    corbaorb_Object_set_call_timeout(vvia, 10000, &ev);
  }
  cdr_arena_free(&a);
  corbaorb_Object_set_call_timeout(via, 10000, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  nrecs = 0;
  srv_fd = -1;
  rng = RNG_SEED;
  memset(&pm, 0, sizeof pm);
  ck_assert_int_eq(pthread_create(&proxy_thread, NULL, proxy_main, NULL), 0);
}

static void world_down(void)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  shutdown(proxy_listen_fd, SHUT_RDWR);
  if (srv_fd >= 0)
    shutdown(srv_fd, SHUT_RDWR); /* the server sees the proxy go */
  if (raw_fd >= 0)
    close(raw_fd);
  raw_fd = -1;
  CORBA_Object_release(via, &ev);
  CORBA_Object_release(vvia, &ev);
  CORBA_Object_release(real, &ev);
  CORBA_ORB_destroy(orb, &ev);
  pthread_join(proxy_thread, NULL);
  close(proxy_listen_fd);
  if (srv_fd >= 0)
    close(srv_fd);
  POA_Zoo_Keeper__fini(&kp, &ev);
  POA_V_Zoo__fini(&vzoo, &ev);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &kp.labels);
}

/* ---------------------------------------------------------------- the calls */

static int is_ex(CORBA_Environment *ev, const char *id)
{
  return ev->_major == CORBA_SYSTEM_EXCEPTION && !strcmp(CORBA_exception_id(ev), id);
}

static CORBA_unsigned_long ex_minor(CORBA_Environment *ev)
{
  return ((CORBA_SystemException *)CORBA_exception_value(ev))->minor;
}

/* One call of every operation the campaigns use, on K; each checks its
 * results when the call returns NO_EXCEPTION.  Returns 1 when the call
 * succeeded with the right results, 0 when it raised (EV holds it). */
typedef int (*call_fn)(Zoo_Keeper k, CORBA_Environment *ev);

/* 0 while the proxy mutates replies: a call that succeeds may have
 * decoded other values than were sent */
static int exact = 1;
#define EXACT(cond) ck_assert(!exact || (cond))

#define ROTCALL(fn, T, A, B)                                              \
  do {                                                                    \
    T b2_, *c_ = NULL;                                                    \
    ck_assert_int_eq(corbaorb_copy(TC_##T, &b2_, (B)), CDR_OK);           \
    T *r_ = fn(k, (A), &b2_, &c_, ev);                                    \
    int ok_ = ev->_major == CORBA_NO_EXCEPTION;                           \
    if (ok_) {                                                            \
      ck_assert(r_ && c_);                                                \
      EXACT(cdr_value_equal(TC_##T, r_, (A)) == 1);                       \
      EXACT(cdr_value_equal(TC_##T, &b2_, (A)) == 1);                     \
      EXACT(cdr_value_equal(TC_##T, c_, (B)) == 1);                       \
    } else {                                                              \
      ck_assert_ptr_null(r_);                                             \
    }                                                                     \
    CORBA_free(r_);                                                       \
    CORBA_free(c_);                                                       \
    corbaorb_free_contents(TC_##T, &b2_);                                 \
    corbaorb_free_contents(TC_##T, (A));                                  \
    corbaorb_free_contents(TC_##T, (B));                                  \
    return ok_;                                                           \
  } while (0)

static int c_kind(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_ByKind a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._d = Zoo_BIRD;
  longs(&a._u.legs, 3, (const CORBA_long[]){ 1, 2, 3 });
  b._d = Zoo_FISH;
  b._u.c = 'x';
  ROTCALL(Zoo_Keeper_op_kind, Zoo_ByKind, &a, &b);
}

static int c_ll(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_ByLL a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._d = 7;
  strs(&a._u.words, 2, (const char *const[]){ "x", "yy" });
  b._d = -5000000000LL;
  cage(&b._u.pen, "pen", 3, "k", "", "-1.25");
  ROTCALL(Zoo_Keeper_op_ll, Zoo_ByLL, &a, &b);
}

static int c_ul(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_ByUL a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._d = 0;
  a._u.w = wdup((const CORBA_wchar[]){ 'h', 0xE9, 0x20AC, 0 });
  b._d = 4294967295u;
  b._u.k = Zoo_REPTILE;
  ROTCALL(Zoo_Keeper_op_ul, Zoo_ByUL, &a, &b);
}

static int c_us(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_ByUS a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._d = 1;
  a._u.inner._d = 4294967295u;
  a._u.inner._u.k = Zoo_FISH;
  b._d = 9;
  b._u.stamp.when = 123456789012ULL;
  b._u.stamp.who = CORBA_string_dup("me");
  ROTCALL(Zoo_Keeper_op_us, Zoo_ByUS, &a, &b);
}

static int c_expr(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Expr a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._d = 1;
  a._u.args._buffer = Zoo_Exprs_allocbuf(2);
  a._u.args._maximum = a._u.args._length = 2;
  a._u.args._release = CORBA_TRUE;
  a._u.args._buffer[0]._d = 0;
  a._u.args._buffer[0]._u.num = -5;
  a._u.args._buffer[1]._d = 3;
  a._u.args._buffer[1]._u.name = CORBA_string_dup("nm");
  b._d = 0;
  b._u.num = 1;
  ROTCALL(Zoo_Keeper_op_expr, Zoo_Expr, &a, &b);
}

static int c_cages(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Cages a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._buffer = Zoo_Cages_allocbuf(1);
  a._maximum = a._length = 1;
  a._release = CORBA_TRUE;
  cage(&a._buffer[0], "c", 1, "a", "b", "0.01");
  a._buffer[0].inner._buffer = Zoo_Cages_allocbuf(1);
  a._buffer[0].inner._maximum = a._buffer[0].inner._length = 1;
  a._buffer[0].inner._release = CORBA_TRUE;
  cage(&a._buffer[0].inner._buffer[0], "in", 7, "", "z", "9.00");
  ROTCALL(Zoo_Keeper_op_cages, Zoo_Cages, &a, &b);
}

static int c_digests(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Digests a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._buffer = Zoo_Digests_allocbuf(2);
  a._maximum = a._length = 2;
  a._release = CORBA_TRUE;
  for (int i = 0; i < 2; i++) {
    a._buffer[i]._buffer = Zoo_Digest_allocbuf(3);
    a._buffer[i]._maximum = a._buffer[i]._length = 3;
    a._buffer[i]._release = CORBA_TRUE;
    memcpy(a._buffer[i]._buffer, i ? "xyz" : "abc", 3);
  }
  ROTCALL(Zoo_Keeper_op_digests, Zoo_Digests, &a, &b);
}

static int c_bools(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Bools a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a._buffer = Zoo_Bools_allocbuf(3);
  a._maximum = a._length = 3;
  a._release = CORBA_TRUE;
  a._buffer[0] = 0;
  a._buffer[1] = 1;
  a._buffer[2] = 1;
  ROTCALL(Zoo_Keeper_op_bools, Zoo_Bools, &a, &b);
}

static int c_when(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_When a = { 77, CORBA_string_dup("stamper") }, b = { 1, CORBA_string_dup("") };
  ROTCALL(Zoo_Keeper_op_when, Zoo_When, &a, &b);
}

static int c_any(Zoo_Keeper k, CORBA_Environment *ev)
{
  /* a: a Cage (a TypeCode recursive through a sequence: an indirection),
   * b: a long */
  Zoo_Cage *cg = Zoo_Cage__alloc();
  cage(cg, "anyc", 5, "p", "q", "3.30");
  cg->inner._buffer = Zoo_Cages_allocbuf(1);
  cg->inner._maximum = cg->inner._length = 1;
  cg->inner._release = CORBA_TRUE;
  cage(&cg->inner._buffer[0], "i", 0, "", "", "0.00");
  CORBA_any a = { ._type = TC_Zoo_Cage, ._value = cg, ._release = CORBA_TRUE };
  CORBA_long *l = corbaorb_alloc(TC_CORBA_long, 1);
  *l = 7;
  CORBA_any b = { ._type = TC_CORBA_long, ._value = l, ._release = CORBA_TRUE };
  ROTCALL(Zoo_Keeper_op_any, CORBA_any, &a, &b);
}

static int c_row(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Row a, b, b2;
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  longs(&a[0][0], 1, (const CORBA_long[]){ 1 });
  longs(&a[1][0], 2, (const CORBA_long[]){ 2, 3 });
  longs(&a[1][1], 1, (const CORBA_long[]){ 4 });
  longs(&b[0][1], 1, (const CORBA_long[]){ 9 });
  ck_assert_int_eq(corbaorb_copy(TC_Zoo_Row, b2, b), CDR_OK);
  Zoo_Row_slice *c = NULL;
  Zoo_Row_slice *r = Zoo_Keeper_op_row(k, a, b2, &c, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(cdr_value_equal(TC_Zoo_Row, r, a) == 1 && cdr_value_equal(TC_Zoo_Row, b2, a) == 1 &&
              cdr_value_equal(TC_Zoo_Row, c, b) == 1);
  CORBA_free(r);
  CORBA_free(c);
  corbaorb_free_contents(TC_Zoo_Row, b2);
  corbaorb_free_contents(TC_Zoo_Row, a);
  corbaorb_free_contents(TC_Zoo_Row, b);
  return ok;
}

static int c_kinds3(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Kinds3 a, b, b2;
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  a[0]._d = Zoo_MAMMAL;
  longs(&a[0]._u.legs, 1, (const CORBA_long[]){ 4 });
  a[1]._d = Zoo_FISH;
  a[1]._u.c = 'f';
  a[2]._d = Zoo_BIRD;
  longs(&a[2]._u.legs, 0, NULL);
  for (int i = 0; i < 3; i++) {
    b[i]._d = Zoo_FISH;
    b[i]._u.c = (CORBA_char)('a' + i);
  }
  ck_assert_int_eq(corbaorb_copy(TC_Zoo_Kinds3, b2, b), CDR_OK);
  Zoo_Kinds3_slice *c = NULL;
  Zoo_Kinds3_slice *r = Zoo_Keeper_op_kinds3(k, a, b2, &c, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(cdr_value_equal(TC_Zoo_Kinds3, r, a) == 1 &&
              cdr_value_equal(TC_Zoo_Kinds3, b2, a) == 1 &&
              cdr_value_equal(TC_Zoo_Kinds3, c, b) == 1);
  CORBA_free(r);
  CORBA_free(c);
  corbaorb_free_contents(TC_Zoo_Kinds3, b2);
  corbaorb_free_contents(TC_Zoo_Kinds3, a);
  corbaorb_free_contents(TC_Zoo_Kinds3, b);
  return ok;
}

static int c_flag(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Flag a = { CORBA_TRUE, { 2.5 } }, b = { CORBA_FALSE, { 0 } }, c;
  memset(&c, 0, sizeof c);
  Zoo_Flag b2 = b;
  Zoo_Flag r = Zoo_Keeper_op_flag(k, &a, &b2, &c, ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return 0;
  EXACT(r._d && r._u.yes == 2.5 && b2._d && b2._u.yes == 2.5 && !c._d);
  return 1;
}

static int c_fee(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Fee a = money("-1234.56"), b = money("0.07"), b2 = b, c;
  Zoo_Fee r = Zoo_Keeper_op_fee(k, &a, &b2, &c, ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return 0;
  EXACT(cdr_value_equal(TC_Zoo_Fee, &r, &a) == 1 && cdr_value_equal(TC_Zoo_Fee, &b2, &a) == 1 &&
            cdr_value_equal(TC_Zoo_Fee, &c, &b) == 1);
  return 1;
}

static int c_info(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Animal_Info a = { Zoo_REPTILE, Zoo_Animal_ANGRY, money("12.34") },
                  b = { Zoo_MAMMAL, Zoo_Animal_CALM, money("-0.50") }, b2 = b, c;
  Zoo_Animal_Info r = Zoo_Keeper_op_info(k, &a, &b2, &c, ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return 0;
  EXACT(cdr_value_equal(TC_Zoo_Animal_Info, &r, &a) == 1 &&
            cdr_value_equal(TC_Zoo_Animal_Info, &c, &b) == 1);
  return 1;
}

static int c_tag(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Common_Tag b = CORBA_string_dup("old"), c = NULL;
  Zoo_Common_Tag r = Zoo_Keeper_op_tag(k, "new-tag", &b, &c, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok) {
    ck_assert(r && c);
    EXACT(!strcmp(r, "new-tag") && !strcmp(b, "new-tag") && !strcmp(c, "old"));
  }
  CORBA_free(r);
  CORBA_free(b);
  CORBA_free(c);
  return ok;
}

static int c_tc(Zoo_Keeper k, CORBA_Environment *ev)
{
  CORBA_TypeCode b = TC_Zoo_Cage, c = NULL;
  CORBA_TypeCode r = Zoo_Keeper_op_tc(k, TC_Zoo_Expr, &b, &c, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  CORBA_Environment e2;
  CORBA_exception_init(&e2);
  if (ok)
    EXACT(r && c && CORBA_TypeCode_equal(r, TC_Zoo_Expr, &e2) &&
              CORBA_TypeCode_equal(b, TC_Zoo_Expr, &e2) && CORBA_TypeCode_equal(c, TC_Zoo_Cage, &e2));
  CORBA_Object_release((CORBA_Object)r, &e2);
  CORBA_Object_release((CORBA_Object)b, &e2);
  CORBA_Object_release((CORBA_Object)c, &e2);
  return ok;
}

static int c_obj(Zoo_Keeper k, CORBA_Environment *ev)
{
  CORBA_Object b = CORBA_OBJECT_NIL, c = CORBA_OBJECT_NIL;
  CORBA_Environment e2;
  CORBA_exception_init(&e2);
  CORBA_Object r = Zoo_Keeper_op_obj(k, real, &b, &c, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(r && b && !c && CORBA_Object_is_equivalent(r, real, &e2));
  CORBA_Object_release(r, &e2);
  CORBA_Object_release(b, &e2);
  CORBA_Object_release(c, &e2);
  return ok;
}

static int c_labels(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Common_Tags t;
  memset(&t, 0, sizeof t);
  strs(&t, 3, (const char *const[]){ "one", "", "three" });
  Zoo_Keeper__set_labels(k, &t, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(cdr_value_equal(TC_Zoo_Common_Tags, &kp.labels, &t) == 1);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &t);
  return ok;
}

/* pass() with a negative secret: V::Bad, a user exception holding a value */
static int c_vbad(Zoo_Keeper k, CORBA_Environment *ev)
{
  (void)k;
  V_Named *n = new_named("neg", -4), *io = NULL, *o = NULL;
  V_Named *r = V_Zoo_pass(vvia, n, &io, &o, ev);
  CORBA_free(n);
  CORBA_free(r);
  CORBA_free(o);
  CORBA_free(io);
  if (ev->_major != CORBA_USER_EXCEPTION)
    return 0;
  ck_assert_str_eq(CORBA_exception_id(ev), ex_V_Bad);
  V_Bad *b = CORBA_exception_value(ev);
  ck_assert_ptr_nonnull(b);
  EXACT(b->why && !strcmp(b->why->name, "negative") && b->why->secret == -4);
  CORBA_exception_free(ev);
  return 1;
}

/* op_any with an object reference and a TypeCode in the anys */
static int c_anyobj(Zoo_Keeper k, CORBA_Environment *ev)
{
  CORBA_Environment e2;
  CORBA_exception_init(&e2);
  CORBA_Object *ref = corbaorb_alloc(TC_CORBA_Object, 1);
  *ref = CORBA_Object_duplicate(real, &e2);
  CORBA_any a = { ._type = TC_CORBA_Object, ._value = ref, ._release = CORBA_TRUE };
  CORBA_TypeCode *tc = corbaorb_alloc(TC_CORBA_TypeCode, 1);
  *tc = TC_Zoo_ByUS;
  CORBA_any b = { ._type = TC_CORBA_TypeCode, ._value = tc, ._release = CORBA_TRUE };
  CORBA_any b2, *c = NULL;
  ck_assert_int_eq(corbaorb_copy(TC_CORBA_any, &b2, &b), CDR_OK);
  CORBA_any *r = Zoo_Keeper_op_any(k, &a, &b2, &c, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok) {
    ck_assert(r && c);
    EXACT(CORBA_TypeCode_equivalent(r->_type, TC_CORBA_Object, &e2) &&
          CORBA_Object_is_equivalent(*(CORBA_Object *)r->_value, real, &e2) &&
          CORBA_TypeCode_equivalent(c->_type, TC_CORBA_TypeCode, &e2) &&
          CORBA_TypeCode_equal(*(CORBA_TypeCode *)c->_value, TC_Zoo_ByUS, &e2));
  }
  CORBA_free(r);
  CORBA_free(c);
  corbaorb_free_contents(TC_CORBA_any, &b2);
  corbaorb_free_contents(TC_CORBA_any, &a);
  corbaorb_free_contents(TC_CORBA_any, &b);
  return ok;
}

static int c_isa(Zoo_Keeper k, CORBA_Environment *ev)
{
  CORBA_boolean r = CORBA_Object_is_a(k, "IDL:base.zoo/Zoo/Common/Named:1.0", ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return 0;
  EXACT(r == CORBA_TRUE);
  return 1;
}

static int c_find(Zoo_Keeper k, CORBA_Environment *ev)
{
  Zoo_Keeper_find(k, "nf", ev);
  if (ev->_major != CORBA_USER_EXCEPTION)
    return 0;
  ck_assert_str_eq(CORBA_exception_id(ev), ex_Zoo_Common_NotFound);
  Zoo_Common_NotFound *nf = CORBA_exception_value(ev);
  EXACT(nf && nf->code == 404 && !strcmp(nf->what, "nf") && nf->near._length == 2);
  CORBA_exception_free(ev);
  return 1;
}

static int c_vpass(Zoo_Keeper k, CORBA_Environment *ev)
{
  (void)k;
  V_Named *n = new_named("in", 5), *io = new_named("io", 1), *o = NULL;
  V_Named *r = V_Zoo_pass(vvia, n, &io, &o, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok) {
    EXACT(r && !strcmp(r->name, "in") && r->secret == 6 && io && io->secret == 101 && o &&
          !strcmp(o->name, "in"));
  }
  CORBA_free(r);
  CORBA_free(o);
  CORBA_free(n);
  CORBA_free(io);
  return ok;
}

static int c_vhold(Zoo_Keeper k, CORBA_Environment *ev)
{
  (void)k;
  V_Holder h;
  memset(&h, 0, sizeof h);
  V_Named *one = new_named("one", 1);
  V_Named *buf[3] = { one, V_Named__alloc_in(one), one };
  buf[1]->name = corbaorb_value_strdup(one, "two");
  h.one = one;
  h.many._buffer = buf;
  h.many._length = h.many._maximum = 3;
  V_StrBox lbl = { { &V_StrBox__vt }, (CORBA_char *)"lbl" };
  h.label = &lbl;
  V_Holder *ho = NULL;
  V_Holder *hr = V_Zoo_hold(vvia, &h, &ho, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(hr && hr->one && !strcmp(hr->one->name, "one") && hr->label &&
          !strcmp(hr->label->_value, "lbl") && ho && ho->many._length == 2 &&
          ho->many._buffer[0] == ho->many._buffer[1]);
  CORBA_free(hr);
  CORBA_free(ho);
  CORBA_free(one);
  return ok;
}

static int c_vbox(Zoo_Keeper k, CORBA_Environment *ev)
{
  (void)k;
  V_StrBox b = { { &V_StrBox__vt }, (CORBA_char *)"bx" };
  V_PtBox p = { { &V_PtBox__vt }, { 3, -4 } };
  CORBA_long three[3] = { 1, 2, 3 };
  V_LongsBox l = { { &V_LongsBox__vt }, { 3, 3, three, CORBA_FALSE } };
  V_StrBox *r = V_Zoo_box(vvia, &b, &p, &l, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(r && r->_value && !strcmp(r->_value, "bx 3,-4 3"));
  CORBA_free(r);
  return ok;
}

static int c_vwrap(Zoo_Keeper k, CORBA_Environment *ev)
{
  (void)k;
  V_Named *n = new_named("w", 21);
  CORBA_any a = { ._type = TC_V_Named, ._value = &n, ._release = CORBA_FALSE };
  CORBA_any *r = V_Zoo_wrap(vvia, &a, ev);
  int ok = ev->_major == CORBA_NO_EXCEPTION;
  if (ok)
    EXACT(r && r->_value && (*(V_Named **)r->_value)->secret == 42);
  CORBA_free(r);
  CORBA_free(n);
  return ok;
}

typedef struct opcall {
  const char *op;
  call_fn fn;
} opcall;

static const opcall calls[] = {
  { "op_kind", c_kind }, { "op_ll", c_ll }, { "op_ul", c_ul }, { "op_us", c_us },
  { "op_expr", c_expr }, { "op_cages", c_cages }, { "op_digests", c_digests },
  { "op_bools", c_bools }, { "op_when", c_when }, { "op_any", c_any }, { "op_row", c_row },
  { "op_kinds3", c_kinds3 }, { "op_flag", c_flag }, { "op_fee", c_fee }, { "op_info", c_info },
  { "op_tag", c_tag }, { "op_tc", c_tc }, { "op_obj", c_obj }, { "_set_labels", c_labels },
  { "pass", c_vpass }, { "hold", c_vhold }, { "box", c_vbox }, { "wrap", c_vwrap },
  { "_is_a", c_isa }, { "op_any/refs", c_anyobj }, { "pass/raises", c_vbad },
  { "find", c_find },
};
#define NCALLS (sizeof calls / sizeof calls[0])

/* Every call through the proxy, recorded. */
static void record_all(void)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  pm.mode = P_PASS;
  pm.record = 1;
  for (size_t k = 0; k < NCALLS; k++) {
    rec_label = calls[k].op;
    int ok = calls[k].fn(via, &ev);
    if (!ok)
      ck_abort_msg("%s through the proxy: %s", calls[k].op, CORBA_exception_id(&ev));
    ck_assert_ptr_nonnull(rec_find(calls[k].op));
  }
  pm.record = 0;
  ck_assert_int_eq(nrecs, (int)NCALLS);
}

/* ---------------------------------------------------------------- raw requests */

/* What one raw request got. */
typedef enum { O_REPLY, O_CLOSED, O_MSGERR } outcome_kind;
typedef struct outcome {
  outcome_kind kind;
  uint32_t status;
  char ex[64];                /* the system exception's name */
  uint32_t minor, completed;
  uint8_t body[8192];
  size_t body_len;
} outcome;

static uint32_t raw_id = 1;

/* Send a request of OP with BODY on the raw connection (opened when
 * none) and read its answer: a Reply of its ID (every other message is an
 * error), a MessageError or a close. */
static void raw_call(const char *op, const uint8_t *body, size_t n, outcome *out)
{
  if (raw_fd < 0)
    raw_fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
  uint8_t *msg;
  uint32_t id = raw_id++;
  size_t len = build_request(&msg, id, op, body, n, GIOP_RESPONSE_EXPECTED);
  int sent = nu_send_all(raw_fd, msg, len);
  free(msg);
  memset(out, 0, offsetof(outcome, body));
  size_t rlen = 0;
  uint8_t *r = sent ? nu_recv_msg(raw_fd, 1 << 20, &rlen) : NULL;
  if (!r) {
    out->kind = O_CLOSED;
    close(raw_fd);
    raw_fd = -1;
    return;
  }
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  giop_message m;
  ck_assert_int_eq(giop_parse(&m, r, rlen, NULL, &a), CDR_OK);
  if (m.hdr.type == GIOP_MESSAGE_ERROR || m.hdr.type == GIOP_CLOSE_CONNECTION) {
    out->kind = O_MSGERR;
    close(raw_fd);
    raw_fd = -1;
  } else {
    ck_assert_int_eq(m.hdr.type, GIOP_REPLY);
    ck_assert_uint_eq(m.u.reply.request_id, id);
    out->kind = O_REPLY;
    out->status = m.u.reply.reply_status;
    size_t off = cdr_in_pos(&m.body);
    out->body_len = rlen - off;
    ck_assert_uint_le(out->body_len, sizeof out->body);
    memcpy(out->body, r + off, out->body_len);
    if (out->status == GIOP_SYSTEM_EXCEPTION) {
      giop_system_exception e;
      ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
      const char *nm = giop_system_exception_name(e.repo_id, strlen(e.repo_id));
      snprintf(out->ex, sizeof out->ex, "%s", nm ? nm : e.repo_id);
      out->minor = e.minor;
      out->completed = e.completed;
    }
  }
  cdr_arena_free(&a);
  free(r);
}

static long rss_kib(void)
{
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (!f)
    return 0;
  if (fscanf(f, "%ld %ld", &pages, &res) != 2)
    res = 0;
  fclose(f);
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* the tallies of a campaign */
static struct {
  long sent, ok, marshal, bad_param, other_ex, closed;
} tally;

/* The system exceptions a mutated request may get (besides MARSHAL). */
static int allowed_ex(const char *ex)
{
  static const char *const ok[] = { "MARSHAL", "BAD_PARAM", "BAD_TYPECODE", "DATA_CONVERSION",
                                    "IMP_LIMIT", "NO_MEMORY", "INV_OBJREF", NULL };
  for (int k = 0; ok[k]; k++)
    if (!strcmp(ex, ok[k]))
      return 1;
  return 0;
}

static void expect_sane(const char *op, const outcome *o, const char *what, size_t at)
{
  tally.sent++;
  if (o->kind != O_REPLY) {
    tally.closed++;
    return;
  }
  if (o->status == GIOP_NO_EXCEPTION || o->status == GIOP_USER_EXCEPTION) {
    tally.ok++;
    return;
  }
  ck_assert_msg(o->status == GIOP_SYSTEM_EXCEPTION, "%s %s@%zu: reply status %u", op, what, at,
                o->status);
  if (!strcmp(o->ex, "MARSHAL"))
    tally.marshal++;
  else if (!strcmp(o->ex, "BAD_PARAM"))
    tally.bad_param++;
  else {
    tally.other_ex++;
    if (getenv("IDLHOSTILE_DEBUG"))
      fprintf(stderr, "%s %s@%zu: %s minor %#x\n", op, what, at, o->ex, o->minor);
  }
  ck_assert_msg(allowed_ex(o->ex), "%s %s@%zu: %s minor %#x", op, what, at, o->ex, o->minor);
}


static uint32_t rnd(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

static int quick(void)
{
  const char *q = getenv("CHECK_IDLHOSTILE_QUICK");
  return q && *q && *q != '0';
}

/* A valid request of R's operation on a fresh connection: the recorded
 * reply, octet for octet. */
static void expect_recorded(const rec *r)
{
  if (raw_fd >= 0) {
    close(raw_fd);
    raw_fd = -1;
  }
  outcome o;
  raw_call(r->op, r->req, r->req_len, &o);
  ck_assert_msg(o.kind == O_REPLY && o.status == r->rep_status, "%s: valid request after", r->op);
  if (strcmp(r->op, "op_obj")) /* (references: the same octets too) */
    ck_assert_uint_eq(o.body_len, r->rep_len);
  ck_assert_msg(o.body_len == r->rep_len && !memcmp(o.body, r->rep, r->rep_len),
                "%s: the reply differs from the recorded one", r->op);
}

static void campaign(const rec *r)
{
  static outcome o;
  cur_key = r->vz ? vz_key : srv_key;
  cur_key_len = r->vz ? &vz_key_len : &srv_key_len;
  size_t n = r->req_len;
  uint8_t buf[8192 + 16];
  /* truncated at every offset: MARSHAL, COMPLETED_NO (the request never
   * reached the servant) */
  size_t step = n > 600 ? n / 300 : 1;
  for (size_t cut = 0; cut < n; cut += step) {
    raw_call(r->op, r->req, cut, &o);
    expect_sane(r->op, &o, "truncated", cut);
    ck_assert_msg(o.kind == O_REPLY && o.status == GIOP_SYSTEM_EXCEPTION &&
                  !strcmp(o.ex, "MARSHAL") && o.completed == GIOP_COMPLETED_NO,
                  "%s truncated to %zu: %s (kind %d, status %u)", r->op, cut, o.ex, o.kind, o.status);
  }
  /* every aligned ulong set to counts, lengths, offsets, discriminators */
  for (size_t at = 0; at + 4 <= n; at += 4) {
    uint32_t vals[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x10000000u, 0x7FFFFFF0u,
                        (uint32_t)(n - at - 4 + 1), (uint32_t)(n - at - 4), 0xFFFFFFFCu, 4,
                        2, 5, 0 };
    for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
      memcpy(buf, r->req, n);
      memcpy(buf + at, &vals[v], 4);
      raw_call(r->op, buf, n, &o);
      expect_sane(r->op, &o, "word", at);
    }
  }
  /* every octet set to 0x02, 0x80, 0xFF */
  for (size_t at = 0; at < n; at++) {
    static const uint8_t ov[] = { 0x02, 0x80, 0xFF };
    for (size_t v = 0; v < sizeof ov; v++) {
      memcpy(buf, r->req, n);
      buf[at] = ov[v];
      raw_call(r->op, buf, n, &o);
      expect_sane(r->op, &o, "octet", at);
    }
  }
  /* random octets (1 to 4) */
  int rounds = quick() ? 20 : 1000;
  for (int k = 0; k < rounds; k++) {
    memcpy(buf, r->req, n);
    int m = 1 + (int)(rnd() % 4);
    for (int j = 0; j < m; j++)
      buf[rnd() % n] = (uint8_t)rnd();
    raw_call(r->op, buf, n, &o);
    expect_sane(r->op, &o, "random", (size_t)k);
  }
  /* octets after the last parameter: ignored */
  memcpy(buf, r->req, n);
  memset(buf + n, 0xEE, 16);
  raw_call(r->op, buf, n + 16, &o);
  expect_sane(r->op, &o, "trailing", n);
  expect_recorded(r);
  cur_key = srv_key;
  cur_key_len = &srv_key_len;
}

START_TEST(test_server_campaigns)
{
  world_up();
  record_all();
  memset(&tally, 0, sizeof tally);
  long rss0 = rss_kib();
  /* the first half of the operations here, the rest in the next test
   * (each within its own timeout) */
  for (int k = 0; k < nrecs; k++) {
    campaign(&recs[k]);
    if (quick() && k >= 3)
      break;
  }
  long rss1 = rss_kib();
  fprintf(stderr, "server campaigns: %ld requests, %ld answered, %ld MARSHAL, %ld BAD_PARAM, "
          "%ld other, %ld closed; RSS %ld -> %ld KiB\n", tally.sent, tally.ok, tally.marshal,
          tally.bad_param, tally.other_ex, tally.closed, rss0, rss1);
  const char *pre = getenv("LD_PRELOAD"); /* valgrind's allocator holds freed blocks too */
  if (!UNDER_ASAN && !(pre && strstr(pre, "vgpreload")))
    ck_assert_int_lt(rss1 - rss0, 64 * 1024);
  ck_assert_int_gt(tally.marshal, 0);
  if (raw_fd >= 0)
    close(raw_fd);
  raw_fd = -1;
  world_down();
}
END_TEST

/* ---------------------------------------------------------------- the stubs */

/* One stub call of OP through the proxy in the mode set: it must end with
 * EX (NULL: either success or any allowed exception); returns the
 * exception's minor, or ~0 when the call succeeded. */
static CORBA_unsigned_long stub_call(const opcall *c, const char *ex, const char *what, size_t at)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  exact = pm.mode == P_PASS || pm.mode == P_FRAG_AFTER;
  int ok = c->fn(via, &ev);
  exact = 1;
  CORBA_unsigned_long minor = ~0u;
  if (!ok && ev._major == CORBA_USER_EXCEPTION) {
    ck_assert_msg(!ex, "%s %s@%zu: user exception %s", c->op, what, at, CORBA_exception_id(&ev));
  } else if (!ok) {
    ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
    const char *id = CORBA_exception_id(&ev);
    minor = ex_minor(&ev);
    if (ex)
      ck_assert_msg(!strcmp(id, ex), "%s %s@%zu: %s minor %#x, not %s", c->op, what, at, id,
                    minor, ex);
    else
      ck_assert_msg(!strcmp(id, MARSHAL) || !strcmp(id, ex_CORBA_BAD_PARAM) ||
                    !strcmp(id, ex_CORBA_COMM_FAILURE) || !strcmp(id, ex_CORBA_DATA_CONVERSION) ||
                    !strcmp(id, ex_CORBA_BAD_TYPECODE) || !strcmp(id, ex_CORBA_IMP_LIMIT) ||
                    !strcmp(id, ex_CORBA_INV_OBJREF) ||
                    (!strcmp(id, ex_CORBA_UNKNOWN) && minor == OMG(1)), /* find's ID mutated */
                    "%s %s@%zu: %s", c->op, what, at, id);
  } else {
    ck_assert_msg(!ex, "%s %s@%zu: succeeded, %s expected", c->op, what, at, ex);
  }
  CORBA_exception_free(&ev);
  return minor;
}

static void stub_campaign(const opcall *c)
{
  const rec *r = rec_find(c->op);
  ck_assert_ptr_nonnull(r);
  size_t n = r->rep_len;
  for (size_t cut = 0; cut < n; cut++) {
    pm.mode = P_TRUNC;
    pm.arg = cut;
    stub_call(c, MARSHAL, "truncated", cut);
  }
  for (size_t at = 0; at + 4 <= n; at += 4) {
    uint32_t vals[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, (uint32_t)(n - at - 4 + 1),
                        0xFFFFFFFCu, 2, 5 };
    for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
      pm.mode = P_WORD;
      pm.arg = at;
      pm.val = vals[v];
      stub_call(c, NULL, "word", at);
    }
  }
  for (size_t at = 0; at < n; at++) {
    pm.mode = P_OCTET;
    pm.arg = at;
    pm.val = 0xFF;
    stub_call(c, NULL, "octet", at);
  }
  pm.mode = P_PASS;
  ck_assert_uint_eq(stub_call(c, NULL, "valid", 0), ~0u);
}

START_TEST(test_stub_campaigns)
{
  world_up();
  record_all();
  for (size_t k = 0; k < NCALLS; k++) {
    stub_campaign(&calls[k]);
    if (quick() && k >= 3)
      break;
  }
  world_down();
}
END_TEST

START_TEST(test_stub_bad_replies)
{
  world_up();
  record_all();
  const opcall *kind = &calls[0], *find = &calls[NCALLS - 1];
  ck_assert_str_eq(find->op, "find");
  /* a user exception the operation does not raise: UNKNOWN, minor OMG 1
   * (omniORB: UNKNOWN_UserException), COMPLETED_YES */
  pm.mode = P_USEREX;
  pm.arg = 0;
  pm.text = "IDL:nowhere/Nope:1.0";
  ck_assert_uint_eq(stub_call(kind, ex_CORBA_UNKNOWN, "unknown user exception", 0), OMG(1));
  ck_assert_uint_eq(stub_call(find, ex_CORBA_UNKNOWN, "unknown user exception", 0), OMG(1));
  /* its ID's length past the body: MARSHAL */
  pm.arg = 1;
  pm.val = 0x7FFFFFF0u;
  stub_call(find, MARSHAL, "user exception ID length", 0);
  pm.val = 9; /* 4 octets follow */
  stub_call(find, MARSHAL, "user exception ID length", 1);
  /* bad reply status */
  pm.mode = P_STATUS;
  pm.val = 6;
  stub_call(kind, NULL, "reply status 6", 0);
  pm.val = 0xFFFFFFFFu;
  stub_call(kind, NULL, "reply status ~0", 0);
  /* LOCATION_FORWARD to garbage */
  pm.mode = P_FORWARD;
  stub_call(kind, MARSHAL, "forward garbage", 0);
  /* NEEDS_ADDRESSING_MODE: the client sends KeyAddr only (and the reply
   * asks for KeyAddr): NO_IMPLEMENT, as libiiop documents */
  pm.mode = P_NEEDS_ADDR;
  stub_call(kind, ex_CORBA_NO_IMPLEMENT, "needs addressing mode", 0);
  /* C01 at the stub: op_obj's result IOR with a type_id length of
   * 0x7FFFFFF0: MARSHAL, COMPLETED_YES */
  {
    const opcall *obj = NULL;
    for (size_t k = 0; k < NCALLS; k++)
      if (!strcmp(calls[k].op, "op_obj"))
        obj = &calls[k];
    pm.mode = P_WORD;
    pm.arg = 0;
    pm.val = 0x7FFFFFF0u;
    stub_call(obj, MARSHAL, "type_id length", 0);
    pm.val = (uint32_t)rec_find("op_obj")->rep_len; /* what remains plus one */
    stub_call(obj, MARSHAL, "type_id length", 1);
  }
  /* a short body, then a hang-up: COMM_FAILURE */
  pm.mode = P_SHORT_CLOSE;
  stub_call(kind, ex_CORBA_COMM_FAILURE, "short body, hang-up", 0);
  /* forwarded to itself again and again: the client gives up (at most
   * MAX_FORWARDS hops): IMP_LIMIT, never a loop */
  pm.mode = P_FORWARD_SELF;
  {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    ck_assert(!kind->fn(via, &ev));
    ck_assert_msg(is_ex(&ev, ex_CORBA_IMP_LIMIT), "forwarded to itself: %s",
                  CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
  }
  /* a CloseConnection instead of the reply: the request was not
   * processed (CORBA 15.5.1), the client sends it again and has its answer */
  pm.mode = P_CLOSE_ONCE;
  ck_assert_uint_eq(stub_call(kind, NULL, "CloseConnection once", 0), ~0u);
  /* a MessageError instead of the reply: COMM_FAILURE */
  pm.mode = P_MSGERR;
  stub_call(kind, ex_CORBA_COMM_FAILURE, "MessageError", 0);
  /* a Fragment after a complete reply: the call has its answer */
  pm.mode = P_FRAG_AFTER;
  ck_assert_uint_eq(stub_call(kind, NULL, "fragment after", 0), ~0u);
  /* and the next calls theirs */
  pm.mode = P_PASS;
  for (size_t k = 0; k < NCALLS; k++) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    int ok = calls[k].fn(via, &ev);
    if (!ok && is_ex(&ev, ex_CORBA_COMM_FAILURE)) /* the fragment's connection, closed */
      ok = calls[k].fn(via, &ev);
    ck_assert_msg(ok, "%s after the bad replies: %s", calls[k].op, CORBA_exception_id(&ev));
  }
  world_down();
}
END_TEST


/* ---------------------------------------------------------------- the cases, through the skeletons */

/* A body built octet for octet in host order (the requests' order); its
 * alignment is the message's (a GIOP 1.2 body starts on 8). */
typedef struct bb {
  uint8_t b[4096];
  size_t n;
} bb;

static void bb_pad(bb *x, size_t a)
{
  while (x->n % a)
    x->b[x->n++] = 0;
}
static void bb_oct(bb *x, uint8_t v) { x->b[x->n++] = v; }
static void bb_raw(bb *x, const void *p, size_t n)
{
  memcpy(x->b + x->n, p, n);
  x->n += n;
}
static size_t bb_ul(bb *x, uint32_t v)
{
  bb_pad(x, 4);
  size_t at = x->n;
  bb_raw(x, &v, 4);
  return at;
}
static void bb_str(bb *x, const char *s) /* length counts the NUL */
{
  bb_ul(x, (uint32_t)strlen(s) + 1);
  bb_raw(x, s, strlen(s) + 1);
}
/* an encapsulation: its length placed, the byte-order octet written */
static size_t bb_encap(bb *x)
{
  size_t at = bb_ul(x, 0);
  bb_oct(x, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN);
  return at;
}
static void bb_end(bb *x, size_t at)
{
  uint32_t l = (uint32_t)(x->n - at - 4);
  memcpy(x->b + at, &l, 4);
}

/* OP with body X on a fresh connection: asserts a system exception EX
 * (bare name), minor MINOR, COMPLETED_NO; EX NULL: NO_EXCEPTION, and then
 * the reply body is in *O. */
static void srv_expect(const char *op, const bb *x, const char *ex, uint32_t minor, outcome *o)
{
  static outcome mine;
  if (!o)
    o = &mine;
  if (raw_fd >= 0) {
    close(raw_fd);
    raw_fd = -1;
  }
  raw_call(op, x->b, x->n, o);
  ck_assert_msg(o->kind == O_REPLY, "%s: no reply (%d)", op, o->kind);
  if (!ex) {
    ck_assert_msg(o->status == GIOP_NO_EXCEPTION, "%s: status %u %s minor %#x", op, o->status,
                  o->ex, o->minor);
    return;
  }
  ck_assert_msg(o->status == GIOP_SYSTEM_EXCEPTION && !strcmp(o->ex, ex) && o->minor == minor &&
                o->completed == GIOP_COMPLETED_NO,
                "%s: status %u %s minor %#x completed %u, not %s %#x", op, o->status, o->ex,
                o->minor, o->completed, ex, minor);
}

/* a Kind b for op_ul / a ByUL { 0xFFFFFFFF: REPTILE } */
static void ul_reptile(bb *x)
{
  bb_ul(x, 0xFFFFFFFFu);
  bb_ul(x, Zoo_REPTILE);
}

START_TEST(test_c01_c02_c03_lengths)
{
  world_up();
  bb x;
  /* C01: op_obj's IOR: type_id length 0x7FFFFFF0, 24 octets follow */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 0x7FFFFFF0u);
  x.n += 24;
  srv_expect("op_obj", &x, "MARSHAL", 0, NULL);
  /* ... a length of what remains plus one */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 25);
  x.n += 24;
  srv_expect("op_obj", &x, "MARSHAL", 0, NULL);
  /* C02 (a): sequence<Cage> (each at least 48 octets) of 0x10000000, 40
   * octets; sequence<Expr> the same */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 0x10000000u);
  x.n += 40;
  srv_expect("op_cages", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  bb_ul(&x, 1);
  bb_ul(&x, 0x10000000u);
  x.n += 40;
  srv_expect("op_expr", &x, "MARSHAL", 0, NULL);
  /* ... bounded sequence<Tag, 4> of 5 strings: past its bound */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 5);
  for (int k = 0; k < 5; k++)
    bb_str(&x, "t");
  srv_expect("_set_labels", &x, "MARSHAL", 0, NULL);
  /* (b): an any of sequence<struct E {}>, count 0xFFFFFFFF, no element
   * octets: refused by max_seq (IMP_LIMIT), not a loop of 4 Gi elements */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 19); /* tk_sequence */
  size_t e = bb_encap(&x);
  bb_ul(&x, 15); /* tk_struct */
  size_t e2 = bb_encap(&x);
  bb_str(&x, "IDL:E:1.0");
  bb_str(&x, "E");
  bb_ul(&x, 0);
  bb_end(&x, e2);
  bb_ul(&x, 0); /* unbounded */
  bb_end(&x, e);
  bb_ul(&x, 0xFFFFFFFFu);
  srv_expect("op_any", &x, "IMP_LIMIT", 0, NULL);
  /* C03: sequence<boolean> with a high-bit count, then a ulong 42 */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 0x80000000u);
  bb_ul(&x, 42);
  srv_expect("op_bools", &x, "MARSHAL", 0, NULL);
  world_down();
}
END_TEST

START_TEST(test_c05_c06_c07_strings_booleans_discriminators)
{
  world_up();
  bb x;
  outcome o;
  /* C05: op_tag (string<16>, in and inout) */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 5);
  bb_raw(&x, "crhyv", 5); /* (a) no NUL */
  bb_ul(&x, 2);
  bb_raw(&x, "b", 2);
  srv_expect("op_tag", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  bb_ul(&x, 0); /* (b) length 0 */
  bb_ul(&x, 5);
  srv_expect("op_tag", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  bb_ul(&x, 4);
  bb_raw(&x, "a\0b\0", 4); /* (c) a NUL inside */
  bb_ul(&x, 2);
  bb_raw(&x, "b", 2);
  srv_expect("op_tag", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  bb_ul(&x, 1);
  bb_oct(&x, 0); /* (d) the empty string */
  bb_ul(&x, 2);
  bb_raw(&x, "x", 2);
  srv_expect("op_tag", &x, NULL, 0, &o);
  {
    bb w;
    memset(&w, 0, sizeof w);
    bb_str(&w, "");
    bb_str(&w, "");
    bb_str(&w, "x");
    ck_assert_uint_eq(o.body_len, w.n);
    ck_assert(!memcmp(o.body, w.b, w.n));
  }
  /* a string past its bound (17 characters for string<16>) */
  memset(&x, 0, sizeof x);
  bb_str(&x, "seventeen-chars!!");
  bb_str(&x, "b");
  srv_expect("op_tag", &x, "MARSHAL", 0, NULL);

  /* C06: sequence<boolean> 00 01 05; Flag's boolean discriminator FF, 02 */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 3);
  bb_raw(&x, "\0\1\5", 3);
  bb_ul(&x, 0);
  srv_expect("op_bools", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  bb_ul(&x, 3);
  bb_raw(&x, "\0\1\1", 3);
  bb_ul(&x, 1);
  bb_oct(&x, 0xFF);
  srv_expect("op_bools", &x, "MARSHAL", 0, NULL); /* the inout one's */
  static const uint8_t bads[] = { 0xFF, 0x02 };
  for (int k = 0; k < 2; k++) {
    memset(&x, 0, sizeof x);
    bb_oct(&x, bads[k]);
    x.n = 16;
    bb_oct(&x, 0);
    srv_expect("op_flag", &x, "MARSHAL", 0, NULL);
  }

  /* C07 (a) FALSE, no member: Flag(FALSE) twice: FALSE three times back */
  memset(&x, 0, sizeof x);
  bb_oct(&x, 0);
  bb_oct(&x, 0);
  srv_expect("op_flag", &x, NULL, 0, &o);
  ck_assert_uint_eq(o.body_len, 3);
  ck_assert(!memcmp(o.body, "\0\0\0", 3));
  /* (b) TRUE, 7 padding octets, the double 7.0; then FALSE */
  memset(&x, 0, sizeof x);
  bb_oct(&x, 1);
  bb_pad(&x, 8);
  double d = 7.0;
  bb_raw(&x, &d, 8);
  bb_oct(&x, 0);
  srv_expect("op_flag", &x, NULL, 0, &o);
  {
    bb w;
    memset(&w, 0, sizeof w);
    for (int k = 0; k < 2; k++) {
      bb_oct(&w, 1);
      bb_pad(&w, 8);
      bb_raw(&w, &d, 8);
    }
    bb_oct(&w, 0);
    ck_assert_uint_eq(o.body_len, w.n);
    ck_assert(!memcmp(o.body, w.b, w.n));
  }
  /* (d) ByKind switched on Kind {MAMMAL..FISH}: 4 and 5 */
  for (uint32_t dv = 4; dv <= 5; dv++) {
    memset(&x, 0, sizeof x);
    bb_ul(&x, dv);
    bb_oct(&x, 'c');
    bb_ul(&x, Zoo_FISH);
    bb_oct(&x, 'c');
    srv_expect("op_kind", &x, "MARSHAL", 0, NULL);
  }
  /* (e) Info's Kind 0xFFFFFFFF, its Mood 2 (of 2) */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 0xFFFFFFFFu);
  bb_ul(&x, 0);
  bb_raw(&x, "\0\0\0\0\x0c", 5); /* fixed<9,2> 0.00 */
  srv_expect("op_info", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  bb_ul(&x, 0);
  bb_ul(&x, 2);
  bb_raw(&x, "\0\0\0\0\x0c", 5);
  srv_expect("op_info", &x, "MARSHAL", 0, NULL);
  /* ByUL's ulong discriminator 1 (no case, no default): no member, as
   * CORBA says of a union without a default (accepted, then echoed) */
  memset(&x, 0, sizeof x);
  bb_ul(&x, 1);
  ul_reptile(&x);
  srv_expect("op_ul", &x, NULL, 0, &o);
  {
    bb w;
    memset(&w, 0, sizeof w);
    bb_ul(&w, 1);
    bb_ul(&w, 1);
    ul_reptile(&w);
    ck_assert_uint_eq(o.body_len, w.n);
    ck_assert(!memcmp(o.body, w.b, w.n));
  }
  /* fixed<9,2> with a bad digit nibble, a bad sign nibble */
  static const uint8_t badfix[][5] = { { 0, 0, 0, 0xA0, 0x0C }, { 0, 0, 0, 0x10, 0x0A } };
  for (int k = 0; k < 2; k++) {
    memset(&x, 0, sizeof x);
    bb_raw(&x, badfix[k], 5);
    bb_raw(&x, "\0\0\0\0\x0c", 5);
    srv_expect("op_fee", &x, "MARSHAL", 0, NULL);
  }
  world_down();
}
END_TEST

/* The TypeCode tk_struct S { sequence<long> a; sequence<long> b; } into X,
 * b written as an indirection of offset OFF from the offset's own position
 * (0: back to a's TypeCode, as it should be). */
static void struct_two_seqs(bb *x, int off_mode)
{
  bb_ul(x, 15);
  size_t e = bb_encap(x);
  bb_str(x, "IDL:S:1.0");
  bb_str(x, "S");
  bb_ul(x, 2);
  bb_str(x, "a");
  size_t a_kind = bb_ul(x, 19);
  size_t e2 = bb_encap(x);
  bb_ul(x, 3);
  bb_ul(x, 0);
  bb_end(x, e2);
  bb_str(x, "b");
  size_t ind = bb_ul(x, 0xFFFFFFFFu);
  size_t offpos = x->n;
  int32_t off;
  switch (off_mode) {
  case 0: off = (int32_t)a_kind - (int32_t)offpos; break;     /* a's kind: accepted */
  case 1: off = -4; break;                                    /* the indirection itself */
  case 2: off = 8; break;                                     /* forward */
  case 3: off = -(int32_t)offpos - 64; break;                 /* before the body */
  case 4: off = (int32_t)a_kind - (int32_t)offpos + 4; break; /* not at a kind */
  default: off = 0; break;                                    /* at itself */
  }
  (void)ind;
  bb_raw(x, &off, 4);
  bb_end(x, e);
}

START_TEST(test_c09_typecodes)
{
  world_up();
  bb x;
  outcome o;
  /* C09 accepted: the TypeCode back, then b (tk_long) as c */
  memset(&x, 0, sizeof x);
  struct_two_seqs(&x, 0);
  bb_ul(&x, 3);
  srv_expect("op_tc", &x, NULL, 0, &o);
  {
    cdr_in i;
    cdr_opts op;
    cdr_opts_default(&op);
    op.giop_minor = 2;
    ck_assert_int_eq(cdr_in_init(&i, o.body, o.body_len, CDR_HOST_ORDER, &op), CDR_OK);
    cdr_arena ar;
    cdr_arena_init(&ar, NULL);
    cdr_in_set_arena(&i, &ar);
    cdr_typecode t1 = NULL, t2 = NULL, t3 = NULL;
    ck_assert_int_eq(cdr_get_typecode(&i, &t1), CDR_OK);
    ck_assert_int_eq(cdr_get_typecode(&i, &t2), CDR_OK);
    ck_assert_int_eq(cdr_get_typecode(&i, &t3), CDR_OK);
    uint32_t nm = 0;
    ck_assert_int_eq(cdr_tc_member_count(t1, &nm), CDR_OK);
    ck_assert_uint_eq(nm, 2);
    ck_assert_int_eq(cdr_tc_equal(t1, t2), 1);
    ck_assert_int_eq(cdr_in_remaining(&i), 0);
    cdr_tc_release(t1);
    cdr_tc_release(t2);
    cdr_tc_release(t3);
    cdr_in_close(&i);
    cdr_arena_free(&ar);
  }
  /* refused: at itself (-4), forward, before the body, not at a kind,
   * offset 0 */
  for (int m = 1; m <= 5; m++) {
    memset(&x, 0, sizeof x);
    struct_two_seqs(&x, m);
    bb_ul(&x, 3);
    srv_expect("op_tc", &x, "MARSHAL", 0, NULL);
  }
  /* TypeCode kinds out of range: 34 (past tk_local_interface) and ~0 - 1 */
  static const uint32_t kinds[] = { 34, 0xFFFFFFFEu, 0x7FFFFFFFu };
  for (int k = 0; k < 3; k++) {
    memset(&x, 0, sizeof x);
    bb_ul(&x, kinds[k]);
    bb_ul(&x, 3);
    srv_expect("op_tc", &x, "MARSHAL", 0, NULL);
  }
  /* an A -> B -> A chain: struct A { B b; } where B's member is an
   * indirection to A (A contains itself, not through a sequence) */
  memset(&x, 0, sizeof x);
  size_t a_kind = bb_ul(&x, 15);
  size_t ea = bb_encap(&x);
  bb_str(&x, "IDL:A:1.0");
  bb_str(&x, "A");
  bb_ul(&x, 1);
  bb_str(&x, "b");
  bb_ul(&x, 15);
  size_t eb = bb_encap(&x);
  bb_str(&x, "IDL:B:1.0");
  bb_str(&x, "B");
  bb_ul(&x, 1);
  bb_str(&x, "a");
  bb_ul(&x, 0xFFFFFFFFu);
  int32_t off = (int32_t)a_kind - (int32_t)x.n;
  bb_raw(&x, &off, 4);
  bb_end(&x, eb);
  bb_end(&x, ea);
  bb_ul(&x, 3);
  srv_expect("op_tc", &x, "MARSHAL", 0, NULL);
  /* nesting past max_depth (64): sequence<sequence<...<long>>> 100 deep */
  memset(&x, 0, sizeof x);
  size_t at[100];
  for (int k = 0; k < 100; k++) {
    bb_ul(&x, 19);
    at[k] = bb_encap(&x);
  }
  bb_ul(&x, 3);
  for (int k = 99; k >= 0; k--) {
    bb_ul(&x, 0);
    bb_end(&x, at[k]);
  }
  bb_ul(&x, 3);
  srv_expect("op_tc", &x, "IMP_LIMIT", 0, NULL);
  /* an any whose TypeCode is fine and whose value is short: MARSHAL */
  memset(&x, 0, sizeof x);
  struct_two_seqs(&x, 0);
  bb_ul(&x, 2);
  bb_ul(&x, 1);
  srv_expect("op_any", &x, "MARSHAL", 0, NULL);
  world_down();
}
END_TEST

START_TEST(test_c18_wstrings)
{
  world_up();
  bb x;
  outcome o;
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  cdr_opts op;
  cdr_opts_default(&op);
  op.giop_minor = 2;
  /* (a) a BOM (big-endian), U+1F0A1 as a surrogate pair, "AB"; (b) the
   * little-endian BOM; (e) length 0 */
  static const struct {
    uint32_t len;
    const char *oct;
    const CORBA_wchar want[4];
  } good[] = {
    { 10, "\xFE\xFF\xD8\x3C\xDC\xA1\x00\x41\x00\x42", { 0x1F0A1, 'A', 'B', 0 } },
    { 6, "\xFF\xFE\x3C\xD8\xA1\xDC", { 0x1F0A1, 0 } },
    { 4, "\x00\x41\x00\x42", { 'A', 'B', 0 } },  /* no BOM: big-endian */
    { 0, "", { 0 } },
  };
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
    memset(&x, 0, sizeof x);
    bb_ul(&x, 0);
    bb_ul(&x, good[k].len);
    bb_raw(&x, good[k].oct, good[k].len);
    ul_reptile(&x);
    srv_expect("op_ul", &x, NULL, 0, &o);
    cdr_in i;
    ck_assert_int_eq(cdr_in_init(&i, o.body, o.body_len, CDR_HOST_ORDER, &op), CDR_OK);
    cdr_in_set_arena(&i, &ar);
    Zoo_ByUL r;
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(cdr_read(&i, TC_Zoo_ByUL, &r), CDR_OK);
    ck_assert_uint_eq(r._d, 0);
    for (int j = 0;; j++) {
      ck_assert_uint_eq(r._u.w[j], good[k].want[j]);
      if (!good[k].want[j])
        break;
    }
    cdr_in_close(&i);
  }
  /* (c) an odd length; (d) a lone high surrogate */
  static const struct {
    uint32_t len;
    const char *oct;
  } bad[] = { { 7, "\x00\x41\x00\x42\x00\x43\x00" }, { 2, "\xD8\x3C" }, { 4, "\xDC\xA1\x00\x41" } };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    memset(&x, 0, sizeof x);
    bb_ul(&x, 0);
    bb_ul(&x, bad[k].len);
    bb_raw(&x, bad[k].oct, bad[k].len);
    ul_reptile(&x);
    srv_expect("op_ul", &x, "MARSHAL", 0, NULL);
  }
  cdr_arena_free(&ar);
  world_down();
}
END_TEST

START_TEST(test_c18g_wstring_without_codesets)
{
  world_up();
  /* a connection whose first request carries no CodeSets context, the
   * second a wstring: the default code sets (no wchar one in GIOP 1.2
   * without negotiation): BAD_PARAM minor 23, as CORBA says */
  int fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
  for (int k = 0; k < 2; k++) {
    cdr_opts o;
    cdr_opts_default(&o);
    o.giop_minor = 2;
    cdr_out out;
    ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
    giop_request_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 100 + (uint32_t)k;
    h.response_flags = GIOP_RESPONSE_EXPECTED;
    h.target.disposition = GIOP_KEY_ADDR;
    h.target.key = srv_key;
    h.target.key_len = srv_key_len;
    h.operation = k ? "op_ul" : "op_flag";
    h.operation_len = (uint32_t)strlen(h.operation);
    ck_assert_int_eq(giop_begin_request(&out, &h), CDR_OK);
    giop_begin_body(&out);
    if (k) {
      cdr_put_ulong(&out, 0);
      cdr_put_ulong(&out, 2);
      cdr_put_octet(&out, 0);
      cdr_put_octet(&out, 'A');
      cdr_put_ulong(&out, 0xFFFFFFFFu);
      cdr_put_ulong(&out, 2);
    } else {
      cdr_put_octet(&out, 0);
      cdr_put_octet(&out, 0);
    }
    ck_assert_int_eq(giop_end(&out), CDR_OK);
    ck_assert(nu_send_all(fd, cdr_out_data(&out), cdr_out_size(&out)));
    cdr_out_close(&out);
    size_t rlen;
    uint8_t *r = nu_recv_msg(fd, 1 << 20, &rlen);
    ck_assert_ptr_nonnull(r);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, r, rlen, NULL, &a), CDR_OK);
    ck_assert_int_eq(m.hdr.type, GIOP_REPLY);
    if (!k) {
      ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
    } else {
      ck_assert_uint_eq(m.u.reply.reply_status, GIOP_SYSTEM_EXCEPTION);
      giop_system_exception e;
      ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
      ck_assert_str_eq(e.repo_id, ex_CORBA_BAD_PARAM);
      ck_assert_uint_eq(e.minor, OMG(23));
    }
    cdr_arena_free(&a);
    free(r);
  }
  close(fd);
  world_down();
}
END_TEST

/* An IOR into X: type_id ID, then one profile of TAG whose data is an
 * encapsulation (little-endian) of BODY[0..N). */
static void ior_one_profile(bb *x, const char *id, uint32_t tag, const uint8_t *body, size_t n)
{
  bb_str(x, id);
  bb_ul(x, 1);
  bb_ul(x, tag);
  bb_ul(x, (uint32_t)n + 1);
  bb_oct(x, 1);
  bb_raw(x, body, n);
}

START_TEST(test_objref_unusable_profiles)
{
  world_up();
  bb x, w;
  outcome o;
  /* op_obj(a: a reference whose only profile is TAG_MULTIPLE_COMPONENTS,
   * b: nil): accepted (it was NO_IMPLEMENT, the request refused) and
   * echoed octet for octet: a, a, then nil */
  static const uint8_t mc[] = { 0, 0, 0, 0, 0, 0, 0 }; /* padding, 0 components */
  memset(&x, 0, sizeof x);
  ior_one_profile(&x, "IDL:zoo.example/Zoo/Animal:1.0", IIOP_TAG_MULTIPLE_COMPONENTS, mc, sizeof mc);
  size_t one = x.n;
  bb_str(&x, "");
  bb_ul(&x, 0);
  srv_expect("op_obj", &x, NULL, 0, &o);
  memset(&w, 0, sizeof w);
  bb_raw(&w, x.b, one);
  bb_pad(&w, 4);
  bb_raw(&w, x.b, one);
  bb_str(&w, "");
  bb_ul(&w, 0);
  ck_assert_uint_eq(o.body_len, w.n);
  ck_assert(!memcmp(o.body, w.b, w.n));
  /* an IIOP profile of version 1.9: MARSHAL (omniORB: MARSHAL_InvalidIOR) */
  static const uint8_t v19[] = { 1, 9, 0, 2, 0, 0, 0, 'h', 0, 0x10, 0x27, 1, 0, 0, 0, 'k' };
  memset(&x, 0, sizeof x);
  ior_one_profile(&x, "IDL:X:1.0", IIOP_TAG_INTERNET_IOP, v19, sizeof v19);
  bb_str(&x, "");
  bb_ul(&x, 0);
  srv_expect("op_obj", &x, "MARSHAL", 0, NULL);

  /* the stub: a result whose only profile is another protocol's is a
   * reference, its calls TRANSIENT; the same reference in a string is
   * refused (INV_OBJREF minor 9), as before */
  memset(&w, 0, sizeof w);
  ior_one_profile(&w, "IDL:zoo.example/Zoo/Keeper:1.7", 99, mc, sizeof mc);
  one = w.n;
  bb_pad(&w, 4);
  bb_raw(&w, w.b, one);
  bb_str(&w, "");
  bb_ul(&w, 0);
  pm.mode = P_RAW;
  pm.val = GIOP_NO_EXCEPTION;
  pm.raw = w.b;
  pm.arg = w.n;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_Object b = CORBA_OBJECT_NIL, c = CORBA_OBJECT_NIL;
  CORBA_Object r = Zoo_Keeper_op_obj(via, real, &b, &c, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_nonnull(r);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_null(c);
  Zoo_Flag fa = { CORBA_FALSE, { 0 } }, fb = fa, fc;
  (void)Zoo_Keeper_op_flag(r, &fa, &fb, &fc, &ev);
  ck_assert(is_ex(&ev, ex_CORBA_TRANSIENT));
  CORBA_exception_free(&ev);
  CORBA_char *str = CORBA_ORB_object_to_string(orb, r, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object again = CORBA_ORB_string_to_object(orb, str, &ev);
  ck_assert_ptr_null(again);
  ck_assert(is_ex(&ev, ex_CORBA_INV_OBJREF));
  ck_assert_uint_eq(ex_minor(&ev), OMG(9));
  CORBA_exception_free(&ev);
  CORBA_free(str);
  CORBA_Object_release(r, &ev);
  CORBA_Object_release(b, &ev);
  pm.mode = P_PASS;
  world_down();
}
END_TEST

/* ---------------------------------------------------------------- other orders and versions */

/* The in and inout parameters' types of the recorded operations whose
 * values libcdr reads alone (no object references), two of the same type
 * each (a, b); the reply: the result a, b set to a, c the old b. */
static const struct {
  const char *op;
  CORBA_TypeCode tc;
} retyped[] = {
  { "op_kind", TC_Zoo_ByKind }, { "op_ll", TC_Zoo_ByLL }, { "op_ul", TC_Zoo_ByUL },
  { "op_us", TC_Zoo_ByUS }, { "op_expr", TC_Zoo_Expr }, { "op_cages", TC_Zoo_Cages },
  { "op_digests", TC_Zoo_Digests }, { "op_bools", TC_Zoo_Bools }, { "op_when", TC_Zoo_When },
  { "op_any", TC_CORBA_any }, { "op_row", TC_Zoo_Row }, { "op_kinds3", TC_Zoo_Kinds3 },
  { "op_flag", TC_Zoo_Flag }, { "op_fee", TC_Zoo_Fee }, { "op_info", TC_Zoo_Animal_Info },
  { "op_tag", TC_Zoo_Common_Tag }, { "op_tc", TC_CORBA_TypeCode },
};

/* A Request of OP (GIOP 1.MINOR, byte order ORDER, a CodeSets context
 * unless 1.0) carrying A and B of type TC; its length, the message in *BUF
 * (malloc'd); *BODY_AT where the body starts. */
static size_t build_typed(uint8_t **buf, size_t *body_at, uint8_t minor, int order, uint32_t id,
                          const char *op, CORBA_TypeCode tc, const void *a, const void *b)
{
  cdr_opts o;
  cdr_opts_default(&o);
  o.giop_minor = minor;
  o.byte_order = (uint8_t)order;
  cdr_out out;
  ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
  giop_request_header h;
  memset(&h, 0, sizeof h);
  h.request_id = id;
  h.response_flags = GIOP_RESPONSE_EXPECTED;
  h.target.disposition = GIOP_KEY_ADDR;
  h.target.key = srv_key;
  h.target.key_len = srv_key_len;
  h.operation = op;
  h.operation_len = (uint32_t)strlen(op);
  uint8_t csd[12];
  giop_service_context c;
  if (minor >= 1)
    codeset_sc(&h.contexts, &c, csd);
  ck_assert_int_eq(giop_begin_request(&out, &h), CDR_OK);
  giop_begin_body(&out);
  *body_at = cdr_out_size(&out);
  int rc = cdr_write(&out, tc, a);
  if (rc == CDR_OK)
    rc = cdr_write(&out, tc, b);
  ck_assert_msg(rc == CDR_OK, "%s in GIOP 1.%u: %s", op, minor, cdr_strerror(rc));
  ck_assert_int_eq(giop_end(&out), CDR_OK);
  size_t len = cdr_out_size(&out);
  *buf = malloc(len);
  memcpy(*buf, cdr_out_data(&out), len);
  cdr_out_close(&out);
  return len;
}

/* Send MSG (LEN octets, request ID ID) on the raw connection (opened
 * when none); the reply, parsed into *M (its arena A), in *R (the caller
 * frees it), or NULL on a close. */
static uint8_t *send_one(const uint8_t *msg, size_t len, uint32_t id, giop_message *m,
                         cdr_arena *a)
{
  if (raw_fd < 0)
    raw_fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
  size_t rlen;
  uint8_t *r = nu_send_all(raw_fd, msg, len) ? nu_recv_msg(raw_fd, 1 << 20, &rlen) : NULL;
  if (!r) {
    close(raw_fd);
    raw_fd = -1;
    return NULL;
  }
  cdr_opts o;
  cdr_opts_default(&o);
  o.tcs_c = CDR_CS_UTF8;
  o.tcs_w = CDR_CS_UTF16;
  ck_assert_int_eq(giop_parse(m, r, rlen, &o, a), CDR_OK);
  if (m->hdr.type == GIOP_REPLY) {
    ck_assert_uint_eq(m->u.reply.request_id, id);
  } else {
    close(raw_fd);
    raw_fd = -1;
  }
  return r;
}

START_TEST(test_orders_and_versions)
{
  world_up();
  record_all();
  long sent = 0, marshal = 0;
  for (size_t t = 0; t < sizeof retyped / sizeof retyped[0]; t++) {
    const rec *q = rec_find(retyped[t].op);
    ck_assert_ptr_nonnull(q);
    CORBA_TypeCode tc = retyped[t].tc;
    /* the recorded body's two values */
    cdr_arena va;
    cdr_arena_init(&va, NULL);
    cdr_opts io;
    cdr_opts_default(&io);
    io.giop_minor = 2;
    io.tcs_c = CDR_CS_UTF8;
    io.tcs_w = CDR_CS_UTF16;
    cdr_in i;
    ck_assert_int_eq(cdr_in_init(&i, q->req, q->req_len, CDR_HOST_ORDER, &io), CDR_OK);
    cdr_in_set_arena(&i, &va);
    void *a = cdr_arena_alloc(&va, tc->size, tc->align), *b = cdr_arena_alloc(&va, tc->size, tc->align);
    memset(a, 0, tc->size);
    memset(b, 0, tc->size);
    ck_assert_int_eq(cdr_read(&i, tc, a), CDR_OK);
    ck_assert_int_eq(cdr_read(&i, tc, b), CDR_OK);
    ck_assert_uint_eq(cdr_in_remaining(&i), 0);
    cdr_in_close(&i);
    for (int v = 0; v < 6; v++) {
      uint8_t minor = (uint8_t)(v / 2);
      int order = v % 2 ? CDR_BIG_ENDIAN : CDR_LITTLE_ENDIAN;
      int wide = tc == TC_Zoo_ByUL; /* a wstring: none in GIOP 1.0 */
      if (minor == 0 && wide)
        continue;
      /* a connection per version and order: its first request fixes its
       * code sets (a GIOP 1.0 one carries no CodeSets context here) */
      if (raw_fd >= 0)
        close(raw_fd);
      raw_fd = -1;
      uint8_t *msg;
      size_t at, len = build_typed(&msg, &at, minor, order, 7, q->op, tc, a, b);
      cdr_arena ra;
      cdr_arena_init(&ra, NULL);
      giop_message m;
      uint8_t *r = send_one(msg, len, 7, &m, &ra);
      ck_assert_ptr_nonnull(r);
      ck_assert_int_eq(m.hdr.type, GIOP_REPLY);
      {
        ck_assert_msg(m.u.reply.reply_status == GIOP_NO_EXCEPTION, "%s 1.%u %s: status %u",
                      q->op, minor, order == CDR_BIG_ENDIAN ? "BE" : "LE",
                      m.u.reply.reply_status);
        cdr_in_set_arena(&m.body, &ra);
        void *got = cdr_arena_alloc(&ra, tc->size, tc->align);
        for (int k = 0; k < 3; k++) {
          memset(got, 0, tc->size);
          ck_assert_int_eq(cdr_read(&m.body, tc, got), CDR_OK);
          ck_assert_msg(cdr_value_equal(tc, got, k < 2 ? a : b) == 1, "%s 1.%u %s: value %d",
                        q->op, minor, order == CDR_BIG_ENDIAN ? "BE" : "LE", k);
        }
        ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
      }
      cdr_in_close(&m.body);
      cdr_arena_free(&ra);
      free(r);
      /* truncated at every offset of the body: MARSHAL (message_size
       * follows the cut); every aligned ulong set to ~0 */
      size_t n = len - at;
      size_t step = n > 300 ? n / 150 : 1;
      for (size_t cut = 0; cut < n; cut += step) {
        uint32_t sz = (uint32_t)(at + cut - 12);
        if (order != CDR_HOST_ORDER)
          sz = __builtin_bswap32(sz);
        memcpy(msg + 8, &sz, 4);
        cdr_arena_init(&ra, NULL);
        r = send_one(msg, at + cut, 7, &m, &ra);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(m.hdr.type, GIOP_REPLY);
        ck_assert_uint_eq(m.u.reply.reply_status, GIOP_SYSTEM_EXCEPTION);
        giop_system_exception e;
        ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
        ck_assert_msg(!strcmp(e.repo_id, ex_CORBA_MARSHAL), "%s 1.%u cut %zu: %s", q->op, minor,
                      cut, e.repo_id);
        sent++;
        marshal++;
        cdr_in_close(&m.body);
        cdr_arena_free(&ra);
        free(r);
      }
      uint32_t sz = (uint32_t)(len - 12);
      if (order != CDR_HOST_ORDER)
        sz = __builtin_bswap32(sz);
      memcpy(msg + 8, &sz, 4);
      for (size_t w = (at + 3) & ~(size_t)3; w + 4 <= len; w += 4) {
        uint8_t keep[4];
        memcpy(keep, msg + w, 4);
        memset(msg + w, 0xFF, 4);
        cdr_arena_init(&ra, NULL);
        r = send_one(msg, len, 7, &m, &ra);
        sent++;
        if (r) {
          ck_assert_int_eq(m.hdr.type, GIOP_REPLY);
          if (m.u.reply.reply_status == GIOP_SYSTEM_EXCEPTION) {
            giop_system_exception e;
            ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
            const char *nm = giop_system_exception_name(e.repo_id, strlen(e.repo_id));
            ck_assert_msg(nm && allowed_ex(nm), "%s 1.%u word %zu: %s", q->op, minor, w, e.repo_id);
            marshal += !strcmp(nm, "MARSHAL");
          } else {
            ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
          }
          cdr_in_close(&m.body);
          free(r);
        }
        cdr_arena_free(&ra);
        memcpy(msg + w, keep, 4);
      }
      free(msg);
    }
    cdr_arena_free(&va);
  }
  fprintf(stderr, "orders and versions: %ld mutated requests, %ld MARSHAL\n", sent, marshal);
  if (raw_fd >= 0)
    close(raw_fd);
  raw_fd = -1;
  world_down();
}
END_TEST

/* ---------------------------------------------------------------- values: the fixed faults */

/* An any into X whose TypeCode is tk_value "IDL:V/Named:1.0" "Named" {
 * public string name; private long secret; } (no concrete base: Shape is
 * abstract), or when HOSTILE the same ID with name a long; then the value:
 * a tag with one repository ID, "nm" (or the long 8), secret 21. */
static void named_any(bb *x, int hostile)
{
  bb_ul(x, 29); /* tk_value */
  size_t e = bb_encap(x);
  bb_str(x, "IDL:V/Named:1.0");
  bb_str(x, "Named");
  bb_pad(x, 2);
  x->b[x->n++] = 0; /* type_modifier VM_NONE (a short) */
  x->b[x->n++] = 0;
  bb_ul(x, 0); /* concrete base: tk_null */
  bb_ul(x, 2);
  bb_str(x, "name");
  bb_ul(x, hostile ? 3 : 18); /* long where the program has a string */
  if (!hostile)
    bb_ul(x, 0);                /* the string's bound */
  bb_pad(x, 2);
  x->b[x->n++] = 1; /* PUBLIC_MEMBER */
  x->b[x->n++] = 0;
  bb_str(x, "secret");
  bb_ul(x, 3);
  bb_pad(x, 2);
  x->b[x->n++] = 0; /* PRIVATE_MEMBER */
  x->b[x->n++] = 0;
  bb_end(x, e);
  bb_ul(x, 0x7FFFFF02u); /* a value tag with one repository ID */
  bb_str(x, "IDL:V/Named:1.0");
  if (hostile)
    bb_ul(x, 8); /* "name" as a long: a pointer 8 if read as V_Named */
  else
    bb_str(x, "nm");
  bb_ul(x, 21);
}

START_TEST(test_any_same_id_other_layout)
{
  world_up();
  bb x;
  outcome o;
  /* the real layout: wrap() doubles the secret */
  memset(&x, 0, sizeof x);
  named_any(&x, 0);
  cur_key = vz_key;
  cur_key_len = &vz_key_len;
  srv_expect("wrap", &x, NULL, 0, &o);
  ck_assert_uint_gt(o.body_len, 4);
  /* the same repository ID, "name" a long: the servant's
   * CORBA_TypeCode_equivalent(a->_type, TC_V_Named) is false (it was
   * true, and reading the value as a V_Named crashed the server), so
   * wrap() answers an empty any: tk_null, no value */
  memset(&x, 0, sizeof x);
  named_any(&x, 1);
  srv_expect("wrap", &x, NULL, 0, &o);
  ck_assert_uint_eq(o.body_len, 4);
  ck_assert(!memcmp(o.body, "\0\0\0\0", 4));
  cur_key = srv_key;
  cur_key_len = &srv_key_len;

  /* the same in the process: libcdr's equivalent (by ID, as CORBA says)
   * is true, the mapping's false; the real layout's true */
  for (int h = 0; h < 2; h++) {
    memset(&x, 0, sizeof x);
    named_any(&x, h);
    cdr_opts op;
    cdr_opts_default(&op);
    op.giop_minor = 2;
    cdr_in i;
    cdr_arena ar;
    cdr_arena_init(&ar, NULL);
    ck_assert_int_eq(cdr_in_init(&i, x.b, x.n, CDR_HOST_ORDER, &op), CDR_OK);
    cdr_in_set_arena(&i, &ar);
    cdr_typecode t = NULL;
    ck_assert_int_eq(cdr_get_typecode(&i, &t), CDR_OK);
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    ck_assert_int_eq(cdr_tc_equivalent(t, TC_V_Named), 1);
    ck_assert_int_eq(CORBA_TypeCode_equivalent(t, TC_V_Named, &ev), h ? CORBA_FALSE : CORBA_TRUE);
    ck_assert_int_eq(CORBA_TypeCode_equivalent(TC_V_Named, t, &ev), h ? CORBA_FALSE : CORBA_TRUE);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    cdr_tc_release(t);
    cdr_in_close(&i);
    cdr_arena_free(&ar);
  }
  world_down();
}
END_TEST

START_TEST(test_value_reply_cut_after_result)
{
  world_up();
  record_all();
  /* pass()'s reply (result, inout, out: three values of one graph) cut
   * at every offset: MARSHAL, COMPLETED_YES; a cut inside the inout or
   * out value came after the result was read into the graph (giving the
   * result back freed the graph, which was then read and freed again) */
  const rec *r = rec_find("pass");
  ck_assert_ptr_nonnull(r);
  const opcall *pass = NULL;
  for (size_t k = 0; k < NCALLS; k++)
    if (!strcmp(calls[k].op, "pass"))
      pass = &calls[k];
  for (size_t cut = 0; cut < r->rep_len; cut++) {
    pm.mode = P_TRUNC;
    pm.arg = cut;
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    exact = 0;
    ck_assert(!pass->fn(via, &ev));
    exact = 1;
    ck_assert_msg(is_ex(&ev, MARSHAL), "cut %zu: %s", cut, CORBA_exception_id(&ev));
    ck_assert_uint_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->completed,
                      CORBA_COMPLETED_YES);
    CORBA_exception_free(&ev);
  }
  pm.mode = P_PASS;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  ck_assert(pass->fn(via, &ev));
  world_down();
}
END_TEST

/* ---------------------------------------------------------------- C08, C14, C17 */

/* An IOR (LE, the request's order) whose IIOP profile body is a
 * big-endian encapsulation holding a TAG_CODE_SETS component that is a
 * little-endian one; PBO the profile's byte-order octet, OVER: the
 * component's length 64 past the profile's end. */
static void ior_mixed(bb *x, uint8_t pbo, int over)
{
  bb_str(x, "IDL:zoo.example/Zoo/Animal:1.0");
  bb_ul(x, 1);
  bb_ul(x, IIOP_TAG_INTERNET_IOP);
  size_t pl = bb_ul(x, 0);
  size_t p0 = x->n;
  bb_oct(x, pbo);                                /* big-endian from here */
  static const uint8_t head[] = { 1, 2, 0, 0, 0, 0, 10, '1', '2', '7', '.', '0', '.', '0', '.',
                                  '1', 0, 0x27, 0x10, 0, 0, 0, 2, 'k', 'y' };
  bb_raw(x, head, sizeof head);                  /* 1.2, host (aligned on the encapsulation),
                                                  * port 10000, key "ky" */
  while ((x->n - p0) % 4)
    bb_oct(x, 0);
  static const uint8_t comps[] = { 0, 0, 0, 1, 0, 0, 0, 1 }; /* 1 component, TAG_CODE_SETS */
  bb_raw(x, comps, sizeof comps);
  uint8_t cl[4] = { 0, 0, 0, (uint8_t)(over ? 64 + 20 : 20) };
  bb_raw(x, cl, 4);
  /* the component: little-endian; char native UTF-8, no conversion,
   * wchar native UTF-16, no conversion */
  static const uint8_t cs[] = { 1, 0, 0, 0, 0x01, 0x00, 0x01, 0x05, 0, 0, 0, 0,
                                0x09, 0x01, 0x01, 0x00, 0, 0, 0, 0 };
  bb_raw(x, cs, sizeof cs);
  uint32_t plen = (uint32_t)(x->n - p0);
  memcpy(x->b + pl, &plen, 4);
}

START_TEST(test_c08_nested_byte_orders)
{
  world_up();
  bb x, w;
  outcome o;
  memset(&x, 0, sizeof x);
  ior_mixed(&x, 0, 0);
  size_t one = x.n;
  bb_str(&x, "");
  bb_ul(&x, 0);
  srv_expect("op_obj", &x, NULL, 0, &o);
  memset(&w, 0, sizeof w);
  bb_raw(&w, x.b, one);
  bb_pad(&w, 4);
  bb_raw(&w, x.b, one);
  bb_str(&w, "");
  bb_ul(&w, 0);
  ck_assert_uint_eq(o.body_len, w.n);
  ck_assert(!memcmp(o.body, w.b, w.n)); /* kept octet for octet */
  /* a byte-order octet of 2; a component running past the profile */
  memset(&x, 0, sizeof x);
  ior_mixed(&x, 2, 0);
  bb_str(&x, "");
  bb_ul(&x, 0);
  srv_expect("op_obj", &x, "MARSHAL", 0, NULL);
  memset(&x, 0, sizeof x);
  ior_mixed(&x, 0, 1);
  bb_str(&x, "");
  bb_ul(&x, 0);
  srv_expect("op_obj", &x, "MARSHAL", 0, NULL);
  world_down();
}
END_TEST

/* A V::Named value into X, little-endian, chunked: tag 0x7FFFFF0A, its
 * ID, one chunk of LEN (STATE: "nm", secret 21, 12 octets), end tag -1. */
static void named_chunked(bb *x, uint32_t len)
{
  bb_ul(x, 0x7FFFFF0Au);
  bb_str(x, "IDL:V/Named:1.0");
  bb_ul(x, len);
  if (len) {
    bb_str(x, "nm");
    bb_ul(x, 21);
  }
  bb_ul(x, 0xFFFFFFFFu);
}

START_TEST(test_c14_chunked_values)
{
  world_up();
  bb x;
  outcome o;
  cur_key = vz_key;
  cur_key_len = &vz_key_len;
  /* (b) a chunk of 12 (its length in the stream's order), the end tag:
   * pass() gets name "nm", secret 21 and answers { "nm", 22 } */
  memset(&x, 0, sizeof x);
  named_chunked(&x, 12);
  bb_ul(&x, 0); /* io: null */
  srv_expect("pass", &x, NULL, 0, &o);
  {
    cdr_opts op;
    cdr_opts_default(&op);
    op.giop_minor = 2;
    cdr_in i;
    cdr_arena ar;
    cdr_arena_init(&ar, NULL);
    ck_assert_int_eq(cdr_in_init(&i, o.body, o.body_len, CDR_HOST_ORDER, &op), CDR_OK);
    cdr_in_set_arena(&i, &ar);
    V_Named *r = NULL;
    ck_assert_int_eq(cdr_read(&i, TC_V_Named, &r), CDR_OK);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r->name, "nm");
    ck_assert_int_eq(r->secret, 22);
    cdr_in_close(&i);
    cdr_arena_free(&ar);
  }
  /* (c) a chunk length of 0 where one is expected; a chunk length past
   * the body; byte-swapped (0x0C000000) */
  static const uint32_t bad[] = { 0, 0x7FFFFF00u - 1, 0x0C000000u };
  for (int k = 0; k < 3; k++) {
    memset(&x, 0, sizeof x);
    named_chunked(&x, 12);
    memcpy(x.b + 24, &bad[k], 4); /* the chunk length (after the tag and the 20-octet ID) */
    bb_ul(&x, 0);
    srv_expect("pass", &x, "MARSHAL", 0, NULL);
  }
  cur_key = srv_key;
  cur_key_len = &srv_key_len;
  world_down();
}
END_TEST

/* A GIOP 1.2 USER_EXCEPTION Reply (LE) with one service context of 12
 * octets, so that the context list ends at offset 44: then PAD (4: to 48)
 * padding octets, Common::NotFound's ID and { "nf", 404, ["x", "y"] };
 * ID_LEN 0: the ID's own length, else that. */
static size_t userex_reply(uint8_t *m, size_t pad, uint32_t id_len)
{
  bb x;
  memset(&x, 0, sizeof x);
  x.n = 12;
  bb_ul(&x, 0);                         /* request ID, patched */
  bb_ul(&x, GIOP_USER_EXCEPTION);
  bb_ul(&x, 1);
  bb_ul(&x, 0x41545400u);               /* a context of omniORB's range */
  bb_ul(&x, 12);
  bb_raw(&x, "\1\0\0\0abcdefgh", 12);
  ck_assert_uint_eq(x.n, 44);
  x.n += pad;
  bb_ul(&x, id_len ? id_len : (uint32_t)strlen(ex_Zoo_Common_NotFound) + 1);
  bb_raw(&x, ex_Zoo_Common_NotFound, strlen(ex_Zoo_Common_NotFound) + 1);
  bb_str(&x, "nf");
  bb_ul(&x, 404);
  bb_ul(&x, 2);
  bb_str(&x, "x");
  bb_str(&x, "y");
  nu_header(x.b, 2, 1, 0, GIOP_REPLY, (uint32_t)(x.n - 12));
  memcpy(m, x.b, x.n);
  return x.n;
}

START_TEST(test_c17_user_exception_alignment)
{
  world_up();
  uint8_t m[512];
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  pm.mode = P_RAWMSG;
  pm.raw = m;
  /* (a) padded to 48: find() raises NotFound { "nf", 404, [x, y] } */
  pm.arg = userex_reply(m, 4, 0);
  Zoo_Keeper_find(via, "nf", &ev);
  ck_assert_int_eq(ev._major, CORBA_USER_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_Zoo_Common_NotFound);
  Zoo_Common_NotFound *nf = CORBA_exception_value(&ev);
  ck_assert_str_eq(nf->what, "nf");
  ck_assert_int_eq(nf->code, 404);
  ck_assert_uint_eq(nf->near._length, 2);
  ck_assert_str_eq(nf->near._buffer[1], "y");
  CORBA_exception_free(&ev);
  /* (b) the ID at 44, unpadded: the reader aligns to 48, a bogus length:
   * MARSHAL; (c) an ID length past the message: MARSHAL */
  pm.arg = userex_reply(m, 0, 0);
  Zoo_Keeper_find(via, "nf", &ev);
  ck_assert(is_ex(&ev, MARSHAL));
  CORBA_exception_free(&ev);
  pm.arg = userex_reply(m, 4, 4000);
  Zoo_Keeper_find(via, "nf", &ev);
  ck_assert(is_ex(&ev, MARSHAL));
  CORBA_exception_free(&ev);
  pm.mode = P_PASS;
  Zoo_Keeper_find(via, "other", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  world_down();
}
END_TEST

START_TEST(test_nesting_past_the_limit)
{
  world_up();
  bb x;
  outcome o;
  /* Expr nested through its sequence 20 times (41 constructed levels:
   * decodes) and 200 times (past max_depth 64: IMP_LIMIT, no stack
   * overflow) */
  static const int depths[] = { 20, 200 };
  for (int d = 0; d < 2; d++) {
    memset(&x, 0, sizeof x);
    for (int k = 0; k < depths[d]; k++) {
      bb_ul(&x, 1);
      bb_ul(&x, 1);
    }
    bb_ul(&x, 0);
    bb_pad(&x, 8);
    x.n += 8; /* num 0 */
    bb_ul(&x, 0); /* b: { 0: num } */
    bb_pad(&x, 8);
    x.n += 8;
    if (d == 0) {
      srv_expect("op_expr", &x, NULL, 0, &o);
    } else {
      srv_expect("op_expr", &x, "IMP_LIMIT", 0, NULL);
    }
  }
  /* an any holding an any holding an any ... 200 deep: IMP_LIMIT */
  memset(&x, 0, sizeof x);
  for (int k = 0; k < 200; k++)
    bb_ul(&x, 11); /* tk_any, then the value: an any */
  bb_ul(&x, 3);
  bb_ul(&x, 7);
  bb_ul(&x, 3);
  bb_ul(&x, 7);
  srv_expect("op_any", &x, "IMP_LIMIT", 0, NULL);
  world_down();
}
END_TEST

/* ---------------------------------------------------------------- oneways, pipelines */

START_TEST(test_oneway_and_pipelined)
{
  world_up();
  record_all();
  /* note(Cage, Tags, any): a oneway, so no answer to a bad one; each
   * mutation then a valid op_flag on the same connection, which must be
   * answered (the connection neither stuck nor closed by the oneway) */
  cdr_opts op;
  cdr_opts_default(&op);
  op.giop_minor = 2;
  cdr_out out;
  ck_assert_int_eq(cdr_out_init(&out, &op), CDR_OK);
  Zoo_Cage cg;
  cage(&cg, "note", 1, "a", "b", "1.00");
  Zoo_Common_Tags tg;
  memset(&tg, 0, sizeof tg);
  strs(&tg, 2, (const char *const[]){ "t1", "t2" });
  CORBA_long seven = 7;
  CORBA_any an = { ._type = TC_CORBA_long, ._value = &seven, ._release = CORBA_FALSE };
  ck_assert_int_eq(cdr_write(&out, TC_Zoo_Cage, &cg), CDR_OK);
  ck_assert_int_eq(cdr_write(&out, TC_Zoo_Common_Tags, &tg), CDR_OK);
  ck_assert_int_eq(cdr_write(&out, TC_CORBA_any, &an), CDR_OK);
  uint8_t body[512];
  size_t n = cdr_out_size(&out);
  ck_assert_uint_le(n, sizeof body);
  memcpy(body, cdr_out_data(&out), n);
  cdr_out_close(&out);
  corbaorb_free_contents(TC_Zoo_Cage, &cg);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &tg);
  const rec *flag = rec_find("op_flag");
  ck_assert_ptr_nonnull(flag);
  __atomic_store_n(&notes, 0, __ATOMIC_SEQ_CST);
  int valid = 0;
  outcome o;
  for (size_t k = 0; k <= n + n / 4; k++) {
    uint8_t b[512];
    memcpy(b, body, n);
    size_t len = n;
    if (k < n)
      len = k;                            /* truncated */
    else if (k == n)
      valid = 1;                          /* whole */
    else
      memset(b + 4 * (k - n - 1), 0xFF, 4); /* a ulong ~0 */
    uint8_t *msg;
    size_t mlen = build_request(&msg, raw_id++, "note", b, len, GIOP_RESPONSE_NONE);
    if (raw_fd < 0)
      raw_fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
    ck_assert(nu_send_all(raw_fd, msg, mlen));
    free(msg);
    raw_call("op_flag", flag->req, flag->req_len, &o);
    ck_assert_msg(o.kind == O_REPLY && o.status == GIOP_NO_EXCEPTION, "after note %zu: %d", k,
                  o.kind);
  }
  ck_assert_int_ge(__atomic_load_n(&notes, __ATOMIC_SEQ_CST), valid);

  /* 64 requests in one write, every other one truncated: 64 replies,
   * each ID once, the truncated ones MARSHAL */
  const rec *kind = rec_find("op_kind");
  ck_assert_ptr_nonnull(kind);
  uint8_t *all = NULL;
  size_t all_len = 0;
  uint32_t id0 = raw_id;
  for (int k = 0; k < 64; k++) {
    uint8_t *msg;
    size_t mlen = build_request(&msg, raw_id++, "op_kind", kind->req,
                                k % 2 ? kind->req_len / 2 : kind->req_len, GIOP_RESPONSE_EXPECTED);
    all = realloc(all, all_len + mlen);
    memcpy(all + all_len, msg, mlen);
    all_len += mlen;
    free(msg);
  }
  if (raw_fd >= 0)
    close(raw_fd);
  raw_fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
  ck_assert(nu_send_all(raw_fd, all, all_len));
  free(all);
  uint64_t seen = 0;
  for (int k = 0; k < 64; k++) {
    size_t rlen;
    uint8_t *r = nu_recv_msg(raw_fd, 1 << 20, &rlen);
    ck_assert_ptr_nonnull(r);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, r, rlen, NULL, &a), CDR_OK);
    ck_assert_int_eq(m.hdr.type, GIOP_REPLY);
    uint32_t i = m.u.reply.request_id - id0;
    ck_assert_uint_lt(i, 64);
    ck_assert(!(seen & (1ull << i)));
    seen |= 1ull << i;
    ck_assert_uint_eq(m.u.reply.reply_status, i % 2 ? GIOP_SYSTEM_EXCEPTION : GIOP_NO_EXCEPTION);
    if (i % 2) {
      giop_system_exception e;
      ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
      ck_assert_str_eq(e.repo_id, ex_CORBA_MARSHAL);
    } else {
      ck_assert_uint_eq(rlen - cdr_in_pos(&m.body), kind->rep_len);
      ck_assert(!memcmp(r + cdr_in_pos(&m.body), kind->rep, kind->rep_len));
    }
    cdr_arena_free(&a);
    free(r);
  }
  ck_assert(seen == ~0ull);
  world_down();
}
END_TEST

START_TEST(test_c11_c20_messages_and_strings)
{
  world_up();
  record_all();
  const rec *flag = rec_find("op_flag");
  outcome o;
  /* C11 (a): a header announcing 0xFFFFFFF0 octets, then a hang-up; (c)
   * a Fragment of a request ID never opened: MessageError; then a valid
   * request on a fresh connection is answered */
  int fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
  uint8_t h[12];
  nu_header(h, 2, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN, 0, GIOP_REQUEST, 0xFFFFFFF0u);
  ck_assert(nu_send_all(fd, h, 12));
  close(fd);
  fd = nu_connect(NULL, srv_port, 20, NU_NODELAY);
  uint8_t f[16];
  nu_header(f, 2, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN, 0, GIOP_FRAGMENT, 4);
  uint32_t never = 0xABCDEF;
  memcpy(f + 12, &never, 4);
  ck_assert(nu_send_all(fd, f, 16));
  size_t rlen;
  uint8_t *r = nu_recv_msg(fd, 1 << 20, &rlen);
  ck_assert_ptr_nonnull(r);
  giop_header gh;
  ck_assert_int_eq(giop_header_parse(r, rlen, &gh), CDR_OK);
  ck_assert_int_eq(gh.type, GIOP_MESSAGE_ERROR);
  free(r);
  close(fd);
  raw_call("op_flag", flag->req, flag->req_len, &o);
  ck_assert(o.kind == O_REPLY && o.status == GIOP_NO_EXCEPTION);
  ck_assert(o.body_len == flag->rep_len && !memcmp(o.body, flag->rep, flag->rep_len));

  /* C20: object strings the stubs would be given: a bad port or an empty
   * host BAD_PARAM, an IOR string that ends too soon or has a non-hex
   * digit MARSHAL, with omniORB's minors (corba.h) */
  static const struct {
    const char *s;
    const char *ex;
    uint32_t minor;
  } bad[] = {
    { "corbaloc:iiop:1.2@127.0.0.1:70000/x", ex_CORBA_BAD_PARAM, OMG(8) }, /* BadAddress */
    { "corbaloc:iiop:1.2@:2809/x", ex_CORBA_BAD_PARAM, OMG(9) }, /* BadSchemeSpecificPart */
    { "IOR:0", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE }, /* ends too soon */
    { "IOR:0100000x", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR }, /* not a hex digit */
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_Object x = CORBA_ORB_string_to_object(orb, bad[k].s, &ev);
    ck_assert_ptr_null(x);
    ck_assert_msg(is_ex(&ev, bad[k].ex), "%s: %s", bad[k].s, CORBA_exception_id(&ev));
    ck_assert_msg(ex_minor(&ev) == bad[k].minor, "%s: minor %#x", bad[k].s, ex_minor(&ev));
    CORBA_exception_free(&ev);
  }
  /* the long numeric host component is a host name (no overflow); the
   * bracketed IPv6 literal an address: both references, unreachable ones
   * only when called */
  static const char *const good[] = { "corbaloc:iiop:1.2@1234567890123.1.1.1:2809/NameService",
                                      "corbaloc:iiop:[::1]:2809/x" };
  for (size_t k = 0; k < 2; k++) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_Object x = CORBA_ORB_string_to_object(orb, good[k], &ev);
    ck_assert_msg(x && ev._major == CORBA_NO_EXCEPTION, "%s: %s", good[k],
                  CORBA_exception_id(&ev));
    CORBA_Object_release(x, &ev);
  }
  world_down();
}
END_TEST

START_TEST(test_latin1_campaigns)
{
  world_up();
  record_all();
  /* the string-carrying operations again on connections whose char code
   * set is ISO-8859-1 (the server converts: its in strings are no longer
   * views into the request, octets 0x80-0xFF are characters) */
  static const char *const ops[] = { "op_tag", "find", "_set_labels", "op_ll", "op_when",
                                     "op_cages", "op_any", "op_tc", "_is_a" };
  req_tcs_c = CDR_CS_ISO8859_1;
  memset(&tally, 0, sizeof tally);
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    if (raw_fd >= 0)
      close(raw_fd);
    raw_fd = -1;
    const rec *r = rec_find(ops[k]);
    ck_assert_ptr_nonnull(r);
    campaign(r);
  }
  req_tcs_c = CDR_CS_UTF8;
  fprintf(stderr, "ISO-8859-1 campaigns: %ld requests, %ld answered, %ld MARSHAL, %ld other\n",
          tally.sent, tally.ok, tally.marshal, tally.other_ex);
  ck_assert_int_gt(tally.marshal, 0);
  world_down();
}
END_TEST

/* V::Zoo's recorded requests decoded by their parameters' types and sent
 * again in GIOP 1.1 and 1.2, both byte orders (chunk lengths, value tags
 * and indirections in the message's order): answered as recorded
 * (NO_EXCEPTION), every truncation MARSHAL. */
START_TEST(test_values_orders_and_versions)
{
  world_up();
  record_all();
  static const struct {
    const char *label;
    CORBA_TypeCode tcs[3];
    int n;
  } vops[] = {
    { "pass", { TC_V_Named, TC_V_Named }, 2 },
    { "hold", { TC_V_Holder }, 1 },
    { "box", { TC_V_StrBox, TC_V_PtBox, TC_V_LongsBox }, 3 },
    { "wrap", { TC_CORBA_any }, 1 },
    { "pass/raises", { TC_V_Named, TC_V_Named }, 2 },
  };
  long cuts = 0;
  for (size_t t = 0; t < sizeof vops / sizeof vops[0]; t++) {
    const rec *q = rec_find(vops[t].label);
    ck_assert_ptr_nonnull(q);
    cdr_arena va;
    cdr_arena_init(&va, NULL);
    cdr_opts io;
    cdr_opts_default(&io);
    io.giop_minor = 2;
    io.tcs_c = CDR_CS_UTF8;
    io.tcs_w = CDR_CS_UTF16;
    cdr_in i;
    ck_assert_int_eq(cdr_in_init(&i, q->req, q->req_len, CDR_HOST_ORDER, &io), CDR_OK);
    cdr_in_set_arena(&i, &va);
    void *v[3];
    for (int k = 0; k < vops[t].n; k++) {
      CORBA_TypeCode tc = vops[t].tcs[k];
      v[k] = cdr_arena_alloc(&va, tc->size, tc->align);
      memset(v[k], 0, tc->size);
      ck_assert_int_eq(cdr_read(&i, tc, v[k]), CDR_OK);
    }
    ck_assert_uint_eq(cdr_in_remaining(&i), 0);
    cdr_in_close(&i);
    for (int m = 0; m < 4; m++) {
      uint8_t minor = (uint8_t)(1 + m / 2);
      int order = m % 2 ? CDR_BIG_ENDIAN : CDR_LITTLE_ENDIAN;
      if (raw_fd >= 0)
        close(raw_fd);
      raw_fd = -1;
      cdr_opts o;
      cdr_opts_default(&o);
      o.giop_minor = minor;
      o.byte_order = (uint8_t)order;
      cdr_out out;
      ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
      giop_request_header h;
      memset(&h, 0, sizeof h);
      h.request_id = 9;
      h.response_flags = GIOP_RESPONSE_EXPECTED;
      h.target.disposition = GIOP_KEY_ADDR;
      h.target.key = vz_key;
      h.target.key_len = vz_key_len;
      h.operation = q->op;
      h.operation_len = (uint32_t)strlen(q->op);
      uint8_t csd[12];
      giop_service_context c;
      codeset_sc(&h.contexts, &c, csd);
      ck_assert_int_eq(giop_begin_request(&out, &h), CDR_OK);
      giop_begin_body(&out);
      size_t at = cdr_out_size(&out);
      for (int k = 0; k < vops[t].n; k++)
        ck_assert_int_eq(cdr_write(&out, vops[t].tcs[k], v[k]), CDR_OK);
      ck_assert_int_eq(giop_end(&out), CDR_OK);
      size_t len = cdr_out_size(&out);
      uint8_t *msg = malloc(len);
      memcpy(msg, cdr_out_data(&out), len);
      cdr_out_close(&out);
      cdr_arena ra;
      cdr_arena_init(&ra, NULL);
      giop_message gm;
      uint8_t *r = send_one(msg, len, 9, &gm, &ra);
      ck_assert_ptr_nonnull(r);
      ck_assert_int_eq(gm.hdr.type, GIOP_REPLY);
      ck_assert_msg(gm.u.reply.reply_status == q->rep_status, "%s 1.%u %s: status %u",
                    q->label, minor, m % 2 ? "BE" : "LE", gm.u.reply.reply_status);
      cdr_in_close(&gm.body);
      cdr_arena_free(&ra);
      free(r);
      for (size_t cut = 0; cut < len - at; cut++) {
        uint32_t sz = (uint32_t)(at + cut - 12);
        if (order != CDR_HOST_ORDER)
          sz = __builtin_bswap32(sz);
        memcpy(msg + 8, &sz, 4);
        cdr_arena_init(&ra, NULL);
        r = send_one(msg, at + cut, 9, &gm, &ra);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(gm.hdr.type, GIOP_REPLY);
        ck_assert_uint_eq(gm.u.reply.reply_status, GIOP_SYSTEM_EXCEPTION);
        giop_system_exception e;
        ck_assert_int_eq(giop_get_system_exception(&gm.body, &e), CDR_OK);
        ck_assert_msg(!strcmp(e.repo_id, ex_CORBA_MARSHAL), "%s 1.%u cut %zu: %s", q->label,
                      minor, cut, e.repo_id);
        cuts++;
        cdr_in_close(&gm.body);
        cdr_arena_free(&ra);
        free(r);
      }
      free(msg);
    }
    cdr_arena_free(&va);
  }
  fprintf(stderr, "values in other orders and versions: %ld truncations, all MARSHAL\n", cuts);
  world_down();
}
END_TEST

static Suite *idlhostile_suite(void)
{
  Suite *su = suite_create("idlhostile");
  TCase *tc = tcase_create("server");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_server_campaigns);
  tcase_add_test(tc, test_orders_and_versions);
  tcase_add_test(tc, test_oneway_and_pipelined);
  tcase_add_test(tc, test_latin1_campaigns);
  tcase_add_test(tc, test_values_orders_and_versions);
  suite_add_tcase(su, tc);
  tc = tcase_create("stubs");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_stub_campaigns);
  tcase_add_test(tc, test_stub_bad_replies);
  suite_add_tcase(su, tc);
  tc = tcase_create("cases");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_c01_c02_c03_lengths);
  tcase_add_test(tc, test_c05_c06_c07_strings_booleans_discriminators);
  tcase_add_test(tc, test_c09_typecodes);
  tcase_add_test(tc, test_c18_wstrings);
  tcase_add_test(tc, test_c18g_wstring_without_codesets);
  tcase_add_test(tc, test_objref_unusable_profiles);
  tcase_add_test(tc, test_any_same_id_other_layout);
  tcase_add_test(tc, test_value_reply_cut_after_result);
  tcase_add_test(tc, test_c08_nested_byte_orders);
  tcase_add_test(tc, test_c14_chunked_values);
  tcase_add_test(tc, test_c17_user_exception_alignment);
  tcase_add_test(tc, test_nesting_past_the_limit);
  tcase_add_test(tc, test_c11_c20_messages_and_strings);
  suite_add_tcase(su, tc);
  return su;
}

const tu_program tu_prog = { .suite = idlhostile_suite };
