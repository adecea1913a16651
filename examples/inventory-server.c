/* inventory-server.c - the Inventory::Store of inventory.idl, in C through
 * the OMG C mapping (idl2c's inventory.h, libcorbaorb).
 *
 *   inventory-server [-ORB options]
 *
 * Prints the Store's IOR on its first line, then "note: MESSAGE" for each
 * note() received; serves until Store::shutdown.  The Store is activated
 * in omniINSPOA under the key "Store", so corbaloc::HOST:PORT/Store
 * reaches it too (listen on a known port: -ORBendPoint giop:tcp::PORT).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "inventory.h"

#define MAX_ITEMS 64

static CORBA_ORB orb;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* calls may come on several threads */
static Inventory_Item items[MAX_ITEMS];                  /* the stock; strings are ours */
static CORBA_unsigned_long n_items;
static CORBA_char *owner;

static Inventory_Item *lookup(const char *name)
{
  for (CORBA_unsigned_long i = 0; i < n_items; i++)
    if (!strcmp(items[i].name, name))
      return &items[i];
  return NULL;
}

/* Raise UnknownItem { name }: the exception's members come from the
 * mapping's allocator, so the ORB can free them after sending them. */
static void unknown_item(CORBA_Environment *ev, const char *name)
{
  Inventory_UnknownItem *e = Inventory_UnknownItem__alloc();
  e->name = CORBA_string_dup(name);
  CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Inventory_UnknownItem, e);
}

/* Results belong to the caller (the skeleton sends then frees them): return copies. */
static CORBA_string get_owner(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  pthread_mutex_lock(&lock);
  CORBA_string r = CORBA_string_dup(owner ? owner : "");
  pthread_mutex_unlock(&lock);
  return r;
}

/* In parameters belong to the caller: keep a copy. */
static void set_owner(PortableServer_Servant s, const CORBA_char *value, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  pthread_mutex_lock(&lock);
  CORBA_free(owner);
  owner = CORBA_string_dup(value);
  pthread_mutex_unlock(&lock);
}

static Inventory_ItemList *list(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Inventory_ItemList *r = Inventory_ItemList__alloc();
  pthread_mutex_lock(&lock);
  r->_buffer = Inventory_ItemList_allocbuf(n_items);
  r->_maximum = r->_length = n_items;
  r->_release = CORBA_TRUE; /* CORBA_free(r) frees the buffer and its strings too */
  for (CORBA_unsigned_long i = 0; i < n_items; i++)
    corbaorb_copy(TC_Inventory_Item, &r->_buffer[i], &items[i]); /* a deep copy */
  pthread_mutex_unlock(&lock);
  return r;
}

static Inventory_Item *find(PortableServer_Servant s, const CORBA_char *name, CORBA_Environment *ev)
{
  (void)s;
  Inventory_Item *r = NULL;
  pthread_mutex_lock(&lock);
  Inventory_Item *it = lookup(name);
  if (it) {
    r = Inventory_Item__alloc();
    corbaorb_copy(TC_Inventory_Item, r, it);
  } else {
    unknown_item(ev, name); /* with an exception set, the result is not looked at */
  }
  pthread_mutex_unlock(&lock);
  return r;
}

static void add(PortableServer_Servant s, const Inventory_Item *item, CORBA_Environment *ev)
{
  (void)s;
  pthread_mutex_lock(&lock);
  Inventory_Item *it = lookup(item->name);
  if (it) {
    it->quantity += item->quantity;
    it->price = item->price;
  } else if (n_items < MAX_ITEMS) {
    corbaorb_copy(TC_Inventory_Item, &items[n_items++], item);
  } else { /* a system exception: its members are copied, no allocation */
    CORBA_SystemException full = { 0, CORBA_COMPLETED_NO };
    CORBA_exception_set(ev, CORBA_SYSTEM_EXCEPTION, ex_CORBA_NO_RESOURCES, &full);
  }
  pthread_mutex_unlock(&lock);
}

static CORBA_long take(PortableServer_Servant s, const CORBA_char *name, CORBA_long quantity,
                       CORBA_Environment *ev)
{
  (void)s;
  CORBA_long left = 0;
  pthread_mutex_lock(&lock);
  Inventory_Item *it = lookup(name);
  if (!it) {
    unknown_item(ev, name);
  } else if (quantity < 0 || quantity > it->quantity) {
    Inventory_OutOfStock *e = Inventory_OutOfStock__alloc();
    e->name = CORBA_string_dup(name);
    e->available = it->quantity;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Inventory_OutOfStock, e);
  } else {
    left = it->quantity -= quantity;
  }
  pthread_mutex_unlock(&lock);
  return left;
}

static void note(PortableServer_Servant s, const CORBA_char *message, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  printf("note: %s\n", message);
  fflush(stdout);
}

static void shutdown_store(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s;
  CORBA_ORB_shutdown(orb, CORBA_FALSE, ev); /* CORBA_ORB_run returns after this reply */
}

/* The servant: one table of functions per interface (the epv), in the
 * order of the IDL; the first entry of each is private to the ORB. */
static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_Inventory_Store__epv store_epv = {
  NULL, get_owner, set_owner, list, find, add, take, note, shutdown_store
};
static POA_Inventory_Store__vepv store_vepv = { &base_epv, &store_epv };
static POA_Inventory_Store servant = { NULL, &store_vepv };

/* Every call reports its failure in ev: check it after each. */
static int failed(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  fprintf(stderr, "inventory-server: %s: %s\n", what, CORBA_exception_id(ev));
  CORBA_exception_free(ev);
  return 1;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  orb = CORBA_ORB_init(&argc, argv, "", &ev); /* takes the -ORB options out of argv */
  if (failed(&ev, "ORB_init"))
    return 1;
  if (argc != 1) {
    fprintf(stderr, "usage: inventory-server [-ORB options]\n");
    return 2;
  }
  static const struct { const char *name; CORBA_long quantity; double price; } stock[] = {
    { "bolt", 500, 0.05 }, { "nut", 800, 0.04 }, { "hammer", 5, 12.5 },
  };
  for (size_t i = 0; i < sizeof stock / sizeof stock[0]; i++) {
    items[i].name = CORBA_string_dup(stock[i].name);
    items[i].quantity = stock[i].quantity;
    items[i].price = stock[i].price;
    n_items++;
  }

  PortableServer_POA poa =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev);
  if (failed(&ev, "resolve omniINSPOA"))
    return 1;
  POA_Inventory_Store__init(&servant, &ev);
  PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId("Store", &ev);
  PortableServer_POA_activate_object_with_id(poa, oid, &servant, &ev);
  if (failed(&ev, "activate"))
    return 1;
  CORBA_Object ref = PortableServer_POA_servant_to_reference(poa, &servant, &ev);
  CORBA_char *ior = CORBA_ORB_object_to_string(orb, ref, &ev);
  if (failed(&ev, "object_to_string"))
    return 1;
  printf("%s\n", ior);
  fflush(stdout);
  CORBA_free(ior);

  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(poa, &ev), &ev);
  if (failed(&ev, "activate the POAManager"))
    return 1;
  CORBA_ORB_run(orb, &ev); /* until shutdown() */
  int rc = failed(&ev, "run");

  PortableServer_POA_deactivate_object(poa, oid, &ev);
  CORBA_free(oid);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Inventory_Store__fini(&servant, &ev);
  for (CORBA_unsigned_long i = 0; i < n_items; i++)
    corbaorb_free_contents(TC_Inventory_Item, &items[i]);
  CORBA_free(owner);
  return rc;
}
