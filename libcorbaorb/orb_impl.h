/* orb_impl.h - libcorbaorb's private declarations. */
#ifndef CORBAORB_ORB_IMPL_H
#define CORBAORB_ORB_IMPL_H

#include <pthread.h>
#include <corbaorb/corba.h>
#include <iiop/ior.h>
#include <iiop/orb.h>

/* What every object-like handle begins with, so that a POA or the ORB
 * resolved as a CORBA_Object may be released and cast back. */
enum { OBJ_REMOTE = 0x0b1ec700, OBJ_POA, OBJ_POAMANAGER, OBJ_ORB, OBJ_POLICY };

struct CORBA_Object_type {
  int kind;                  /* OBJ_REMOTE */
  long refs;                 /* atomic */
  CORBA_ORB orb;
  iiop_ref *ref;             /* NULL: the ORB cannot reach it (TLS): calls raise TRANSIENT */
  cdr_arena arena;           /* str and ior */
  char *str;                 /* "IOR:..." */
  iiop_ior ior;
};

struct CORBA_Policy_type {
  int kind;                  /* OBJ_POLICY */
  int type;                  /* 0: lifespan, 1: id assignment,
                              * 37: BiDirPolicy::BIDIRECTIONAL_POLICY_TYPE */
  int value;
};

struct PortableServer_POAManager_type {
  int kind;                  /* OBJ_POAMANAGER */
  CORBA_ORB orb;
};

/* A POA: its object keys are PREFIX then the ObjectId (RootPOA: the
 * generated keys, no prefix; omniINSPOA: the bare ObjectId). */
struct PortableServer_POA_type {
  int kind;                  /* OBJ_POA */
  CORBA_ORB orb;
  char *name;
  uint8_t *prefix;
  size_t prefix_len;
  int user_id;               /* USER_ID (else SYSTEM_ID: generated keys) */
  int persistent;
  PortableServer_POA next;   /* the ORB's list of POAs */
};

/* A servant's _private, from corbaorb_servant_init. */
typedef struct servant_priv {
  const corbaorb_class *cls;
  PortableServer_POA poa;    /* where active, or NULL */
  uint8_t *key;              /* its object key while active */
  size_t key_len;
  PortableServer_Servant servant;
  struct servant_priv *next, *prev; /* the ORB's active servants */
} servant_priv;

struct CORBA_ORB_type {
  int kind;                  /* OBJ_ORB */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  iiop_client *client;
  iiop_server *server;       /* made with the RootPOA */
  int started, shutdown;
  char *host;                /* -ORBendPoint */
  uint16_t port;
  char **initref_names, **initref_urls;
  size_t ninitrefs;
  char *default_initref;
  int timeout_ms;
  int transient_on_timeout;  /* -ORBthrowTransientOnTimeOut 1 */
  int max_conns;             /* -ORBmaxGIOPConnectionPerServer (0: not given) */
  size_t max_msg;            /* -ORBgiopMaxMsgSize (0: not given): the most octets a GIOP
                              * message may have, sent or received, client and server */
  /* TLS (omniORB's SSL options, orb.c): -ORBendPoint giop:tcp / giop:ssl
   * given (neither: plain TCP only), the giop:ssl endpoint's port (its host
   * is host above), -ORBsslCAFile, -ORBsslKeyFile (certificate and key in
   * one PEM), -ORBsslKeyPassword, -ORBsslVerifyMode (CORBAORB_SSL_VERIFY_*
   * bits, -1 not given) and -ORBclientTransportRule (an iiop_tls_policy,
   * -1 not given) */
  int ep_tcp, ep_ssl;
  uint16_t ssl_port;
  char *ssl_ca_file, *ssl_key_file, *ssl_key_password;
  int ssl_verify_mode;
  int client_tls_policy;
  /* bidirectional GIOP (orb.c): -ORBofferBiDirectionalGIOP 1 (the client
   * offers it, the ORB's server serving the callbacks) and
   * -ORBacceptBiDirectionalGIOP 1 (the server accepts it, the client calls
   * back over those connections); both take effect when the server is made */
  int offer_bidir, accept_bidir;
  /* why the ORB's server could not be made ("" none; orb.c,
   * corbaorb_ORB_last_error) and the client's last error then: WHY is the
   * ORB's last error until the client's differs; under why_mu */
  pthread_mutex_t why_mu;
  char why[CORBAORB_ERROR_MAX];
  char why_client[IIOP_CLIENT_ERROR_MAX];
  uint64_t next_id;           /* child SYSTEM_ID POAs' ObjectIds */
  struct PortableServer_POAManager_type manager;
  PortableServer_POA pois;   /* RootPOA, omniINSPOA, children */
  servant_priv *active;
  CORBA_ORB next_orb;        /* the live ORBs (orb.c) */
  /* server interceptors (corbaorb_orb_add_server_interceptor), under lock:
   * given to the server when it is made */
  iiop_server_interceptor sics[IIOP_INTERCEPTORS_MAX];
  void *sic_ud[IIOP_INTERCEPTORS_MAX];
  unsigned nsic;
};

/* TC with its aliases removed (bounded). */
CORBA_TypeCode corbaorb_tc_unalias(CORBA_TypeCode tc);
/* The branch the discriminator at P selects in union TC, or NULL. */
const cdr_union_case *corbaorb_union_case(CORBA_TypeCode tc, const void *p);
int corbaorb_tc_variable_depth(CORBA_TypeCode tc, int depth);
/* Whether a value of TC may hold object references (an any may). */
int corbaorb_tc_has_refs(CORBA_TypeCode tc, int depth);
/* Release the references a decoded (arena) value of TC holds. */
void corbaorb_release_refs(CORBA_TypeCode tc, void *p);
/* Whether a value of TC may hold values (valuetypes; an any may). */
int corbaorb_tc_has_values(CORBA_TypeCode tc, int depth);

/* A graph of decoded values (memory.c): the arena its objects live in and
 * the number of references to it the program holds (value pointers the
 * mapping handed out: CORBA_free of each gives one back; the last frees
 * the arena whole).  corbaorb_graph_new() makes an empty one (NULL: no
 * memory); corbaorb_graph_done() frees it when no reference was taken. */
typedef struct corbaorb_graph corbaorb_graph;
corbaorb_graph *corbaorb_graph_new(void);
cdr_arena *corbaorb_graph_arena(corbaorb_graph *g);
void corbaorb_graph_done(corbaorb_graph *g);
/* corbaorb_copy() whose values (pointers into G's arena) become references
 * to G; G NULL: as corbaorb_copy(). */
int corbaorb_copy_graph(CORBA_TypeCode tc, void *dst, const void *src, corbaorb_graph *g);
/* A CORBA_free block holding the LEN octets at S and a NUL (S need not be
 * NUL-terminated; nothing is zeroed first); NULL when out of memory or LEN
 * is 2^32 - 1 or more. */
char *corbaorb_string_n(const char *s, size_t len);
/* A flat CORBA_free block (a sequence<octet> buffer, as
 * CORBA_sequence_CORBA_octet_allocbuf() makes) holding the N octets at P,
 * not zeroed first; NULL when out of memory. */
void *corbaorb_octets_n(const void *p, size_t n);

/* Reference counting without an environment (NIL allowed). */
CORBA_Object corbaorb_object_dup(CORBA_Object obj);
void corbaorb_object_release(CORBA_Object obj);
/* A new reference from a stringified IOR or corbaloc URL; NULL with EV set. */
CORBA_Object corbaorb_object_new(CORBA_ORB orb, const char *str, CORBA_Environment *ev);
/* Read an object reference (an IOR) from I into *OUT (a new reference, or
 * NIL; one with no profile this ORB can call is kept, unreachable: its
 * calls raise TRANSIENT; an IIOP profile of an unknown version is
 * CDR_E_VALUE, MARSHAL); Write OBJ as an IOR.  Status values. */
int corbaorb_object_read(CORBA_ORB orb, cdr_in *i, CORBA_Object *out);
int corbaorb_object_write(cdr_out *o, CORBA_Object obj);

/* EV set to the system exception of a libcdr/libiiop status ST. */
void corbaorb_env_status(CORBA_Environment *ev, int st, CORBA_completion_status completed);
/* OBJ's ORB cannot reach it (obj->ref NULL, corbaorb_object_new): libiiop's
 * reason, in the ORB's option names, becomes the ORB's last error (orb.c). */
void corbaorb_unreachable_why(CORBA_Object obj);
/* T as ORB's last error (corbaorb_ORB_last_error), until its client
 * records a failure of its own. */
void corbaorb_set_why(CORBA_ORB orb, const char *t);
#ifdef CORBAORB_HAVE_COSNAMING /* the library's own build: CosNaming.h generated */
#include "CosNaming.h"
/* The string name of N (NamingContextExt::to_string's form: '/', '.' and
 * '\\' escaped), a CORBA_free block, or NULL (naming.c). */
CORBA_char *corbaorb_name_to_string(const CosNaming_Name *n);
#endif
/* Finalize a servant let go by its POA (after its last request). */
void corbaorb_servant_finalize(PortableServer_Servant servant);
/* This thread's upcall state, in one thread-local block so that a function
 * finds all of it with one TLS descriptor lookup (a dispatch reads and
 * writes every member).  req: the request of the upcall this thread runs
 * (corbaorb_current_request); in_dispatch: set while this thread runs
 * corbaorb_dispatch (deactivations then defer the finalize to
 * corbaorb_run_pending_finalize, after the operation); pending_finalize:
 * those deferred servants.  in_view, in_view_len: while the upcall runs,
 * the last unbounded in string it was given as a view into the request
 * (invoke.c) and its length, so that CORBA_string_dup() of it -- a servant
 * returning its argument -- needs no strlen(); NULL outside. */
typedef struct corbaorb_upcall_state {
  iiop_request *req;
  int in_dispatch;
  servant_priv *pending_finalize;
  const char *in_view;
  size_t in_view_len;
} corbaorb_upcall_state;
extern __thread corbaorb_upcall_state corbaorb_upcall __attribute__((visibility("hidden")));
void corbaorb_run_pending_finalize(void);

#endif
