/* orb.c - the ORB, object references and the POA subset
 * (corbaorb/corba.h), over libiiop's client and server.
 */
#include "orb_impl.h"
#include <cdr/any.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SET_SYS(ev, id, c) CORBA_exception_set_system((ev), (id), (c))

static char *xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

/* ---------------------------------------------------------------- libcdr's object references */

/* libcdr marshals object references inside constructed types and anys
 * through process-wide hooks: the C value of an object reference is a
 * CORBA_Object.  References it decodes need an ORB (a client to call
 * through): one that is initialised and not destroyed (the first such;
 * when it is destroyed, another live one). */
static CORBA_ORB hook_orb; /* atomic */
static CORBA_ORB live_orbs; /* every ORB initialised and not destroyed, under orbs_lock */
static pthread_mutex_t orbs_lock = PTHREAD_MUTEX_INITIALIZER;

static int hook_write(cdr_out *o, const void *ref, void *ud)
{
  (void)ud;
  return corbaorb_object_write(o, (CORBA_Object)(uintptr_t)ref);
}

static int hook_read(cdr_in *i, void **ref, void *ud)
{
  (void)ud;
  CORBA_ORB orb = __atomic_load_n(&hook_orb, __ATOMIC_ACQUIRE);
  CORBA_Object o = NULL;
  int rc = orb ? corbaorb_object_read(orb, i, &o) : CDR_E_STATE;
  *ref = o;
  if (rc != CDR_OK && cdr_in_status(i) == CDR_OK)
    cdr_in_fail(i, rc, rc == CDR_E_STATE ? "an object reference with no ORB to make it"
                                         : "an object reference the ORB cannot use");
  return cdr_in_status(i);
}

static void *hook_dup(const void *ref, void *ud)
{
  (void)ud;
  return corbaorb_object_dup((CORBA_Object)(uintptr_t)ref);
}

static void hook_release(void *ref, void *ud)
{
  (void)ud;
  corbaorb_object_release(ref);
}

static int hook_equal(const void *a, const void *b, void *ud)
{
  (void)ud;
  return CORBA_Object_is_equivalent((CORBA_Object)(uintptr_t)a, (CORBA_Object)(uintptr_t)b, NULL);
}

static const cdr_objref_hooks objref_hooks = { hook_write, hook_read, hook_dup, hook_release,
                                               hook_equal, NULL };

static void install_hooks(void)
{
  (void)cdr_set_objref_hooks(&objref_hooks);
}

/* ---------------------------------------------------------------- ORB_init */

/* Remove argv[i] and N following from ARGV. */
static void take_args(int *argc, char **argv, int i, int n)
{
  for (int j = i; j + n <= *argc; j++)
    argv[j] = argv[j + n];
  *argc -= n;
}

static int parse_endpoint(CORBA_ORB orb, const char *v)
{
  /* giop:tcp:HOST:PORT (HOST may be empty, or [v6]) */
  const char *p = NULL;
  if (!strncmp(v, "giop:tcp:", 9))
    p = v + 9;
  else if (!strncmp(v, "tcp:", 4))
    p = v + 4;
  if (!p)
    return -1;
  const char *colon = strrchr(p, ':');
  if (!colon)
    return -1;
  size_t hl = (size_t)(colon - p);
  if (hl >= 2 && p[0] == '[' && p[hl - 1] == ']') { /* [v6 address] */
    p++;
    hl -= 2;
  }
  char *host = malloc(hl + 1);
  if (!host)
    return -2;
  memcpy(host, p, hl);
  host[hl] = 0;
  unsigned long port = 0;
  if (colon[1]) {
    char *end;
    port = strtoul(colon + 1, &end, 10);
    if (*end || port > 65535) {
      free(host);
      return -1;
    }
  }
  free(orb->host);
  if (!hl) {
    free(host);
    host = xstrdup("127.0.0.1");
    if (!host)
      return -2;
  }
  orb->host = host;
  orb->port = (uint16_t)port;
  return 0;
}

static int add_initref(CORBA_ORB orb, const char *v)
{
  const char *eq = strchr(v, '=');
  if (!eq || eq == v || !eq[1])
    return -1;
  char **n = realloc(orb->initref_names, (orb->ninitrefs + 1) * sizeof *n);
  if (!n)
    return -2;
  orb->initref_names = n;
  char **u = realloc(orb->initref_urls, (orb->ninitrefs + 1) * sizeof *u);
  if (!u)
    return -2;
  orb->initref_urls = u;
  char *name = malloc((size_t)(eq - v) + 1);
  char *url = xstrdup(eq + 1);
  if (!name || !url) {
    free(name);
    free(url);
    return -2;
  }
  memcpy(name, v, (size_t)(eq - v));
  name[eq - v] = 0;
  orb->initref_names[orb->ninitrefs] = name;
  orb->initref_urls[orb->ninitrefs] = url;
  orb->ninitrefs++;
  return 0;
}

static void orb_free(CORBA_ORB orb)
{
  if (!orb)
    return;
  for (size_t i = 0; i < orb->ninitrefs; i++) {
    free(orb->initref_names[i]);
    free(orb->initref_urls[i]);
  }
  free(orb->initref_names);
  free(orb->initref_urls);
  free(orb->default_initref);
  free(orb->host);
  while (orb->pois) {
    PortableServer_POA p = orb->pois;
    orb->pois = p->next;
    free(p->name);
    free(p->prefix);
    free(p);
  }
  if (orb->server)
    iiop_server_free(orb->server);
  if (orb->client)
    iiop_client_free(orb->client);
  pthread_mutex_destroy(&orb->lock);
  pthread_cond_destroy(&orb->cond);
  free(orb);
}

CORBA_ORB CORBA_ORB_init(int *argc, char **argv, const CORBA_char *orb_identifier,
                         CORBA_Environment *ev)
{
  (void)orb_identifier;
  CORBA_ORB orb = calloc(1, sizeof *orb);
  if (!orb) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  orb->kind = OBJ_ORB;
  pthread_mutex_init(&orb->lock, NULL);
  pthread_cond_init(&orb->cond, NULL);
  orb->manager.kind = OBJ_POAMANAGER;
  orb->manager.orb = orb;
  orb->timeout_ms = -1;
  orb->host = xstrdup("127.0.0.1");
  if (!orb->host)
    goto nomem;
  for (int i = 1; argc && argv && i < *argc;) {
    const char *a = argv[i];
    if (strncmp(a, "-ORB", 4)) {
      i++;
      continue;
    }
    const char *opt = a + 4;
    int known = !strcmp(opt, "endPoint") || !strcmp(opt, "InitRef") ||
                !strcmp(opt, "DefaultInitRef") || !strcmp(opt, "clientCallTimeOutPeriod");
    if (!known) {
      i++;
      continue;
    }
    if (i + 1 >= *argc)
      goto badparam;
    const char *v = argv[i + 1];
    int rc = 0;
    if (!strcmp(opt, "endPoint"))
      rc = parse_endpoint(orb, v);
    else if (!strcmp(opt, "InitRef"))
      rc = add_initref(orb, v);
    else if (!strcmp(opt, "DefaultInitRef")) {
      free(orb->default_initref);
      orb->default_initref = xstrdup(v);
      rc = orb->default_initref ? 0 : -2;
    } else {
      char *end;
      long t = strtol(v, &end, 10);
      if (*end || t < 0 || t > 0x7fffffff)
        rc = -1;
      else
        orb->timeout_ms = (int)t;
    }
    if (rc == -1)
      goto badparam;
    if (rc == -2)
      goto nomem;
    take_args(argc, argv, i, 2);
  }
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  if (orb->timeout_ms >= 0)
    co.timeout_ms = orb->timeout_ms;
  orb->client = iiop_client_new(&co);
  if (!orb->client) {
    orb_free(orb);
    SET_SYS(ev, ex_CORBA_INITIALIZE, CORBA_COMPLETED_NO);
    return NULL;
  }
  static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
  pthread_once(&hooks_once, install_hooks);
  pthread_mutex_lock(&orbs_lock);
  orb->next_orb = live_orbs;
  live_orbs = orb;
  if (!__atomic_load_n(&hook_orb, __ATOMIC_ACQUIRE))
    __atomic_store_n(&hook_orb, orb, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&orbs_lock);
  return orb;
badparam:
  orb_free(orb);
  SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
  return NULL;
nomem:
  orb_free(orb);
  SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
  return NULL;
}

/* ---------------------------------------------------------------- references */

CORBA_Object corbaorb_object_new(CORBA_ORB orb, const char *str, CORBA_Environment *ev)
{
  if (!orb || !str) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  CORBA_Object o = calloc(1, sizeof *o);
  if (!o) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  o->kind = OBJ_REMOTE;
  o->refs = 1;
  o->orb = orb;
  cdr_arena_init(&o->arena, NULL);
  int rc;
  if (!strncasecmp(str, "IOR:", 4)) {
    rc = iiop_ior_from_string(str, &o->arena, &o->ior);
    if (rc == CDR_OK) {
      size_t n = strlen(str) + 1;
      o->str = cdr_arena_alloc(&o->arena, n, 1);
      if (o->str)
        memcpy(o->str, str, n);
      else
        rc = CDR_E_NOMEM;
    }
  } else if (!strncasecmp(str, "corbaloc:", 9)) {
    iiop_corbaloc cl;
    rc = iiop_corbaloc_parse(str, &o->arena, &cl);
    if (rc == CDR_OK)
      rc = iiop_ior_make(&o->arena, "", cl.addrs[0].major, cl.addrs[0].minor, cl.addrs[0].host,
                         cl.addrs[0].port, cl.key, cl.key_len, NULL, 0, &o->ior);
    if (rc == CDR_OK)
      rc = iiop_ior_to_string(&o->ior, CDR_HOST_ORDER, &o->arena, &o->str);
  } else {
    rc = CDR_E_INVALID;
  }
  if (rc == CDR_OK && o->ior.nprofiles == 0) {
    /* a nil reference ("IOR:" of no profiles): CORBA_OBJECT_NIL */
    cdr_arena_free(&o->arena);
    free(o);
    return CORBA_OBJECT_NIL;
  }
  if (rc == CDR_OK)
    rc = iiop_client_resolve(orb->client, str, &o->ref);
  if (rc != CDR_OK) {
    cdr_arena_free(&o->arena);
    free(o);
    if (rc == CDR_E_NOMEM)
      SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    else /* OMG minor 9: a malformed object string (BAD_PARAM), as omniORB */
      corbaorb_exception_set_system_minor(ev, rc == CDR_E_UNSUPPORTED ? ex_CORBA_INV_OBJREF
                                                                       : ex_CORBA_BAD_PARAM,
                                          0x4f4d0000u | 9, CORBA_COMPLETED_NO);
    return NULL;
  }
  return o;
}

/* A TypeCode passed as a CORBA_Object (the mapping releases TypeCodes
 * with CORBA_Object_release): a descriptor begins with its cdr_kind. */
static int is_typecode(CORBA_Object obj)
{
  return obj && obj->kind >= CDR_K_OCTET && obj->kind <= CDR_K_LOCAL_INTERFACE;
}

CORBA_Object corbaorb_object_dup(CORBA_Object obj)
{
  if (is_typecode(obj))
    return (CORBA_Object)cdr_tc_dup((cdr_typecode)(const void *)obj, NULL);
  if (obj && obj->kind == OBJ_REMOTE)
    __atomic_add_fetch(&obj->refs, 1, __ATOMIC_RELAXED);
  return obj;
}

void corbaorb_object_release(CORBA_Object obj)
{
  if (is_typecode(obj)) {
    cdr_tc_release((cdr_typecode)(const void *)obj);
    return;
  }
  if (!obj || obj->kind != OBJ_REMOTE)
    return; /* the ORB, its POAs and manager live as long as the ORB */
  if (__atomic_sub_fetch(&obj->refs, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  iiop_ref_free(obj->ref);
  cdr_arena_free(&obj->arena);
  free(obj);
}

int corbaorb_object_write(cdr_out *o, CORBA_Object obj)
{
  if (!obj || obj->kind != OBJ_REMOTE) {
    /* nil: an empty type ID and no profiles */
    cdr_put_string(o, "");
    cdr_put_ulong(o, 0);
    return cdr_out_status(o);
  }
  return iiop_ior_write(o, &obj->ior);
}

int corbaorb_object_read(CORBA_ORB orb, cdr_in *i, CORBA_Object *out)
{
  iiop_ior ior;
  *out = NULL;
  int rc = iiop_ior_read(i, &ior);
  if (rc != CDR_OK)
    return rc;
  if (ior.nprofiles == 0)
    return CDR_OK;
  char *s;
  rc = iiop_ior_to_string(&ior, CDR_HOST_ORDER, cdr_in_arena(i), &s);
  if (rc != CDR_OK)
    return rc;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  *out = corbaorb_object_new(orb, s, &ev);
  if (!*out && ev._major != CORBA_NO_EXCEPTION) {
    rc = strcmp(ev._id, ex_CORBA_NO_MEMORY) ? CDR_E_UNSUPPORTED : CDR_E_NOMEM;
    CORBA_exception_free(&ev);
  }
  return rc;
}

/* How many corbaloc:rir: URLs one string_to_object or
 * resolve_initial_references follows through -ORBInitRef / -ORBDefaultInitRef
 * values (NameService=corbaloc:rir:/NameService names itself). */
#define MAX_RIR_DEPTH 8

static CORBA_Object resolve_ref(CORBA_ORB orb, const char *identifier, int depth,
                                CORBA_Environment *ev);

/* The key of "corbaloc:rir:[/KEY]" (after "corbaloc:rir:"), %XX escapes
 * decoded (RFC 2396, as corbaloc keys), into BUF of SIZE octets; an absent
 * or empty key is "NameService" (CORBA 3.0 13.6.10.2).  0, or -1 when
 * malformed (another address after rir:, a bad escape, a NUL, too long). */
static int rir_key(const char *rest, char *buf, size_t size)
{
  if (*rest == '\0' || !strcmp(rest, "/")) {
    snprintf(buf, size, "NameService");
    return 0;
  }
  if (*rest != '/')
    return -1; /* "rir:,iiop:..." or junk: rir stands alone */
  size_t n = 0;
  for (const char *p = rest + 1; *p; p++) {
    int c = (unsigned char)*p;
    if (c == '%') {
      int v = 0;
      for (int k = 1; k <= 2; k++) {
        int h = (unsigned char)p[k], d;
        if (h >= '0' && h <= '9')
          d = h - '0';
        else if (h >= 'a' && h <= 'f')
          d = h - 'a' + 10;
        else if (h >= 'A' && h <= 'F')
          d = h - 'A' + 10;
        else
          return -1;
        v = v * 16 + d;
      }
      if (v == 0)
        return -1;
      c = v;
      p += 2;
    }
    if (n + 1 >= size)
      return -1;
    buf[n++] = (char)c;
  }
  buf[n] = '\0';
  return 0;
}

static CORBA_Object object_from_string(CORBA_ORB orb, const char *str, int depth,
                                       CORBA_Environment *ev)
{
  if (orb && str && !strncasecmp(str, "corbaloc:rir:", 13)) {
    char key[256];
    if (rir_key(str + 13, key, sizeof key) != 0 || depth >= MAX_RIR_DEPTH) {
      corbaorb_exception_set_system_minor(ev, ex_CORBA_BAD_PARAM, 0x4f4d0000u | 9,
                                          CORBA_COMPLETED_NO);
      return NULL;
    }
    CORBA_Object o = resolve_ref(orb, key, depth + 1, ev);
    if (ev && ev->_major == CORBA_USER_EXCEPTION) { /* InvalidName: no such reference */
      CORBA_exception_free(ev); /* omniORB: BAD_PARAM_BadURIOther, OMG minor 10 */
      corbaorb_exception_set_system_minor(ev, ex_CORBA_BAD_PARAM, 0x4f4d0000u | 10,
                                          CORBA_COMPLETED_NO);
      return NULL;
    }
    return o;
  }
  return corbaorb_object_new(orb, str, ev);
}

CORBA_Object CORBA_ORB_string_to_object(CORBA_ORB orb, const CORBA_char *str,
                                        CORBA_Environment *ev)
{
  return object_from_string(orb, str, 0, ev);
}

CORBA_char *CORBA_ORB_object_to_string(CORBA_ORB orb, CORBA_Object obj, CORBA_Environment *ev)
{
  (void)orb;
  if (!obj || obj->kind != OBJ_REMOTE) {
    /* a nil IOR: big-endian encapsulation, empty type ID, no profiles */
    /* a nil IOR: big-endian encapsulation (00, 3 padding octets), type ID
     * "" (ulong 1, NUL, 3 padding octets), no profiles (ulong 0) */
    CORBA_char *s = CORBA_string_dup("IOR:00000000000000010000000000000000");
    if (!s)
      SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return s;
  }
  CORBA_char *s = CORBA_string_dup(obj->str);
  if (!s)
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
  return s;
}

CORBA_Object CORBA_Object_duplicate(CORBA_Object obj, CORBA_Environment *ev)
{
  (void)ev;
  return corbaorb_object_dup(obj);
}

void CORBA_Object_release(CORBA_Object obj, CORBA_Environment *ev)
{
  (void)ev;
  corbaorb_object_release(obj);
}

CORBA_boolean CORBA_Object_is_nil(CORBA_Object obj, CORBA_Environment *ev)
{
  (void)ev;
  return obj == CORBA_OBJECT_NIL;
}

static const corbaorb_param is_a_params[] = { { TC_CORBA_string, CORBAORB_IN, 0 } };
static const corbaorb_operation is_a_op = { "_is_a", 0, TC_CORBA_boolean, is_a_params, 1, NULL, 0, 0 };
static const corbaorb_operation non_existent_op = { "_non_existent", 0, TC_CORBA_boolean, NULL, 0,
                                                    NULL, 0, 0 };

CORBA_boolean CORBA_Object_is_a(CORBA_Object obj, const CORBA_char *logical_type_id,
                                CORBA_Environment *ev)
{
  CORBA_boolean r = 0;
  if (obj && obj->kind != OBJ_REMOTE)
    return 0;
  void *args[] = { &logical_type_id };
  corbaorb_invoke(obj, &is_a_op, &r, args, ev);
  return r;
}

CORBA_boolean CORBA_Object_non_existent(CORBA_Object obj, CORBA_Environment *ev)
{
  CORBA_boolean r = 0;
  if (!obj || obj->kind != OBJ_REMOTE)
    return !obj;
  corbaorb_invoke(obj, &non_existent_op, &r, NULL, ev);
  if (ev->_major == CORBA_SYSTEM_EXCEPTION && !strcmp(ev->_id, ex_CORBA_OBJECT_NOT_EXIST)) {
    CORBA_exception_free(ev);
    return 1;
  }
  return r;
}

static const iiop_profile *profile_of(CORBA_Object o)
{
  return o && o->kind == OBJ_REMOTE ? iiop_ior_iiop_profile(&o->ior) : NULL;
}

CORBA_boolean CORBA_Object_is_equivalent(CORBA_Object obj, CORBA_Object other,
                                         CORBA_Environment *ev)
{
  (void)ev;
  if (obj == other)
    return 1;
  const iiop_profile *a = profile_of(obj), *b = profile_of(other);
  if (!a || !b)
    return 0;
  return a->port == b->port && !strcmp(a->host, b->host) && a->key_len == b->key_len &&
         !memcmp(a->key, b->key, a->key_len);
}

CORBA_unsigned_long CORBA_Object_hash(CORBA_Object obj, CORBA_unsigned_long maximum,
                                      CORBA_Environment *ev)
{
  (void)ev;
  const iiop_profile *p = profile_of(obj);
  uint32_t h = 2166136261u; /* FNV-1a over the key and port */
  if (p) {
    for (uint32_t i = 0; i < p->key_len; i++)
      h = (h ^ p->key[i]) * 16777619u;
    h = (h ^ p->port) * 16777619u;
  }
  return maximum ? h % (maximum + (maximum < UINT32_MAX)) : h;
}

/* ---------------------------------------------------------------- POAs */

static PortableServer_POA poa_new(CORBA_ORB orb, const char *name, const uint8_t *prefix,
                                  size_t prefix_len, int user_id, int persistent)
{
  PortableServer_POA p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->kind = OBJ_POA;
  p->orb = orb;
  p->name = xstrdup(name);
  p->prefix = malloc(prefix_len ? prefix_len : 1);
  if (!p->name || !p->prefix) {
    free(p->name);
    free(p->prefix);
    free(p);
    return NULL;
  }
  if (prefix_len)
    memcpy(p->prefix, prefix, prefix_len);
  p->prefix_len = prefix_len;
  p->user_id = user_id;
  p->persistent = persistent;
  p->next = orb->pois;
  orb->pois = p;
  return p;
}

/* The ORB's server, made on first use (ORB lock held). */
static int ensure_server(CORBA_ORB orb)
{
  if (orb->server)
    return CDR_OK;
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.host = orb->host;
  so.port = orb->port;
  return iiop_server_new(&so, &orb->server);
}

static PortableServer_POA find_poa(CORBA_ORB orb, const char *name)
{
  for (PortableServer_POA p = orb->pois; p; p = p->next)
    if (!strcmp(p->name, name))
      return p;
  return NULL;
}

static PortableServer_POA builtin_poa(CORBA_ORB orb, const char *name, CORBA_Environment *ev)
{
  pthread_mutex_lock(&orb->lock);
  int rc = ensure_server(orb);
  PortableServer_POA p = NULL;
  if (rc == CDR_OK) {
    p = find_poa(orb, name);
    if (!p)
      p = !strcmp(name, "RootPOA") ? poa_new(orb, name, NULL, 0, 0, 0)
                                   : poa_new(orb, name, NULL, 0, 1, 1);
    if (!p)
      rc = CDR_E_NOMEM;
  }
  pthread_mutex_unlock(&orb->lock);
  if (rc != CDR_OK)
    corbaorb_env_status(ev, rc == CDR_E_IO ? CDR_E_INVALID : rc, CORBA_COMPLETED_NO);
  if (rc == CDR_E_IO)
    SET_SYS(ev, ex_CORBA_INITIALIZE, CORBA_COMPLETED_NO); /* the endpoint cannot be bound */
  return p;
}

CORBA_Object CORBA_ORB_resolve_initial_references(CORBA_ORB orb, const CORBA_char *identifier,
                                                  CORBA_Environment *ev)
{
  return resolve_ref(orb, identifier, 0, ev);
}

static CORBA_Object resolve_ref(CORBA_ORB orb, const char *identifier, int depth,
                                CORBA_Environment *ev)
{
  if (!orb || !identifier) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  if (!strcmp(identifier, "RootPOA") || !strcmp(identifier, "omniINSPOA"))
    return (CORBA_Object)builtin_poa(orb, identifier, ev);
  for (size_t i = 0; i < orb->ninitrefs; i++)
    if (!strcmp(orb->initref_names[i], identifier))
      return object_from_string(orb, orb->initref_urls[i], depth, ev);
  if (orb->default_initref) {
    size_t n = strlen(orb->default_initref) + strlen(identifier) + 2;
    char *url = malloc(n);
    if (!url) {
      SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
      return NULL;
    }
    snprintf(url, n, "%s/%s", orb->default_initref, identifier);
    CORBA_Object o = object_from_string(orb, url, depth, ev);
    free(url);
    return o;
  }
  CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_CORBA_ORB_InvalidName, NULL);
  return NULL;
}

static int orb_start(CORBA_ORB orb)
{
  pthread_mutex_lock(&orb->lock);
  int rc = CDR_OK;
  if (!orb->server)
    rc = ensure_server(orb);
  if (rc == CDR_OK && !orb->started) {
    rc = iiop_server_start(orb->server);
    if (rc == CDR_OK)
      orb->started = 1;
  }
  pthread_mutex_unlock(&orb->lock);
  return rc;
}

void CORBA_ORB_run(CORBA_ORB orb, CORBA_Environment *ev)
{
  if (!orb) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  int rc = orb_start(orb);
  if (rc != CDR_OK) {
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
    return;
  }
  pthread_mutex_lock(&orb->lock);
  while (!orb->shutdown)
    pthread_cond_wait(&orb->cond, &orb->lock);
  pthread_mutex_unlock(&orb->lock);
}

void CORBA_ORB_shutdown(CORBA_ORB orb, CORBA_boolean wait_for_completion, CORBA_Environment *ev)
{
  (void)wait_for_completion;
  if (!orb) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  pthread_mutex_lock(&orb->lock);
  orb->shutdown = 1;
  pthread_cond_broadcast(&orb->cond);
  pthread_mutex_unlock(&orb->lock);
}

void CORBA_ORB_destroy(CORBA_ORB orb, CORBA_Environment *ev)
{
  (void)ev;
  if (!orb)
    return;
  if (orb->server)
    iiop_server_shutdown(orb->server);
  /* Let every servant go: no request runs any more. */
  for (;;) {
    pthread_mutex_lock(&orb->lock);
    servant_priv *sp = orb->active;
    if (sp) {
      orb->active = sp->next;
      if (sp->next)
        sp->next->prev = NULL;
      sp->next = sp->prev = NULL;
      sp->poa = NULL;
      free(sp->key);
      sp->key = NULL;
    }
    pthread_mutex_unlock(&orb->lock);
    if (!sp)
      break;
    corbaorb_servant_finalize(sp->servant);
  }
  pthread_mutex_lock(&orbs_lock);
  for (CORBA_ORB *pp = &live_orbs; *pp; pp = &(*pp)->next_orb)
    if (*pp == orb) {
      *pp = orb->next_orb;
      break;
    }
  if (__atomic_load_n(&hook_orb, __ATOMIC_ACQUIRE) == orb) /* another live one takes over */
    __atomic_store_n(&hook_orb, live_orbs, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&orbs_lock);
  orb_free(orb);
}

/* ---------------------------------------------------------------- policies, managers */

static CORBA_Policy policy_new(int type, int value, CORBA_Environment *ev)
{
  CORBA_Policy p = calloc(1, sizeof *p);
  if (!p) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  p->kind = OBJ_POLICY;
  p->type = type;
  p->value = value;
  return p;
}

CORBA_Policy PortableServer_POA_create_lifespan_policy(PortableServer_POA poa,
                                                       PortableServer_LifespanPolicyValue value,
                                                       CORBA_Environment *ev)
{
  (void)poa;
  return policy_new(0, value, ev);
}

CORBA_Policy PortableServer_POA_create_id_assignment_policy(
  PortableServer_POA poa, PortableServer_IdAssignmentPolicyValue value, CORBA_Environment *ev)
{
  (void)poa;
  return policy_new(1, value, ev);
}

void CORBA_Policy_destroy(CORBA_Policy policy, CORBA_Environment *ev)
{
  (void)ev;
  if (policy && policy->kind == OBJ_POLICY)
    free(policy);
}

PortableServer_POAManager PortableServer_POA__get_the_POAManager(PortableServer_POA poa,
                                                                CORBA_Environment *ev)
{
  if (!poa || poa->kind != OBJ_POA) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  return &poa->orb->manager;
}

void PortableServer_POAManager_activate(PortableServer_POAManager manager, CORBA_Environment *ev)
{
  if (!manager || manager->kind != OBJ_POAMANAGER) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  int rc = orb_start(manager->orb);
  if (rc != CDR_OK)
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
}

PortableServer_POA PortableServer_POA_create_POA(PortableServer_POA poa,
                                                 const CORBA_char *adapter_name,
                                                 PortableServer_POAManager manager,
                                                 const CORBA_PolicyList *policies,
                                                 CORBA_Environment *ev)
{
  (void)manager;
  if (!poa || poa->kind != OBJ_POA || !adapter_name || !*adapter_name ||
      strlen(adapter_name) > 200) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  int user_id = 0, persistent = 0;
  for (CORBA_unsigned_long i = 0; policies && i < policies->_length; i++) {
    CORBA_Policy p = policies->_buffer[i];
    if (!p || p->kind != OBJ_POLICY)
      continue;
    if (p->type == 0)
      persistent = p->value == PortableServer_PERSISTENT;
    else
      user_id = p->value == PortableServer_USER_ID;
  }
  CORBA_ORB orb = poa->orb;
  /* Object keys: "/NAME/" then the ObjectId (generated keys never begin
   * with '/'). */
  size_t n = strlen(adapter_name);
  char prefix[210];
  snprintf(prefix, sizeof prefix, "/%s/", adapter_name);
  pthread_mutex_lock(&orb->lock);
  PortableServer_POA p = NULL;
  int exists = find_poa(orb, adapter_name) != NULL;
  if (!exists)
    p = poa_new(orb, adapter_name, (const uint8_t *)prefix, n + 2, user_id, persistent);
  pthread_mutex_unlock(&orb->lock);
  if (exists)
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_AdapterAlreadyExists, NULL);
  else if (!p)
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
  return p;
}

/* ---------------------------------------------------------------- servants */

void corbaorb_servant_init(PortableServer_Servant servant, const corbaorb_class *cls,
                           CORBA_Environment *ev)
{
  PortableServer_ServantBase *sb = servant;
  if (!sb || !cls) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  servant_priv *sp = calloc(1, sizeof *sp);
  if (!sp) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return;
  }
  sp->cls = cls;
  sp->servant = servant;
  sb->_private = sp;
}

void corbaorb_servant_fini(PortableServer_Servant servant, CORBA_Environment *ev)
{
  (void)ev;
  PortableServer_ServantBase *sb = servant;
  if (!sb || !sb->_private)
    return;
  servant_priv *sp = sb->_private;
  free(sp->key);
  free(sp);
  sb->_private = NULL;
}

void corbaorb_servant_finalize(PortableServer_Servant servant)
{
  PortableServer_ServantBase *sb = servant;
  if (sb->vepv && sb->vepv[0] && sb->vepv[0]->finalize) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    sb->vepv[0]->finalize(servant, &ev);
    CORBA_exception_free(&ev);
  }
}

static servant_priv *priv_of(PortableServer_Servant servant, CORBA_Environment *ev)
{
  PortableServer_ServantBase *sb = servant;
  if (!sb || !sb->_private) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  return sb->_private;
}

static PortableServer_ObjectId *oid_new(const uint8_t *p, size_t n)
{
  PortableServer_ObjectId *id = corbaorb_alloc(TC_CORBA_Principal, 1);
  if (!id)
    return NULL;
  id->_buffer = corbaorb_allocbuf(TC_CORBA_octet, (CORBA_unsigned_long)n);
  if (!id->_buffer) {
    CORBA_free(id);
    return NULL;
  }
  if (n)
    memcpy(id->_buffer, p, n);
  id->_length = id->_maximum = (CORBA_unsigned_long)n;
  id->_release = 1;
  return id;
}

/* Activate SP in POA under the key PREFIX+ID (ID NULL: a generated key). */
static void activate(PortableServer_POA poa, servant_priv *sp, const PortableServer_ObjectId *id,
                     CORBA_Environment *ev)
{
  CORBA_ORB orb = poa->orb;
  pthread_mutex_lock(&orb->lock);
  if (sp->poa) {
    pthread_mutex_unlock(&orb->lock);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_ServantAlreadyActive, NULL);
    return;
  }
  int rc;
  uint8_t *key = NULL;
  size_t klen = 0;
  if (id) {
    klen = poa->prefix_len + id->_length;
    key = malloc(klen ? klen : 1);
    if (!key) {
      rc = CDR_E_NOMEM;
    } else {
      memcpy(key, poa->prefix, poa->prefix_len);
      if (id->_length)
        memcpy(key + poa->prefix_len, id->_buffer, id->_length);
      rc = iiop_server_activate(orb->server, key, klen, &sp->cls->iface, sp->servant);
    }
  } else {
    key = malloc(poa->prefix_len + IIOP_GENERATED_KEY_LEN);
    if (!key) {
      rc = CDR_E_NOMEM;
    } else if (poa->prefix_len == 0) {
      rc = iiop_server_activate_generated(orb->server, &sp->cls->iface, sp->servant, key, &klen);
    } else {
      /* a child POA with SYSTEM_ID: the prefix then a counter (unique
       * within the ORB; such a POA's references are transient anyway) */
      uint64_t n = ++orb->next_id;
      memcpy(key, poa->prefix, poa->prefix_len);
      for (int b = 0; b < 8; b++)
        key[poa->prefix_len + b] = (uint8_t)(n >> (56 - 8 * b));
      klen = poa->prefix_len + 8;
      rc = iiop_server_activate(orb->server, key, klen, &sp->cls->iface, sp->servant);
    }
  }
  if (rc == CDR_OK) {
    sp->poa = poa;
    sp->key = key;
    sp->key_len = klen;
    sp->next = orb->active;
    sp->prev = NULL;
    if (orb->active)
      orb->active->prev = sp;
    orb->active = sp;
  } else {
    free(key);
  }
  pthread_mutex_unlock(&orb->lock);
  if (rc == CDR_E_INVALID)
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_ObjectAlreadyActive, NULL);
  else if (rc != CDR_OK)
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
}

static int check_poa(PortableServer_POA poa, CORBA_Environment *ev)
{
  if (!poa || poa->kind != OBJ_POA || !poa->orb->server) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return 0;
  }
  return 1;
}

PortableServer_ObjectId *PortableServer_POA_activate_object(PortableServer_POA poa,
                                                            PortableServer_Servant servant,
                                                            CORBA_Environment *ev)
{
  if (!check_poa(poa, ev))
    return NULL;
  servant_priv *sp = priv_of(servant, ev);
  if (!sp)
    return NULL;
  if (poa->user_id) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_WrongPolicy, NULL);
    return NULL;
  }
  activate(poa, sp, NULL, ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return NULL;
  PortableServer_ObjectId *id = oid_new(sp->key + poa->prefix_len, sp->key_len - poa->prefix_len);
  if (!id)
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_YES);
  return id;
}

void PortableServer_POA_activate_object_with_id(PortableServer_POA poa,
                                                const PortableServer_ObjectId *id,
                                                PortableServer_Servant servant,
                                                CORBA_Environment *ev)
{
  if (!check_poa(poa, ev))
    return;
  servant_priv *sp = priv_of(servant, ev);
  if (!sp)
    return;
  if (!id) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  activate(poa, sp, id, ev);
}

/* The active servant of POA under ID, unlinked when UNLINK (lock held). */
static servant_priv *find_active(PortableServer_POA poa, const uint8_t *key, size_t klen)
{
  for (servant_priv *sp = poa->orb->active; sp; sp = sp->next)
    if (sp->poa == poa && sp->key_len == klen && !memcmp(sp->key, key, klen))
      return sp;
  return NULL;
}

/* Deactivations from inside an operation finalize after the dispatch. */
__thread servant_priv *corbaorb_pending_finalize;
__thread int corbaorb_in_dispatch;

void corbaorb_run_pending_finalize(void)
{
  while (corbaorb_pending_finalize) {
    servant_priv *sp = corbaorb_pending_finalize;
    corbaorb_pending_finalize = sp->next;
    sp->next = NULL;
    corbaorb_servant_finalize(sp->servant);
  }
}

void PortableServer_POA_deactivate_object(PortableServer_POA poa, const PortableServer_ObjectId *id,
                                          CORBA_Environment *ev)
{
  if (!check_poa(poa, ev))
    return;
  if (!id) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  size_t klen = poa->prefix_len + id->_length;
  uint8_t *key = malloc(klen ? klen : 1);
  if (!key) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return;
  }
  memcpy(key, poa->prefix, poa->prefix_len);
  if (id->_length)
    memcpy(key + poa->prefix_len, id->_buffer, id->_length);
  CORBA_ORB orb = poa->orb;
  pthread_mutex_lock(&orb->lock);
  servant_priv *sp = find_active(poa, key, klen);
  if (sp) {
    if (sp->prev)
      sp->prev->next = sp->next;
    else
      orb->active = sp->next;
    if (sp->next)
      sp->next->prev = sp->prev;
    sp->next = sp->prev = NULL;
    sp->poa = NULL;
  }
  pthread_mutex_unlock(&orb->lock);
  if (!sp) {
    free(key);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_ObjectNotActive, NULL);
    return;
  }
  (void)iiop_server_deactivate(orb->server, key, klen);
  free(key);
  free(sp->key);
  sp->key = NULL;
  if (corbaorb_in_dispatch) {
    sp->next = corbaorb_pending_finalize;
    corbaorb_pending_finalize = sp;
  } else {
    corbaorb_servant_finalize(sp->servant);
  }
}

static CORBA_Object key_to_reference(PortableServer_POA poa, const uint8_t *key, size_t klen,
                                     CORBA_Environment *ev)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *s;
  int rc = iiop_server_ior(poa->orb->server, key, klen, &a, &s);
  CORBA_Object o = NULL;
  if (rc == CDR_OK)
    o = corbaorb_object_new(poa->orb, s, ev);
  else
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
  cdr_arena_free(&a);
  return o;
}

CORBA_Object PortableServer_POA_servant_to_reference(PortableServer_POA poa,
                                                     PortableServer_Servant servant,
                                                     CORBA_Environment *ev)
{
  if (!check_poa(poa, ev))
    return NULL;
  servant_priv *sp = priv_of(servant, ev);
  if (!sp)
    return NULL;
  if (!sp->poa) {
    if (poa->user_id) {
      CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_ServantNotActive, NULL);
      return NULL;
    }
    activate(poa, sp, NULL, ev); /* implicit activation */
    if (ev->_major != CORBA_NO_EXCEPTION)
      return NULL;
  } else if (sp->poa != poa) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_WrongAdapter, NULL);
    return NULL;
  }
  return key_to_reference(poa, sp->key, sp->key_len, ev);
}

CORBA_Object PortableServer_POA_id_to_reference(PortableServer_POA poa,
                                                const PortableServer_ObjectId *id,
                                                CORBA_Environment *ev)
{
  if (!check_poa(poa, ev))
    return NULL;
  if (!id) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  size_t klen = poa->prefix_len + id->_length;
  uint8_t *key = malloc(klen ? klen : 1);
  if (!key) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  memcpy(key, poa->prefix, poa->prefix_len);
  if (id->_length)
    memcpy(key + poa->prefix_len, id->_buffer, id->_length);
  pthread_mutex_lock(&poa->orb->lock);
  int active = find_active(poa, key, klen) != NULL;
  pthread_mutex_unlock(&poa->orb->lock);
  CORBA_Object o = NULL;
  if (active)
    o = key_to_reference(poa, key, klen, ev);
  else
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_ObjectNotActive, NULL);
  free(key);
  return o;
}

PortableServer_ObjectId *PortableServer_POA_reference_to_id(PortableServer_POA poa,
                                                            CORBA_Object reference,
                                                            CORBA_Environment *ev)
{
  if (!check_poa(poa, ev))
    return NULL;
  const iiop_profile *p = profile_of(reference);
  if (!p) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  if (p->key_len < poa->prefix_len || memcmp(p->key, poa->prefix, poa->prefix_len) ||
      (poa->prefix_len == 0 && poa->user_id == 0 &&
       (p->key_len != IIOP_GENERATED_KEY_LEN ||
        memcmp(p->key, IIOP_GENERATED_KEY_PREFIX, IIOP_GENERATED_KEY_PREFIX_LEN)))) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_POA_WrongAdapter, NULL);
    return NULL;
  }
  PortableServer_ObjectId *id = oid_new(p->key + poa->prefix_len, p->key_len - poa->prefix_len);
  if (!id)
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
  return id;
}

PortableServer_ObjectId *PortableServer_string_to_ObjectId(const CORBA_char *str,
                                                           CORBA_Environment *ev)
{
  if (!str) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  PortableServer_ObjectId *id = oid_new((const uint8_t *)str, strlen(str));
  if (!id)
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
  return id;
}

CORBA_char *PortableServer_ObjectId_to_string(const PortableServer_ObjectId *id,
                                              CORBA_Environment *ev)
{
  if (!id || memchr(id->_buffer, 0, id->_length)) {
    SET_SYS(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return NULL;
  }
  CORBA_char *s = CORBA_string_alloc(id->_length);
  if (!s) {
    SET_SYS(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  if (id->_length)
    memcpy(s, id->_buffer, id->_length);
  return s;
}
