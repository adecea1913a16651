/* cdr/cdr.h - everything libcdr (installed as libcorbacdr) offers.
 *
 * CDR is the Common Data Representation of the OMG CORBA 3.x specification
 * (Part 2, GIOP chapter, "CDR Transfer Syntax"). */
#ifndef CDR_CDR_H
#define CDR_CDR_H

#include <cdr/export.h>
#include <cdr/error.h>
#include <cdr/mem.h>
#include <cdr/stream.h>
#include <cdr/arena.h>
#include <cdr/codeset.h>
#include <cdr/numeric.h>
#include <cdr/out.h>
#include <cdr/in.h>
#include <cdr/type.h>
#include <cdr/repoid.h>
#include <cdr/tables.h>
#include <cdr/pool.h>
#include <cdr/value.h>
#include <cdr/typecode.h>
#include <cdr/any.h>

#endif
