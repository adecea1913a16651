/* any_cases.h - BenchAny::AnyEcho (tests/interop/AnyEcho.idl) over IIOP: the C
 * mapping of its types, the Any cases of the interop test, the client stub
 * and the server skeleton of echoAny.  Used by iiop-bench (server: object
 * key "AnyEcho"; client: --scenario any) and by tests/check_anyecho.c.
 *
 *   module BenchAny {
 *     struct Point { long x; double y; string label; };
 *     typedef sequence<Point> PointSeq;
 *     struct Tree { long value; sequence<Tree> children; };
 *     union Choice switch (short) { case 1: long l; case 2: string s; default: double d; };
 *     enum Color { RED, GREEN, BLUE };
 *     interface AnyEcho { any echoAny(in any a); };
 *   };
 *
 * The cases are the same, in the same order and under the same names, as
 * omni-client's (tests/interop/omni-client.cc, --scenario any), and the
 * captures tests/interop/captures/any/echoAny-NAME.hex are omniORB's
 * echoAny of each; tests/interop/README.md ("AnyEcho") lists them with
 * their values.
 *
 * long double: omniORB 4.2 on x86-64 sends the x87 memory image, not IEEE
 * binary128 (docs/wire-notes.md, "Numbers").  Calls and the servant set
 * CDR_F_LDOUBLE_X87 on their streams when ANY_X87 is in their flags
 * (iiop-bench --ldouble-x87); both ends of a call must agree.
 */
#ifndef BENCH_ANY_CASES_H
#define BENCH_ANY_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cdr/cdr.h>
#include <cdr/any.h>
#include <iiop/orb.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCHANY_ANYECHO_ID "IDL:BenchAny/AnyEcho:1.0"

/* struct Point { long x; double y; string label; }; */
typedef struct BenchAny_Point {
  int32_t x;
  double y;
  char *label;
} BenchAny_Point;

/* struct Tree { long value; sequence<Tree> children; }; (children: cdr_seq
 * of BenchAny_Tree) */
typedef struct BenchAny_Tree {
  int32_t value;
  cdr_seq children;
} BenchAny_Tree;

/* union Choice switch (short) { case 1: long l; case 2: string s; default: double d; }; */
typedef struct BenchAny_Choice {
  int16_t _d;
  union {
    int32_t l;
    char *s;
    double d;
  } _u;
} BenchAny_Choice;

/* enum Color { RED, GREEN, BLUE }; */
enum { BenchAny_RED, BenchAny_GREEN, BenchAny_BLUE };

/* TypeCodes (static descriptors) of the module's types, of the anonymous
 * sequence<any> and of CORBA::AnySeq (alias "IDL:omg.org/CORBA/AnySeq:1.0"
 * of sequence<any>). */
extern const cdr_type BenchAny_Point_type, BenchAny_PointSeq_type, BenchAny_Tree_type,
  BenchAny_Choice_type, BenchAny_Color_type, BenchAny_AnyEcho_type, any_seq_any_type,
  any_CORBA_AnySeq_type;

/* ---------------------------------------------------------------- the cases */

typedef struct any_case {
  const char *name;
  cdr_any any;        /* _release 0: static TypeCode and value */
} any_case;

/* Number of cases, and case K (K < any_case_count()).  The "objref" case
 * holds an IOR only after any_cases_set_objref(); before, a nil reference. */
size_t any_case_count(void);
const any_case *any_case_at(size_t k);
/* The case named NAME, or NULL. */
const any_case *any_case_find(const char *name);

/* Make the "objref" case hold the reference of the stringified IOR
 * ("IOR:" and hex octets: an encapsulated IOR, CORBA 3.x Part 2
 * "Stringified Object References"), decoded into the case's value (an
 * IOR as cdr/any.h lays out a reference without hooks).  The client puts
 * the target itself there.  CDR_OK; CDR_E_VALUE (not "IOR:" and an even
 * count of hex digits), the decoder's error (a malformed IOR), CDR_E_NOMEM.
 * Not thread-safe: call before the calls.  The IOR's memory lasts until
 * any_cases_cleanup(), which makes the case nil again. */
int any_cases_set_objref(const char *ior);
void any_cases_cleanup(void);

/* Compare REPLY with the case sent: its TypeCode must be equivalent to the
 * case's (cdr_tc_equivalent()) and its value equal (cdr_any_equal()).
 * true when both hold; else false, with WHY (WHYSZ octets) saying how. */
bool any_case_matches(const any_case *c, const cdr_any *reply, char *why, size_t whysz);

/* ---------------------------------------------------------------- calls */

enum { ANY_X87 = 1u << 0 };   /* long double as omniORB's x87 image (above) */

/* any echoAny(in any a) on R: A goes out with cdr_put_any(); the reply's
 * any is decoded into *RET (the call's arena: valid until the call ends).
 * *CALL receives the call whenever it was begun (end it with
 * iiop_call_end()), NULL otherwise.  Returns what iiop_call_invoke()
 * returns (CDR_OK, IIOP_R_SYSTEM_EXCEPTION, IIOP_R_USER_EXCEPTION, a
 * negative status), or the decoder's error for the reply's any. */
int BenchAny_AnyEcho_echoAny(iiop_ref *r, const cdr_any *a, unsigned flags, cdr_any *ret,
                             iiop_call **call);

/* One call of the client's any scenario: case I % any_case_count() (or,
 * after any_cases_only(), that case) through echoAny on R; with CHECK the
 * reply is compared (any_case_matches()).  Returns 0 (success), 1 (the
 * reply differs) or 3 (the call failed), as iiop-bench's exit statuses;
 * the first failure of each case is printed on stderr, one line naming the
 * case (every failing case gets its line, whatever their number).
 * Thread-safe. */
int any_case_call(iiop_ref *r, unsigned long i, bool check, unsigned flags);

/* Restrict any_case_call() to the case NAME: false when there is none. */
bool any_cases_only(const char *name);
/* Calls one round of the client makes: the number of cases (1 after
 * any_cases_only()). */
unsigned long any_cases_round(void);

/* ---------------------------------------------------------------- servant */

/* echoAny's servant: decodes the any (cdr_get_any()) and sends it back
 * (cdr_put_any()); with ANY_REENCODE in FLAGS it first drops the original
 * octets (cdr_any_forget_octets()), so the TypeCode and value are encoded
 * again from the decoded form.  Activate it with
 *   iiop_server_activate(srv, "AnyEcho", 7, &BenchAny_AnyEcho_interface, &servant)
 * where servant is a BenchAny_AnyEcho_servant.  Thread-safe. */
enum { ANY_REENCODE = 1u << 1 };
typedef struct BenchAny_AnyEcho_servant {
  unsigned flags;              /* ANY_X87, ANY_REENCODE */
  void (*on_request)(void);    /* called first by each echoAny (NULL: none) */
} BenchAny_AnyEcho_servant;
extern const iiop_interface BenchAny_AnyEcho_interface;

#ifdef __cplusplus
}
#endif
#endif
