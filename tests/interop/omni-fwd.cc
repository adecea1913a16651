// omni-fwd: omniORB 4.2 peer of the forwarding interop test (Fwd.idl;
// tests/interop.test, "forwarding"; our side is tests/orb/fwd-peer.c, with
// the same roles and output).  See README.md in this folder.
//
//   omni-fwd server [--forward-to IOR | --forward-perm-to IOR] [-ORBxxx value ...]
//       Prints "IOR:..." and "port N", serves until SIGINT/SIGTERM, then
//       prints "calls=C oneways=O forwards=F value=V" and exits 0 (C pings
//       answered, O oneway sets executed, F requests answered with a
//       forward, V the last set's value).
//       No option: the servant F in omniINSPOA (object key "F").
//       --forward-to IOR: the POA way: a child POA with a ServantLocator
//         whose preinvoke raises PortableServer::ForwardRequest(IOR) for
//         every request (omniORB answers LOCATION_FORWARD).
//       --forward-perm-to IOR: the servant F (key "F") throws
//         omniORB::LOCATION_FORWARD(IOR, permanent) from every operation:
//         LOCATION_FORWARD_PERM to a GIOP 1.2 request.
//
//   omni-fwd client --target IOR|URL --calls N [--oneway V] [--wait FILE]
//       As fwd-peer's clients: N pings ping(i) == i + 1 on one reference,
//       with --oneway then set(V) and one more ping; "phase1 pings=P ok";
//       with --wait, waits (at most 60 s) for FILE, pings once more and
//       prints "after: ok" or "after: EXCEPTION-ID".  Exit 0; 1 a wrong
//       result; 3 a failed call in the first phase; 2 usage.
#include "Fwd.hh"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

namespace {

std::atomic<int> n_calls{0}, n_oneways{0}, n_forwards{0}, last_value{0};
CORBA::Object_var g_target;  // the forward target; nil: serve
bool g_perm = false;         // LOCATION_FORWARD with its permanent flag

class FImpl : public POA_Fwd::F {
public:
  CORBA::Long ping(CORBA::Long x) override {
    forward();
    n_calls++;
    return x + 1;
  }
  void set(CORBA::Long x) override {
    forward();
    last_value = x;
    n_oneways++;
  }

private:
  void forward() {
    if (CORBA::is_nil(g_target)) return;
    n_forwards++;
    // the reference is consumed
    throw omniORB::LOCATION_FORWARD(CORBA::Object::_duplicate(g_target), g_perm);
  }
};

// Every request on its POA: PortableServer::ForwardRequest to g_target.
class Forwarder : public POA_PortableServer::ServantLocator {
public:
  PortableServer::Servant preinvoke(const PortableServer::ObjectId&, PortableServer::POA_ptr,
                                    const char*, PortableServer::ServantLocator::Cookie&) override {
    n_forwards++;
    throw PortableServer::ForwardRequest(g_target);
  }
  void postinvoke(const PortableServer::ObjectId&, PortableServer::POA_ptr, const char*, PortableServer::ServantLocator::Cookie,
                  PortableServer::Servant) override {}
};

// The port of the first IIOP profile of a stringified IOR (big or little
// endian), or -1.
long ior_port(const char* ior) {
  if (strncmp(ior, "IOR:", 4) != 0) return -1;
  std::vector<unsigned char> b;
  for (const char* p = ior + 4; p[0] && p[1]; p += 2) {
    unsigned v;
    if (sscanf(p, "%2x", &v) != 1) return -1;
    b.push_back((unsigned char)v);
  }
  struct Rd {
    const std::vector<unsigned char>& b;
    size_t base, pos, end;
    bool le, ok;
    Rd(const std::vector<unsigned char>& v, size_t s, size_t e)
        : b(v), base(s), pos(s + 1), end(e), le(e > s && (v[s] & 1)), ok(e > s) {}
    unsigned long u(int n) {
      pos = base + ((pos - base + n - 1) / n) * n;
      if (!ok || pos + n > end) { ok = false; return 0; }
      unsigned long v = 0;
      for (int i = 0; i < n; i++) v |= (unsigned long)b[pos + (le ? i : n - 1 - i)] << (8 * i);
      pos += n;
      return v;
    }
    void skip(unsigned long n) { if (pos + n > end) ok = false; else pos += n; }
  };
  Rd c(b, 0, b.size());
  c.skip(c.u(4));  // type id
  unsigned long n = c.u(4);
  for (unsigned long i = 0; i < n && c.ok; i++) {
    unsigned long tag = c.u(4), len = c.u(4);
    size_t start = c.pos;
    if (!c.ok || start + len > b.size()) return -1;
    if (tag == 0) {  // TAG_INTERNET_IOP: version, host, port
      Rd p(b, start, start + len);
      p.skip(2);
      p.skip(p.u(4));
      unsigned long port = p.u(2);
      return p.ok ? (long)port : -1;
    }
    c.pos = start + len;
  }
  return -1;
}

int usage() {
  fprintf(stderr,
          "usage: omni-fwd server [--forward-to IOR | --forward-perm-to IOR] [-ORBopt value ...]\n"
          "       omni-fwd client --target IOR|URL --calls N [--oneway V] [--wait FILE]"
          " [-ORBopt value ...]\n");
  return 2;
}

int server(CORBA::ORB_ptr orb, const char* fwd, bool perm, bool locator) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  if (fwd) g_target = orb->string_to_object(fwd);
  g_perm = perm;
  CORBA::Object_var ref;
  PortableServer::Servant_var<FImpl> servant = new FImpl();
  PortableServer::Servant_var<Forwarder> fw = new Forwarder();
  PortableServer::POA_var poa;
  if (locator) {
    CORBA::Object_var o = orb->resolve_initial_references("RootPOA");
    PortableServer::POA_var root = PortableServer::POA::_narrow(o);
    CORBA::PolicyList pl;
    pl.length(3);
    pl[0] = root->create_request_processing_policy(PortableServer::USE_SERVANT_MANAGER);
    pl[1] = root->create_servant_retention_policy(PortableServer::NON_RETAIN);
    pl[2] = root->create_id_assignment_policy(PortableServer::USER_ID);
    PortableServer::POAManager_var pm = root->the_POAManager();
    poa = root->create_POA("Fwd", pm, pl);
    PortableServer::ServantLocator_var sl = fw->_this();
    poa->set_servant_manager(sl);
    PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("F");
    ref = poa->create_reference_with_id(oid, Fwd::F::_PD_repoId);
    pm->activate();
  } else {
    CORBA::Object_var o = orb->resolve_initial_references("omniINSPOA");
    poa = PortableServer::POA::_narrow(o);
    PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("F");
    poa->activate_object_with_id(oid, servant);
    ref = poa->id_to_reference(oid);
    PortableServer::POAManager_var pm = poa->the_POAManager();
    pm->activate();
  }
  CORBA::String_var ior = orb->object_to_string(ref);
  printf("%s\nport %ld\n", (const char*)ior, ior_port(ior));
  fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  orb->shutdown(1);
  printf("calls=%d oneways=%d forwards=%d value=%d\n", n_calls.load(), n_oneways.load(),
         n_forwards.load(), last_value.load());
  fflush(stdout);
  return 0;
}

// "IDL:omg.org/CORBA/TRANSIENT:1.0" for a system exception
std::string ex_id(const CORBA::Exception& e) { return e._rep_id(); }

int client(CORBA::ORB_ptr orb, const char* target, long calls, bool has_oneway,
           CORBA::Long oneway, const char* wait_file) {
  CORBA::Object_var obj = orb->string_to_object(target);
  Fwd::F_var f = Fwd::F::_unchecked_narrow(obj);
  long pings = 0;
  try {
    for (long i = 0; i <= calls; i++) {
      if (i == calls) {
        if (!has_oneway) break;
        f->set(oneway);
      }
      CORBA::Long v = f->ping((CORBA::Long)i);
      pings++;
      if (v != i + 1) {
        fprintf(stderr, "omni-fwd: ping(%ld) = %ld, want %ld\n", i, (long)v, i + 1);
        return 1;
      }
    }
  } catch (CORBA::SystemException& e) {
    fprintf(stderr, "omni-fwd: call failed: %s minor=%s\n", e._name(),
            e.NP_minorString() ? e.NP_minorString() : "?");
    return 3;
  }
  printf("phase1 pings=%ld ok\n", pings);
  fflush(stdout);
  if (!wait_file) return 0;
  int i;
  for (i = 0; i < 6000 && access(wait_file, F_OK) != 0; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  if (i == 6000) {
    fprintf(stderr, "omni-fwd: %s did not appear\n", wait_file);
    return 3;
  }
  try {
    CORBA::Long v = f->ping(1000);
    printf("after: %s\n", v == 1001 ? "ok" : "wrong result");
  } catch (CORBA::SystemException& e) {
    printf("after: %s\n", ex_id(e).c_str());
    fprintf(stderr, "omni-fwd: after: %s minor=%s\n", e._name(),
            e.NP_minorString() ? e.NP_minorString() : "?");
  }
  fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string role = argv[1];
  const char *fwd = nullptr, *target = nullptr, *wait_file = nullptr;
  bool perm = false, has_oneway = false;
  long calls = -1;
  CORBA::Long oneway = 0;
  std::vector<char*> args;
  args.push_back(argv[0]);
  for (int i = 2; i < argc; i++) {
    const char* a = argv[i];
    if ((!strcmp(a, "--forward-to") || !strcmp(a, "--forward-perm-to")) && i + 1 < argc) {
      perm = !strcmp(a, "--forward-perm-to");
      fwd = argv[++i];
    } else if (!strcmp(a, "--target") && i + 1 < argc) {
      target = argv[++i];
    } else if (!strcmp(a, "--calls") && i + 1 < argc) {
      calls = strtol(argv[++i], nullptr, 10);
    } else if (!strcmp(a, "--oneway") && i + 1 < argc) {
      has_oneway = true;
      oneway = (CORBA::Long)strtol(argv[++i], nullptr, 10);
    } else if (!strcmp(a, "--wait") && i + 1 < argc) {
      wait_file = argv[++i];
    } else if (!strncmp(a, "-ORB", 4) && i + 1 < argc) {
      args.push_back(argv[i]);
      args.push_back(argv[++i]);
    } else {
      return usage();
    }
  }
  bool is_server = role == "server";
  if (!is_server && (role != "client" || !target || calls < 0)) return usage();
  std::string endpoint = "giop:tcp:127.0.0.1:";
  if (is_server) {
    // Block the stop signals in every thread (omniORB's threads inherit
    // the mask); the server waits for them with sigwait.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    args.insert(args.begin() + 1, (char*)"-ORBendPoint");
    args.insert(args.begin() + 2, (char*)endpoint.c_str());
  }
  int oargc = (int)args.size();
  args.push_back(nullptr);
  int rc;
  try {
    CORBA::ORB_var orb = CORBA::ORB_init(oargc, args.data());
    if (is_server)
      rc = server(orb, fwd, perm, fwd && !perm);
    else
      rc = client(orb, target, calls, has_oneway, oneway, wait_file);
    g_target = CORBA::Object::_nil();
    orb->destroy();
  } catch (CORBA::SystemException& ex) {
    fprintf(stderr, "omni-fwd: CORBA::%s (minor %s)\n", ex._name(),
            ex.NP_minorString() ? ex.NP_minorString() : "?");
    return 3;
  } catch (CORBA::Exception& ex) {
    fprintf(stderr, "omni-fwd: CORBA exception %s\n", ex._name());
    return 3;
  }
  return rc;
}
