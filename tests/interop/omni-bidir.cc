// omni-bidir: omniORB 4.2 peer of tests/bidir.test (BiDir.idl; our side is
// tests/bidir-peer.c, with the same roles and output).
//
//   omni-bidir server [-ORBxxx value ...]
//       A Srv servant in a POA with BidirectionalPolicy BOTH (what omniORB
//       needs to call back over a client's connection).  Prints "IOR:..."
//       and serves until SIGINT/SIGTERM.  call_me(cb, x) returns
//       cb->hit(x) * 10, or -1 when the callback raised (the exception's
//       name on stderr: "callback: TRANSIENT").
//   omni-bidir client SRV-IOR X [-ORBxxx value ...]
//       A CB servant (hit(x) = x + 1) in a POA with BidirectionalPolicy
//       BOTH; calls srv->call_me(cb, X) twice and prints
//       "result=R hits=H" (R the second result; H callbacks served).
//       Exit 0, 1 on a CORBA exception (printed), 2 usage.
#include "BiDir.hh"

#include <omniORB4/BiDirPolicy.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

namespace {

std::atomic<int> n_hits{0};
CORBA::ORB_var g_orb;

class CBImpl : public POA_BiDir::CB {
public:
  CORBA::Long hit(CORBA::Long x) override {
    n_hits++;
    return x + 1;
  }
};

class SrvImpl : public POA_BiDir::Srv {
public:
  CORBA::Long call_me(BiDir::CB_ptr cb, CORBA::Long x) override {
    try {
      return cb->hit(x) * 10;
    } catch (CORBA::SystemException &e) {
      fprintf(stderr, "callback: %s\n", e._name());
      return -1;
    }
  }
  CORBA::Long ping(CORBA::Long x) override { return x; }
};

PortableServer::POA_ptr bidir_poa(CORBA::ORB_ptr orb) {
  CORBA::Object_var o = orb->resolve_initial_references("RootPOA");
  PortableServer::POA_var root = PortableServer::POA::_narrow(o);
  PortableServer::POAManager_var pm = root->the_POAManager();
  CORBA::Any a;
  a <<= BiDirPolicy::BOTH;
  CORBA::PolicyList pl;
  pl.length(1);
  pl[0] = orb->create_policy(BiDirPolicy::BIDIRECTIONAL_POLICY_TYPE, a);
  PortableServer::POA_ptr p = root->create_POA("bidir", pm, pl);
  pm->activate();
  return p;
}

void on_signal(int) {
  if (!CORBA::is_nil(g_orb)) g_orb->shutdown(0);
}

}  // namespace

int main(int argc, char **argv) {
  try {
    g_orb = CORBA::ORB_init(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "server") == 0) {
      PortableServer::POA_var poa = bidir_poa(g_orb);
      SrvImpl *s = new SrvImpl;
      PortableServer::ObjectId_var id = poa->activate_object(s);
      CORBA::Object_var ref = poa->id_to_reference(id);
      CORBA::String_var ior = g_orb->object_to_string(ref);
      printf("%s\n", (const char *)ior);
      fflush(stdout);
      signal(SIGINT, on_signal);
      signal(SIGTERM, on_signal);
      g_orb->run();
      g_orb->destroy();
      return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "client") == 0) {
      PortableServer::POA_var poa = bidir_poa(g_orb);
      CBImpl *cb = new CBImpl;
      PortableServer::ObjectId_var id = poa->activate_object(cb);
      CORBA::Object_var cbo = poa->id_to_reference(id);
      BiDir::CB_var cbr = BiDir::CB::_narrow(cbo);
      CORBA::Object_var o = g_orb->string_to_object(argv[2]);
      BiDir::Srv_var srv = BiDir::Srv::_narrow(o);
      CORBA::Long x = atoi(argv[3]);
      CORBA::Long r = srv->call_me(cbr, x);
      r = srv->call_me(cbr, x);
      printf("result=%d hits=%d\n", (int)r, n_hits.load());
      fflush(stdout);
      g_orb->destroy();
      return 0;
    }
  } catch (CORBA::SystemException &e) {
    fprintf(stderr, "omni-bidir: %s (minor 0x%x)\n", e._name(), (unsigned)e.minor());
    return 1;
  } catch (CORBA::Exception &e) {
    fprintf(stderr, "omni-bidir: %s\n", e._name());
    return 1;
  }
  fprintf(stderr, "usage: omni-bidir server | client SRV-IOR X  [-ORBxxx value ...]\n");
  return 2;
}
