/* stub.c - placeholders until the runtime lands: NO_IMPLEMENT. */
#include "orb_impl.h"
#include <stdio.h>

#define NI(ev) CORBA_exception_set_system((ev), ex_CORBA_NO_IMPLEMENT, CORBA_COMPLETED_NO)

CORBA_Object corbaorb_object_dup(CORBA_Object obj) { return obj; }
void corbaorb_object_release(CORBA_Object obj) { (void)obj; }
CORBA_ORB CORBA_ORB_init(int *argc, char **argv, const CORBA_char *id, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_Object CORBA_ORB_string_to_object(CORBA_ORB orb, const CORBA_char *str, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_char *CORBA_ORB_object_to_string(CORBA_ORB orb, CORBA_Object obj, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_Object CORBA_ORB_resolve_initial_references(CORBA_ORB orb, const CORBA_char *identifier, CORBA_Environment *ev) { NI(ev); return NULL; }
void CORBA_ORB_run(CORBA_ORB orb, CORBA_Environment *ev) { NI(ev); }
void CORBA_ORB_shutdown(CORBA_ORB orb, CORBA_boolean w, CORBA_Environment *ev) { NI(ev); }
void CORBA_ORB_destroy(CORBA_ORB orb, CORBA_Environment *ev) { NI(ev); }
CORBA_Object CORBA_Object_duplicate(CORBA_Object obj, CORBA_Environment *ev) { return obj; }
void CORBA_Object_release(CORBA_Object obj, CORBA_Environment *ev) { }
CORBA_boolean CORBA_Object_is_nil(CORBA_Object obj, CORBA_Environment *ev) { return obj == NULL; }
CORBA_boolean CORBA_Object_is_a(CORBA_Object obj, const CORBA_char *t, CORBA_Environment *ev) { NI(ev); return 0; }
CORBA_boolean CORBA_Object_non_existent(CORBA_Object obj, CORBA_Environment *ev) { NI(ev); return 0; }
CORBA_boolean CORBA_Object_is_equivalent(CORBA_Object obj, CORBA_Object other, CORBA_Environment *ev) { return obj == other; }
CORBA_unsigned_long CORBA_Object_hash(CORBA_Object obj, CORBA_unsigned_long maximum, CORBA_Environment *ev) { NI(ev); return 0; }
PortableServer_POAManager PortableServer_POA__get_the_POAManager(PortableServer_POA poa, CORBA_Environment *ev) { NI(ev); return NULL; }
void PortableServer_POAManager_activate(PortableServer_POAManager m, CORBA_Environment *ev) { NI(ev); }
PortableServer_POA PortableServer_POA_create_POA(PortableServer_POA poa, const CORBA_char *n, PortableServer_POAManager m, const CORBA_PolicyList *p, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_Policy PortableServer_POA_create_lifespan_policy(PortableServer_POA poa, PortableServer_LifespanPolicyValue v, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_Policy PortableServer_POA_create_id_assignment_policy(PortableServer_POA poa, PortableServer_IdAssignmentPolicyValue v, CORBA_Environment *ev) { NI(ev); return NULL; }
void CORBA_Policy_destroy(CORBA_Policy p, CORBA_Environment *ev) { }
PortableServer_ObjectId *PortableServer_POA_activate_object(PortableServer_POA poa, PortableServer_Servant s, CORBA_Environment *ev) { NI(ev); return NULL; }
void PortableServer_POA_activate_object_with_id(PortableServer_POA poa, const PortableServer_ObjectId *id, PortableServer_Servant s, CORBA_Environment *ev) { NI(ev); }
void PortableServer_POA_deactivate_object(PortableServer_POA poa, const PortableServer_ObjectId *id, CORBA_Environment *ev) { NI(ev); }
CORBA_Object PortableServer_POA_servant_to_reference(PortableServer_POA poa, PortableServer_Servant s, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_Object PortableServer_POA_id_to_reference(PortableServer_POA poa, const PortableServer_ObjectId *id, CORBA_Environment *ev) { NI(ev); return NULL; }
PortableServer_ObjectId *PortableServer_POA_reference_to_id(PortableServer_POA poa, CORBA_Object r, CORBA_Environment *ev) { NI(ev); return NULL; }
PortableServer_ObjectId *PortableServer_string_to_ObjectId(const CORBA_char *str, CORBA_Environment *ev) { NI(ev); return NULL; }
CORBA_char *PortableServer_ObjectId_to_string(const PortableServer_ObjectId *id, CORBA_Environment *ev) { NI(ev); return NULL; }
void corbaorb_invoke(CORBA_Object obj, const corbaorb_operation *op, void *ret, void *const *args, CORBA_Environment *ev) { NI(ev); }
int corbaorb_dispatch(void *servant, iiop_request *req, cdr_in *args, cdr_out *result, const corbaorb_operation *op, corbaorb_skel_fn glue) { return CDR_E_UNSUPPORTED; }
void corbaorb_servant_init(PortableServer_Servant servant, const corbaorb_class *cls, CORBA_Environment *ev) { }
void corbaorb_servant_fini(PortableServer_Servant servant, CORBA_Environment *ev) { }
