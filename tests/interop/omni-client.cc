// omni-client: omniORB 4.2 client of Bench::Echo, used by the interop tests
// and as "omniORB's client" in the benchmark.  See README.md in this folder.
//
//   omni-client --target URL|IOR --scenario S [--calls N] [--nodes N]
//               [--size N] [--threads T] [--check] [--loop-seconds X]
//               [--cyclic] [--expect-trunc] [--warmup N] [--timeout-ms N]
//               [--stack-mb N] [-ORBxxx value ...]
//
// Last line on stdout, always (unless usage error):
//   scenario=S calls=N failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B
// Exit: 0 all calls succeeded (and matched, with --check); 1 a reply differed;
//       2 usage error; 3 a call raised an exception.
#include "Bench.hh"

#include <omnithread.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace {

enum Scenario { PING, GRAPH, STRING, WSTRING, PAIR, SUBGRAPH, TRUNCGRAPH };
const char* const kScenarioNames[] = {"ping",  "graph",    "string",    "wstring",
                                      "pair",  "subgraph", "truncgraph"};

struct Options {
  std::string target;
  Scenario scenario = PING;
  const char* scenario_name = nullptr;
  unsigned long calls = 1;
  unsigned long nodes = 1;
  unsigned long size = 16;
  unsigned long threads = 1;
  bool check = false;
  double loop_seconds = 0;
  bool cyclic = false;
  bool expect_trunc = false;
  bool wchar_ucs4 = false;
  unsigned long warmup = 0;
  unsigned long timeout_ms = 60000;
  unsigned long stack_mb = 64;
};

Options opt;
Bench::Echo_var target;

// Prebuilt arguments (built once, shared read-only by all threads).
Bench::Node_var graph_head;
std::vector<Bench::Node*> graph_nodes;  // index == id; owned via graph_head
Bench::Pair pair_arg;
std::string string_arg;
std::vector<CORBA::WChar> wstring_arg;  // NUL-terminated

std::atomic<unsigned long> n_failed{0};
std::atomic<bool> any_exception{false}, any_mismatch{false};
std::atomic<int> n_reported{0};
std::mutex report_mu;
const int kMaxReports = 5;

void report(const char* fmt, const std::string& what) {
  if (n_reported.fetch_add(1) >= kMaxReports) return;
  std::lock_guard<std::mutex> g(report_mu);
  fprintf(stderr, fmt, what.c_str());
  fflush(stderr);
}

inline uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void usage() {
  fprintf(stderr,
          "usage: omni-client --target URL|IOR --scenario S [options] [-ORBopt value ...]\n"
          "  S: ping graph string wstring pair subgraph truncgraph\n"
          "  --calls N        calls in all (default 1)\n"
          "  --nodes N        list length for graph/subgraph/truncgraph/pair (default 1)\n"
          "  --size N         string bytes / wstring characters (default 16)\n"
          "  --threads T      threads sharing the reference (default 1)\n"
          "  --check          compare every reply with what was sent\n"
          "  --loop-seconds X call until X seconds have passed (--calls ignored)\n"
          "  --cyclic         the last node points back at the head\n"
          "  --expect-trunc   with --check: TruncNodes must come back as plain Nodes\n"
          "  --wchar-ucs4     native wchar code set UCS-4 (omniORB then truncates\n"
          "                   wstrings with non-BMP characters: see README.md)\n"
          "  --warmup N       N untimed calls before measuring (default 0)\n"
          "  --timeout-ms N   client call timeout (default 60000, 0 = none)\n"
          "  --stack-mb N     stack of calling and omniORB threads (default 64)\n");
}

bool parse_ulong(const char* s, unsigned long* out) {
  char* end;
  if (!*s || *s == '-') return false;
  *out = strtoul(s, &end, 10);
  return *end == 0;
}

// ---------------------------------------------------------------- arguments

void build_graph(Scenario sc, unsigned long n) {
  graph_nodes.resize(n);
  std::vector<Bench::Node_var> keep(n);
  for (unsigned long i = 0; i < n; i++) {
    Bench::Node* v;
    if (sc == SUBGRAPH)
      v = new OBV_Bench::SubNode((CORBA::Long)i, nullptr, (CORBA::Long)(i * 7 + 1));
    else if (sc == TRUNCGRAPH)
      v = new OBV_Bench::TruncNode((CORBA::Long)i, nullptr, (CORBA::Long)(i * 7 + 3));
    else
      v = new OBV_Bench::Node((CORBA::Long)i, nullptr);
    keep[i] = v;
    graph_nodes[i] = v;
  }
  for (unsigned long i = 0; i + 1 < n; i++) graph_nodes[i]->next(graph_nodes[i + 1]);
  if (opt.cyclic && n > 0) graph_nodes[n - 1]->next(graph_nodes[0]);  // leaks: fine
  if (n > 0) graph_head = keep[0];  // Node_var copy: add_ref
}

void build_args() {
  switch (opt.scenario) {
    case GRAPH: case SUBGRAPH: case TRUNCGRAPH:
      build_graph(opt.scenario, opt.nodes);
      break;
    case PAIR:
      build_graph(GRAPH, opt.nodes);
      pair_arg.a = graph_head;  // member = var: add_ref, same value twice
      pair_arg.b = graph_head;
      break;
    case STRING:
      string_arg.resize(opt.size);
      for (unsigned long i = 0; i < opt.size; i++) string_arg[i] = (char)('a' + i % 26);
      break;
    case WSTRING: {
      // N characters mixing ASCII, Latin-1, BMP CJK and non-BMP ones.  With
      // omniORB's default native wchar code set (UTF-16, on a 4-byte wchar_t)
      // each wchar_t element carries one UTF-16 code unit: a non-BMP character
      // is two elements (a surrogate pair), which omniORB sends unchanged.
      // With --wchar-ucs4 (native UCS-4) each element is one code point.
      static const CORBA::ULong pat[] = {'a', 0xE9, 0x4E2D, 0x1F600, 'z', 0x10FFFD,
                                         0x20AC, 0x1D11E};
      const size_t np = sizeof(pat) / sizeof(pat[0]);
      wstring_arg.clear();
      wstring_arg.reserve(opt.size * 2 + 1);
      for (unsigned long i = 0; i < opt.size; i++) {
        CORBA::ULong c = pat[i % np];
        if (c > 0xFFFF && !opt.wchar_ucs4) {
          c -= 0x10000;
          wstring_arg.push_back((CORBA::WChar)(0xD800 + (c >> 10)));
          wstring_arg.push_back((CORBA::WChar)(0xDC00 + (c & 0x3FF)));
        } else {
          wstring_arg.push_back((CORBA::WChar)c);
        }
      }
      wstring_arg.push_back(0);
      break;
    }
    case PING:
      break;
  }
}

// ------------------------------------------------------------------- checks

// Compare a reply list with the sent one by shape: ids, dynamic types (and
// extra), sharing and cycles.  Sent ids are 0..N-1, all distinct.
bool same_graph(Bench::Node* sent, Bench::Node* reply, std::string* why) {
  std::vector<Bench::Node*> seen(graph_nodes.size(), nullptr);
  char buf[200];
  unsigned long k = 0;
  for (; sent; k++) {
    unsigned long id = (unsigned long)sent->id();
    if (!reply) {
      snprintf(buf, sizeof buf, "reply list ends after %lu nodes, sent more", k);
      *why = buf;
      return false;
    }
    if (seen[id]) {  // sent list revisits a node: reply must do the same
      if (seen[id] != reply) {
        snprintf(buf, sizeof buf, "node %lu: sent a reference back to node %lu, reply "
                 "has a different value (sharing/cycle lost)", k, id);
        *why = buf;
        return false;
      }
      return true;
    }
    if ((unsigned long)reply->id() != id) {
      snprintf(buf, sizeof buf, "node %lu: id %ld, expected %lu", k, (long)reply->id(), id);
      *why = buf;
      return false;
    }
    Bench::SubNode* ssub = Bench::SubNode::_downcast(sent);
    Bench::TruncNode* strunc = Bench::TruncNode::_downcast(sent);
    Bench::SubNode* rsub = Bench::SubNode::_downcast(reply);
    Bench::TruncNode* rtrunc = Bench::TruncNode::_downcast(reply);
    const char* want = ssub ? "SubNode" : (strunc && !opt.expect_trunc) ? "TruncNode" : "Node";
    const char* got = rsub ? "SubNode" : rtrunc ? "TruncNode" : "Node";
    if (strcmp(want, got)) {
      snprintf(buf, sizeof buf, "node %lu (id %lu): type %s, expected %s", k, id, got, want);
      *why = buf;
      return false;
    }
    long se = ssub ? ssub->extra() : strunc ? strunc->extra() : 0;
    long re = rsub ? rsub->extra() : rtrunc ? rtrunc->extra() : 0;
    if ((rsub || rtrunc) && se != re) {
      snprintf(buf, sizeof buf, "node %lu (id %lu): extra %ld, expected %ld", k, id, re, se);
      *why = buf;
      return false;
    }
    seen[id] = reply;
    sent = sent->next();
    reply = reply->next();
  }
  if (reply) {
    snprintf(buf, sizeof buf, "reply list longer than the %lu nodes sent", k);
    *why = buf;
    return false;
  }
  return true;
}

// A cyclic reply would leak (reference counting): cut the cycle.
void break_cycle(Bench::Node* head) {
  if (!opt.cyclic || !head) return;
  Bench::Node* v = head;
  for (unsigned long i = 0; i + 1 < opt.nodes && v; i++) v = v->next();
  if (v && v->next() == head) v->next(nullptr);
}

// ------------------------------------------------------------------- a call

// Returns false on a mismatch or exception (already counted and reported).
bool one_call(unsigned long i) {
  std::string why;
  bool ok = true;
  try {
    switch (opt.scenario) {
      case PING: {
        CORBA::Long x = (CORBA::Long)i;
        CORBA::Long r = target->ping(x);
        if (opt.check && r != x) {
          why = "ping returned " + std::to_string(r) + ", sent " + std::to_string(x);
          ok = false;
        }
        break;
      }
      case GRAPH: case SUBGRAPH: case TRUNCGRAPH: {
        Bench::Node_var r = target->echoGraph(graph_head.in());
        if (opt.check) ok = same_graph(graph_head.in(), r.in(), &why);
        break_cycle(r.in());
        break;
      }
      case PAIR: {
        Bench::Pair_var r = target->echoPair(pair_arg);
        if (opt.check) {
          if (r->a.in() != r->b.in()) {
            why = "pair: reply a and b are different values (sharing lost)";
            ok = false;
          } else {
            ok = same_graph(pair_arg.a.in(), r->a.in(), &why);
            if (!ok) why = "pair.a: " + why;
          }
        }
        break_cycle(r->a.in());
        break;
      }
      case STRING: {
        CORBA::String_var r = target->echoString(string_arg.c_str());
        if (opt.check) {
          size_t n = strlen(r.in());
          if (n != string_arg.size() || memcmp(r.in(), string_arg.data(), n)) {
            size_t j = 0;
            while (j < n && j < string_arg.size() && r.in()[j] == string_arg[j]) j++;
            why = "string: reply length " + std::to_string(n) + ", sent " +
                  std::to_string(string_arg.size()) + ", first difference at " +
                  std::to_string(j);
            ok = false;
          }
        }
        break;
      }
      case WSTRING: {
        CORBA::WString_var r = target->echoWString(wstring_arg.data());
        if (opt.check) {
          const CORBA::WChar* p = r.in();
          size_t j = 0;
          while (p[j] && p[j] == wstring_arg[j]) j++;
          if (p[j] != wstring_arg[j]) {
            size_t n = j;
            while (p[n]) n++;
            char buf[160];
            snprintf(buf, sizeof buf,
                     "wstring: reply has %zu wchar elements, sent %zu, first difference "
                     "at element %zu (got 0x%04lX, sent 0x%04lX)", n,
                     wstring_arg.size() - 1, j,
                     (unsigned long)p[j], (unsigned long)wstring_arg[j]);
            why = buf;
            ok = false;
          }
        }
        break;
      }
    }
  } catch (CORBA::SystemException& ex) {
    any_exception = true;
    n_failed++;
    char buf[200];
    snprintf(buf, sizeof buf, "CORBA::%s minor=%s completed=%s", ex._name(),
             ex.NP_minorString() ? ex.NP_minorString() : "?",
             ex.completed() == CORBA::COMPLETED_YES  ? "YES"
             : ex.completed() == CORBA::COMPLETED_NO ? "NO"
                                                     : "MAYBE");
    report("call failed: system exception %s\n", buf);
    return false;
  } catch (CORBA::Exception& ex) {
    any_exception = true;
    n_failed++;
    report("call failed: exception %s\n", ex._name());
    return false;
  }
  if (!ok) {
    any_mismatch = true;
    n_failed++;
    report("reply differs: %s\n", why);
  }
  return ok;
}

// ------------------------------------------------------------------ threads

struct Worker {
  pthread_t th;
  unsigned long first = 0, count = 0;  // fixed-count mode
  uint64_t deadline = 0;               // loop mode (0: fixed count)
  std::vector<uint64_t> lat;           // ns per call
};

void* worker_main(void* arg) {
  Worker* w = (Worker*)arg;
  if (w->deadline == 0) {
    w->lat.resize(w->count);
    uint64_t* lat = w->lat.data();
    for (unsigned long i = 0; i < w->count; i++) {
      uint64_t t0 = now_ns();
      one_call(w->first + i);
      lat[i] = now_ns() - t0;
    }
  } else {
    w->lat.reserve(1 << 16);
    unsigned long i = w->first;
    for (;;) {
      uint64_t t0 = now_ns();
      if (t0 >= w->deadline) break;
      one_call(i++);
      w->lat.push_back(now_ns() - t0);
    }
  }
  return nullptr;
}

double percentile_us(std::vector<uint64_t>& v, double p) {
  if (v.empty()) return 0;
  size_t k = (size_t)(p * v.size());
  if (k > 0 && (double)k == p * v.size()) k--;  // nearest rank
  if (k >= v.size()) k = v.size() - 1;
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k] / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> orb_args;
  orb_args.push_back(argv[0]);
  bool have_scenario = false;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : nullptr;
    bool bad = false;
    if (!strcmp(a, "--check")) { opt.check = true; continue; }
    if (!strcmp(a, "--cyclic")) { opt.cyclic = true; continue; }
    if (!strcmp(a, "--expect-trunc")) { opt.expect_trunc = true; continue; }
    if (!strcmp(a, "--wchar-ucs4")) { opt.wchar_ucs4 = true; continue; }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(); return 0; }
    if (!val) { usage(); return 2; }
    i++;
    if (!strcmp(a, "--target")) opt.target = val;
    else if (!strcmp(a, "--scenario")) {
      have_scenario = false;
      for (int s = 0; s < 7; s++)
        if (!strcmp(val, kScenarioNames[s])) {
          opt.scenario = (Scenario)s;
          opt.scenario_name = kScenarioNames[s];
          have_scenario = true;
        }
      bad = !have_scenario;
    }
    else if (!strcmp(a, "--calls")) bad = !parse_ulong(val, &opt.calls);
    else if (!strcmp(a, "--nodes")) bad = !parse_ulong(val, &opt.nodes);
    else if (!strcmp(a, "--size")) bad = !parse_ulong(val, &opt.size);
    else if (!strcmp(a, "--threads")) bad = !parse_ulong(val, &opt.threads) || opt.threads == 0;
    else if (!strcmp(a, "--warmup")) bad = !parse_ulong(val, &opt.warmup);
    else if (!strcmp(a, "--timeout-ms")) bad = !parse_ulong(val, &opt.timeout_ms);
    else if (!strcmp(a, "--stack-mb")) bad = !parse_ulong(val, &opt.stack_mb) || opt.stack_mb == 0;
    else if (!strcmp(a, "--loop-seconds")) {
      char* end;
      opt.loop_seconds = strtod(val, &end);
      bad = *end || !(opt.loop_seconds > 0);
    } else if (!strncmp(a, "-ORB", 4)) {
      orb_args.push_back(argv[i - 1]);
      orb_args.push_back(argv[i]);
    } else bad = true;
    if (bad) {
      fprintf(stderr, "omni-client: bad option %s %s\n", a, val);
      usage();
      return 2;
    }
  }
  if (opt.target.empty() || !have_scenario) { usage(); return 2; }
  bool is_graph = opt.scenario == GRAPH || opt.scenario == SUBGRAPH ||
                  opt.scenario == TRUNCGRAPH || opt.scenario == PAIR;
  if (is_graph && opt.nodes == 0 && opt.cyclic) {
    fprintf(stderr, "omni-client: --cyclic needs --nodes >= 1\n");
    return 2;
  }
  if (opt.threads > 4096) { usage(); return 2; }

  // Values are (un)marshalled recursively: long lists need deep stacks, in
  // our calling threads and in omniORB's own threads.
  omni_thread::stacksize(opt.stack_mb << 20);

  if (opt.wchar_ucs4) {
    orb_args.push_back((char*)"-ORBnativeWCharCodeSet");
    orb_args.push_back((char*)"UCS-4");
  }
  int oargc = (int)orb_args.size();
  orb_args.push_back(nullptr);
  CORBA::ORB_var orb;
  try {
    orb = CORBA::ORB_init(oargc, orb_args.data());
    CORBA::ValueFactoryBase_var f;
    f = new Bench::Node_init();
    orb->register_value_factory(Bench::Node::_PD_repoId, f.in());
    f = new Bench::SubNode_init();
    orb->register_value_factory(Bench::SubNode::_PD_repoId, f.in());
    f = new Bench::TruncNode_init();
    orb->register_value_factory(Bench::TruncNode::_PD_repoId, f.in());
    if (opt.timeout_ms) omniORB::setClientCallTimeout((CORBA::ULong)opt.timeout_ms);

    CORBA::Object_var obj = orb->string_to_object(opt.target.c_str());
    target = Bench::Echo::_narrow(obj);  // corbaloc: a remote _is_a
    if (CORBA::is_nil(target)) {
      fprintf(stderr, "call failed: target is nil or not a Bench::Echo\n");
      printf("scenario=%s calls=0 failed=1 wall_s=0 calls_per_s=0 p50_us=0 p99_us=0\n",
             opt.scenario_name);
      return 3;
    }
  } catch (CORBA::SystemException& ex) {
    fprintf(stderr, "call failed: system exception CORBA::%s minor=%s (resolving target)\n",
            ex._name(), ex.NP_minorString() ? ex.NP_minorString() : "?");
    printf("scenario=%s calls=0 failed=1 wall_s=0 calls_per_s=0 p50_us=0 p99_us=0\n",
           opt.scenario_name);
    return 3;
  }

  build_args();
  for (unsigned long i = 0; i < opt.warmup; i++) one_call(i);

  std::vector<Worker> workers(opt.threads);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, opt.stack_mb << 20);
  uint64_t start = now_ns();
  uint64_t deadline = opt.loop_seconds > 0 ? start + (uint64_t)(opt.loop_seconds * 1e9) : 0;
  unsigned long next = 0;
  for (unsigned long t = 0; t < opt.threads; t++) {
    Worker& w = workers[t];
    w.deadline = deadline;
    w.count = opt.calls / opt.threads + (t < opt.calls % opt.threads ? 1 : 0);
    w.first = deadline ? (unsigned long)t << 40 : next;
    next += w.count;
  }
  for (unsigned long t = 0; t < opt.threads; t++) {
    int rc = pthread_create(&workers[t].th, &attr, worker_main, &workers[t]);
    if (rc) {
      fprintf(stderr, "omni-client: pthread_create: %s\n", strerror(rc));
      return 3;
    }
  }
  for (auto& w : workers) pthread_join(w.th, nullptr);
  uint64_t end = now_ns();

  std::vector<uint64_t> all;
  size_t total = 0;
  for (auto& w : workers) total += w.lat.size();
  all.reserve(total);
  for (auto& w : workers) all.insert(all.end(), w.lat.begin(), w.lat.end());
  double wall = (end - start) / 1e9;
  double p50 = percentile_us(all, 0.50), p99 = percentile_us(all, 0.99);
  printf("scenario=%s calls=%zu failed=%lu wall_s=%.6f calls_per_s=%.1f p50_us=%.1f "
         "p99_us=%.1f\n",
         opt.scenario_name, total, n_failed.load(), wall, wall > 0 ? total / wall : 0.0,
         p50, p99);
  fflush(stdout);

  target = Bench::Echo::_nil();
  pair_arg.a = (Bench::Node*)nullptr;
  pair_arg.b = (Bench::Node*)nullptr;
  graph_head = (Bench::Node*)nullptr;
  try { orb->destroy(); } catch (...) {}
  if (any_exception) return 3;
  if (any_mismatch) return 1;
  return 0;
}
