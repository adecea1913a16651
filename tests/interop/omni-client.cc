// omni-client: omniORB 4.2 client of Bench::Echo and BenchAny::AnyEcho, used
// by the interop tests and as "omniORB's client" in the benchmark.  See
// README.md in this folder.
//
//   omni-client --target URL|IOR --scenario S [--calls N] [--nodes N]
//               [--size N] [--threads T] [--check] [--loop-seconds X]
//               [--cyclic] [--expect-trunc] [--warmup N] [--timeout-ms N]
//               [--stack-mb N] [--case NAME] [-ORBxxx value ...]
//
// --scenario any calls AnyEcho::echoAny (the target is an AnyEcho) with
// each of the Any cases in turn (--case NAME: that one only); --calls
// defaults to the number of cases, so each is sent once.
//
// Last line on stdout, always (unless usage error):
//   scenario=S calls=N failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B
// Exit: 0 all calls succeeded (and matched, with --check); 1 a reply differed;
//       2 usage error; 3 a call raised an exception.
#include "Bench.hh"
#include "AnyEcho.hh"

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
#include <set>
#include <string>
#include <vector>

namespace {

enum Scenario { PING, GRAPH, STRING, WSTRING, PAIR, SUBGRAPH, TRUNCGRAPH, ANY };
const char* const kScenarioNames[] = {"ping",  "graph",    "string",    "wstring",
                                      "pair",  "subgraph", "truncgraph", "any"};
const int kNScenarios = 8;

struct Options {
  std::string target;
  Scenario scenario = PING;
  const char* scenario_name = nullptr;
  unsigned long calls = 1;
  bool calls_given = false;
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
          "  S: ping graph string wstring pair subgraph truncgraph any\n"
          "     (any: the target is a BenchAny::AnyEcho; every Any case in turn)\n"
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
          "  --stack-mb N     stack of calling and omniORB threads (default 64)\n"
          "  --case NAME      any: send only the case NAME (see README.md)\n");
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
    case PING: case ANY:
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

// ------------------------------------------------------------- any scenario
//
// Every case of the AnyEcho interop test (the same names, TypeCodes and
// values as bench/any_cases.c on our side): an Any sent through echoAny and
// a check of the reply: its TypeCode equivalent to the one sent
// (TypeCode::equivalent) and its value, extracted with the typed >>=
// operators (which check the TypeCode too), equal to the one sent.

BenchAny::AnyEcho_var any_target;
std::string any_case;                  // --case NAME: only that case

struct AnyCase {
  const char* name;
  CORBA::Any sent;
  bool (*check)(const CORBA::Any& r, std::string* why);
};
std::vector<AnyCase> any_cases;

#define AFAIL(...)                            \
  do {                                        \
    char buf_[300];                           \
    snprintf(buf_, sizeof buf_, __VA_ARGS__); \
    *why = buf_;                              \
    return false;                             \
  } while (0)

// The values (see tests/interop/README.md, "AnyEcho").
const CORBA::Short kShort = -12345;
const CORBA::Long kLong = -1234567890;
const CORBA::UShort kUShort = 54321;
const CORBA::ULong kULong = 4000000000u;
const CORBA::LongLong kLongLong = -1234567890123456789LL;
const CORBA::ULongLong kULongLong = 18000000000000000000ULL;
const CORBA::Float kFloat = 3.1415927f;
const CORBA::Double kDouble = 2.718281828459045;
const CORBA::LongDouble kLongDouble = 0x1.123456789abcdefp+3L;  // 60 fraction bits: not a double
const CORBA::Char kChar = 'Z';
const CORBA::Octet kOctet = 0xA5;
const CORBA::WChar kWChar = 0x20AC;
const char* const kString = "h\xe9llo, Any";           // ISO-8859-1
// 'a' U+00E9 U+4E2D U+1F600 'z' as UTF-16 units (omniORB's native wchar)
const CORBA::WChar kWString[] = {'a', 0xE9, 0x4E2D, 0xD83D, 0xDE00, 'z', 0};
const char* const kFixed = "-1234567.891";             // fixed<10,3>

const char* tckind_name(CORBA::TCKind k) {
  static const char* const n[] = {
      "tk_null", "tk_void", "tk_short", "tk_long", "tk_ushort", "tk_ulong", "tk_float",
      "tk_double", "tk_boolean", "tk_char", "tk_octet", "tk_any", "tk_TypeCode",
      "tk_Principal", "tk_objref", "tk_struct", "tk_union", "tk_enum", "tk_string",
      "tk_sequence", "tk_array", "tk_alias", "tk_except", "tk_longlong", "tk_ulonglong",
      "tk_longdouble", "tk_wchar", "tk_wstring", "tk_fixed", "tk_value", "tk_value_box",
      "tk_native", "tk_abstract_interface", "tk_local_interface"};
  return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "tk_?";
}

// Extraction of a basic type by >>= (T) or by a to_xxx wrapper (W).
template <class T>
bool get_eq(const CORBA::Any& r, T want, std::string* why, const char* fmt) {
  T v;
  if (!(r >>= v)) AFAIL("extraction failed (the reply is a %s)", tckind_name(r.type()->kind()));
  if (!(v == want)) {
    char a[64], b[64];
    snprintf(a, sizeof a, fmt, v);
    snprintf(b, sizeof b, fmt, want);
    AFAIL("value %s, sent %s", a, b);
  }
  return true;
}

bool chk_short(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::Short>(r, kShort, w, "%d"); }
bool chk_long(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::Long>(r, kLong, w, "%d"); }
bool chk_ushort(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::UShort>(r, kUShort, w, "%u"); }
bool chk_ulong(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::ULong>(r, kULong, w, "%u"); }
bool chk_longlong(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::LongLong>(r, kLongLong, w, "%lld"); }
bool chk_ulonglong(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::ULongLong>(r, kULongLong, w, "%llu"); }
bool chk_float(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::Float>(r, kFloat, w, "%a"); }
bool chk_double(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::Double>(r, kDouble, w, "%a"); }
bool chk_longdouble(const CORBA::Any& r, std::string* w) { return get_eq<CORBA::LongDouble>(r, kLongDouble, w, "%La"); }

bool chk_boolean(const CORBA::Any& r, std::string* why) {
  CORBA::Boolean v;
  if (!(r >>= CORBA::Any::to_boolean(v))) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (!v) AFAIL("FALSE, sent TRUE");
  return true;
}
bool chk_char(const CORBA::Any& r, std::string* why) {
  CORBA::Char v;
  if (!(r >>= CORBA::Any::to_char(v))) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v != kChar) AFAIL("0x%02x, sent 0x%02x", (unsigned char)v, (unsigned char)kChar);
  return true;
}
bool chk_octet(const CORBA::Any& r, std::string* why) {
  CORBA::Octet v;
  if (!(r >>= CORBA::Any::to_octet(v))) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v != kOctet) AFAIL("0x%02x, sent 0x%02x", v, kOctet);
  return true;
}
bool chk_wchar(const CORBA::Any& r, std::string* why) {
  CORBA::WChar v;
  if (!(r >>= CORBA::Any::to_wchar(v))) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v != kWChar) AFAIL("U+%04lX, sent U+%04lX", (unsigned long)v, (unsigned long)kWChar);
  return true;
}
bool chk_string(const CORBA::Any& r, std::string* why) {
  const char* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (strcmp(v, kString)) AFAIL("\"%s\", sent \"%s\"", v, kString);
  return true;
}
bool chk_wstring(const CORBA::Any& r, std::string* why) {
  const CORBA::WChar* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  size_t j = 0;
  while (v[j] && v[j] == kWString[j]) j++;
  if (v[j] != kWString[j])
    AFAIL("element %zu: 0x%04lX, sent 0x%04lX", j, (unsigned long)v[j], (unsigned long)kWString[j]);
  return true;
}
bool chk_fixed(const CORBA::Any& r, std::string* why) {
  CORBA::Fixed v;
  if (!(r >>= CORBA::Any::to_fixed(v, 10, 3))) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v != CORBA::Fixed(kFixed)) {
    CORBA::String_var s = v.to_string();
    AFAIL("%s, sent %s", s.in(), kFixed);
  }
  return true;
}
bool chk_empty(const CORBA::Any& r, std::string* why) {
  if (r.type()->kind() != CORBA::tk_null) AFAIL("a %s, sent tk_null", tckind_name(r.type()->kind()));
  return true;
}
bool chk_typecode(const CORBA::Any& r, std::string* why) {
  CORBA::TypeCode_ptr v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (!v->equal(BenchAny::_tc_Tree)) AFAIL("the TypeCode in it is not equal to BenchAny::Tree's");
  return true;
}
bool chk_objref(const CORBA::Any& r, std::string* why) {
  BenchAny::AnyEcho_ptr v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (CORBA::is_nil(v)) AFAIL("a nil reference");
  if (!v->_is_equivalent(any_target.in())) AFAIL("a reference not equivalent to the one sent");
  return true;
}

BenchAny::Point make_point(CORBA::Long x, CORBA::Double y, const char* label) {
  BenchAny::Point p;
  p.x = x;
  p.y = y;
  p.label = label;
  return p;
}
bool same_point(const BenchAny::Point& a, const BenchAny::Point& b, std::string* why,
                const char* where) {
  if (a.x != b.x || a.y != b.y || strcmp(a.label.in(), b.label.in()))
    AFAIL("%s: {%d, %a, \"%s\"}, sent {%d, %a, \"%s\"}", where, a.x, a.y, a.label.in(), b.x,
          b.y, b.label.in());
  return true;
}
const BenchAny::Point kPoint = make_point(-7, 2.5, "origin");
BenchAny::PointSeq point_seq() {
  BenchAny::PointSeq s;
  s.length(3);
  s[0] = make_point(1, 0.5, "a");
  s[1] = make_point(2, -1.5, "bb");
  s[2] = make_point(3, 1e100, "");
  return s;
}
bool chk_point(const CORBA::Any& r, std::string* why) {
  const BenchAny::Point* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  return same_point(*v, kPoint, why, "point");
}
bool chk_pointseq(const CORBA::Any& r, std::string* why) {
  const BenchAny::PointSeq* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  BenchAny::PointSeq want = point_seq();
  if (v->length() != want.length()) AFAIL("%u points, sent %u", v->length(), want.length());
  for (CORBA::ULong k = 0; k < want.length(); k++) {
    char where[32];
    snprintf(where, sizeof where, "point %u", k);
    if (!same_point((*v)[k], want[k], why, where)) return false;
  }
  return true;
}

// Tree {1, [{2, []}, {3, [{4, []}]}]}
BenchAny::Tree make_tree() {
  BenchAny::Tree t;
  t.value = 1;
  t.children.length(2);
  t.children[0].value = 2;
  t.children[1].value = 3;
  t.children[1].children.length(1);
  t.children[1].children[0].value = 4;
  return t;
}
bool same_tree(const BenchAny::Tree& a, const BenchAny::Tree& b, std::string* why) {
  if (a.value != b.value) AFAIL("tree node %d where %d was sent", a.value, b.value);
  if (a.children.length() != b.children.length())
    AFAIL("tree node %d: %u children, sent %u", b.value, a.children.length(), b.children.length());
  for (CORBA::ULong k = 0; k < a.children.length(); k++)
    if (!same_tree(a.children[k], b.children[k], why)) return false;
  return true;
}
bool chk_tree(const CORBA::Any& r, std::string* why) {
  const BenchAny::Tree* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  return same_tree(*v, make_tree(), why);
}

bool chk_choice(const CORBA::Any& r, std::string* why, CORBA::Short d) {
  const BenchAny::Choice* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v->_d() != d) AFAIL("discriminator %d, sent %d", v->_d(), d);
  if (d == 1 && v->l() != -42) AFAIL("l = %d, sent -42", v->l());
  if (d == 2 && strcmp(v->s(), "two")) AFAIL("s = \"%s\", sent \"two\"", v->s());
  if (d == 7 && v->d() != 0.125) AFAIL("d = %a, sent 0.125", v->d());
  return true;
}
bool chk_choice_l(const CORBA::Any& r, std::string* w) { return chk_choice(r, w, 1); }
bool chk_choice_s(const CORBA::Any& r, std::string* w) { return chk_choice(r, w, 2); }
bool chk_choice_default(const CORBA::Any& r, std::string* w) { return chk_choice(r, w, 7); }

bool chk_color(const CORBA::Any& r, std::string* why) {
  BenchAny::Color v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v != BenchAny::BLUE) AFAIL("enumerator %d, sent BLUE (2)", (int)v);
  return true;
}

// A list of Nodes with ids FIRST.., N long; CYCLIC: the last points at the head.
Bench::Node* make_list(CORBA::Long first, int n, bool cyclic) {
  std::vector<Bench::Node*> v(n);
  for (int k = 0; k < n; k++) v[k] = new OBV_Bench::Node(first + k, nullptr);
  for (int k = 0; k + 1 < n; k++) { v[k]->next(v[k + 1]); v[k + 1]->_remove_ref(); }
  if (cyclic) v[n - 1]->next(v[0]);  // a cycle of references: leaks, as it must
  return v[0];
}
// Check a list: ids FIRST.., N nodes, plain Nodes, then null or (CYCLIC) the head.
bool same_list(Bench::Node* r, CORBA::Long first, int n, bool cyclic, std::string* why) {
  Bench::Node* v = r;
  for (int k = 0; k < n; k++) {
    if (!v) AFAIL("the list ends after %d nodes, sent %d", k, n);
    if (Bench::SubNode::_downcast(v) || Bench::TruncNode::_downcast(v))
      AFAIL("node %d is not a plain Node", k);
    if (v->id() != first + k) AFAIL("node %d: id %d, sent %d", k, v->id(), first + k);
    v = v->next();
  }
  if (cyclic && v != r) AFAIL("cycle lost: the last node points %s", v ? "at another value" : "at null");
  if (!cyclic && v) AFAIL("the list is longer than the %d nodes sent", n);
  return true;
}
bool chk_node_cycle(const CORBA::Any& r, std::string* why) {
  Bench::Node* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  return same_list(v, 0, 3, true, why);
}
bool chk_node_shared(const CORBA::Any& r, std::string* why) {
  const Bench::Pair* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v->a.in() != v->b.in()) AFAIL("a and b are different values (sharing lost)");
  return same_list(v->a.in(), 10, 2, false, why);
}
bool chk_node_null(const CORBA::Any& r, std::string* why) {
  Bench::Node* v = (Bench::Node*)1;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (v) AFAIL("a value with id %d, sent null", v->id());
  return true;
}
bool chk_subnode(const CORBA::Any& r, std::string* why) {
  Bench::SubNode* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (!v) AFAIL("null, sent a SubNode");
  if (v->id() != 5 || v->extra() != 36 || v->next())
    AFAIL("SubNode {id %d, extra %d, next %s}, sent {5, 36, null}", v->id(), v->extra(),
          v->next() ? "a value" : "null");
  return true;
}
bool chk_truncnode(const CORBA::Any& r, std::string* why) {
  Bench::TruncNode* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (!v) AFAIL("null, sent a TruncNode");
  if (v->id() != 6 || v->extra() != 45) AFAIL("TruncNode {id %d, extra %d}, sent {6, 45}", v->id(), v->extra());
  return same_list(v->next(), 7, 1, false, why);
}
bool chk_any_in_any(const CORBA::Any& r, std::string* why) {
  const CORBA::Any* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  if (!v->type()->equivalent(CORBA::_tc_ulong))
    AFAIL("the inner any holds a %s, sent tk_ulong", tckind_name(v->type()->kind()));
  CORBA::ULong u;
  if (!(*v >>= u) || u != 7) AFAIL("the inner any holds %u, sent 7", u);
  return true;
}
// seq-any: [long 1, string "two", Color GREEN]; anyseq: [double 0.5, an empty any]
bool chk_anys(const CORBA::Any& r, std::string* why, bool alias) {
  const CORBA::AnySeq* v;
  if (!(r >>= v)) AFAIL("extraction failed (%s)", tckind_name(r.type()->kind()));
  CORBA::ULong want_n = alias ? 2 : 3;
  if (v->length() != want_n) AFAIL("%u elements, sent %u", v->length(), want_n);
  const CORBA::Any* e = v->get_buffer();
  if (alias) {
    CORBA::Double d;
    if (!(e[0] >>= d) || d != 0.5) AFAIL("element 0 is not the double 0.5");
    if (e[1].type()->kind() != CORBA::tk_null)
      AFAIL("element 1 is a %s, sent an empty any", tckind_name(e[1].type()->kind()));
  } else {
    CORBA::Long l;
    const char* s;
    BenchAny::Color c;
    if (!(e[0] >>= l) || l != 1) AFAIL("element 0 is not the long 1");
    if (!(e[1] >>= s) || strcmp(s, "two")) AFAIL("element 1 is not the string \"two\"");
    if (!(e[2] >>= c) || c != BenchAny::GREEN) AFAIL("element 2 is not the Color GREEN");
  }
  return true;
}
bool chk_seq_any(const CORBA::Any& r, std::string* w) { return chk_anys(r, w, false); }
bool chk_anyseq(const CORBA::Any& r, std::string* w) { return chk_anys(r, w, true); }

void add_case(const char* name, const CORBA::Any& a, bool (*check)(const CORBA::Any&, std::string*)) {
  if (!any_case.empty() && any_case != name) return;
  any_cases.push_back(AnyCase{name, a, check});
}

// Returns false when --case names no case.
bool build_any_cases(CORBA::ORB_ptr orb) {
  CORBA::Any a;
  a <<= kShort; add_case("short", a, chk_short);
  a <<= kLong; add_case("long", a, chk_long);
  a <<= kUShort; add_case("ushort", a, chk_ushort);
  a <<= kULong; add_case("ulong", a, chk_ulong);
  a <<= kLongLong; add_case("longlong", a, chk_longlong);
  a <<= kULongLong; add_case("ulonglong", a, chk_ulonglong);
  a <<= kFloat; add_case("float", a, chk_float);
  a <<= kDouble; add_case("double", a, chk_double);
  a <<= kLongDouble; add_case("longdouble", a, chk_longdouble);
  a <<= CORBA::Any::from_boolean(1); add_case("boolean", a, chk_boolean);
  a <<= CORBA::Any::from_char(kChar); add_case("char", a, chk_char);
  a <<= CORBA::Any::from_octet(kOctet); add_case("octet", a, chk_octet);
  a <<= CORBA::Any::from_wchar(kWChar); add_case("wchar", a, chk_wchar);
  a <<= kString; add_case("string", a, chk_string);
  a <<= kWString; add_case("wstring", a, chk_wstring);
  a <<= CORBA::Any::from_fixed(CORBA::Fixed(kFixed), 10, 3); add_case("fixed", a, chk_fixed);
  add_case("empty", CORBA::Any(), chk_empty);
  a <<= BenchAny::_tc_Tree; add_case("typecode", a, chk_typecode);
  a <<= any_target.in(); add_case("objref", a, chk_objref);
  a <<= kPoint; add_case("point", a, chk_point);
  a <<= point_seq(); add_case("pointseq", a, chk_pointseq);
  a <<= make_tree(); add_case("tree", a, chk_tree);
  BenchAny::Choice c;
  c.l(-42); a <<= c; add_case("choice-l", a, chk_choice_l);
  c.s("two"); a <<= c; add_case("choice-s", a, chk_choice_s);
  c.d(0.125); c._d(7); a <<= c; add_case("choice-default", a, chk_choice_default);
  a <<= BenchAny::BLUE; add_case("color", a, chk_color);
  {
    Bench::Node* head = make_list(0, 3, true);
    a <<= head;  // copying: add_ref
    head->_remove_ref();
    add_case("node-cycle", a, chk_node_cycle);
  }
  {
    Bench::Pair p;
    p.a = make_list(10, 2, false);
    p.b = p.a;
    a <<= p;
    add_case("node-shared", a, chk_node_shared);
  }
  {
    // a <<= (Bench::Node*)nullptr makes an Any that omniORB 4.2.5 cannot
    // copy or send (assertion "snap_marshal", any.cc line 288): read it
    // from its octets instead, Node's TypeCode and the null value tag 0.
    cdrMemoryStream m;
    CORBA::TypeCode::marshalTypeCode(Bench::_tc_Node, m);
    ::operator>>=((CORBA::ULong)0, m);
    CORBA::Any null_any;
    null_any <<= m;
    add_case("node-null", null_any, chk_node_null);
  }
  {
    Bench::SubNode* s = new OBV_Bench::SubNode(5, nullptr, 36);
    a <<= s;
    s->_remove_ref();
    add_case("subnode", a, chk_subnode);
    Bench::Node* n7 = make_list(7, 1, false);
    Bench::TruncNode* t = new OBV_Bench::TruncNode(6, n7, 45);  // takes n7's reference
    a <<= t;
    t->_remove_ref();
    add_case("truncnode", a, chk_truncnode);
  }
  {
    CORBA::Any inner;
    inner <<= (CORBA::ULong)7;
    a <<= inner;
    add_case("any-in-any", a, chk_any_in_any);
  }
  {
    CORBA::AnySeq s;
    s.length(3);
    s[0] <<= (CORBA::Long)1;
    s[1] <<= "two";
    s[2] <<= BenchAny::GREEN;
    a <<= s;
    // The same value under an anonymous sequence<any> TypeCode (equivalent
    // to AnySeq's alias, so Any::type accepts it).
    CORBA::TypeCode_var anon = orb->create_sequence_tc(0, CORBA::_tc_any);
    a.type(anon.in());
    add_case("seq-any", a, chk_seq_any);
    s.length(2);
    s[0] <<= (CORBA::Double)0.5;
    s[1] = CORBA::Any();
    a <<= s;
    add_case("anyseq", a, chk_anyseq);
  }
  return !any_cases.empty();
}

// The any scenario reports each failing case once, whatever their number.
// FMT has one %s, the case's name (anything else in it is printed as is).
void report_case(unsigned long i, const std::string& fmt) {
  const char* name = any_cases[i % any_cases.size()].name;
  std::lock_guard<std::mutex> g(report_mu);
  static std::set<std::string> reported;
  if (!reported.insert(name).second) return;
  size_t at = fmt.find("%s");
  std::string line = at == std::string::npos ? fmt : fmt.substr(0, at) + name + fmt.substr(at + 2);
  fputs(line.c_str(), stderr);
  fflush(stderr);
}

// One echoAny of case I % ncases: false on a mismatch (WHY says how).
bool any_call(unsigned long i, std::string* why) {
  AnyCase& c = any_cases[i % any_cases.size()];
  CORBA::Any_var r = any_target->echoAny(c.sent);
  bool ok;
  if (!r->type()->equivalent(c.sent.type())) {
    char buf[200];
    snprintf(buf, sizeof buf, "the reply's TypeCode (%s) is not equivalent to the one sent (%s)",
             tckind_name(r->type()->kind()), tckind_name(c.sent.type()->kind()));
    *why = buf;
    ok = false;
  } else {
    ok = c.check(r.in(), why);
  }
  if (!ok) *why = std::string("case ") + c.name + ": " + *why;
  return ok;
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
      case ANY:
        ok = any_call(i, &why);
        break;
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
    if (opt.scenario == ANY)
      report_case(i, "call failed: case %s: system exception " + std::string(buf) + "\n");
    else
      report("call failed: system exception %s\n", buf);
    return false;
  } catch (CORBA::Exception& ex) {
    any_exception = true;
    n_failed++;
    if (opt.scenario == ANY)
      report_case(i, "call failed: case %s: exception " + std::string(ex._name()) + "\n");
    else
      report("call failed: exception %s\n", ex._name());
    return false;
  }
  if (!ok) {
    any_mismatch = true;
    n_failed++;
    if (opt.scenario == ANY)
      report_case(i, "reply differs: " + why + "\n");
    else
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
      for (int s = 0; s < kNScenarios; s++)
        if (!strcmp(val, kScenarioNames[s])) {
          opt.scenario = (Scenario)s;
          opt.scenario_name = kScenarioNames[s];
          have_scenario = true;
        }
      bad = !have_scenario;
    }
    else if (!strcmp(a, "--calls")) { bad = !parse_ulong(val, &opt.calls); opt.calls_given = true; }
    else if (!strcmp(a, "--case")) any_case = val;
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
    bool nil;
    if (opt.scenario == ANY) {
      any_target = BenchAny::AnyEcho::_narrow(obj);
      nil = CORBA::is_nil(any_target);
    } else {
      target = Bench::Echo::_narrow(obj);  // corbaloc: a remote _is_a
      nil = CORBA::is_nil(target);
    }
    if (nil) {
      fprintf(stderr, "call failed: target is nil or not a %s\n",
              opt.scenario == ANY ? "BenchAny::AnyEcho" : "Bench::Echo");
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
  if (opt.scenario == ANY) {
    if (!build_any_cases(orb.in())) {
      fprintf(stderr, "omni-client: no Any case is named '%s'\n", any_case.c_str());
      return 2;
    }
    if (!opt.calls_given) opt.calls = any_cases.size();
  }
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
  any_cases.clear();
  any_target = BenchAny::AnyEcho::_nil();
  pair_arg.a = (Bench::Node*)nullptr;
  pair_arg.b = (Bench::Node*)nullptr;
  graph_head = (Bench::Node*)nullptr;
  try { orb->destroy(); } catch (...) {}
  if (any_exception) return 3;
  if (any_mismatch) return 1;
  return 0;
}
