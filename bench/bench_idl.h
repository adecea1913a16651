/* bench_idl.h - the C mapping of tests/interop/Bench.idl, written by hand with
 * the public API of libcdr and libiiop (there is no IDL compiler).
 *
 *   module Bench {
 *     valuetype Node { public long id; public Node next; };
 *     valuetype SubNode : Node { public long extra; };
 *     valuetype TruncNode : truncatable Node { public long extra; };
 *     struct Pair { Node a; Node b; };
 *     interface Echo {
 *       long ping(in long x);            Node echoGraph(in Node head);
 *       string echoString(in string s);  wstring echoWString(in wstring s);
 *       Pair echoPair(in Pair p);
 *     };
 *   };
 *
 * Values: a value is a C struct whose first member is a cdr_value (the actual
 * type at run time, set by the library when it decodes, by the creator when
 * it builds one: Bench_Node_init() and friends); SubNode and TruncNode start
 * with a Bench_Node, so a derived value is also a Bench_Node *.  NULL is the
 * null value.  Sharing and cycles are plain pointers: the same pointer twice
 * goes on the wire as an indirection and comes back as one pointer.  On the
 * wire (cdr/value.h, CDR_TYPEINFO_MINIMAL, as omniORB does): a Node outside
 * any chunked value carries no type information, a SubNode its one
 * repository ID, a TruncNode the ID list (TruncNode, Node) and chunked
 * encoding.
 *
 * A receiver that has not registered TruncNode (Bench_register() with
 * BENCH_REG_NO_TRUNC) truncates every TruncNode to a Node: the library finds
 * the truncatable base in the ID list and skips the derived state.
 *
 * Memory: everything the stubs and skeletons decode (values, strings,
 * wstrings) lives in the arena of the call (client) or of the request
 * (server), never in malloc'd memory of its own, so no decoded graph needs
 * freeing and cyclic graphs need no reference counting.  See the client
 * stubs for when that arena goes away.
 *
 * Thread safety: the descriptors are static data that any number of threads
 * may use at once (the library fills each one's repository-ID cache
 * atomically).  Stubs are as thread-safe as iiop_call_begin() on the
 * reference: any number of threads may call through one iiop_ref.
 */
#ifndef BENCH_IDL_H
#define BENCH_IDL_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- repository IDs */

#define BENCH_NODE_ID "IDL:Bench/Node:1.0"
#define BENCH_SUBNODE_ID "IDL:Bench/SubNode:1.0"
#define BENCH_TRUNCNODE_ID "IDL:Bench/TruncNode:1.0"
#define BENCH_PAIR_ID "IDL:Bench/Pair:1.0"
#define BENCH_ECHO_ID "IDL:Bench/Echo:1.0"

/* ---------------------------------------------------------------- values */

/* valuetype Node { public long id; public Node next; }; */
typedef struct Bench_Node {
  cdr_value hdr;
  int32_t id;
  struct Bench_Node *next;
} Bench_Node;

/* valuetype SubNode : Node { public long extra; }; */
typedef struct Bench_SubNode {
  Bench_Node base;
  int32_t extra;
} Bench_SubNode;

/* valuetype TruncNode : truncatable Node { public long extra; }; */
typedef struct Bench_TruncNode {
  Bench_Node base;
  int32_t extra;
} Bench_TruncNode;

/* The value type descriptors.  Not const: the library caches each type's
 * repository ID in its descriptor. */
extern cdr_value_type Bench_Node_vt, Bench_SubNode_vt, Bench_TruncNode_vt;

/* Type descriptors of a Node-typed member/argument (CDR_K_VALUE: a
 * Bench_Node * in C) and of struct Pair. */
extern const cdr_type Bench_Node_type;

/* struct Pair { Node a; Node b; };  a and b may be the same pointer (or
 * point into each other's graphs): sharing is kept by indirection. */
typedef struct Bench_Pair {
  Bench_Node *a;
  Bench_Node *b;
} Bench_Pair;
extern const cdr_type Bench_Pair_type;

/* Initialise a value object in caller memory: set its actual type and its
 * state (next NULL).  Return their argument, as a Bench_Node *. */
static inline Bench_Node *Bench_Node_init(Bench_Node *n, int32_t id)
{
  n->hdr.type = &Bench_Node_vt;
  n->id = id;
  n->next = NULL;
  return n;
}
static inline Bench_Node *Bench_SubNode_init(Bench_SubNode *n, int32_t id, int32_t extra)
{
  n->base.hdr.type = &Bench_SubNode_vt;
  n->base.id = id;
  n->base.next = NULL;
  n->extra = extra;
  return &n->base;
}
static inline Bench_Node *Bench_TruncNode_init(Bench_TruncNode *n, int32_t id, int32_t extra)
{
  n->base.hdr.type = &Bench_TruncNode_vt;
  n->base.id = id;
  n->base.next = NULL;
  n->extra = extra;
  return &n->base;
}

/* Downcasts by actual type: the derived struct, or NULL when N is not one
 * (a TruncNode truncated to a Node on receipt is a plain Node). */
static inline Bench_SubNode *Bench_SubNode_downcast(Bench_Node *n)
{
  return n && n->hdr.type == &Bench_SubNode_vt ? (Bench_SubNode *)n : NULL;
}
static inline Bench_TruncNode *Bench_TruncNode_downcast(Bench_Node *n)
{
  return n && n->hdr.type == &Bench_TruncNode_vt ? (Bench_TruncNode *)n : NULL;
}

/* Register the value types with registry R (NULL: cdr_registry_global()),
 * which is what receivers look repository IDs up in: Node and SubNode
 * always, TruncNode unless FLAGS has BENCH_REG_NO_TRUNC (such a receiver
 * truncates TruncNodes to Nodes).  Call it once at start-up, before the
 * first call or request; registering again is a no-op.  Returns CDR_OK or
 * the error of cdr_registry_add() (CDR_E_INVALID when another descriptor
 * is registered under one of the IDs, CDR_E_NOMEM).  Thread-safe. */
enum { BENCH_REG_NO_TRUNC = 1u << 0 };
int Bench_register(cdr_registry *r, unsigned flags);

/* ---------------------------------------------------------------- client stubs
 *
 * Each stub begins a call on R, writes the arguments, sends the request and
 * waits for the reply (iiop_call_begin / iiop_call_invoke), then reads the
 * results.  Returns:
 *   CDR_OK                  the results are in the out parameters;
 *   IIOP_R_SYSTEM_EXCEPTION the server raised a system exception (and
 *                           IIOP_R_USER_EXCEPTION, which Bench.idl does not
 *                           declare, the server raised a user exception);
 *   a negative cdr_status   a local failure: marshalling the arguments,
 *                           connecting, I/O, timeout, a malformed reply
 *                           (iiop_call_exception() gives the system
 *                           exception it maps to), or results that do not
 *                           decode (no exception is recorded in the call
 *                           for those: cdr_status_exception() names it,
 *                           normally MARSHAL).
 * Out parameters are written only on CDR_OK.
 *
 * Ownership: the results that point to memory (values, strings, wstrings)
 * live in the call's arena, so they stay valid until the caller ends the
 * call.  *CALL receives the call whenever it was begun -- on success and on
 * every failure but CDR_E_NOMEM/CDR_E_INVALID from iiop_call_begin(), where
 * it is NULL -- and the caller must end it with iiop_call_end(*CALL) once
 * it is done with the results or with iiop_call_exception(*CALL).  Ending
 * the call gives the arena, buffers and call object back to their pools,
 * which is what makes a steady stream of calls allocate nothing.
 * Bench_Echo_ping() copies its result out, so its CALL may be NULL: the
 * stub then ends the call itself.
 *
 * Arguments are only read: a graph argument may be cyclic and shared. */
int Bench_Echo_ping(iiop_ref *r, int32_t x, int32_t *ret, iiop_call **call);
int Bench_Echo_echoGraph(iiop_ref *r, const Bench_Node *head, Bench_Node **ret,
                         iiop_call **call);
/* S holds LEN octets (no NUL inside; it need not be NUL-terminated), in
 * ISO-8859-1 (the client's default native char code set); it is sent by
 * reference (cdr_put_string_ref(): not copied, a gather write).  *RET is
 * NUL-terminated, *RET_LEN (may be NULL) its length; it points into the
 * reply (cdr_get_string_view(): no copy) when the native and transmission
 * code sets are the same, else at a converted copy in the call's arena. */
int Bench_Echo_echoString(iiop_ref *r, const char *s, size_t len, const char **ret,
                          uint32_t *ret_len, iiop_call **call);
/* S holds LEN Unicode scalar values (UTF-16 surrogate pairs on the wire are
 * made and combined by the library).  Needs a reference with a wchar code
 * set, i.e. resolved from an IOR: through a corbaloc reference the call
 * fails with CDR_E_CODESET.  *RET is NUL-terminated, *RET_LEN (may be NULL)
 * its length in characters. */
int Bench_Echo_echoWString(iiop_ref *r, const cdr_wchar *s, size_t len, cdr_wchar **ret,
                           uint32_t *ret_len, iiop_call **call);
int Bench_Echo_echoPair(iiop_ref *r, const Bench_Pair *p, Bench_Pair *ret, iiop_call **call);

/* ---------------------------------------------------------------- server skeleton
 *
 * A servant is a struct whose first member is a Bench_Echo_servant pointing
 * at a table of the five operations; activate it with
 *   iiop_server_activate(srv, "Echo", 4, &Bench_Echo_interface, &my.servant)
 * The skeleton reads the arguments (decoded into the request's arena: they
 * stay valid until the reply has been sent, so an operation may return them
 * or anything pointing into them), calls the operation, and writes its
 * results.  An operation returns CDR_OK, or a negative cdr_status: the
 * client then gets the system exception it maps to (cdr_status_exception(),
 * completion status NO unless iiop_request_set_completed() said otherwise).
 * Results that are pointers must stay valid until the operation's reply is
 * written, i.e. until the skeleton returns: request-arena memory, static or
 * servant-owned data.  Operations run on the connection threads of the
 * server, several at once: they must be thread-safe. */
typedef struct Bench_Echo_servant Bench_Echo_servant;
typedef struct Bench_Echo_ops {
  int (*ping)(Bench_Echo_servant *self, iiop_request *req, int32_t x, int32_t *ret);
  int (*echoGraph)(Bench_Echo_servant *self, iiop_request *req, Bench_Node *head,
                   Bench_Node **ret);
  /* S: NUL-terminated, LEN octets, ISO-8859-1, read-only: a view into the
   * request (cdr_get_string_view()) when the native and transmission code
   * sets are the same, else a converted copy in the arena.  *RET: LEN_RET
   * octets (no NUL needed).  A *RET inside S goes back by reference
   * without a second scan (cdr_put_string_view()); any other is checked
   * for NULs and sent by reference (cdr_put_string_ref()). */
  int (*echoString)(Bench_Echo_servant *self, iiop_request *req, const char *s, uint32_t len,
                    const char **ret, size_t *ret_len);
  /* S: NUL-terminated, LEN characters. */
  int (*echoWString)(Bench_Echo_servant *self, iiop_request *req, cdr_wchar *s, uint32_t len,
                     const cdr_wchar **ret, size_t *ret_len);
  int (*echoPair)(Bench_Echo_servant *self, iiop_request *req, Bench_Pair *p, Bench_Pair *ret);
} Bench_Echo_ops;

struct Bench_Echo_servant {
  const Bench_Echo_ops *ops;
};

/* repo_id "IDL:Bench/Echo:1.0", operations ping, echoGraph, echoString,
 * echoWString, echoPair.  Static data. */
extern const iiop_interface Bench_Echo_interface;

#ifdef __cplusplus
}
#endif
#endif
