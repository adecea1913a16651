// omni-peer.h - what the omniORB peers of the C mapping's tests
// (tests/idl/omni-wide.cc, tests/idlzoo/omni-zoo.cc, tests/orb/omni-shop.cc,
// tests/orb/omni-rich.cc) share, as tests/idl/peer.h is for idl2c's C peers: the ORB; the server's IOR lines
// and run loop; the client's checks ("ok N - what", "not ok N - what",
// flushed one by one) and their summary; and main, which starts the ORB
// and runs the server or the client.  Include it after the omniidl
// headers, with PEER_NAME (the program's name, for messages) defined.
#ifndef TESTS_IDL_OMNI_PEER_H
#define TESTS_IDL_OMNI_PEER_H

#include <cstdio>
#include <cstring>

static CORBA::ORB_var orb; // the peer's ORB: peer_main makes and destroys it

// ---------------------------------------------------------------- server

// O's IOR on a line of stdout.
static inline void print_ref(CORBA::Object_ptr o)
{
  CORBA::String_var ior = orb->object_to_string(o);
  std::printf("%s\n", (const char *)ior);
}

// The server, its IORs printed: stdout flushed (the test reads the IORs
// off it), POA's manager activated and the ORB run until a client's
// shutdown ends it.
static inline void peer_run(PortableServer::POA_ptr poa)
{
  std::fflush(stdout);
  PortableServer::POAManager_var pm = poa->the_POAManager();
  pm->activate();
  orb->run();
}

// ---------------------------------------------------------------- client

static int nchecks, nfailed;

// One check: "ok N - WHAT" when COND holds, else "not ok N - WHAT" (and
// counted as failed); flushed.
static inline void ok(bool cond, const char *what)
{
  nchecks++;
  if (!cond)
    nfailed++;
  std::printf("%s %d - %s\n", cond ? "ok" : "not ok", nchecks, what);
  std::fflush(stdout);
}

// The client's last line, "N checks, M failed"; its exit status: 1 when a
// check failed, else 0.
static inline int peer_summary()
{
  std::printf("%d checks, %d failed\n", nchecks, nfailed);
  return nfailed ? 1 : 0;
}

// ---------------------------------------------------------------- main

// The peer's main: the ORB made from ARGC/ARGV; then "server": SERVER()'s
// status; "client REF1 .. REF<NREFS> [--shutdown]": CLIENT(the NREFS
// stringified references, whether --shutdown follows them)'s status;
// anything else: "usage: PEER_NAME server | client USAGE [--shutdown]" on
// stderr and 2.  The ORB is destroyed after; a CORBA exception out of any
// of it: "PEER_NAME: exception NAME" (a system exception's minor too) on
// stderr and 1.
static inline int peer_main(int argc, char **argv, int (*server)(), int nrefs,
                     int (*client)(char **refs, bool shutdown), const char *usage)
{
  orb = CORBA::ORB_init(argc, argv);
  int rc = 2;
  try {
    if (argc >= 2 && std::strcmp(argv[1], "server") == 0) {
      rc = server();
    } else if (argc >= 2 + nrefs && std::strcmp(argv[1], "client") == 0) {
      rc = client(argv + 2, argc >= 3 + nrefs && std::strcmp(argv[2 + nrefs], "--shutdown") == 0);
    } else {
      std::fprintf(stderr, "usage: " PEER_NAME " server | client %s [--shutdown]\n", usage);
    }
    orb->destroy();
  } catch (CORBA::SystemException &e) {
    std::fprintf(stderr, PEER_NAME ": exception %s (minor %lu)\n", e._name(),
                 (unsigned long)e.minor());
    rc = 1;
  } catch (CORBA::Exception &e) {
    std::fprintf(stderr, PEER_NAME ": exception %s\n", e._name());
    rc = 1;
  }
  return rc;
}

#endif
