/* inventory-client.c - a session with an Inventory::Store (inventory.idl)
 * through the OMG C mapping: attributes, a sequence of structs, user
 * exceptions with members, a oneway call.
 *
 *   inventory-client [-ORB options] REFERENCE [--shutdown]
 *
 * REFERENCE is an IOR (what inventory-server prints), a corbaloc URL
 * (corbaloc::HOST:PORT/Store), or what `naming resolve NAME` prints.
 * With --shutdown the Store is stopped at the end.  Exit status 0 when
 * every call did what the session expects, 1 otherwise, 2 for usage.
 */
#include <stdio.h>
#include <string.h>
#include "inventory.h"

static CORBA_ORB orb; /* its last_error says why a connection failed */

/* After each call: 0 when it returned normally.  Otherwise print what was
 * raised (a user exception's members, a system exception's minor code),
 * free the exception and return 1. */
static int raised(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  const char *id = CORBA_exception_id(ev);
  if (!strcmp(id, ex_Inventory_UnknownItem)) {
    Inventory_UnknownItem *e = CORBA_exception_value(ev);
    printf("%s: UnknownItem %s\n", what, e->name);
  } else if (!strcmp(id, ex_Inventory_OutOfStock)) {
    Inventory_OutOfStock *e = CORBA_exception_value(ev);
    printf("%s: OutOfStock %s, %d available\n", what, e->name, (int)e->available);
  } else if (ev->_major == CORBA_SYSTEM_EXCEPTION) {
    /* the minor code in hex, as omniORB prints it (0x41540002: omniORB's
     * TRANSIENT_ConnectFailed); for a failed connection the ORB's reason
     * ("connect to HOST:PORT: ...") too */
    CORBA_SystemException *e = CORBA_exception_value(ev);
    char why[256] = "";
    if (!strcmp(id, ex_CORBA_TRANSIENT) || !strcmp(id, ex_CORBA_COMM_FAILURE))
      corbaorb_ORB_last_error(orb, why, sizeof why);
    printf("%s: %s (minor 0x%08x)%s%s\n", what, id, (unsigned)e->minor, why[0] ? ": " : "", why);
  } else {
    printf("%s: %s\n", what, id);
  }
  CORBA_exception_free(ev);
  return 1;
}

static int print_list(Inventory_Store store, CORBA_Environment *ev)
{
  Inventory_ItemList *l = Inventory_Store_list(store, ev);
  if (raised(ev, "list"))
    return 1;
  printf("%u items:\n", (unsigned)l->_length);
  for (CORBA_unsigned_long i = 0; i < l->_length; i++)
    printf("  %-8s %5d at %.2f\n", l->_buffer[i].name, (int)l->_buffer[i].quantity,
           l->_buffer[i].price);
  CORBA_free(l); /* the sequence, its buffer and every name in it */
  return 0;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (raised(&ev, "ORB_init") || argc < 2 || argc > 3 ||
      (argc == 3 && strcmp(argv[2], "--shutdown"))) {
    fprintf(stderr, "usage: inventory-client [-ORB options] REFERENCE [--shutdown]\n");
    return 2;
  }
  Inventory_Store store = CORBA_ORB_string_to_object(orb, argv[1], &ev);
  if (raised(&ev, "string_to_object"))
    return 1;
  int bad = 0; /* calls that did not do what the session expects */

  /* Attributes: _get_ and _set_.  A string result is ours to free. */
  CORBA_char *owner = Inventory_Store__get_owner(store, &ev);
  if (!(bad |= raised(&ev, "get owner"))) {
    printf("owner: \"%s\"\n", owner);
    CORBA_free(owner);
  }
  Inventory_Store__set_owner(store, "Ada", &ev);
  bad |= raised(&ev, "set owner");
  owner = Inventory_Store__get_owner(store, &ev);
  if (!(bad |= raised(&ev, "get owner"))) {
    printf("owner: \"%s\"\n", owner);
    CORBA_free(owner);
  }

  bad |= print_list(store, &ev);

  /* A struct result, then the same call raising UnknownItem. */
  Inventory_Item *it = Inventory_Store_find(store, "nut", &ev);
  if (!(bad |= raised(&ev, "find nut"))) {
    printf("find nut: %d at %.2f\n", (int)it->quantity, it->price);
    CORBA_free(it);
  }
  Inventory_Store_find(store, "saw", &ev);       /* NULL: nothing to free */
  bad |= !raised(&ev, "find saw"); /* expected: UnknownItem */

  /* take: a result, then OutOfStock with its members. */
  CORBA_long left = Inventory_Store_take(store, "hammer", 2, &ev);
  if (!(bad |= raised(&ev, "take 2 hammer")))
    printf("take 2 hammer: %d left\n", (int)left);
  Inventory_Store_take(store, "hammer", 10, &ev);
  bad |= !raised(&ev, "take 10 hammer"); /* expected: OutOfStock */

  /* An in struct: the caller's own storage, nothing allocated. */
  Inventory_Item saw = { "saw", 4, 19.99 };
  Inventory_Store_add(store, &saw, &ev);
  bad |= raised(&ev, "add saw");
  bad |= print_list(store, &ev);

  /* oneway: returns once the request is sent; the server prints it. */
  Inventory_Store_note(store, "stocktake done", &ev);
  if (!(bad |= raised(&ev, "note")))
    printf("note sent\n");

  if (argc == 3) {
    Inventory_Store_shutdown(store, &ev);
    bad |= raised(&ev, "shutdown");
  }
  CORBA_Object_release(store, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return bad ? 1 : 0;
}
