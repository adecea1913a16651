/* naming.c - names for object references through the CORBA Naming
 * Service (CosNaming, the OMG's CosNaming.idl as Debian's omniorb-idl
 * installs it, through idl2c), against omniNames or any other.
 *
 *   naming -ORBInitRef NameService=corbaloc::HOST:PORT/NameService COMMAND
 *
 *   bind NAME REFERENCE   binds (or rebinds) NAME to the reference (an IOR
 *                         or a corbaloc URL)
 *   resolve NAME          prints the IOR bound to NAME
 *   unbind NAME           removes NAME
 *   list                  prints the root context's bindings, one a line
 *
 * NAME is a string name ("shop/Store.object": components separated by
 * '/', each "id" or "id.kind").  Exit status 0 on success, 1 when the
 * service raised an exception (printed), 2 for usage.
 */
#include <stdio.h>
#include <string.h>
#include "CosNaming.h"

/* 0 when the last call returned normally; otherwise print the exception
 * (NotFound with its reason and the part of the name that was not found),
 * free it and return 1. */
static int raised(CORBA_Environment *ev, const char *what)
{
  static const char *const why[] = { "missing node", "not a context", "not an object" };
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  const char *id = CORBA_exception_id(ev);
  if (!strcmp(id, ex_CosNaming_NamingContext_NotFound)) {
    CosNaming_NamingContext_NotFound *e = CORBA_exception_value(ev);
    fprintf(stderr, "naming: %s: not found (%s", what, e->why <= 2 ? why[e->why] : "?");
    for (CORBA_unsigned_long i = 0; i < e->rest_of_name._length; i++)
      fprintf(stderr, "%s%s", i ? "/" : ": ", e->rest_of_name._buffer[i].id);
    fprintf(stderr, ")\n");
  } else {
    fprintf(stderr, "naming: %s: %s\n", what, id);
  }
  CORBA_exception_free(ev);
  return 1;
}

static void print_bindings(const CosNaming_BindingList *bl)
{
  for (CORBA_unsigned_long i = 0; i < bl->_length; i++) {
    const CosNaming_Name *n = &bl->_buffer[i].binding_name;
    for (CORBA_unsigned_long k = 0; k < n->_length; k++)
      printf("%s%s%s%s", k ? "/" : "", n->_buffer[k].id, *n->_buffer[k].kind ? "." : "",
             n->_buffer[k].kind);
    printf(bl->_buffer[i].binding_type == CosNaming_ncontext ? "/ (context)\n" : "\n");
  }
}

static int list(CosNaming_NamingContextExt root, CORBA_Environment *ev)
{
  CosNaming_BindingList *bl = NULL;
  CosNaming_BindingIterator it = CORBA_OBJECT_NIL;
  /* up to 10 bindings in the reply, the rest through the iterator */
  CosNaming_NamingContext_list(root, 10, &bl, &it, ev);
  if (raised(ev, "list"))
    return 1;
  print_bindings(bl);
  CORBA_free(bl);
  if (CORBA_Object_is_nil(it, ev))
    return 0;
  int more;
  do {
    more = CosNaming_BindingIterator_next_n(it, 10, &bl, ev);
    if (raised(ev, "next_n"))
      break;
    print_bindings(bl);
    CORBA_free(bl);
  } while (more);
  CosNaming_BindingIterator_destroy(it, ev); /* the iterator lives in the server */
  CORBA_Object_release(it, ev);
  return raised(ev, "destroy the iterator");
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  const char *cmd = argc > 1 ? argv[1] : "";
  int args = !strcmp(cmd, "bind") ? 4 : !strcmp(cmd, "list") ? 2 : 3;
  if (raised(&ev, "ORB_init") || argc != args ||
      (strcmp(cmd, "bind") && strcmp(cmd, "resolve") && strcmp(cmd, "unbind") &&
       strcmp(cmd, "list"))) {
    fprintf(stderr, "usage: naming [-ORBInitRef NameService=URL] bind NAME REFERENCE | "
                    "resolve NAME | unbind NAME | list\n");
    return 2;
  }
  /* The root context, from -ORBInitRef NameService=... (or -ORBDefaultInitRef).
   * omniNames's is a NamingContextExt: it also parses string names. */
  CosNaming_NamingContextExt root = CORBA_ORB_resolve_initial_references(orb, "NameService", &ev);
  if (raised(&ev, "resolve_initial_references NameService"))
    return 1;
  int rc = 0;
  if (!strcmp(cmd, "list")) {
    rc = list(root, &ev);
  } else if (!strcmp(cmd, "resolve")) {
    CORBA_Object obj = CosNaming_NamingContextExt_resolve_str(root, argv[2], &ev);
    if (!(rc = raised(&ev, argv[2]))) {
      CORBA_char *ior = CORBA_ORB_object_to_string(orb, obj, &ev);
      if (!(rc = raised(&ev, "object_to_string"))) {
        printf("%s\n", ior);
        CORBA_free(ior);
      }
      CORBA_Object_release(obj, &ev);
    }
  } else {
    /* "a/b.kind" to a Name (a sequence of { id, kind }), by the service */
    CosNaming_Name *name = CosNaming_NamingContextExt_to_name(root, argv[2], &ev);
    if (raised(&ev, argv[2]))
      return 1;
    if (!strcmp(cmd, "unbind")) {
      CosNaming_NamingContext_unbind(root, name, &ev);
      rc = raised(&ev, argv[2]);
    } else {
      CORBA_Object obj = CORBA_ORB_string_to_object(orb, argv[3], &ev);
      if (!(rc = raised(&ev, argv[3]))) {
        CosNaming_NamingContext_rebind(root, name, obj, &ev);
        rc = raised(&ev, argv[2]);
        CORBA_Object_release(obj, &ev);
      }
    }
    CORBA_free(name);
  }
  CORBA_Object_release(root, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return rc;
}
