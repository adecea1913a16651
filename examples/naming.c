/* naming.c - names for object references through the CORBA Naming
 * Service, by string name, with libcorbaorb's naming helpers
 * (corbaorb/naming.h), against omniNames or any other.
 *
 *   naming -ORBInitRef NameService=corbaloc::HOST:PORT/NameService COMMAND
 *
 *   bind NAME REFERENCE   binds (or rebinds) NAME to the reference (an IOR,
 *                         a corbaloc or a corbaname URL)
 *   resolve NAME          prints the IOR bound to NAME
 *   unbind NAME           removes NAME
 *   mkdir NAME            makes the context NAME (and those before it)
 *   list [NAME]           prints the bindings of the root context (or of
 *                         the context NAME), one a line; contexts end in "/"
 *
 * NAME is a string name ("shop/Store.object": components separated by
 * '/', each "id" or "id.kind", '\' escaping '/', '.' or '\').  Exit
 * status 0 on success, 1 when the service raised an exception (printed),
 * 2 for usage.
 */
#include <stdio.h>
#include <string.h>
#include <corbaorb/naming.h>

static CORBA_ORB orb; /* its last_error says why a connection failed */

/* 0 when the last call returned normally; otherwise print the exception
 * (NotFound with its reason and the part of the name that was not found),
 * free it and return 1. */
static int raised(CORBA_Environment *ev, const char *what)
{
  static const char *const why[] = { "missing node", "not a context", "not an object" };
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  const char *id = CORBA_exception_id(ev);
  if (!strcmp(id, CORBAORB_NAMING_NOTFOUND_ID)) {
    const corbaorb_naming_NotFound *e = CORBA_exception_value(ev);
    fprintf(stderr, "naming: %s: not found (%s", what, e->why <= 2 ? why[e->why] : "?");
    for (CORBA_unsigned_long i = 0; i < e->rest_of_name._length; i++)
      fprintf(stderr, "%s%s", i ? "/" : ": ", e->rest_of_name._buffer[i].id);
    fprintf(stderr, ")\n");
  } else if (!strcmp(id, ex_CORBA_ORB_InvalidName)) { /* no NameService given */
    fprintf(stderr, "naming: %s: %s (give -ORBInitRef NameService=corbaloc::HOST:PORT/NameService "
                    "or -ORBDefaultInitRef corbaloc::HOST:PORT)\n", what, id);
  } else if (ev->_major == CORBA_SYSTEM_EXCEPTION) {
    /* the minor code in hex, as omniORB prints it; for a failed connection
     * the ORB's reason ("connect to HOST:PORT: ...") too */
    CORBA_SystemException *e = CORBA_exception_value(ev);
    char reason[256] = "";
    if (!strcmp(id, ex_CORBA_TRANSIENT) || !strcmp(id, ex_CORBA_COMM_FAILURE))
      corbaorb_ORB_last_error(orb, reason, sizeof reason);
    fprintf(stderr, "naming: %s: %s (minor 0x%08x)%s%s\n", what, id, (unsigned)e->minor,
            reason[0] ? ": " : "", reason);
  } else {
    fprintf(stderr, "naming: %s: %s\n", what, id);
  }
  CORBA_exception_free(ev);
  return 1;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  orb = CORBA_ORB_init(&argc, argv, "", &ev);
  const char *cmd = argc > 1 ? argv[1] : "";
  int ok = (!strcmp(cmd, "bind") && argc == 4) ||
           ((!strcmp(cmd, "resolve") || !strcmp(cmd, "unbind") || !strcmp(cmd, "mkdir")) &&
            argc == 3) ||
           (!strcmp(cmd, "list") && argc <= 3);
  if (raised(&ev, "ORB_init") || !ok) {
    fprintf(stderr, "usage: naming [-ORBInitRef NameService=URL] bind NAME REFERENCE | "
                    "resolve NAME | unbind NAME | mkdir NAME | list [NAME]\n");
    return 2;
  }
  /* The root context, from -ORBInitRef NameService=... (or -ORBDefaultInitRef) */
  CORBA_Object root = CORBA_ORB_resolve_initial_references(orb, "NameService", &ev);
  if (raised(&ev, "resolve_initial_references NameService"))
    return 1;
  const char *name = argc > 2 ? argv[2] : NULL;
  int rc = 0;
  if (!strcmp(cmd, "list")) {
    /* every binding, 10 a call (the rest through the service's iterator) */
    corbaorb_naming_bindings *bl = corbaorb_naming_list(root, name, 10, &ev);
    if (!(rc = raised(&ev, name ? name : "list"))) {
      for (CORBA_unsigned_long i = 0; i < bl->_length; i++)
        printf("%s%s\n", bl->_buffer[i].name,
               bl->_buffer[i].type == CORBAORB_NAMING_CONTEXT ? "/ (context)" : "");
      CORBA_free(bl);
    }
  } else if (!strcmp(cmd, "resolve")) {
    CORBA_Object obj = corbaorb_naming_resolve(root, name, &ev);
    if (!(rc = raised(&ev, name))) {
      CORBA_char *ior = CORBA_ORB_object_to_string(orb, obj, &ev);
      if (!(rc = raised(&ev, "object_to_string"))) {
        printf("%s\n", ior);
        CORBA_free(ior);
      }
      CORBA_Object_release(obj, &ev);
    }
  } else if (!strcmp(cmd, "unbind")) {
    corbaorb_naming_unbind(root, name, &ev);
    rc = raised(&ev, name);
  } else if (!strcmp(cmd, "mkdir")) {
    CORBA_Object ctx = corbaorb_naming_bind_context(root, name, &ev);
    if (!(rc = raised(&ev, name)))
      CORBA_Object_release(ctx, &ev);
  } else {
    CORBA_Object obj = CORBA_ORB_string_to_object(orb, argv[3], &ev);
    if (!(rc = raised(&ev, argv[3]))) {
      corbaorb_naming_rebind(root, name, obj, &ev);
      rc = raised(&ev, name);
      CORBA_Object_release(obj, &ev);
    }
  }
  CORBA_Object_release(root, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return rc;
}
