/* tlsecho.h - the ORBs of the C-mapping TLS tests (check_orbtls,
 * check_tlsreason; tests/tlsecho.c): CORBA_ORB_init of a list of options,
 * and a server ORB serving TlsEcho::Echo (tests/interop/TlsEcho.idl) under
 * the key "TlsEcho" of its omniINSPOA, with the ports its IOR gives. */
#ifndef TLSECHO_H
#define TLSECHO_H

#include <stdint.h>
#include "TlsEcho.h"

/* CORBA_ORB_init of "prog" and the N (< 22) strings of OPTS (copied:
 * ORB_init moves argv's pointers); *LEFT (when LEFT) is the argc it
 * leaves.  The ORB, or NULL with the exception in EV. */
CORBA_ORB te_orb_init(const char *const *opts, int n, int *left, CORBA_Environment *ev);

/* A server ORB and its TlsEcho servant: ping(x) -> x + 1, echoString(s) -> s. */
typedef struct te_server {
  CORBA_ORB orb;
  PortableServer_POA ins;
  POA_TlsEcho_Echo servant;
  PortableServer_ObjectId *oid;
  TlsEcho_Echo ref;
  CORBA_char *ior;            /* its stringified IOR (CORBA_free) */
  uint16_t port;              /* the IIOP profile's port (0: TLS only) */
  uint16_t tls_port;          /* TAG_SSL_SEC_TRANS's port, 0 without one */
  uint16_t supports, requires; /* TAG_SSL_SEC_TRANS's options */
} te_server;

/* *S: an ORB of the N options OPTS serving TlsEcho, its POA manager
 * active, its IOR decoded (the profile's host must be 127.0.0.1).  Asserts
 * every step. */
void te_server_start(te_server *s, const char *const *opts, int n);

/* Everything of S released, its ORB destroyed. */
void te_server_stop(te_server *s);

#endif
