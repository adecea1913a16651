// omni-ssl: omniORB 4.2 peer of the TLS interop test (TlsEcho.idl;
// tests/tls-interop.test; our side is tests/orb/tls-peer.c, with the same
// roles and output).  omniORB's SSL transport (libomnisslTP4) is configured
// by its own options, passed through to ORB_init: -ORBendPoint giop:ssl::PORT,
// -ORBsslCAFile, -ORBsslKeyFile (certificate and key in one PEM),
// -ORBsslKeyPassword, -ORBsslVerifyMode.  See README.md in this folder.
//
//   omni-ssl server [-ORBxxx value ...]
//       The servant in omniINSPOA (object key "TlsEcho").  Prints "IOR:...",
//       serves until SIGINT/SIGTERM, then prints "calls=C" (C requests
//       answered) and exits 0.
//
//   omni-ssl client --target IOR|URL --calls N --string S [-ORBxxx value ...]
//       N pings ping(i) == i + 1 and echoString(S) == S on one reference;
//       prints "ok pings=N echo=S" and exits 0; 1 a wrong result; 3 a
//       failed call ("exception ID minor=0x..." on stdout); 2 usage.
#include "TlsEcho.hh"

#include <omniORB4/sslContext.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

namespace {

std::atomic<int> n_calls{0};

class EchoImpl : public POA_TlsEcho::Echo {
public:
  CORBA::Long ping(CORBA::Long x) override {
    n_calls++;
    return x + 1;
  }
  char* echoString(const char* s) override {
    n_calls++;
    return CORBA::string_dup(s);
  }
};

int usage() {
  fprintf(stderr,
          "usage: omni-ssl server [-ORBopt value ...]\n"
          "       omni-ssl client --target IOR|URL --calls N --string S [-ORBopt value ...]\n");
  return 2;
}

int server(CORBA::ORB_ptr orb) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  CORBA::Object_var o = orb->resolve_initial_references("omniINSPOA");
  PortableServer::POA_var poa = PortableServer::POA::_narrow(o);
  PortableServer::Servant_var<EchoImpl> servant = new EchoImpl();
  PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("TlsEcho");
  poa->activate_object_with_id(oid, servant);
  CORBA::Object_var ref = poa->id_to_reference(oid);
  PortableServer::POAManager_var pm = poa->the_POAManager();
  pm->activate();
  CORBA::String_var ior = orb->object_to_string(ref);
  printf("%s\n", (const char*)ior);
  fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  orb->shutdown(1);
  printf("calls=%d\n", n_calls.load());
  fflush(stdout);
  return 0;
}

int client(CORBA::ORB_ptr orb, const char* target, long calls, const char* str) {
  try {
    CORBA::Object_var obj = orb->string_to_object(target);
    TlsEcho::Echo_var e = TlsEcho::Echo::_unchecked_narrow(obj);
    for (long i = 0; i < calls; i++) {
      CORBA::Long v = e->ping((CORBA::Long)i);
      if (v != i + 1) {
        fprintf(stderr, "omni-ssl: ping(%ld) = %ld, want %ld\n", i, (long)v, i + 1);
        return 1;
      }
    }
    CORBA::String_var back = e->echoString(str);
    if (strcmp(back, str) != 0) {
      fprintf(stderr, "omni-ssl: echoString(\"%s\") = \"%s\"\n", str, (const char*)back);
      return 1;
    }
    printf("ok pings=%ld echo=%s\n", calls, (const char*)back);
    return 0;
  } catch (CORBA::SystemException& ex) {
    printf("exception %s minor=0x%lx\n", ex._rep_id(), (unsigned long)ex.minor());
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const char* role = argv[1];
  // the server's signals are taken by sigwait (blocked before the ORB's threads start)
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  try {
    CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
    int rc;
    if (!strcmp(role, "server")) {
      if (argc != 2) return usage();
      rc = server(orb);
    } else if (!strcmp(role, "client")) {
      pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
      const char* target = nullptr;
      const char* str = "";
      long calls = 1;
      for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--target") && i + 1 < argc) target = argv[++i];
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atol(argv[++i]);
        else if (!strcmp(argv[i], "--string") && i + 1 < argc) str = argv[++i];
        else return usage();
      }
      if (!target) return usage();
      rc = client(orb, target, calls, str);
    } else {
      return usage();
    }
    orb->destroy();
    return rc;
  } catch (CORBA::SystemException& ex) {
    printf("exception %s minor=0x%lx\n", ex._rep_id(), (unsigned long)ex.minor());
    return 3;
  } catch (CORBA::Exception& ex) {
    printf("exception %s\n", ex._rep_id());
    return 3;
  }
}
