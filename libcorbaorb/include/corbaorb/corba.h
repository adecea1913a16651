/* corbaorb/corba.h - the OMG IDL-to-C language mapping's runtime
 * (libcorbaorb, pkg-config corbaorb), over libiiop and libcdr.
 *
 * What a C program written against the mapping (and the code idl2c
 * generates) includes: the basic types, CORBA_Environment and exceptions,
 * the mapping's memory rules (CORBA_free and the allocators), the ORB, object
 * references, a POA subset, and the invocation engine the generated stubs
 * and skeletons call.  The names and signatures are the OMG's (as ORBit2
 * implemented them); names this runtime adds for the generated code begin
 * with corbaorb_.
 *
 * Memory.  Everything the ORB hands to a program to free, and everything a
 * program hands to the ORB to free, is freed with CORBA_free(): strings
 * (CORBA_string_alloc/dup), wstrings, and the blocks the generated T__alloc()
 * and T_allocbuf() functions return (corbaorb_alloc/corbaorb_allocbuf).
 * Each such block carries a hidden header before the memory the program
 * sees, holding the element TypeCode and count, so that CORBA_free frees
 * deeply: every string, sequence buffer whose _release is set, any value,
 * TypeCode and object reference inside, whatever the program assigned there
 * since (the members must themselves be CORBA_ allocations, as the mapping
 * says).  A pointer that did not come from these allocators must never be
 * passed to CORBA_free.  Object references and TypeCodes are released with
 * CORBA_Object_release (CORBA_free of one does the same).
 *
 * Threads: an ORB, its references and its POAs may be used by any number of
 * threads at once; a CORBA_Environment belongs to one thread.
 */
#ifndef CORBAORB_CORBA_H
#define CORBAORB_CORBA_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/cdr.h>
#include <cdr/typecode.h>
#include <iiop/orb.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CORBAORB_BUILDING)
#define CORBAORB_API __attribute__((visibility("default")))
#else
#define CORBAORB_API
#endif

/* ---------------------------------------------------------------- basic types */

typedef int16_t CORBA_short;
typedef uint16_t CORBA_unsigned_short;
typedef int32_t CORBA_long;
typedef uint32_t CORBA_unsigned_long;
typedef int64_t CORBA_long_long;
typedef uint64_t CORBA_unsigned_long_long;
typedef float CORBA_float;
typedef double CORBA_double;
typedef long double CORBA_long_double;
/* One octet, 0 or 1 (another value fails to marshal: MARSHAL). */
typedef uint8_t CORBA_boolean;
typedef char CORBA_char;
/* A code point (UTF-32 in memory; the wire's code set is negotiated). */
typedef cdr_wchar CORBA_wchar;
typedef uint8_t CORBA_octet;
typedef char *CORBA_string;
typedef CORBA_wchar *CORBA_wstring;
typedef cdr_fixed CORBA_fixed;
typedef cdr_any CORBA_any;
typedef cdr_typecode CORBA_TypeCode;
typedef uint32_t CORBA_enum;

#define CORBA_TRUE 1
#define CORBA_FALSE 0

/* TypeCode constants of the basic types. */
#define TC_null cdr_tc_null
#define TC_void cdr_tc_void
#define TC_CORBA_short cdr_tc_short
#define TC_CORBA_long cdr_tc_long
#define TC_CORBA_long_long cdr_tc_longlong
#define TC_CORBA_unsigned_short cdr_tc_ushort
#define TC_CORBA_unsigned_long cdr_tc_ulong
#define TC_CORBA_unsigned_long_long cdr_tc_ulonglong
#define TC_CORBA_float cdr_tc_float
#define TC_CORBA_double cdr_tc_double
#define TC_CORBA_long_double cdr_tc_longdouble
#define TC_CORBA_boolean cdr_tc_boolean
#define TC_CORBA_char cdr_tc_char
#define TC_CORBA_wchar cdr_tc_wchar
#define TC_CORBA_octet cdr_tc_octet
#define TC_CORBA_any cdr_tc_any
#define TC_CORBA_TypeCode cdr_tc_TypeCode
#define TC_CORBA_Principal cdr_tc_Principal
#define TC_CORBA_string cdr_tc_string
#define TC_CORBA_wstring cdr_tc_wstring
#define TC_CORBA_Object cdr_tc_Object

/* ---------------------------------------------------------------- objects */

/* An object reference (reference counted: CORBA_Object_duplicate and
 * CORBA_Object_release).  CORBA_OBJECT_NIL is the nil reference. */
typedef struct CORBA_Object_type *CORBA_Object;
#define CORBA_OBJECT_NIL ((CORBA_Object)NULL)

typedef struct CORBA_ORB_type *CORBA_ORB;
typedef struct PortableServer_POA_type *PortableServer_POA;
typedef struct PortableServer_POAManager_type *PortableServer_POAManager;
typedef struct CORBA_Policy_type *CORBA_Policy;

/* ---------------------------------------------------------------- exceptions */

typedef enum CORBA_exception_type {
  CORBA_NO_EXCEPTION = 0,
  CORBA_USER_EXCEPTION = 1,
  CORBA_SYSTEM_EXCEPTION = 2
} CORBA_exception_type;

typedef enum CORBA_completion_status {
  CORBA_COMPLETED_YES = 0,
  CORBA_COMPLETED_NO = 1,
  CORBA_COMPLETED_MAYBE = 2
} CORBA_completion_status;

/* The members of every system exception (CORBA_exception_value() of one). */
typedef struct CORBA_SystemException {
  CORBA_unsigned_long minor;
  CORBA_completion_status completed;
} CORBA_SystemException;

/* Where an operation's outcome goes.  Initialise with CORBA_exception_init()
 * (or zero it); after an exception, CORBA_exception_free() gives back what
 * it holds (the ORB also frees an earlier exception before it sets a new
 * one).  _major tells what happened; the other members are the runtime's:
 * read them through CORBA_exception_id() and CORBA_exception_value(). */
typedef struct CORBA_Environment {
  CORBA_exception_type _major;
  char *_id;                  /* repository ID (static, or owned when _flags & 1) */
  void *_params;              /* the exception's members (owned when _flags & 2) */
  CORBA_SystemException _sys; /* a system exception's members, _params points here */
  unsigned _flags;
} CORBA_Environment;

/* Zero EV: no exception. */
CORBAORB_API void CORBA_exception_init(CORBA_Environment *ev);
/* Set an exception: MAJOR, the repository ID EXCEPT_REPOS_ID (copied) and
 * PARAM, the exception's members (a user exception's T__alloc() block, or
 * NULL for one without members; owned by EV from now: freed by
 * CORBA_exception_free with CORBA_free).  A servant raises a user exception
 * this way.  For a system exception PARAM may be a CORBA_SystemException
 * (copied, not owned) or NULL (minor 0, COMPLETED_NO).  An exception EV held
 * before is freed first.  On allocation failure EV holds NO_MEMORY. */
CORBAORB_API void CORBA_exception_set(CORBA_Environment *ev, CORBA_exception_type major,
                                      const CORBA_char *except_repos_id, void *param);
/* Set the system exception EXCEPT_REPOS_ID (an ex_CORBA_* string) with
 * minor code 0 and completion COMPLETED. */
CORBAORB_API void CORBA_exception_set_system(CORBA_Environment *ev,
                                             const CORBA_char *except_repos_id,
                                             CORBA_completion_status completed);
/* As CORBA_exception_set_system, with a minor code. */
CORBAORB_API void corbaorb_exception_set_system_minor(CORBA_Environment *ev,
                                                      const CORBA_char *except_repos_id,
                                                      CORBA_unsigned_long minor,
                                                      CORBA_completion_status completed);
/* The repository ID of EV's exception (NULL when none); borrowed from EV. */
CORBAORB_API CORBA_char *CORBA_exception_id(CORBA_Environment *ev);
/* The members of EV's exception (a user exception's struct, or a
 * CORBA_SystemException), or NULL; borrowed from EV. */
CORBAORB_API void *CORBA_exception_value(CORBA_Environment *ev);
/* Free what EV holds; EV is then NO_EXCEPTION. */
CORBAORB_API void CORBA_exception_free(CORBA_Environment *ev);

/* Repository IDs of the standard system exceptions (CORBA 3.x, Part 1,
 * "Standard Exceptions"): compare CORBA_exception_id() with strcmp. */
#define CORBAORB_SYSEX(n) "IDL:omg.org/CORBA/" #n ":1.0"
#define ex_CORBA_UNKNOWN CORBAORB_SYSEX(UNKNOWN)
#define ex_CORBA_BAD_PARAM CORBAORB_SYSEX(BAD_PARAM)
#define ex_CORBA_NO_MEMORY CORBAORB_SYSEX(NO_MEMORY)
#define ex_CORBA_IMP_LIMIT CORBAORB_SYSEX(IMP_LIMIT)
#define ex_CORBA_COMM_FAILURE CORBAORB_SYSEX(COMM_FAILURE)
#define ex_CORBA_INV_OBJREF CORBAORB_SYSEX(INV_OBJREF)
#define ex_CORBA_NO_PERMISSION CORBAORB_SYSEX(NO_PERMISSION)
#define ex_CORBA_INTERNAL CORBAORB_SYSEX(INTERNAL)
#define ex_CORBA_MARSHAL CORBAORB_SYSEX(MARSHAL)
#define ex_CORBA_INITIALIZE CORBAORB_SYSEX(INITIALIZE)
#define ex_CORBA_NO_IMPLEMENT CORBAORB_SYSEX(NO_IMPLEMENT)
#define ex_CORBA_BAD_TYPECODE CORBAORB_SYSEX(BAD_TYPECODE)
#define ex_CORBA_BAD_OPERATION CORBAORB_SYSEX(BAD_OPERATION)
#define ex_CORBA_NO_RESOURCES CORBAORB_SYSEX(NO_RESOURCES)
#define ex_CORBA_NO_RESPONSE CORBAORB_SYSEX(NO_RESPONSE)
#define ex_CORBA_PERSIST_STORE CORBAORB_SYSEX(PERSIST_STORE)
#define ex_CORBA_BAD_INV_ORDER CORBAORB_SYSEX(BAD_INV_ORDER)
#define ex_CORBA_TRANSIENT CORBAORB_SYSEX(TRANSIENT)
#define ex_CORBA_FREE_MEM CORBAORB_SYSEX(FREE_MEM)
#define ex_CORBA_INV_IDENT CORBAORB_SYSEX(INV_IDENT)
#define ex_CORBA_INV_FLAG CORBAORB_SYSEX(INV_FLAG)
#define ex_CORBA_INTF_REPOS CORBAORB_SYSEX(INTF_REPOS)
#define ex_CORBA_BAD_CONTEXT CORBAORB_SYSEX(BAD_CONTEXT)
#define ex_CORBA_OBJ_ADAPTER CORBAORB_SYSEX(OBJ_ADAPTER)
#define ex_CORBA_DATA_CONVERSION CORBAORB_SYSEX(DATA_CONVERSION)
#define ex_CORBA_OBJECT_NOT_EXIST CORBAORB_SYSEX(OBJECT_NOT_EXIST)
#define ex_CORBA_TRANSACTION_REQUIRED CORBAORB_SYSEX(TRANSACTION_REQUIRED)
#define ex_CORBA_TRANSACTION_ROLLEDBACK CORBAORB_SYSEX(TRANSACTION_ROLLEDBACK)
#define ex_CORBA_INVALID_TRANSACTION CORBAORB_SYSEX(INVALID_TRANSACTION)
#define ex_CORBA_INV_POLICY CORBAORB_SYSEX(INV_POLICY)
#define ex_CORBA_CODESET_INCOMPATIBLE CORBAORB_SYSEX(CODESET_INCOMPATIBLE)
#define ex_CORBA_REBIND CORBAORB_SYSEX(REBIND)
#define ex_CORBA_TIMEOUT CORBAORB_SYSEX(TIMEOUT)
#define ex_CORBA_TRANSACTION_UNAVAILABLE CORBAORB_SYSEX(TRANSACTION_UNAVAILABLE)
#define ex_CORBA_TRANSACTION_MODE CORBAORB_SYSEX(TRANSACTION_MODE)
#define ex_CORBA_BAD_QOS CORBAORB_SYSEX(BAD_QOS)

/* ---------------------------------------------------------------- memory */

/* Free MEM deeply (see "Memory" above); NULL is a no-op. */
CORBAORB_API void CORBA_free(void *mem);
/* A string of LEN characters and the NUL (contents undefined but for
 * str[len] = 0); NULL when out of memory. */
CORBAORB_API CORBA_char *CORBA_string_alloc(CORBA_unsigned_long len);
/* A copy of STR (NULL: NULL). */
CORBAORB_API CORBA_char *CORBA_string_dup(const CORBA_char *str);
CORBAORB_API CORBA_wchar *CORBA_wstring_alloc(CORBA_unsigned_long len);
CORBAORB_API CORBA_wchar *CORBA_wstring_dup(const CORBA_wchar *str);
CORBAORB_API CORBA_unsigned_long CORBA_wstring_len(const CORBA_wchar *str);
/* An empty any (tk_null), freed with CORBA_free. */
CORBAORB_API CORBA_any *CORBA_any__alloc(void);
/* Deep copy of the any SRC into the empty any DST (_release set), as
 * corbaorb_copy() copies (values that are no references, such as a
 * request's in values, copied into a graph of the copy's own); a
 * CORBA_any__copy failing on memory leaves DST tk_null. */
CORBAORB_API void CORBA_any__copy(CORBA_any *dst, const CORBA_any *src);

/* The typed allocator the generated T__alloc() and T_allocbuf() call:
 * COUNT zeroed elements of TC's C layout (tc->size octets each), with the
 * hidden header that lets CORBA_free free each element deeply by TC.  NULL
 * when out of memory or when COUNT * tc->size overflows. */
CORBAORB_API void *corbaorb_alloc(CORBA_TypeCode tc, CORBA_unsigned_long count);
/* The same for a sequence buffer: LEN elements of TC (CORBA_free frees them
 * and each element deeply).  LEN 0 gives a valid block of no elements. */
CORBAORB_API void *corbaorb_allocbuf(CORBA_TypeCode tc, CORBA_unsigned_long len);
/* Free the contents (not the storage) of the value at P of type TC: what
 * CORBA_free does for each element of a block. */
CORBAORB_API void corbaorb_free_contents(CORBA_TypeCode tc, void *p);
/* Deep-copy the value at SRC of type TC into DST (tc->size octets, their
 * old contents overwritten, not freed), every string and buffer newly
 * allocated as CORBA_free expects.  Values (valuetypes) that are references
 * get one more reference each; where SRC holds one that is not (a
 * request's in value, a value on the stack), SRC is copied whole through
 * CDR (written, then read back into a graph of the copy's own: sharing and
 * cycles kept).  CDR_OK, CDR_E_NOMEM (DST then holds a valid, partial copy:
 * free it with corbaorb_free_contents), or, for the copy through CDR, the
 * error writing or reading SRC gave (e.g. CDR_E_UNSUPPORTED: a custom value
 * without its marshaller; DST then holds nothing to free). */
CORBAORB_API int corbaorb_copy(CORBA_TypeCode tc, void *dst, const void *src);
/* ---- Values (our extension: the OMG C mapping defines none; docs/c-mapping.md
 * "Values").  A value is a pointer to a C struct whose first member is a
 * cdr_value (cdr/value.h); the objects of one graph live in one arena.  A
 * value pointer the mapping hands out -- a result, an out or inout value, a
 * value inside a struct, sequence, union, array or any the ORB allocated,
 * what corbaorb_value_new() makes with GRAPH NULL -- is a reference to its
 * graph: CORBA_free() of it (or of the block that holds it) gives the
 * reference back, and the last reference frees the graph's arena whole, so
 * shared and cyclic values need no reference counting of their own.  The
 * other values of the graph (ROOT->next ...) are not references: they must
 * not be given to CORBA_free, and live as long as a reference to their graph.  Members of value objects are never freed
 * one by one: what a program stores in a value it built (a string from
 * CORBA_string_dup) stays the program's. */

/* A new zeroed value object of type VT (VT->size octets, its cdr_value
 * header set to VT).  GRAPH NULL: in a graph of its own, and the result is
 * a reference to that graph; else GRAPH must be a reference (as above) and
 * the object is allocated in GRAPH's graph, freed with it (not a reference
 * itself).  A graph's allocations are not thread-safe against each other
 * unless the threads serialise them.  NULL when out of memory, VT is NULL,
 * abstract or smaller than a cdr_value, or GRAPH is not a reference. */
CORBAORB_API void *corbaorb_value_new(const cdr_value_type *vt, const void *graph);
/* A copy of the string STR in the graph of the reference GRAPH, freed with
 * it (for the string members of values a program builds: CORBA_string_dup's
 * would be the program's to free).  NULL when out of memory, STR is NULL or
 * GRAPH is not a reference. */
CORBAORB_API CORBA_char *corbaorb_value_strdup(const void *graph, const CORBA_char *str);
/* Another reference to the graph of the reference V (CORBA_free gives it
 * back): V, or NULL when V is not a reference (NULL, a value inside a graph,
 * a value that did not come from the mapping). */
CORBAORB_API void *corbaorb_value_dup(const void *v);

/* Whether TC's type is variable-length in the mapping's sense (strings,
 * sequences, any, TypeCodes, object references, or a struct, union or
 * array holding one): 1 or 0. */
CORBAORB_API int corbaorb_tc_is_variable(CORBA_TypeCode tc);

/* The mapping's sequence helpers (for any CORBA_sequence_T). */
#define CORBA_sequence_set_release(s, r) ((s)->_release = (r))
#define CORBA_sequence_get_release(s) ((s)->_release)

#if !defined(_CORBA_sequence_CORBA_octet_defined)
#define _CORBA_sequence_CORBA_octet_defined 1
typedef struct CORBA_sequence_CORBA_octet {
  CORBA_unsigned_long _maximum;
  CORBA_unsigned_long _length;
  CORBA_octet *_buffer;
  CORBA_boolean _release;
} CORBA_sequence_CORBA_octet;
#endif
#define CORBA_sequence_CORBA_octet_allocbuf(l) \
  ((CORBA_octet *)corbaorb_allocbuf(TC_CORBA_octet, (l)))

/* ---------------------------------------------------------------- the ORB */

typedef CORBA_char *CORBA_ORBid;

/* Initialise an ORB (ORB_IDENTIFIER is ignored: one name space of ORBs).
 * Takes omniORB's options from ARGV, removing them and their values (and
 * lowering *ARGC): -ORBendPoint giop:tcp:HOST:PORT (where the POAs listen;
 * PORT 0 or empty: a free one; default 127.0.0.1, a free port),
 * -ORBInitRef NAME=URL (for resolve_initial_references), -ORBDefaultInitRef
 * URL (corbaloc prefix: URL/NAME for names not given),
 * -ORBclientCallTimeOutPeriod MS (the call timeout of the ORB's calls, in
 * milliseconds, 0 none; default 30000 -- omniORB's default is 0; see
 * corbaorb_Object_set_call_timeout()), -ORBthrowTransientOnTimeOut 0|1 (1:
 * a call timeout raises TRANSIENT instead of TIMEOUT, as omniORB's option;
 * default 0).  TLS, omniORB's SSL transport options (docs/c-mapping.md,
 * "TLS"): -ORBendPoint giop:ssl:HOST:PORT (the POAs listen for TLS: beside
 * a giop:tcp endpoint, both, on the same host; alone, TLS only, and IORs
 * carry port 0 and the TAG_SSL_SEC_TRANS component, as omniORB's),
 * -ORBsslCAFile FILE (PEM: the CAs servers' certificates, and clients'
 * under a peer verify mode, are verified with; without it no TLS to
 * servers), -ORBsslKeyFile FILE (PEM, a certificate and its private key in
 * one file: the server's, needed for giop:ssl; and the one the client
 * presents when a server asks -- omniORB's IORs always do), -ORBsslKeyPassword
 * PW (of an encrypted key), -ORBsslVerifyMode none|peer[,fail][,once] (none:
 * the client does not verify servers; the server asks clients for a
 * certificate under peer and refuses those without one under peer,fail --
 * both need -ORBsslCAFile; not given: the client verifies, the server asks
 * for nothing, where omniORB's default is peer,fail; once has no effect),
 * -ORBclientTransportRule
 * "* ssl" | "* unix,ssl,tcp" | "* tcp" (TLS required / where the IOR offers
 * it / never; only the mask "*"; unix and bidir are accepted and ignored),
 * -ORBserverTransportRule (the same forms, accepted with no effect).
 * Bidirectional GIOP 1.2 (docs/c-mapping.md, "Bidirectional GIOP"):
 * -ORBofferBiDirectionalGIOP 0|1 (1: the ORB's client offers it on the
 * connections it opens once the RootPOA or omniINSPOA is first resolved,
 * and serves callbacks to objects of the ORB's POAs over them;
 * iiop_client_offer_bidir()), -ORBacceptBiDirectionalGIOP 0|1 (1: the
 * POAs' server accepts it, and the ORB's client calls references whose
 * host:port is a listen point a client sent over that client's
 * connection; iiop_client_use_bidir()); default 0.
 * -ORBgiopMaxMsgSize N (N >= 8192 octets; default here 64 MiB, libiiop's,
 * where omniORB's is 2 MiB): the largest GIOP message, fragments
 * together, that the ORB's client sends (a larger request is not sent:
 * MARSHAL, CORBAORB_MINOR_MESSAGE_SIZE, COMPLETED_NO) or accepts as a
 * reply (MARSHAL, the same minor, COMPLETED_MAYBE), and that its server
 * accepts (MessageError, the connection closed).  Every other option
 * omniORB 4.2 knows (its -ORBhelp list and its SSL transport's:
 * -ORBtraceLevel, -ORBnativeCharCodeSet, -ORBid,
 * -ORBsslCAPath, ... docs/c-mapping.md, "ORB options omniORB has and this
 * ORB ignores") is taken from ARGV with its value (-ORBhelp: none) and
 * ignored: this ORB has no equivalent; its value is checked first as
 * omniORB checks it (omniORB reads numbers as strtol/strtoul do, without
 * looking past the digits: "-ORBtraceLevel abc" is taken, as level 0;
 * "-ORBgiopMaxMsgSize 1" is refused, "not a number n >= 8192").  The
 * options above are read so too: a 0|1 option is strtol's number ("yes"
 * is 0, "1x" 1, "2" refused), the timeout strtoul's cut to 32 bits ("abc"
 * is 0; past 2^31 - 1 ms read as that).  An option
 * given twice is taken twice, each value checked (the last one counts).
 * Any other argument starting "-ORB" and longer than that is an unknown
 * option, refused as omniORB refuses it; "-ORB" alone and other arguments
 * stay in ARGV, in order.  Errors in EV, as omniORB's: INITIALIZE with
 * minor CORBAORB_MINOR_BAD_ORB_ARG (an unknown -ORB option, a missing
 * value, a malformed value: an empty file name, a verify mode or transport
 * rule not of those forms, a BiDirectionalGIOP value not 0 or 1, a value
 * omniORB refuses for an ignored option; giop:tcp and giop:ssl endpoints
 * on two hosts, giop:ssl without -ORBsslKeyFile; the options this ORB uses
 * are checked more strictly than omniORB does: "-ORBclientCallTimeOutPeriod
 * abc", which omniORB reads as 0, is refused), NO_MEMORY, INITIALIZE with minor
 * CORBAORB_MINOR_TRANSPORT_ERROR (the CA file, or the client's
 * -ORBsslKeyFile, cannot be loaded).  After any of them
 * corbaorb_ORB_last_error(NULL, ...) in the same thread says why, naming
 * the option: "-ORBfooBar: unknown option in -ORB arguments",
 * "-ORBtraceLevel: no value", "-ORBgiopMaxMsgSize \"1\": not a number n >=
 * 8192", "-ORBsslVerifyMode \"peer,bogus\": not none, peer, ...",
 * "-ORBsslCAFile /x/ca.pem: error:80000002:system library::No such file or
 * directory; ..." (OpenSSL's queued errors; docs/c-mapping.md, "TLS"). */
CORBAORB_API CORBA_ORB CORBA_ORB_init(int *argc, char **argv, const CORBA_char *orb_identifier,
                                      CORBA_Environment *ev);
/* omniORB's minor codes: INITIALIZE_InvalidORBInitArgs (INITIALIZE from
 * CORBA_ORB_init, as omniORB raises it) and
 * INITIALIZE_TransportError (a TLS file that cannot be used: the CA file
 * or the client's -ORBsslKeyFile at CORBA_ORB_init; when the RootPOA or
 * omniINSPOA is first resolved and the ORB's server is made, the server's
 * certificate or key, a wrong -ORBsslKeyPassword, or a peer verify mode
 * without -ORBsslCAFile). */
#define CORBAORB_MINOR_BAD_ORB_ARG 0x4154001eu
#define CORBAORB_MINOR_TRANSPORT_ERROR 0x4154000du
/* Why ORB's most recent failure happened, as text ("" if none yet): after
 * the RootPOA or omniINSPOA could not be resolved (INITIALIZE, the ORB's
 * server could not be made), why, in the options' names ("-ORBsslKeyFile
 * F: its private key (with -ORBsslKeyPassword): error:...:bad decrypt"),
 * until the client records a failure of its own; otherwise libiiop's
 * iiop_client_last_error() of the ORB's client, e.g. "TLS to
 * 127.0.0.1:PORT: certificate verify failed: unable to get local issuer
 * certificate" after a call that raised TRANSIENT, or "TLS read from
 * 127.0.0.1:PORT: error:0A00045C:SSL routines::tlsv13 alert certificate
 * required" after a server refused the client's certificate; after a call
 * to a reference the ORB cannot reach (TRANSIENT), why, in the options'
 * names ("... but the ORB has no -ORBsslCAFile"); every text:
 * docs/c-mapping.md, "TLS error texts".  ORB NULL: why the calling thread's last
 * CORBA_ORB_init failed ("" when it succeeded).  Copied into BUF (CAP
 * octets, NUL-terminated, cut at CAP - 1; BUF NULL or CAP 0: only the
 * length); returns the full text's length; CORBAORB_ERROR_MAX holds any
 * text.  Any thread; allocates nothing. */
#define CORBAORB_ERROR_MAX 1024
CORBAORB_API size_t corbaorb_ORB_last_error(CORBA_ORB orb, char *buf, size_t cap);

/* Call timeouts (our extension; omniORB's omniORB::setClientCallTimeout(obj,
 * ms) and setClientThreadCallTimeout(ms)), relative round-trip in
 * milliseconds: connect, sending the request and waiting for its reply, as
 * libiiop's (iiop_ref_set_timeout() in iiop/orb.h).  A call uses the first
 * that is set of the object's, the calling thread's and the ORB's
 * (-ORBclientCallTimeOutPeriod).  Each is CORBAORB_TIMEOUT_DEFAULT (-1:
 * not set), 0 (none: no timeout, whatever the next one says) or a positive
 * number of milliseconds.  A call past its timeout raises CORBA::TIMEOUT
 * (TRANSIENT with -ORBthrowTransientOnTimeOut 1) with omniORB's minor
 * TIMEOUT_CallTimedOutOnClient / TRANSIENT_CallTimedout,
 * CORBAORB_MINOR_CALL_TIMED_OUT (0x41540008), completion MAYBE (NO when
 * the request could not be written in time); a timeout that passes before
 * a connection is made raises the same with completion NO (as omniORB 4.2 does).  After a
 * timed-out call the connection stays in use: the late reply is dropped
 * and the calls multiplexed on it go on.  The server may still be working
 * on the timed-out request: one that answers a connection's requests in
 * order (this library's, omniORB's by default) answers later calls on that
 * connection only after it, so they wait too (and may time out).  The
 * timeout covers every remote call
 * (corbaorb_invoke: the stubs', CORBA_Object_is_a, _non_existent). */
#define CORBAORB_TIMEOUT_DEFAULT (-1)
#define CORBAORB_MINOR_CALL_TIMED_OUT 0x41540008u
/* The minors of the other local failures of a remote call, libiiop's
 * (IIOP_MINOR_* in iiop/orb.h; omniORB's values; docs/wire-notes.md):
 * TRANSIENT_ConnectFailed (TRANSIENT, NO: connect refused, unreachable,
 * TLS handshake failed), TRANSIENT_ConnectionClosed (TRANSIENT, NO: the
 * connection was lost before the request was sent or processed),
 * COMM_FAILURE_WaitingForReply (COMM_FAILURE, MAYBE: lost after the
 * request was sent, e.g. the server died), COMM_FAILURE_UnMarshalResults
 * (COMM_FAILURE: the reply could not be parsed),
 * MARSHAL_MessageSizeExceedLimitOnClient (MARSHAL, MAYBE: a message over
 * the client's size limit came instead of the reply).  Each of these
 * failures leaves its reason in words for corbaorb_ORB_last_error(). */
#define CORBAORB_MINOR_CONNECT_FAILED 0x41540002u
#define CORBAORB_MINOR_CONNECTION_CLOSED 0x41540011u
#define CORBAORB_MINOR_WAITING_FOR_REPLY 0x41540007u
#define CORBAORB_MINOR_UNMARSHAL_RESULTS 0x41540006u
#define CORBAORB_MINOR_MESSAGE_SIZE 0x4154000bu
/* Set OBJ's call timeout to MS (for OBJ and its duplicates: one reference;
 * any thread, calls already in progress keep theirs).  Errors in EV:
 * INV_OBJREF (OBJ nil or not a remote reference), BAD_PARAM (MS < -1). */
CORBAORB_API void corbaorb_Object_set_call_timeout(CORBA_Object obj, CORBA_long ms,
                                                   CORBA_Environment *ev);
/* OBJ's call timeout as set (CORBAORB_TIMEOUT_DEFAULT: none, or OBJ not a
 * remote reference). */
CORBAORB_API CORBA_long corbaorb_Object_call_timeout(CORBA_Object obj);
/* Set the calling thread's call timeout to MS, for every ORB (a thread-local
 * variable: no lock); returns the previous one.  MS < -1 changes nothing.
 * Unlike omniORB, no option is needed (omniORB's
 * -ORBsupportPerThreadTimeOut). */
CORBAORB_API CORBA_long corbaorb_set_thread_call_timeout(CORBA_long ms);
/* "IOR:...", "corbaloc:[iiop]:..." or "corbaloc:rir:[/KEY]" to a reference
 * (release it).  corbaloc:rir: is CORBA_ORB_resolve_initial_references of
 * KEY (%XX escapes decoded; absent or empty: "NameService"; CORBA 3.0
 * 13.6.10.2), followed through -ORBInitRef values that are rir URLs
 * themselves, at most 8 deep.  "corbaname:ADDRS[/KEY][#NAME]" (CORBA 3.0
 * 13.6.10.3; ADDRS as corbaloc's, rir: included; KEY default
 * "NameService"): the naming context corbaloc:ADDRS/KEY, and when #NAME is
 * given, NAME (%XX escapes decoded, then a stringified CosNaming name:
 * "a/b.kind", '\\' escaping '/', '.' and '\\') resolved in it with one
 * CosNaming resolve call; a library built without CosNaming.idl raises
 * NO_IMPLEMENT for corbaname:.  Errors, as omniORB raises them: a malformed
 * string fails at the first step of reading it, left to right, that
 * refuses it (libiiop's iiop_url_stage, iiop/ior.h, lists each step and
 * what it refuses):
 *   BAD_PARAM minor 0x4f4d0007 (OMG 7, BadSchemeName): no known scheme
 *     ("garbage", "", "IOR" without ':'), an unknown address protocol
 *     ("corbaloc:foo:h/k", "corbaloc:h/k", an empty address after a ',');
 *   BAD_PARAM 0x4f4d0008 (BadAddress): a port past 65535 or empty, an IPv6
 *     literal without its ']' or with a character that is not a hex digit,
 *     ':' or '.', a host character other than letters, digits, '-', '.', '_';
 *   BAD_PARAM 0x4f4d0009 (BadSchemeSpecificPart): a malformed version
 *     ("1@", "1.x@", "1.256@"), no host ("corbaloc::/k", "1.2@:2809", "[]";
 *     omniORB reads an empty address as localhost), a '#' in a corbaloc
 *     key, an empty or malformed corbaname NAME;
 *   BAD_PARAM 0x4f4d000a (BadURIOther): no '/' and key after the addresses
 *     ("corbaloc::host"; other text after a host or port: "h:12a/k",
 *     "[::1]x/k"), a key character RFC 2396 wants %-escaped (space, '"',
 *     '<', '>', '[', backslash, ']', '^', '`', '{', '|', '}', octets past
 *     0x7e), a bad %-escape in a key or NAME, rir: beside another address,
 *     a malformed rir KEY, rir or corbaname URLs more than 8 deep, a rir
 *     KEY no initial reference has, a NAME the service does not have
 *     (NotFound, CannotProceed, InvalidName);
 *   MARSHAL CORBAORB_MINOR_INVALID_IOR (MARSHAL_InvalidIOR): a version whose
 *     major is not 1 (1.3 and later are taken, as omniORB takes them, and
 *     spoken as 1.2), an
 *     "IOR:" string with a character other than a hex digit in one of its
 *     pairs of digits, or an odd digit after pairs that decode (omniORB
 *     ignores it), or octets that fail to decode otherwise (an IIOP profile
 *     this library refuses);
 *   MARSHAL CORBAORB_MINOR_PASS_END_OF_MESSAGE (the octets end too soon:
 *     "IOR:", "IOR:0", "IOR:00", "IOR:01000000"), CORBAORB_MINOR_SEQUENCE_TOO_LONG
 *     (a length or count past the octets left: "IOR:0100000001000000"),
 *     CORBAORB_MINOR_STRING_NOT_END_WITH_NULL (a string without its NUL,
 *     or empty, which omniORB accepts): the whole pairs of digits decoded
 *     as omniORB decodes them (a byte-order octet other than 0 and 1 read
 *     as little-endian);
 *   INV_OBJREF minor 9: an IOR that decodes but has no IIOP profile this
 *     ORB can call;
 * and the system exceptions of reaching the naming service (TRANSIENT,
 * COMM_FAILURE, ...), NO_MEMORY.  For a string that does not parse, or an
 * IOR with no profile to call, corbaorb_ORB_last_error(ORB) names the step in words with
 * the string's first 64 characters: "string_to_object: \"IOR:0g\": a
 * character that is not a hex digit, or an odd digit, after IOR:". */
CORBAORB_API CORBA_Object CORBA_ORB_string_to_object(CORBA_ORB orb, const CORBA_char *str,
                                                     CORBA_Environment *ev);
/* omniORB's MARSHAL minor codes of CORBA_ORB_string_to_object:
 * MARSHAL_InvalidIOR, MARSHAL_PassEndOfMessage, MARSHAL_SequenceIsTooLong,
 * MARSHAL_StringNotEndWithNull. */
#define CORBAORB_MINOR_INVALID_IOR 0x41540034u
#define CORBAORB_MINOR_PASS_END_OF_MESSAGE 0x4154000au
#define CORBAORB_MINOR_SEQUENCE_TOO_LONG 0x41540012u
#define CORBAORB_MINOR_STRING_NOT_END_WITH_NULL 0x41540016u
/* The IOR string of OBJ (CORBA_free it); nil: "IOR:" of a nil IOR. */
CORBAORB_API CORBA_char *CORBA_ORB_object_to_string(CORBA_ORB orb, CORBA_Object obj,
                                                    CORBA_Environment *ev);
/* "RootPOA", "omniINSPOA" and every -ORBInitRef / -ORBDefaultInitRef name.
 * Errors: a name not known is the InvalidName user exception
 * (ex_CORBA_ORB_InvalidName). */
#define ex_CORBA_ORB_InvalidName "IDL:omg.org/CORBA/ORB/InvalidName:1.0"
CORBAORB_API CORBA_Object CORBA_ORB_resolve_initial_references(CORBA_ORB orb,
                                                               const CORBA_char *identifier,
                                                               CORBA_Environment *ev);
/* Start serving (as PortableServer_POAManager_activate, when a POA exists;
 * requests are served by libiiop's threads) and block until
 * CORBA_ORB_shutdown, from any thread or an operation.  Errors: BAD_PARAM
 * (NULL), those of starting the server. */
CORBAORB_API void CORBA_ORB_run(CORBA_ORB orb, CORBA_Environment *ev);
/* Make CORBA_ORB_run return (serving goes on until CORBA_ORB_destroy;
 * WAIT_FOR_COMPLETION is ignored).  Errors: BAD_PARAM (NULL). */
CORBAORB_API void CORBA_ORB_shutdown(CORBA_ORB orb, CORBA_boolean wait_for_completion,
                                     CORBA_Environment *ev);
/* Stop serving (requests in progress are answered, connections get
 * CloseConnection: iiop_server_shutdown()), let every servant still active
 * go (its finalize runs), close the client's connections, free the ORB,
 * its POAs and POAManager.  References made through it may be released
 * before or after, but not called after.  Never raises. */
CORBAORB_API void CORBA_ORB_destroy(CORBA_ORB orb, CORBA_Environment *ev);

/* ---------------------------------------------------------------- CORBA::Object */

/* Another reference to OBJ (a count raised: no copy; NIL gives NIL; a
 * TypeCode passed as an object is cdr_tc_dup()ed).  Never raises. */
CORBAORB_API CORBA_Object CORBA_Object_duplicate(CORBA_Object obj, CORBA_Environment *ev);
/* Give back a reference (the last one frees it and its connection's share;
 * a TypeCode goes to cdr_tc_release(); the ORB, POAs and the POAManager
 * are the ORB's and are left alone; NIL is a no-op).  Never raises. */
CORBAORB_API void CORBA_Object_release(CORBA_Object obj, CORBA_Environment *ev);
CORBAORB_API CORBA_boolean CORBA_Object_is_nil(CORBA_Object obj, CORBA_Environment *ev);
/* Remote _is_a: the GIOP operation "_is_a" with LOGICAL_TYPE_ID (a string),
 * answered by the target's ORB (every base's repository ID is one).
 * Errors: those of any call (TRANSIENT, OBJECT_NOT_EXIST, ...), INV_OBJREF
 * (NIL). */
CORBAORB_API CORBA_boolean CORBA_Object_is_a(CORBA_Object obj, const CORBA_char *logical_type_id,
                                             CORBA_Environment *ev);
/* Remote _non_existent; an OBJECT_NOT_EXIST reply is read as TRUE (no
 * exception), NIL is TRUE.  Errors: those of any call but OBJECT_NOT_EXIST. */
CORBAORB_API CORBA_boolean CORBA_Object_non_existent(CORBA_Object obj, CORBA_Environment *ev);
/* Local: the same reference, or the same IIOP host, port and object key
 * (the first IIOP profile of each).  Never raises. */
CORBAORB_API CORBA_boolean CORBA_Object_is_equivalent(CORBA_Object obj, CORBA_Object other,
                                                      CORBA_Environment *ev);
/* Local: a hash of the IIOP port and object key in 0..MAXIMUM (MAXIMUM 0:
 * the whole 32 bits), equal for equivalent references.  Never raises. */
CORBAORB_API CORBA_unsigned_long CORBA_Object_hash(CORBA_Object obj, CORBA_unsigned_long maximum,
                                                   CORBA_Environment *ev);

/* ---------------------------------------------------------------- service contexts (extension)
 * Our extension, not the OMG's PortableInterceptor (not mapped this
 * round: no ORBInitializer, RequestInfo, Current or PICurrent): service
 * contexts and interceptor hooks as libiiop has them (iiop/orb.h, "service
 * contexts"; docs/c-mapping.md).  Errors map as elsewhere: BAD_PARAM
 * (malformed arguments), IMP_LIMIT (IIOP_SC_ADD_MAX, IIOP_SC_DATA_MAX,
 * IIOP_INTERCEPTORS_MAX), NO_MEMORY, INV_OBJREF (OBJ nil or not a remote
 * reference). */

/* Set OBJ's service context ID to LEN octets of DATA (copied), sent with
 * every request made through OBJ (its duplicates are the same object; a
 * reference decoded from a message or made by string_to_object again is
 * another) from the next call on, after the CodeSets context where that
 * is sent; ID set already: replaced.  Thread-safe with calls on OBJ (libiiop's
 * iiop_ref_set_service_context()). */
CORBAORB_API void corbaorb_object_set_service_context(CORBA_Object obj, CORBA_unsigned_long id,
                                                      const CORBA_octet *data,
                                                      CORBA_unsigned_long len,
                                                      CORBA_Environment *ev);
/* Remove OBJ's context ID; BAD_PARAM when none is set. */
CORBAORB_API void corbaorb_object_remove_service_context(CORBA_Object obj, CORBA_unsigned_long id,
                                                         CORBA_Environment *ev);
/* Inside an operation of a servant (an upcall of corbaorb_dispatch, in the
 * thread that runs it): the request it serves, for libiiop's
 * iiop_request_* calls (iiop_request_service_context(),
 * iiop_request_service_contexts(), iiop_request_object_key(),
 * iiop_request_giop_version(), iiop_request_peer(),
 * iiop_request_add_reply_service_context(), iiop_request_operation()); valid
 * until the operation returns.  NULL outside an upcall. */
CORBAORB_API iiop_request *corbaorb_current_request(void);
/* Register client (server) interceptor hooks with UD on ORB: libiiop's
 * iiop_client_add_interceptor() on the ORB's client (every request of
 * every reference of ORB), iiop_server_add_interceptor() on the server of
 * ORB's POAs (now, or when the first POA is used: held until then).  The
 * hooks get libiiop's iiop_call / iiop_request, and a server hook refuses
 * a request by returning non-zero (the client gets NO_PERMISSION, or the
 * system exception the hook set with iiop_request_set_exception()).  No
 * removal; IMP_LIMIT past IIOP_INTERCEPTORS_MAX; BAD_PARAM (ORB or IC
 * NULL). */
CORBAORB_API void corbaorb_orb_add_client_interceptor(CORBA_ORB orb,
                                                      const iiop_client_interceptor *ic, void *ud,
                                                      CORBA_Environment *ev);
CORBAORB_API void corbaorb_orb_add_server_interceptor(CORBA_ORB orb,
                                                      const iiop_server_interceptor *ic, void *ud,
                                                      CORBA_Environment *ev);

/* ---------------------------------------------------------------- CORBA::TypeCode */

/* A TypeCode is a type descriptor (cdr/typecode.h).  TypeCodes these
 * functions return are the caller's: give them back with
 * CORBA_Object_release((CORBA_Object)tc, ev) (static ones need nothing,
 * but releasing them is harmless); strings with CORBA_free.  Errors: the
 * user exceptions BadKind (the operation is not defined for the kind) and
 * Bounds (an index past the members); NO_MEMORY. */
typedef enum CORBA_TCKind {
  CORBA_tk_null = 0, CORBA_tk_void, CORBA_tk_short, CORBA_tk_long, CORBA_tk_ushort,
  CORBA_tk_ulong, CORBA_tk_float, CORBA_tk_double, CORBA_tk_boolean, CORBA_tk_char,
  CORBA_tk_octet, CORBA_tk_any, CORBA_tk_TypeCode, CORBA_tk_Principal, CORBA_tk_objref,
  CORBA_tk_struct, CORBA_tk_union, CORBA_tk_enum, CORBA_tk_string, CORBA_tk_sequence,
  CORBA_tk_array, CORBA_tk_alias, CORBA_tk_except, CORBA_tk_longlong, CORBA_tk_ulonglong,
  CORBA_tk_longdouble, CORBA_tk_wchar, CORBA_tk_wstring, CORBA_tk_fixed, CORBA_tk_value,
  CORBA_tk_value_box, CORBA_tk_native, CORBA_tk_abstract_interface, CORBA_tk_local_interface
} CORBA_TCKind;
#define ex_CORBA_TypeCode_BadKind "IDL:omg.org/CORBA/TypeCode/BadKind:1.0"
#define ex_CORBA_TypeCode_Bounds "IDL:omg.org/CORBA/TypeCode/Bounds:1.0"

CORBAORB_API CORBA_TCKind CORBA_TypeCode_kind(CORBA_TypeCode tc, CORBA_Environment *ev);
CORBAORB_API CORBA_boolean CORBA_TypeCode_equal(CORBA_TypeCode tc, CORBA_TypeCode other,
                                                CORBA_Environment *ev);
/* TypeCode::equivalent (cdr_tc_equivalent()), with one more rule: two
 * TypeCodes equivalent by repository ID that give their type different C
 * layouts (one off the wire naming the program's type with other members:
 * another version of it, or a hostile peer) are not equivalent, so that
 * comparing an any's TypeCode with TC_X and then casting _value to X is
 * safe whatever the peer sent (cdr_any_get()'s check). */
CORBAORB_API CORBA_boolean CORBA_TypeCode_equivalent(CORBA_TypeCode tc, CORBA_TypeCode other,
                                                     CORBA_Environment *ev);
CORBAORB_API CORBA_TypeCode CORBA_TypeCode_get_compact_typecode(CORBA_TypeCode tc,
                                                                CORBA_Environment *ev);
CORBAORB_API CORBA_char *CORBA_TypeCode_id(CORBA_TypeCode tc, CORBA_Environment *ev);
CORBAORB_API CORBA_char *CORBA_TypeCode_name(CORBA_TypeCode tc, CORBA_Environment *ev);
CORBAORB_API CORBA_unsigned_long CORBA_TypeCode_member_count(CORBA_TypeCode tc,
                                                             CORBA_Environment *ev);
CORBAORB_API CORBA_char *CORBA_TypeCode_member_name(CORBA_TypeCode tc, CORBA_unsigned_long index,
                                                    CORBA_Environment *ev);
CORBAORB_API CORBA_TypeCode CORBA_TypeCode_member_type(CORBA_TypeCode tc,
                                                       CORBA_unsigned_long index,
                                                       CORBA_Environment *ev);
/* The label as an any of the discriminator's type (the default member's:
 * an octet 0), CORBA_free it. */
CORBAORB_API CORBA_any *CORBA_TypeCode_member_label(CORBA_TypeCode tc, CORBA_unsigned_long index,
                                                    CORBA_Environment *ev);
CORBAORB_API CORBA_TypeCode CORBA_TypeCode_discriminator_type(CORBA_TypeCode tc,
                                                              CORBA_Environment *ev);
CORBAORB_API CORBA_long CORBA_TypeCode_default_index(CORBA_TypeCode tc, CORBA_Environment *ev);
CORBAORB_API CORBA_unsigned_long CORBA_TypeCode_length(CORBA_TypeCode tc, CORBA_Environment *ev);
CORBAORB_API CORBA_TypeCode CORBA_TypeCode_content_type(CORBA_TypeCode tc, CORBA_Environment *ev);
CORBAORB_API CORBA_unsigned_short CORBA_TypeCode_fixed_digits(CORBA_TypeCode tc,
                                                              CORBA_Environment *ev);
CORBAORB_API CORBA_short CORBA_TypeCode_fixed_scale(CORBA_TypeCode tc, CORBA_Environment *ev);

/* ---------------------------------------------------------------- POA */

typedef void *PortableServer_Servant;
typedef CORBA_sequence_CORBA_octet PortableServer_ObjectId;

typedef struct PortableServer_ServantBase__epv {
  void *_private;
  /* Run when the POA lets the servant go (deactivation, ORB destroy); may be NULL. */
  void (*finalize)(PortableServer_Servant servant, CORBA_Environment *ev);
  PortableServer_POA (*default_POA)(PortableServer_Servant servant, CORBA_Environment *ev);
} PortableServer_ServantBase__epv;

typedef PortableServer_ServantBase__epv *PortableServer_ServantBase__vepv;

typedef struct PortableServer_ServantBase {
  void *_private;
  PortableServer_ServantBase__vepv *vepv;
} PortableServer_ServantBase;

typedef enum PortableServer_LifespanPolicyValue {
  PortableServer_TRANSIENT = 0, PortableServer_PERSISTENT = 1
} PortableServer_LifespanPolicyValue;
typedef enum PortableServer_IdAssignmentPolicyValue {
  PortableServer_USER_ID = 0, PortableServer_SYSTEM_ID = 1
} PortableServer_IdAssignmentPolicyValue;

typedef struct CORBA_PolicyList {
  CORBA_unsigned_long _maximum;
  CORBA_unsigned_long _length;
  CORBA_Policy *_buffer;
  CORBA_boolean _release;
} CORBA_PolicyList;

#define ex_PortableServer_POA_ServantAlreadyActive "IDL:omg.org/PortableServer/POA/ServantAlreadyActive:1.0"
#define ex_PortableServer_POA_ObjectAlreadyActive "IDL:omg.org/PortableServer/POA/ObjectAlreadyActive:1.0"
#define ex_PortableServer_POA_ObjectNotActive "IDL:omg.org/PortableServer/POA/ObjectNotActive:1.0"
#define ex_PortableServer_POA_ServantNotActive "IDL:omg.org/PortableServer/POA/ServantNotActive:1.0"
#define ex_PortableServer_POA_WrongPolicy "IDL:omg.org/PortableServer/POA/WrongPolicy:1.0"
#define ex_PortableServer_POA_AdapterAlreadyExists "IDL:omg.org/PortableServer/POA/AdapterAlreadyExists:1.0"
#define ex_PortableServer_POA_WrongAdapter "IDL:omg.org/PortableServer/POA/WrongAdapter:1.0"
#define ex_PortableServer_POA_InvalidPolicy "IDL:omg.org/PortableServer/POA/InvalidPolicy:1.0"

/* PortableServer::ForwardRequest (CORBA 3.x Part 1, 15.3.2, as omniORB's):
 * a servant answers a request with a forward instead of a result by raising
 * this user exception from any operation (its raises clause need not list
 * it): allocate it with PortableServer_ForwardRequest__alloc(), set
 * forward_reference to a reference of its own (CORBA_Object_duplicate()d,
 * or from a stringified IOR; a corbaloc reference is forwarded as the IOR
 * made from it), and pass it to CORBA_exception_set(ev,
 * CORBA_USER_EXCEPTION, ex_PortableServer_ForwardRequest, fr).  EV owns it
 * from then: the ORB frees it (forward_reference released) after the reply.
 * On the wire the reply is GIOP LOCATION_FORWARD (CORBA 3.x Part 2, 15.4.3;
 * iiop_request_set_forward(), not PERM: corbaorb_LocationForwardPerm below
 * is the permanent one) with forward_reference's IOR as its
 * body: clients, this ORB's included, send the request again there and
 * keep sending later calls on that reference there until one fails.  A nil
 * forward_reference (or one that is not an object reference, e.g. a POA)
 * gets BAD_PARAM (minor 0, COMPLETED_NO) to the client instead; an IOR
 * that libiiop cannot re-encode gets the system exception of its status
 * (MARSHAL, NO_MEMORY).  A oneway operation that raises it sends nothing. */
typedef struct PortableServer_ForwardRequest {
  CORBA_Object forward_reference;
} PortableServer_ForwardRequest;
#define ex_PortableServer_ForwardRequest "IDL:omg.org/PortableServer/ForwardRequest:1.0"
CORBAORB_API extern const cdr_type TC_PortableServer_ForwardRequest_struct;
#define TC_PortableServer_ForwardRequest ((CORBA_TypeCode)&TC_PortableServer_ForwardRequest_struct)
/* A zeroed PortableServer_ForwardRequest (forward_reference nil), freed with
 * CORBA_free (which releases forward_reference); NULL when out of memory. */
CORBAORB_API PortableServer_ForwardRequest *PortableServer_ForwardRequest__alloc(void);

/* corbaorb::LocationForwardPerm, our extension (the POA has no permanent
 * forward; omniORB's C++ equivalent is omniORB::LOCATION_FORWARD with its
 * permanent flag): raised exactly as PortableServer_ForwardRequest (from
 * any operation, allocated with corbaorb_LocationForwardPerm__alloc(),
 * forward_reference a reference of the servant's own, EV owning it), it
 * answers a GIOP 1.2 request with LOCATION_FORWARD_PERM (Reply status 4,
 * CORBA 3.x Part 2, 15.4.3): the client replaces the reference's target
 * with forward_reference for good (this ORB's clients and omniORB's send
 * every later call there and do not go back to the original when it
 * fails).  GIOP 1.0 and 1.1 have no PERM: their requests get a plain
 * LOCATION_FORWARD (status 3), as iiop_request_set_forward() does.  A nil
 * forward_reference gets BAD_PARAM, as for ForwardRequest.  A oneway
 * operation that raises it sends nothing. */
typedef struct corbaorb_LocationForwardPerm {
  CORBA_Object forward_reference;
} corbaorb_LocationForwardPerm;
#define ex_corbaorb_LocationForwardPerm "IDL:corbaorb/LocationForwardPerm:1.0"
CORBAORB_API extern const cdr_type TC_corbaorb_LocationForwardPerm_struct;
#define TC_corbaorb_LocationForwardPerm ((CORBA_TypeCode)&TC_corbaorb_LocationForwardPerm_struct)
/* A zeroed corbaorb_LocationForwardPerm (forward_reference nil), freed with
 * CORBA_free (which releases forward_reference); NULL when out of memory. */
CORBAORB_API corbaorb_LocationForwardPerm *corbaorb_LocationForwardPerm__alloc(void);

/* POAs come from CORBA_ORB_resolve_initial_references ("RootPOA": SYSTEM_ID,
 * TRANSIENT, implicit activation, object keys libiiop's generated ones;
 * "omniINSPOA": USER_ID, PERSISTENT, the key is the bare ObjectId, so that
 * corbaloc::HOST:PORT/ID reaches the servant, as omniORB's) or
 * PortableServer_POA_create_POA; the ORB owns them (released with it).
 * The POA exceptions are user exceptions with no members (the
 * ex_PortableServer_POA_* IDs above).  Every function raises BAD_PARAM for
 * a NULL or foreign POA, servant or ObjectId, and NO_MEMORY. */

/* The one POAManager of the ORB (every POA's). */
CORBAORB_API PortableServer_POAManager PortableServer_POA__get_the_POAManager(
  PortableServer_POA poa, CORBA_Environment *ev);
/* Start serving the ORB's endpoint (from now requests are read and
 * dispatched; an already active manager stays so).  Errors: BAD_PARAM,
 * what iiop_server_start() fails with (COMM_FAILURE-class). */
CORBAORB_API void PortableServer_POAManager_activate(PortableServer_POAManager manager,
                                                     CORBA_Environment *ev);
/* A child POA named ADAPTER_NAME (at most 200 characters) with the
 * LifespanPolicy and IdAssignmentPolicy of POLICIES (others are ignored;
 * default TRANSIENT, SYSTEM_ID); its object keys are "/NAME/" then the
 * ObjectId (SYSTEM_ID: an 8-octet counter).  MANAGER is the ORB's one
 * whatever is passed.  Errors: AdapterAlreadyExists, BAD_PARAM, NO_MEMORY. */
CORBAORB_API PortableServer_POA PortableServer_POA_create_POA(PortableServer_POA poa,
                                                              const CORBA_char *adapter_name,
                                                              PortableServer_POAManager manager,
                                                              const CORBA_PolicyList *policies,
                                                              CORBA_Environment *ev);
/* Policies for create_POA (free with CORBA_Policy_destroy).  NO_MEMORY. */
CORBAORB_API CORBA_Policy PortableServer_POA_create_lifespan_policy(
  PortableServer_POA poa, PortableServer_LifespanPolicyValue value, CORBA_Environment *ev);
CORBAORB_API CORBA_Policy PortableServer_POA_create_id_assignment_policy(
  PortableServer_POA poa, PortableServer_IdAssignmentPolicyValue value, CORBA_Environment *ev);
CORBAORB_API void CORBA_Policy_destroy(CORBA_Policy policy, CORBA_Environment *ev);

/* CORBA::ORB::create_policy (CORBA 3.x Part 1, 8.3.14): a policy of TYPE
 * with the value in VAL (copied; free the policy with
 * CORBA_Policy_destroy).  The one type is BiDirPolicy's (Part 2, 15.9):
 * BiDirPolicy_BIDIRECTIONAL_POLICY_TYPE (37), VAL an unsigned short (any of
 * TC_CORBA_unsigned_short) BiDirPolicy_NORMAL (0) or BiDirPolicy_BOTH (1).
 * create_POA takes it and ignores it: here the ORB's
 * -ORBofferBiDirectionalGIOP / -ORBacceptBiDirectionalGIOP decide for
 * every POA (omniORB needs both the option and the policy, so a program
 * written for omniORB works unchanged).  Errors: BAD_PARAM (a NULL or
 * foreign ORB, VAL NULL), NO_MEMORY, the user exception CORBA_PolicyError
 * (ex_CORBA_PolicyError; its reason CORBA_UNSUPPORTED_POLICY for another
 * TYPE, CORBA_BAD_POLICY_TYPE for VAL not an unsigned short,
 * CORBA_BAD_POLICY_VALUE for another value). */
typedef CORBA_unsigned_long CORBA_PolicyType;
typedef CORBA_short CORBA_PolicyErrorCode;
#define CORBA_BAD_POLICY ((CORBA_PolicyErrorCode)0)
#define CORBA_UNSUPPORTED_POLICY ((CORBA_PolicyErrorCode)1)
#define CORBA_BAD_POLICY_TYPE ((CORBA_PolicyErrorCode)2)
#define CORBA_BAD_POLICY_VALUE ((CORBA_PolicyErrorCode)3)
#define CORBA_UNSUPPORTED_POLICY_VALUE ((CORBA_PolicyErrorCode)4)
typedef struct CORBA_PolicyError {
  CORBA_PolicyErrorCode reason;
} CORBA_PolicyError;
#define ex_CORBA_PolicyError "IDL:omg.org/CORBA/PolicyError:1.0"
CORBAORB_API extern const cdr_type TC_CORBA_PolicyError_struct;
#define TC_CORBA_PolicyError ((CORBA_TypeCode)&TC_CORBA_PolicyError_struct)
/* A zeroed CORBA_PolicyError (CORBA_free it); NULL when out of memory. */
CORBAORB_API CORBA_PolicyError *CORBA_PolicyError__alloc(void);
#define BiDirPolicy_BIDIRECTIONAL_POLICY_TYPE ((CORBA_PolicyType)37)
typedef CORBA_unsigned_short BiDirPolicy_BidirectionalPolicyValue;
#define BiDirPolicy_NORMAL ((BiDirPolicy_BidirectionalPolicyValue)0)
#define BiDirPolicy_BOTH ((BiDirPolicy_BidirectionalPolicyValue)1)
CORBAORB_API CORBA_Policy CORBA_ORB_create_policy(CORBA_ORB orb, CORBA_PolicyType type,
                                                  const CORBA_any *val, CORBA_Environment *ev);
/* Activate SERVANT (initialised by its POA_T__init) under a new ObjectId
 * (the caller's: CORBA_free it).  Errors: WrongPolicy (a USER_ID POA),
 * ServantAlreadyActive (SERVANT is active, in this POA or another). */
CORBAORB_API PortableServer_ObjectId *PortableServer_POA_activate_object(
  PortableServer_POA poa, PortableServer_Servant servant, CORBA_Environment *ev);
/* Activate SERVANT under ID (copied).  Errors: ServantAlreadyActive,
 * ObjectAlreadyActive (ID is in use, or a reserved generated key). */
CORBAORB_API void PortableServer_POA_activate_object_with_id(PortableServer_POA poa,
                                                             const PortableServer_ObjectId *id,
                                                             PortableServer_Servant servant,
                                                             CORBA_Environment *ev);
/* Deactivate: requests read after this get OBJECT_NOT_EXIST.  The
 * servant's finalize (its PortableServer_ServantBase__epv's) runs when no
 * request uses it any more; called from inside an operation, once that
 * operation has returned (operations of other threads on the servant may
 * then still run: iiop_server_deactivate()).  Errors: ObjectNotActive,
 * BAD_PARAM, NO_MEMORY. */
CORBAORB_API void PortableServer_POA_deactivate_object(PortableServer_POA poa,
                                                       const PortableServer_ObjectId *id,
                                                       CORBA_Environment *ev);
/* A new reference (IOR with the servant's repository ID, an IIOP 1.2
 * profile with the code-set component) to SERVANT, activating it under a
 * new ObjectId when it is not active and POA is SYSTEM_ID (implicit
 * activation).  Errors: ServantNotActive (inactive, USER_ID POA),
 * WrongAdapter (active in another POA). */
CORBAORB_API CORBA_Object PortableServer_POA_servant_to_reference(PortableServer_POA poa,
                                                                  PortableServer_Servant servant,
                                                                  CORBA_Environment *ev);
/* A new reference to the object active under ID.  Errors: ObjectNotActive. */
CORBAORB_API CORBA_Object PortableServer_POA_id_to_reference(PortableServer_POA poa,
                                                             const PortableServer_ObjectId *id,
                                                             CORBA_Environment *ev);
/* The ObjectId in REFERENCE's object key (CORBA_free it).  Errors:
 * WrongAdapter (the key is not one of POA's), BAD_PARAM (NIL or no IIOP
 * profile). */
CORBAORB_API PortableServer_ObjectId *PortableServer_POA_reference_to_id(PortableServer_POA poa,
                                                                         CORBA_Object reference,
                                                                         CORBA_Environment *ev);
/* ObjectId <-> string: the string's octets without the NUL (CORBA_free
 * the result).  Errors: BAD_PARAM (NULL; an ObjectId holding a NUL octet),
 * NO_MEMORY. */
CORBAORB_API PortableServer_ObjectId *PortableServer_string_to_ObjectId(const CORBA_char *str,
                                                                        CORBA_Environment *ev);
CORBAORB_API CORBA_char *PortableServer_ObjectId_to_string(const PortableServer_ObjectId *id,
                                                           CORBA_Environment *ev);

/* ---------------------------------------------------------------- the generated code's engine */

/* A parameter's passing mode. */
typedef enum corbaorb_mode { CORBAORB_IN = 0, CORBAORB_INOUT = 1, CORBAORB_OUT = 2 } corbaorb_mode;

/* What a parameter's or result's TypeCode is, as far as passing it goes
 * (the generated tables give it, so that no call walks a TypeCode to find
 * out; 0: not given, the runtime works it out from the TypeCode). */
enum {
  CORBAORB_F_KNOWN = 1,   /* the other bits are set */
  CORBAORB_F_VAR = 2,     /* variable-length (corbaorb_tc_is_variable) */
  CORBAORB_F_PTR = 4,     /* a pointer the ORB stores in place: string, wstring,
                           * TypeCode, object reference */
  CORBAORB_F_OBJREF = 8,  /* an object reference (marshalled as an IOR) */
  CORBAORB_F_ARRAY = 16,  /* an array (a result is always allocated) */
  CORBAORB_F_REFS = 32,   /* holds object references (or anys) below its top level */
  CORBAORB_F_VALUES = 64  /* may hold values (a valuetype, a value box, an any) */
};

typedef struct corbaorb_param {
  CORBA_TypeCode tc;
  corbaorb_mode mode;
  CORBA_unsigned_long flags;        /* CORBAORB_F_*, or 0 */
} corbaorb_param;

/* An operation as the stubs and skeletons describe it (static tables). */
typedef struct corbaorb_operation {
  const char *name;                 /* on the wire: "op", "_get_a", "_set_a" */
  CORBA_boolean oneway;
  CORBA_TypeCode ret;               /* NULL: void */
  const corbaorb_param *params;
  CORBA_unsigned_long nparams;
  const CORBA_TypeCode *excepts;    /* the raises clause's exception TypeCodes (repo_id) */
  CORBA_unsigned_long nexcepts;
  CORBA_unsigned_long ret_flags;    /* CORBAORB_F_* of ret, or 0 */
} corbaorb_operation;

/* CORBAORB_F_* of TC (with CORBAORB_F_KNOWN). */
CORBAORB_API CORBA_unsigned_long corbaorb_tc_flags(CORBA_TypeCode tc);

/* Call OP on OBJ.  ARGS[i] is the address of the i-th parameter's C value:
 *   in:    the value's address (a CORBA_long *, a CORBA_char ** for a string,
 *          the const T * a struct, union or sequence is passed as, the
 *          array itself, a CORBA_Object *);
 *   inout: the T * the operation takes;
 *   out:   the T * (fixed-length T, strings, object references: the ORB
 *          stores the value there) or T ** (variable-length struct, union,
 *          sequence, any, arrays: the ORB allocates the T and stores its
 *          address), as the operation takes it.
 * RET: where the result goes (NULL for void), by the out rules, except that
 * an array result is always allocated (RET is a T_slice **).  An inout
 * variable-length value is replaced: its old contents are freed
 * (corbaorb_free_contents) and the reply's allocated.  On an exception EV
 * holds it and no out value or result was allocated (outs are NULL/zero).
 * System exceptions: those of the call (TRANSIENT, COMM_FAILURE, TIMEOUT,
 * MARSHAL ... as libiiop maps them, with their minor and completion
 * status) and INV_OBJREF (OBJ nil). */
CORBAORB_API void corbaorb_invoke(CORBA_Object obj, const corbaorb_operation *op, void *ret,
                                  void *const *args, CORBA_Environment *ev);

/* A skeleton's glue: call the servant's epv function with the decoded
 * ARGS (as corbaorb_invoke's, the ORB's storage) and store the result at
 * RET. */
typedef void (*corbaorb_skel_fn)(PortableServer_Servant servant, void **args, void *ret,
                                 CORBA_Environment *ev);

/* An interface's server side: the iiop_interface whose operations are the
 * generated dispatch functions (each calling corbaorb_dispatch). */
typedef struct corbaorb_class {
  iiop_interface iface;
} corbaorb_class;

/* The body of a generated dispatch function (an iiop_op_fn): decode OP's
 * in and inout arguments from ARGS, call GLUE, write the result, inout and
 * out values or the raised exception to RESULT, and free what the servant
 * returned.  Returns what an iiop_op_fn returns. */
CORBAORB_API int corbaorb_dispatch(void *servant, iiop_request *req, cdr_in *args, cdr_out *result,
                                   const corbaorb_operation *op, corbaorb_skel_fn glue);

/* POA_T__init / POA_T__fini: prepare SERVANT (a POA_T whose vepv is set)
 * for activation as CLS (its _private: a record of the runtime's, heap),
 * and give back what that took (call __fini after its deactivation or the
 * ORB's destroy).  Errors of init: BAD_PARAM (NULL), NO_MEMORY. */
CORBAORB_API void corbaorb_servant_init(PortableServer_Servant servant, const corbaorb_class *cls,
                                        CORBA_Environment *ev);
CORBAORB_API void corbaorb_servant_fini(PortableServer_Servant servant, CORBA_Environment *ev);

#ifdef __cplusplus
}
#endif
#endif
