/* corbaorb/naming.h - names for object references by string name, over
 * the CORBA Naming Service (OMG Naming Service 1.3, "CosNaming"): our
 * extension of the C mapping (corbaorb_ prefix), against omniNames or any
 * other naming service.
 *
 * A string name is what omniORB's nameclt and NamingContextExt::to_name
 * take (Naming Service 2.4): components separated by '/', each "id" or
 * "id.kind" (".kind": an empty id; ".": an empty id and kind), '\\'
 * taking the next character literally ("Main\\.St" is the id "Main.St").
 * CTX, the context names are relative to, is any CosNaming::NamingContext
 * reference: usually CORBA_ORB_resolve_initial_references(orb,
 * "NameService") (-ORBInitRef NameService=corbaloc::HOST:PORT/NameService).
 *
 * Every function makes the CosNaming calls its comment names (GIOP
 * Requests to the service, through stubs idl2c generated from omniORB's
 * CosNaming.idl when libcorbaorb was built; a user's own CosNaming stubs do
 * not clash with them).  Errors are in EV:
 * - the CosNaming user exceptions, with their repository IDs
 *   (CORBAORB_NAMING_*_ID below, the same strings as the generated
 *   ex_CosNaming_NamingContext_* macros): test CORBA_exception_id(ev).
 *   Their values (CORBA_exception_value(ev)) have the layouts the C
 *   mapping gives CosNaming's: corbaorb_naming_NotFound and
 *   corbaorb_naming_CannotProceed below are declared here so that a user
 *   needs no generated stubs to read them, and a user who has them may cast
 *   the value to CosNaming_NamingContext_NotFound * just as well.
 *   CORBA_exception_free(ev) frees the value.
 *   InvalidName is also raised locally, before anything is sent, for a
 *   string name the parser refuses ("" , "a//b", "/a", "a/", "a.b.c", "a.",
 *   a trailing '\\') or a NULL name.
 * - system exceptions as every call: TRANSIENT when the service does not
 *   answer, BAD_PARAM for a NULL or non-remote CTX, NO_MEMORY.
 * - NO_IMPLEMENT (completion NO) from every function when libcorbaorb was
 *   built without CosNaming.idl (configure's --with-cosnaming-idl; Debian
 *   package omniorb-idl), as corbaname: URLs are then.
 */
#ifndef CORBAORB_NAMING_H
#define CORBAORB_NAMING_H

#include <corbaorb/corba.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CORBAORB_NAMING_NOTFOUND_ID "IDL:omg.org/CosNaming/NamingContext/NotFound:1.0"
#define CORBAORB_NAMING_CANNOTPROCEED_ID "IDL:omg.org/CosNaming/NamingContext/CannotProceed:1.0"
#define CORBAORB_NAMING_INVALIDNAME_ID "IDL:omg.org/CosNaming/NamingContext/InvalidName:1.0"
#define CORBAORB_NAMING_ALREADYBOUND_ID "IDL:omg.org/CosNaming/NamingContext/AlreadyBound:1.0"

/* CosNaming::NameComponent and CosNaming::Name, as the C mapping lays
 * them out. */
typedef struct corbaorb_naming_component {
  CORBA_char *id;
  CORBA_char *kind;
} corbaorb_naming_component;

typedef struct corbaorb_naming_name {
  CORBA_unsigned_long _maximum;
  CORBA_unsigned_long _length;
  corbaorb_naming_component *_buffer;
  CORBA_boolean _release;
} corbaorb_naming_name;

/* NamingContext::NotFoundReason */
typedef enum {
  CORBAORB_NAMING_MISSING_NODE,  /* the first component of rest_of_name is not bound */
  CORBAORB_NAMING_NOT_CONTEXT,   /* it is bound to an object where a context was needed */
  CORBAORB_NAMING_NOT_OBJECT     /* it is bound to a context where an object was needed */
} corbaorb_naming_not_found_reason;

/* The value of NotFound: why, and the part of the name (from the component
 * that failed to the end) that was not resolved. */
typedef struct corbaorb_naming_NotFound {
  corbaorb_naming_not_found_reason why;
  corbaorb_naming_name rest_of_name;
} corbaorb_naming_NotFound;

/* The value of CannotProceed: the context where resolution stopped, and
 * what remained of the name. */
typedef struct corbaorb_naming_CannotProceed {
  CORBA_Object cxt;
  corbaorb_naming_name rest_of_name;
} corbaorb_naming_CannotProceed;

/* Resolve NAME in CTX (NamingContext::resolve, one call whatever the
 * number of components: the service walks them).  Returns a new reference
 * (the caller releases it; CORBA_OBJECT_NIL if nil was bound), or NIL on
 * an exception: NotFound (missing_node: a component is not bound;
 * not_context: a component before the last is bound to an object),
 * CannotProceed, InvalidName. */
CORBAORB_API CORBA_Object corbaorb_naming_resolve(CORBA_Object ctx, const CORBA_char *name,
                                                  CORBA_Environment *ev);

/* Bind NAME in CTX to OBJ (NamingContext::bind; OBJ is not consumed).
 * Every component before the last must name an existing context:
 * corbaorb_naming_bind_context() makes them ("replicas" before
 * "replicas/r1").  Exceptions: AlreadyBound (NAME is bound already; use
 * corbaorb_naming_rebind()), NotFound (a context on the way is missing:
 * missing_node, or bound to an object: not_context), CannotProceed,
 * InvalidName. */
CORBAORB_API void corbaorb_naming_bind(CORBA_Object ctx, const CORBA_char *name, CORBA_Object obj,
                                       CORBA_Environment *ev);

/* Bind NAME in CTX to OBJ, replacing an object binding NAME had
 * (NamingContext::rebind; omniNames also replaces a context binding, the
 * context then lives on unnamed).  Exceptions: those of
 * corbaorb_naming_bind() but AlreadyBound. */
CORBAORB_API void corbaorb_naming_rebind(CORBA_Object ctx, const CORBA_char *name,
                                         CORBA_Object obj, CORBA_Environment *ev);

/* Remove the binding of NAME in CTX (NamingContext::unbind; a context so
 * unbound lives on in the service, unnamed).  Exceptions: NotFound,
 * CannotProceed, InvalidName. */
CORBAORB_API void corbaorb_naming_unbind(CORBA_Object ctx, const CORBA_char *name,
                                         CORBA_Environment *ev);

/* The context NAME in CTX, made where missing, as "mkdir -p" makes
 * directories: for each component in turn, NamingContext::bind_new_context
 * in the context reached so far; when the component is bound already
 * (AlreadyBound, another client may have just made it), NamingContext::
 * resolve and CORBA_Object_is_a(IDL:omg.org/CosNaming/NamingContext:1.0)
 * instead.  Returns the last context (a new reference: the caller releases
 * it), or NIL on an exception: NotFound not_context (with rest_of_name
 * from the component bound to an object on), CannotProceed, InvalidName.
 * Contexts made before an exception stay bound. */
CORBAORB_API CORBA_Object corbaorb_naming_bind_context(CORBA_Object ctx, const CORBA_char *name,
                                                       CORBA_Environment *ev);

/* What a binding names. */
typedef enum {
  CORBAORB_NAMING_OBJECT,        /* CosNaming::nobject */
  CORBAORB_NAMING_CONTEXT        /* CosNaming::ncontext */
} corbaorb_naming_binding_type;

/* One binding of a context: its name as a string name (escaped as
 * NamingContextExt::to_string writes it: it can be given back to these
 * functions, after "CONTEXT/" where the list was of a sub-context), the id
 * and kind of its (last) component unescaped, and its type. */
typedef struct corbaorb_naming_entry {
  CORBA_char *name;
  CORBA_char *id;
  CORBA_char *kind;
  corbaorb_naming_binding_type type;
} corbaorb_naming_entry;

typedef struct corbaorb_naming_bindings {
  CORBA_unsigned_long _maximum;
  CORBA_unsigned_long _length;
  corbaorb_naming_entry *_buffer;
  CORBA_boolean _release;
} corbaorb_naming_bindings;

/* Every binding of the context NAME in CTX (NAME NULL or "": CTX itself),
 * in the service's order.  NamingContext::list(BATCH) returns the first
 * BATCH bindings and, when there are more, a BindingIterator;
 * BindingIterator::next_n(BATCH) is called until it says there are no
 * more, then BindingIterator::destroy (also after an exception, so that
 * the service does not keep the iterator).  BATCH 0 is 100.  Returns one
 * block the caller frees whole with CORBA_free() (the sequence, its
 * buffer and every string), or NULL on an exception: those of
 * corbaorb_naming_resolve() for NAME, BAD_PARAM (completion NO) when NAME
 * is bound to nil, what an object that is not a context answers to list
 * (omniORB's servants: BAD_OPERATION), those of list, next_n and destroy,
 * NO_MEMORY.  A context with no binding gives _length 0. */
CORBAORB_API corbaorb_naming_bindings *corbaorb_naming_list(CORBA_Object ctx,
                                                            const CORBA_char *name,
                                                            CORBA_unsigned_long batch,
                                                            CORBA_Environment *ev);

#ifdef __cplusplus
}
#endif

#endif
