// omni-server: omniORB 4.2 implementation of Bench::Echo and BenchAny::AnyEcho,
// the interop peer of our CDR/IIOP stack.  See README.md in this folder.
//
//   omni-server [--listen HOST:PORT] [--no-trunc-factory] [--stack-mb N]
//               [-ORBxxx value ...]
//
// Prints exactly three lines on stdout, then serves until SIGINT/SIGTERM:
//   corbaloc:iiop:1.2@HOST:PORT/Echo
//   IOR:...                    (Echo, object key "Echo")
//   AnyEcho IOR:...            (AnyEcho, object key "AnyEcho")
#include "Bench.hh"
#include "AnyEcho.hh"

#include <omnithread.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

namespace {

class EchoImpl : public POA_Bench::Echo {
public:
  CORBA::Long ping(CORBA::Long x) override { return x; }

  // The reply is the very graph we received, so every shared or cyclic
  // reference goes back out as an indirection.
  Bench::Node* echoGraph(Bench::Node* head) override {
    CORBA::add_ref(head);
    return head;
  }

  char* echoString(const char* s) override { return CORBA::string_dup(s); }

  CORBA::WChar* echoWString(const CORBA::WChar* s) override {
    return CORBA::wstring_dup(s);
  }

  // Copying the struct copies the member pointers (add_ref), so a == b stays.
  Bench::Pair* echoPair(const Bench::Pair& p) override {
    return new Bench::Pair(p);
  }
};

// echoAny sends back a copy of the Any received: the same TypeCode (as
// omniORB decoded it) and the same value.
class AnyEchoImpl : public POA_BenchAny::AnyEcho {
public:
  CORBA::Any* echoAny(const CORBA::Any& a) override { return new CORBA::Any(a); }
};

void usage(const char* prog) {
  fprintf(stderr,
          "usage: %s [--listen HOST:PORT] [--no-trunc-factory] [--stack-mb N]"
          " [-ORBoption value ...]\n"
          "  --listen HOST:PORT   endpoint (default 127.0.0.1:0; port 0 = any"
          " free port)\n"
          "  --no-trunc-factory   register no TruncNode factory (omniORB must"
          " truncate)\n"
          "  --stack-mb N         stack size of omniORB threads (default 64)\n",
          prog);
}

// --- minimal CDR reader, used only to read the port back from our IOR ---
struct Cdr {
  const std::vector<unsigned char>& b;
  size_t base, pos;
  bool le;
  bool ok = true;
  Cdr(const std::vector<unsigned char>& buf, size_t start, size_t end_)
      : b(buf), base(start), pos(start + 1), le(buf[start] & 1), end(end_) {}
  size_t end;
  void align(size_t n) { pos = base + ((pos - base + n - 1) / n) * n; }
  unsigned long u32() {
    align(4);
    if (pos + 4 > end) { ok = false; return 0; }
    unsigned long v = le ? (b[pos] | b[pos + 1] << 8 | b[pos + 2] << 16 |
                            (unsigned long)b[pos + 3] << 24)
                         : ((unsigned long)b[pos] << 24 | b[pos + 1] << 16 |
                            b[pos + 2] << 8 | b[pos + 3]);
    pos += 4;
    return v;
  }
  unsigned u16() {
    align(2);
    if (pos + 2 > end) { ok = false; return 0; }
    unsigned v = le ? (b[pos] | b[pos + 1] << 8) : (b[pos] << 8 | b[pos + 1]);
    pos += 2;
    return v;
  }
  void skip(size_t n) {
    if (pos + n > end) { ok = false; pos = end; } else pos += n;
  }
};

// Returns the port of the first IIOP profile of a stringified IOR, or -1.
long ior_port(const char* ior) {
  if (strncmp(ior, "IOR:", 4) != 0) return -1;
  std::vector<unsigned char> buf;
  for (const char* p = ior + 4; p[0] && p[1]; p += 2) {
    unsigned v;
    if (sscanf(p, "%2x", &v) != 1) return -1;
    buf.push_back((unsigned char)v);
  }
  if (buf.empty()) return -1;
  Cdr c(buf, 0, buf.size());
  unsigned long idlen = c.u32();
  c.skip(idlen);
  unsigned long nprof = c.u32();
  for (unsigned long i = 0; i < nprof && c.ok; i++) {
    unsigned long tag = c.u32();
    unsigned long len = c.u32();
    size_t start = c.pos;
    if (!c.ok || start + len > buf.size() || len < 1) return -1;
    if (tag == 0) {  // TAG_INTERNET_IOP: encapsulated ProfileBody
      Cdr p(buf, start, start + len);
      p.skip(2);  // version
      unsigned long hlen = p.u32();
      p.skip(hlen);
      unsigned port = p.u16();
      if (p.ok) return port;
      return -1;
    }
    c.pos = start + len;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:0";
  bool trunc_factory = true;
  unsigned long stack_mb = 64;
  std::vector<char*> orb_args;
  orb_args.push_back(argv[0]);

  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (!strcmp(a, "--listen") && i + 1 < argc) {
      listen = argv[++i];
    } else if (!strcmp(a, "--no-trunc-factory")) {
      trunc_factory = false;
    } else if (!strcmp(a, "--stack-mb") && i + 1 < argc) {
      char* end;
      stack_mb = strtoul(argv[++i], &end, 10);
      if (*end || stack_mb == 0) { usage(argv[0]); return 2; }
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      ++i;  // accepted for symmetry; omniORB sizes its own thread pool
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(argv[0]);
      return 0;
    } else if (!strncmp(a, "-ORB", 4) && i + 1 < argc) {
      orb_args.push_back(argv[i]);
      orb_args.push_back(argv[++i]);
    } else {
      usage(argv[0]);
      return 2;
    }
  }

  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) { usage(argv[0]); return 2; }
  std::string host = listen.substr(0, colon);
  std::string port_s = listen.substr(colon + 1);
  {
    char* end;
    unsigned long p = strtoul(port_s.c_str(), &end, 10);
    if (port_s.empty() || *end || p > 65535) { usage(argv[0]); return 2; }
  }

  // Block the stop signals in every thread (omniORB's threads inherit the
  // mask); main waits for them with sigwait.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  // omniORB (un)marshals values recursively: a long list needs deep stacks.
  omni_thread::stacksize(stack_mb << 20);

  std::string endpoint = "giop:tcp:" + host + ":" + port_s;
  std::vector<char*> args;
  args.push_back(orb_args[0]);
  args.push_back((char*)"-ORBendPoint");
  args.push_back((char*)endpoint.c_str());
  for (size_t i = 1; i < orb_args.size(); i++) args.push_back(orb_args[i]);
  int oargc = (int)args.size();
  args.push_back(nullptr);

  try {
    CORBA::ORB_var orb = CORBA::ORB_init(oargc, args.data());

    CORBA::ValueFactoryBase_var f;
    f = new Bench::Node_init();
    orb->register_value_factory(Bench::Node::_PD_repoId, f.in());
    f = new Bench::SubNode_init();
    orb->register_value_factory(Bench::SubNode::_PD_repoId, f.in());
    if (trunc_factory) {
      f = new Bench::TruncNode_init();
      orb->register_value_factory(Bench::TruncNode::_PD_repoId, f.in());
    }

    CORBA::Object_var obj = orb->resolve_initial_references("omniINSPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
    PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("Echo");
    PortableServer::Servant_var<EchoImpl> servant = new EchoImpl();
    poa->activate_object_with_id(oid, servant);
    CORBA::Object_var ref = poa->id_to_reference(oid);
    CORBA::String_var ior = orb->object_to_string(ref);
    PortableServer::ObjectId_var any_oid = PortableServer::string_to_ObjectId("AnyEcho");
    PortableServer::Servant_var<AnyEchoImpl> any_servant = new AnyEchoImpl();
    poa->activate_object_with_id(any_oid, any_servant);
    CORBA::Object_var any_ref = poa->id_to_reference(any_oid);
    CORBA::String_var any_ior = orb->object_to_string(any_ref);
    long port = ior_port(ior);
    if (port <= 0) {
      fprintf(stderr, "omni-server: cannot read the port from our IOR %s\n",
              (const char*)ior);
      return 1;
    }
    PortableServer::POAManager_var pm = poa->the_POAManager();
    pm->activate();

    // One write: scripts that read the first two lines find all three.
    printf("corbaloc:iiop:1.2@%s:%ld/Echo\n%s\nAnyEcho %s\n", host.c_str(), port,
           (const char*)ior, (const char*)any_ior);
    fflush(stdout);

    int sig = 0;
    sigwait(&stop, &sig);
    orb->shutdown(1);
    orb->destroy();
  } catch (CORBA::SystemException& ex) {
    fprintf(stderr, "omni-server: CORBA::%s (minor %s)\n", ex._name(),
            ex.NP_minorString() ? ex.NP_minorString() : "?");
    return 1;
  } catch (CORBA::Exception& ex) {
    fprintf(stderr, "omni-server: CORBA exception %s\n", ex._name());
    return 1;
  }
  return 0;
}
