/* tlsecho.c - the ORBs of the C-mapping TLS tests (tlsecho.h). */
#include <check.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include "tlsecho.h"

CORBA_ORB te_orb_init(const char *const *opts, int n, int *left, CORBA_Environment *ev)
{
  char *argv[24];
  char prog[] = "prog";
  ck_assert_int_lt(n, 22);
  argv[0] = prog;
  for (int i = 0; i < n; i++)
    argv[i + 1] = (char *)opts[i];
  argv[n + 1] = NULL;
  int argc = n + 1;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", ev);
  if (left)
    *left = argc;
  return orb;
}

static CORBA_long s_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s, (void)ev;
  return x + 1;
}

static CORBA_char *s_echo(PortableServer_Servant s, const CORBA_char *str, CORBA_Environment *ev)
{
  (void)s, (void)ev;
  return CORBA_string_dup(str);
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_TlsEcho_Echo__epv echo_epv = { NULL, s_ping, s_echo };
static POA_TlsEcho_Echo__vepv echo_vepv = { &base_epv, &echo_epv };

void te_server_start(te_server *s, const char *const *opts, int n)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  memset(s, 0, sizeof *s);
  s->orb = te_orb_init(opts, n, NULL, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  s->ins = (PortableServer_POA)CORBA_ORB_resolve_initial_references(s->orb, "omniINSPOA", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  s->servant._private = NULL;
  s->servant.vepv = &echo_vepv;
  POA_TlsEcho_Echo__init(&s->servant, &ev);
  s->oid = PortableServer_string_to_ObjectId("TlsEcho", &ev);
  PortableServer_POA_activate_object_with_id(s->ins, s->oid, &s->servant, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  s->ref = PortableServer_POA_servant_to_reference(s->ins, &s->servant, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  s->ior = CORBA_ORB_object_to_string(s->orb, s->ref, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(s->ins, &ev), &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s->ior, &a, &ior), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_nonnull(p);
  ck_assert_str_eq(p->host, "127.0.0.1");
  s->port = p->port;
  const iiop_component *c = iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS);
  if (c)
    ck_assert_int_eq(iiop_ssl_component_decode(c, &s->supports, &s->requires, &s->tls_port), CDR_OK);
  cdr_arena_free(&a);
}

void te_server_stop(te_server *s)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_free(s->ior);
  CORBA_Object_release(s->ref, &ev);
  PortableServer_POA_deactivate_object(s->ins, s->oid, &ev);
  CORBA_free(s->oid);
  CORBA_ORB_destroy(s->orb, &ev);
  POA_TlsEcho_Echo__fini(&s->servant, &ev);
  CORBA_exception_free(&ev);
}
