// omni-tc-dump.cc - print the TypeCode of each type of tclist.h as omniORB
// marshals it (little-endian, from offset 0): one line "NAME HEX" per type,
// for tests/idl2c.test to compare with tc-dump's.
#include <cstdio>
#include <omniORB4/CORBA.h>
#include "types.hh"

static void dump(const char* name, CORBA::TypeCode_ptr tc)
{
  cdrMemoryStream s;
  CORBA::TypeCode::marshalTypeCode(tc, s);
  const unsigned char* p = (const unsigned char*)s.bufPtr();
  std::printf("%s ", name);
  for (CORBA::ULong k = 0; k < s.bufSize(); k++)
    std::printf("%02x", p[k]);
  std::printf("\n");
}

int main(int argc, char** argv)
{
  CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
#define X(c, cxx) dump(#c, cxx);
#include "tclist.h"
#undef X
  orb->destroy();
  return 0;
}
