/* iiop/ior_any.h - IORs between libiiop's decoded form (iiop_ior,
 * iiop/ior.h) and the generic form libcdr gives object references inside
 * anys without hooks (cdr_ior, cdr/any.h).
 *
 * Both are the same octets on the wire (CORBA 3.x, Part 2, "Object
 * References": the string type_id, then the sequence of TaggedProfiles);
 * each conversion writes one form and reads the other, so profiles and
 * components go through unchanged (an IIOP profile's body keeps its own
 * byte order).
 */
#ifndef IIOP_IOR_ANY_H
#define IIOP_IOR_ANY_H

#include <cdr/cdr.h>
#include <iiop/ior.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *OUT = IOR as a cdr_ior, allocated from A (strings, profile sequences
 * and their octets; nothing points into IOR).  A nil IOR (no type_id, no
 * profiles) gives an empty type_id and no profiles.  Errors: those of
 * iiop_ior_write() (CDR_E_INVALID: a profile that cannot be encoded),
 * CDR_E_NOMEM; *OUT untouched on error. */
IIOP_API int iiop_ior_to_cdr(const iiop_ior *ior, cdr_arena *a, cdr_ior *out) IIOP_WUR;

/* *OUT = IOR decoded as iiop_ior_read() decodes one, allocated from A.
 * Errors: CDR_E_INVALID (a NULL type_id, a sequence with a length and no
 * buffer), those of iiop_ior_read() (a malformed IIOP profile or standard
 * component: MARSHAL), CDR_E_NOMEM; *OUT untouched on error. */
IIOP_API int iiop_ior_from_cdr(const cdr_ior *ior, cdr_arena *a, iiop_ior *out) IIOP_WUR;

#ifdef __cplusplus
}
#endif
#endif
