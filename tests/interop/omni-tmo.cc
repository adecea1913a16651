// omni-tmo: omniORB 4.2 peer of the timeout interop test (Tmo.idl;
// tests/timeout-interop.test; our side is tests/orb/tmo-peer.c).
//
//   omni-tmo server [-ORBxxx value ...]
//       The servant S in omniINSPOA (object key "S").  Prints "IOR:..."
//       and "port N", serves until SIGINT/SIGTERM, then prints
//       "sleeps=A slept=B pings=C" (sleep_ms calls begun, finished; pings)
//       and exits 0.
//
//   omni-tmo client --target IOR|URL --sleep MS [-ORBclientCallTimeOutPeriod T ...]
//       sleep_ms(MS), which must fail with CORBA::TIMEOUT (or TRANSIENT
//       with -ORBthrowTransientOnTimeOut 1): prints "timeout EXCEPTION
//       minor=0xM completed=C ms=E" (E: how long the call took), then
//       ping(41) on the same reference: "ping=V ms=E".  Exit 0 when the
//       call timed out and ping gave 42; 1 otherwise; 2 usage.
#include "Tmo.hh"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

namespace {

std::atomic<int> n_sleeps{0}, n_slept{0}, n_pings{0};

class SImpl : public POA_Tmo::S {
public:
  void sleep_ms(CORBA::Long ms) override {
    n_sleeps++;
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) {}
    n_slept++;
  }
  CORBA::Long ping(CORBA::Long x) override {
    n_pings++;
    return x + 1;
  }
};

long now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int server(CORBA::ORB_ptr orb) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);  // before omniORB's threads start
  CORBA::Object_var o = orb->resolve_initial_references("omniINSPOA");
  PortableServer::POA_var ins = PortableServer::POA::_narrow(o);
  SImpl* impl = new SImpl;
  PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("S");
  ins->activate_object_with_id(oid, impl);
  CORBA::Object_var self = ins->id_to_reference(oid);
  CORBA::String_var ior = orb->object_to_string(self);
  PortableServer::POAManager_var pm = ins->the_POAManager();
  pm->activate();
  printf("%s\n", (const char*)ior);
  fflush(stdout);
  int sig;
  sigwait(&stop, &sig);
  printf("sleeps=%d slept=%d pings=%d\n", n_sleeps.load(), n_slept.load(), n_pings.load());
  fflush(stdout);
  orb->shutdown(1);
  return 0;
}

int client(CORBA::ORB_ptr orb, const char* target, long sleep) {
  CORBA::Object_var o = orb->string_to_object(target);
  Tmo::S_var s = Tmo::S::_unchecked_narrow(o);  // no remote _is_a: the first call connects
  int ok = 0;
  long t0 = now_ms();
  try {
    s->sleep_ms(sleep);
    printf("no timeout ms=%ld\n", now_ms() - t0);
  } catch (const CORBA::SystemException& e) {
    printf("timeout %s minor=0x%lx completed=%d ms=%ld\n", e._name(), (unsigned long)e.minor(),
           (int)e.completed(), now_ms() - t0);
    ok = !strcmp(e._name(), "TIMEOUT") || !strcmp(e._name(), "TRANSIENT");
  }
  t0 = now_ms();
  try {
    CORBA::Long v = s->ping(41);
    printf("ping=%ld ms=%ld\n", (long)v, now_ms() - t0);
    ok = ok && v == 42;
  } catch (const CORBA::SystemException& e) {
    printf("ping %s minor=0x%lx\n", e._name(), (unsigned long)e.minor());
    ok = 0;
  }
  fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "server")) return server(orb);
  if (argc == 6 && !strcmp(argv[1], "client") && !strcmp(argv[2], "--target")
      && !strcmp(argv[4], "--sleep")) {
    int rc = client(orb, argv[3], atol(argv[5]));
    orb->destroy();
    return rc;
  }
  fprintf(stderr, "usage: omni-tmo server | client --target IOR --sleep MS [-ORB...]\n");
  return 2;
}
