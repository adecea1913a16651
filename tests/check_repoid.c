/* check_repoid.c - repository IDs: IDL form, RMI hashed form, the per-type cache.
 *
 * Known RMI IDs come from Java peers (JDK 1.4-8 field sets); the byte images
 * for odd field names were produced by java.io.DataOutputStream and sorted
 * with String.compareTo on OpenJDK 17.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/error.h>
#include <cdr/mem.h>
#include <cdr/repoid.h>
#include "testutil.h"

/* Hidden in libcdr (repoid.c): the DataOutputStream image SHA-1 runs over. */
int cdr__rmi_hash_input(const cdr_rmi_class *cls, const cdr_allocator *a,
                        uint8_t **image_out, size_t *len_out);

/* Java modifier bits used below. */
#define PRIVATE 0x0002u
#define STATIC CDR_RMI_FIELD_STATIC
#define FINAL 0x0010u
#define TRANSIENT CDR_RMI_FIELD_TRANSIENT

/* ---------------------------------------------------------------- JDK classes */

/* java.util.ArrayList: writeObject; elementData is transient; AbstractList is
 * not serializable. */
static const cdr_rmi_field arraylist_fields[] = {
  { "serialVersionUID", "J", PRIVATE | STATIC | FINAL },
  { "DEFAULT_CAPACITY", "I", PRIVATE | STATIC | FINAL },
  { "elementData", "[Ljava/lang/Object;", TRANSIENT },
  { "size", "I", PRIVATE },
};
static const cdr_rmi_class arraylist = {
  .name = "java.util.ArrayList", .kind = CDR_RMI_SERIALIZABLE, .superclass = NULL,
  .has_write_object = 1, .fields = arraylist_fields, .nfields = 4, .suid = 0x7881D21D99C7619DULL,
};

/* java.util.Date: writeObject; fastTime and cdate are transient. */
static const cdr_rmi_field date_fields[] = {
  { "fastTime", "J", PRIVATE | TRANSIENT },
  { "cdate", "Lsun/util/calendar/BaseCalendar$Date;", PRIVATE | TRANSIENT },
  { "serialVersionUID", "J", PRIVATE | STATIC | FINAL },
};
static const cdr_rmi_class date = {
  .name = "java.util.Date", .kind = CDR_RMI_SERIALIZABLE, .has_write_object = 1,
  .fields = date_fields, .nfields = 3, .suid = 0x686A81014B597419ULL,
};

/* java.lang.Number: serializable, no fields, no writeObject.  Its hash is
 * also String's (below): SHA-1 of writeLong(0), writeInt(1). */
static const cdr_rmi_class number = {
  .name = "java.lang.Number", .kind = CDR_RMI_SERIALIZABLE, .suid = 0x86AC951D0B94E08BULL,
};

/* java.lang.Integer and java.lang.Long: a serializable superclass (Number),
 * whose hash goes first into theirs. */
static const cdr_rmi_field integer_fields[] = {
  { "MIN_VALUE", "I", STATIC | FINAL },
  { "value", "I", PRIVATE | FINAL },
};
static const cdr_rmi_class integer = {
  .name = "java.lang.Integer", .kind = CDR_RMI_SERIALIZABLE, .superclass = &number,
  .fields = integer_fields, .nfields = 2, .suid = 0x12E2A0A4F7818738ULL,
};
static const cdr_rmi_field long_fields[] = { { "value", "J", PRIVATE | FINAL } };
static const cdr_rmi_class jlong = {
  .name = "java.lang.Long", .kind = CDR_RMI_SERIALIZABLE, .superclass = &number,
  .fields = long_fields, .nfields = 1, .suid = 0x3B8BE490CC8F23DFULL,
};

/* java.lang.StackTraceElement (JDK 1.4-8): four fields of two descriptors. */
static const cdr_rmi_field ste_fields[] = {
  { "declaringClass", "Ljava/lang/String;", PRIVATE },
  { "methodName", "Ljava/lang/String;", PRIVATE },
  { "fileName", "Ljava/lang/String;", PRIVATE },
  { "lineNumber", "I", PRIVATE },
};
static const cdr_rmi_class ste = {
  .name = "java.lang.StackTraceElement", .kind = CDR_RMI_SERIALIZABLE,
  .fields = ste_fields, .nfields = 4, .suid = 0x6109C59A2636DD85ULL,
};
static const cdr_rmi_class ste_array = {
  .name = "[Ljava.lang.StackTraceElement;", .kind = CDR_RMI_ARRAY, .element = &ste,
};

/* java.lang.String declares serialPersistentFields = {}: no fields. */
static const cdr_rmi_class string = {
  .name = "java.lang.String", .kind = CDR_RMI_SERIALIZABLE, .suid = 0xA0F0A4387A3BB342ULL,
};
static const cdr_rmi_class string_array = {
  .name = "[Ljava.lang.String;", .kind = CDR_RMI_ARRAY, .element = &string,
};

/* ---------------------------------------------------------------- helpers */

static char *rmi_id(const cdr_rmi_class *cls, int *rc)
{
  static __thread char buf[512];
  size_t len = 0;
  *rc = cdr_repoid_rmi(cls, NULL, buf, sizeof buf, &len);
  if (*rc == CDR_OK)
    ck_assert_uint_eq(len, strlen(buf));
  return buf;
}

#define ck_rmi_id(cls, want)                                                                        \
  do {                                                                                              \
    int rc_;                                                                                        \
    const char *id_ = rmi_id((cls), &rc_);                                                          \
    ck_assert_int_eq(rc_, CDR_OK);                                                                  \
    ck_assert_str_eq(id_, (want));                                                                  \
  } while (0)

#define ck_rmi_err(cls, err)                                                                        \
  do {                                                                                              \
    int rc_;                                                                                        \
    (void)rmi_id((cls), &rc_);                                                                      \
    ck_assert_int_eq(rc_, (err));                                                                   \
  } while (0)

static uint64_t rmi_hash_ok(const cdr_rmi_class *cls)
{
  uint64_t h = 0xDEAD;
  ck_assert_int_eq(cdr_rmi_hash(cls, NULL, &h), CDR_OK);
  return h;
}

static int rmi_hash_rc(const cdr_rmi_class *cls)
{
  uint64_t h = 0xDEAD;
  int rc = cdr_rmi_hash(cls, NULL, &h);
  if (rc != CDR_OK)
    ck_assert_uint_eq(h, 0xDEAD); /* failures leave the output alone */
  return rc;
}

/* The image as upper-case hex, for readable comparisons. */
static char *image_hex(const cdr_rmi_class *cls, int *rc)
{
  static __thread char hex[1024];
  cdr_mem_counter mc;
  uint8_t *img = NULL;
  size_t len = 0;
  cdr_mem_counter_init(&mc, NULL);
  *rc = cdr__rmi_hash_input(cls, &mc.alloc, &img, &len);
  hex[0] = '\0';
  if (*rc == CDR_OK) {
    ck_assert_uint_lt(2 * len, sizeof hex);
    for (size_t i = 0; i < len; i++)
      sprintf(hex + 2 * i, "%02X", img[i]);
    mc.alloc.free(img, mc.alloc.ud);
  }
  ck_assert_int_eq(mc.live, 0);
  return hex;
}

/* ---------------------------------------------------------------- IDL form */

static void ck_idl(const char *prefix, const char *scoped, const char *version, const char *want)
{
  char buf[128];
  size_t len = 0;
  ck_assert_int_eq(cdr_repoid_idl(prefix, scoped, version, buf, sizeof buf, &len), CDR_OK);
  ck_assert_str_eq(buf, want);
  ck_assert_uint_eq(len, strlen(want));
}

START_TEST(test_idl_forms)
{
  ck_idl(NULL, "Module::Name", NULL, "IDL:Module/Name:1.0");
  ck_idl(NULL, "Module/Name", NULL, "IDL:Module/Name:1.0");
  ck_idl(NULL, "Module::Name", "2.3", "IDL:Module/Name:2.3");
  ck_idl(NULL, "::Outer::Inner::T_1", "10.25", "IDL:Outer/Inner/T_1:10.25");
  ck_idl(NULL, "Name", NULL, "IDL:Name:1.0");
  ck_idl("", "Name", NULL, "IDL:Name:1.0");
  ck_idl(NULL, "_under", NULL, "IDL:_under:1.0");
  ck_idl("omg.org", "CosNaming::NamingContext", NULL, "IDL:omg.org/CosNaming/NamingContext:1.0");
  ck_idl("omg.org", "CORBA/WStringValue", "1.0", "IDL:omg.org/CORBA/WStringValue:1.0");
  ck_idl("my-co.example/sub_1", "M::N", NULL, "IDL:my-co.example/sub_1/M/N:1.0");
}
END_TEST

START_TEST(test_idl_errors)
{
  static const struct { const char *prefix, *scoped, *version; } bad[] = {
    { NULL, "", NULL }, { NULL, "::", NULL }, { NULL, "A::", NULL }, { NULL, "::A::", NULL },
    { NULL, "A::::B", NULL }, { NULL, ":::A", NULL }, { NULL, "A:B", NULL },
    { NULL, "A:::B", NULL }, { NULL, "A/B::C", NULL }, { NULL, "A::B/C", NULL },
    { NULL, "/A", NULL }, { NULL, "A/", NULL }, { NULL, "A//B", NULL }, { NULL, "1A", NULL },
    { NULL, "A-B", NULL }, { NULL, "A B", NULL }, { NULL, "A.B", NULL }, { NULL, "A\xC3\xA9", NULL },
    { NULL, "A", "" }, { NULL, "A", "1" }, { NULL, "A", "1." }, { NULL, "A", ".1" },
    { NULL, "A", "a.b" }, { NULL, "A", "1.0.0" }, { NULL, "A", "1.0 " }, { NULL, "A", "-1.0" },
    { "/", "A", NULL }, { "a//b", "A", NULL }, { "a/", "A", NULL }, { "a b", "A", NULL },
    { "a:b", "A", NULL },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char buf[64] = "untouched";
    size_t len = 77;
    int rc = cdr_repoid_idl(bad[i].prefix, bad[i].scoped, bad[i].version, buf, sizeof buf, &len);
    ck_assert_msg(rc == CDR_E_INVALID, "case %zu (%s, %s, %s): rc %d", i,
                  bad[i].prefix ? bad[i].prefix : "NULL", bad[i].scoped,
                  bad[i].version ? bad[i].version : "NULL", rc);
    ck_assert_str_eq(buf, "untouched");
    ck_assert_uint_eq(len, 77);
  }
  char buf[64];
  size_t len;
  ck_assert_int_eq(cdr_repoid_idl(NULL, NULL, NULL, buf, sizeof buf, &len), CDR_E_INVALID);
  ck_assert_int_eq(cdr_repoid_idl(NULL, "A", NULL, buf, sizeof buf, NULL), CDR_E_INVALID);
  ck_assert_int_eq(cdr_repoid_idl(NULL, "A", NULL, NULL, 10, &len), CDR_E_INVALID);
}
END_TEST

START_TEST(test_idl_buffer)
{
  const char *want = "IDL:Module/Name:1.0"; /* 19 bytes + NUL */
  char buf[32];
  size_t len = 0;
  ck_assert_int_eq(cdr_repoid_idl(NULL, "Module::Name", NULL, NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 19);
  for (size_t size = 0; size <= 19; size++) {
    memset(buf, 'x', sizeof buf);
    len = 77;
    ck_assert_int_eq(cdr_repoid_idl(NULL, "Module::Name", NULL, buf, size, &len), CDR_E_LIMIT);
    ck_assert_uint_eq(len, 77);
    for (size_t i = 0; i < sizeof buf; i++)
      ck_assert_int_eq(buf[i], 'x');
  }
  ck_assert_int_eq(cdr_repoid_idl(NULL, "Module::Name", NULL, buf, 20, &len), CDR_OK);
  ck_assert_str_eq(buf, want);
  ck_assert_uint_eq(len, 19);
  ck_assert_int_eq(buf[20], 'x');
}
END_TEST

START_TEST(test_idl_compute)
{
  cdr_mem_counter mc;
  cdr_repoid_idl_name nm = { "omg.org", "CORBA::WStringValue", NULL };
  char *id = NULL;
  cdr_mem_counter_init(&mc, NULL);
  ck_assert_int_eq(cdr_repoid_idl_compute(&nm, &id, &mc.alloc), CDR_OK);
  ck_assert_str_eq(id, "IDL:omg.org/CORBA/WStringValue:1.0");
  ck_assert_int_eq(mc.live, 1);
  ck_assert_uint_eq(mc.bytes, strlen(id) + 1);
  mc.alloc.free(id, mc.alloc.ud);
  ck_assert_int_eq(mc.live, 0);

  cdr_repoid_idl_name badnm = { NULL, "A::", NULL };
  id = (char *)"untouched";
  ck_assert_int_eq(cdr_repoid_idl_compute(&badnm, &id, &mc.alloc), CDR_E_INVALID);
  ck_assert_str_eq(id, "untouched");
  ck_assert_int_eq(cdr_repoid_idl_compute(NULL, &id, &mc.alloc), CDR_E_INVALID);
  ck_assert_int_eq(cdr_repoid_idl_compute(&nm, NULL, &mc.alloc), CDR_E_INVALID);

  cdr_mem_counter_init(&mc, NULL);
  mc.fail_at = 1;
  ck_assert_int_eq(cdr_repoid_idl_compute(&nm, &id, &mc.alloc), CDR_E_NOMEM);
  ck_assert_str_eq(id, "untouched");
  ck_assert_int_eq(mc.live, 0);
}
END_TEST

/* ---------------------------------------------------------------- RMI: known IDs */

START_TEST(test_rmi_known_ids)
{
  ck_assert_uint_eq(rmi_hash_ok(&arraylist), 0xF655154F32815380ULL);
  ck_rmi_id(&arraylist, "RMI:java.util.ArrayList:F655154F32815380:7881D21D99C7619D");
  ck_assert_uint_eq(rmi_hash_ok(&date), 0xAC117E28FE36587AULL);
  ck_rmi_id(&date, "RMI:java.util.Date:AC117E28FE36587A:686A81014B597419");
  /* A serializable superclass: Number's hash is the first 8 bytes hashed. */
  ck_assert_uint_eq(rmi_hash_ok(&number), 0x071DA8BE7F971128ULL);
  ck_rmi_id(&integer, "RMI:java.lang.Integer:47693FFB4FE579F4:12E2A0A4F7818738");
  ck_rmi_id(&jlong, "RMI:java.lang.Long:205F6CCF002E6E90:3B8BE490CC8F23DF");
  ck_rmi_id(&ste, "RMI:java.lang.StackTraceElement:CD38F9930EA8AAEC:6109C59A2636DD85");
  /* Arrays of objects carry the element's hash and SUID. */
  ck_rmi_id(&ste_array, "RMI:[Ljava.lang.StackTraceElement;:CD38F9930EA8AAEC:6109C59A2636DD85");
  ck_rmi_id(&string_array, "RMI:[Ljava.lang.String;:071DA8BE7F971128:A0F0A4387A3BB342");
}
END_TEST

START_TEST(test_rmi_images)
{
  int rc;
  /* ArrayList: writeLong(0) writeInt(2) writeUTF("size") writeUTF("I"). */
  ck_assert_str_eq(image_hex(&arraylist, &rc), "0000000000000000"
                                                "00000002"
                                                "000473697A65"
                                                "000149");
  ck_assert_int_eq(rc, CDR_OK);
  /* Integer: the superclass's hash leads, big-endian. */
  ck_assert_str_eq(image_hex(&integer, &rc), "071DA8BE7F971128"
                                              "00000001"
                                              "000576616C7565"
                                              "000149");
  /* Date: no serializable fields. */
  ck_assert_str_eq(image_hex(&date, &rc), "000000000000000000000002");
  (void)image_hex(&number, &rc);
  ck_assert_int_eq(rc, CDR_OK);
  /* Only serializable classes have an image. */
  static const cdr_rmi_class ext = { .name = "x.E", .kind = CDR_RMI_EXTERNALIZABLE };
  (void)image_hex(&ext, &rc);
  ck_assert_int_eq(rc, CDR_E_INVALID);
}
END_TEST

/* ---------------------------------------------------------------- RMI: modified UTF-8 */

/* Odd names, in String.compareTo order: "\0x" < "\1" < "a\0b" < "été" <
 * U+1F600 < U+FFFF.  (UTF-8 byte order would put "\1" first, and U+FFFF
 * before U+1F600.)  Expected image and hash from java.io.DataOutputStream. */
#define ODD_IMAGE                                                                                   \
  "0000000000000000" "00000001"                                                                     \
  "0003C08078" "00014A"                                   /* "\0x" J */                             \
  "000101" "00015A"                                       /* "\1" Z */                              \
  "000461C08062" "000149"                                 /* "a\0b" I */                            \
  "0005C3A974C3A9" "000E4C636166C3A92F4372C3A86D653B"     /* "été" "Lcafé/Crème;" */                \
  "0006EDA0BDEDB880" "00025B42"                           /* U+1F600 as two surrogates, "[B" */     \
  "0003EFBFBF" "00145B5B4C6A6176612F6C616E672F537472696E673B" /* U+FFFF "[[Ljava/lang/String;" */

START_TEST(test_rmi_modified_utf8)
{
  static const cdr_rmi_field f[] = {
    { "\xEF\xBF\xBF", "[[Ljava/lang/String;", 0 },            /* U+FFFF */
    { "a\xC0\x80" "b", "I", 0 },                              /* U+0000 as modified UTF-8 */
    { "\xF0\x9F\x98\x80", "[B", 0 },                          /* U+1F600, 4-byte UTF-8 */
    { "\xC3\xA9t\xC3\xA9", "Lcaf\xC3\xA9/Cr\xC3\xA8me;", 0 },
    { "\x01", "Z", 0 },
    { "\xC0\x80x", "J", 0 },
    { "ignored\xFF", "bad", TRANSIENT },                      /* skipped: never read */
  };
  static const cdr_rmi_class odd = {
    .name = "t.Odd", .kind = CDR_RMI_SERIALIZABLE, .fields = f, .nfields = 7, .suid = 42,
  };
  int rc;
  ck_assert_str_eq(image_hex(&odd, &rc), ODD_IMAGE);
  ck_assert_int_eq(rc, CDR_OK);
  ck_assert_uint_eq(rmi_hash_ok(&odd), 0xB898D7604CC00728ULL);
  ck_rmi_id(&odd, "RMI:t.Odd:B898D7604CC00728:000000000000002A");

  /* The same supplementary character as a CESU-8 surrogate pair. */
  cdr_rmi_field g[7];
  memcpy(g, f, sizeof g);
  g[2].name = "\xED\xA0\xBD\xED\xB8\x80";
  cdr_rmi_class odd2 = odd;
  odd2.fields = g;
  ck_assert_str_eq(image_hex(&odd2, &rc), ODD_IMAGE);

  /* Encoding boundaries U+007F, U+0080, U+07FF, U+0800 with writeObject and
   * a serializable superclass (Integer). */
  static const cdr_rmi_field b[] = {
    { "\xE0\xA0\x80", "D", 0 }, { "\xDF\xBF", "F", 0 }, { "\x7F", "S", 0 }, { "\xC2\x80", "C", 0 },
  };
  static const cdr_rmi_class bounds = {
    .name = "t.B", .kind = CDR_RMI_SERIALIZABLE, .superclass = &integer, .has_write_object = 1,
    .fields = b, .nfields = 4,
  };
  ck_assert_str_eq(image_hex(&bounds, &rc), "47693FFB4FE579F4" "00000002"
                                             "00017F" "000153"
                                             "0002C280" "000143"
                                             "0002DFBF" "000146"
                                             "0003E0A080" "000144");
  ck_assert_uint_eq(rmi_hash_ok(&bounds), 0x877E5EA7D97374D7ULL);
}
END_TEST

START_TEST(test_rmi_field_errors)
{
  static const struct { const char *name, *desc; int rc; } bad[] = {
    { "x\xFF", "I", CDR_E_CODESET },          /* not UTF-8 */
    { "x\xC0\x81", "I", CDR_E_CODESET },      /* overlong, and not C0 80 */
    { "x\xE0\x80\xBF", "I", CDR_E_CODESET },  /* overlong 3-byte */
    { "x\xF0\x8F\xBF\xBF", "I", CDR_E_CODESET }, /* overlong 4-byte */
    { "x\xF4\x90\x80\x80", "I", CDR_E_CODESET }, /* above U+10FFFF */
    { "x\xE2\x82", "I", CDR_E_CODESET },      /* truncated */
    { "x\x80", "I", CDR_E_CODESET },          /* stray continuation */
    { "x\xC3(", "I", CDR_E_CODESET },         /* missing continuation */
    { "x", "L\xC3;", CDR_E_CODESET },
    { "", "I", CDR_E_INVALID },
    { NULL, "I", CDR_E_INVALID },
    { "x", NULL, CDR_E_INVALID },
    { "x", "", CDR_E_INVALID },
    { "x", "Q", CDR_E_INVALID },
    { "x", "II", CDR_E_INVALID },
    { "x", "I;", CDR_E_INVALID },
    { "x", "[", CDR_E_INVALID },
    { "x", "L;", CDR_E_INVALID },
    { "x", "Ljava.lang.String;", CDR_E_INVALID }, /* dots: Class.getName(), not a descriptor */
    { "x", "Ljava/lang/String", CDR_E_INVALID },
    { "x", "Ljava//String;", CDR_E_INVALID },
    { "x", "L/String;", CDR_E_INVALID },
    { "x", "Ljava/lang/;", CDR_E_INVALID },
    { "x", "Ljava/lang/String;x", CDR_E_INVALID },
    { "x", "L[I;", CDR_E_INVALID },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cdr_rmi_field f[2] = { { "ok", "I", 0 }, { bad[i].name, bad[i].desc, PRIVATE } };
    cdr_rmi_class c = { .name = "t.C", .kind = CDR_RMI_SERIALIZABLE, .fields = f, .nfields = 2 };
    int rc = rmi_hash_rc(&c);
    ck_assert_msg(rc == bad[i].rc, "case %zu: rc %d, want %d", i, rc, bad[i].rc);
    ck_rmi_err(&c, bad[i].rc);
  }

  /* 255 array dimensions are a descriptor; 256 are not. */
  char desc[300];
  memset(desc, '[', 255);
  strcpy(desc + 255, "I");
  cdr_rmi_field d = { "x", desc, 0 };
  cdr_rmi_class c = { .name = "t.C", .kind = CDR_RMI_SERIALIZABLE, .fields = &d, .nfields = 1 };
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_OK);
  memset(desc, '[', 256);
  strcpy(desc + 256, "I");
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_E_INVALID);

  /* Two fields with one name (serialPersistentFields could say so). */
  cdr_rmi_field dup[3] = { { "a", "I", 0 }, { "b", "I", 0 }, { "a", "J", 0 } };
  c.fields = dup;
  c.nfields = 3;
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_E_INVALID);
  /* One name in two spellings: 4-byte UTF-8 and a CESU-8 surrogate pair. */
  cdr_rmi_field dup2[2] = { { "\xF0\x9F\x98\x80", "I", 0 }, { "\xED\xA0\xBD\xED\xB8\x80", "I", 0 } };
  c.fields = dup2;
  c.nfields = 2;
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_E_INVALID);
  /* Duplicates among skipped fields do not count. */
  cdr_rmi_field dup3[2] = { { "a", "I", STATIC }, { "a", "I", 0 } };
  c.fields = dup3;
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_OK);

  /* writeUTF's limit: 65535 bytes of modified UTF-8. */
  char *big = malloc(65536 + 2);
  ck_assert_ptr_nonnull(big);
  memset(big, 'a', 65535);
  big[65535] = '\0';
  cdr_rmi_field l = { big, "I", 0 };
  c.fields = &l;
  c.nfields = 1;
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_OK);
  big[65534] = '\0';
  strcat(big, "\xC0\x80"); /* U+0000 last: 65534 + 2 bytes */
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_E_LIMIT);
  free(big);

  c.fields = NULL;
  c.nfields = 1;
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_E_INVALID);
  c.nfields = 65536;
  c.fields = &l;
  ck_assert_int_eq(rmi_hash_rc(&c), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_rmi_hash(NULL, NULL, &(uint64_t){ 0 }), CDR_E_INVALID);
  ck_assert_int_eq(cdr_rmi_hash(&arraylist, NULL, NULL), CDR_E_INVALID);
}
END_TEST

/* ---------------------------------------------------------------- RMI: kinds */

START_TEST(test_rmi_kinds)
{
  static const cdr_rmi_field junk[] = { { NULL, NULL, 0 } }; /* never read for these kinds */
  static const cdr_rmi_class ext = {
    .name = "x.Ext", .kind = CDR_RMI_EXTERNALIZABLE, .has_write_object = 1,
    .superclass = &integer, .fields = junk, .nfields = 1, .suid = 0xFEDCBA9876543210ULL,
  };
  static const cdr_rmi_class iface = {
    .name = "x.Iface", .kind = CDR_RMI_NOT_SERIALIZABLE, .fields = junk, .nfields = 1, .suid = 5,
  };
  ck_assert_uint_eq(rmi_hash_ok(&ext), 1);
  ck_rmi_id(&ext, "RMI:x.Ext:0000000000000001:FEDCBA9876543210");
  ck_assert_uint_eq(rmi_hash_ok(&iface), 0);
  ck_rmi_id(&iface, "RMI:x.Iface:0000000000000000");

  /* A superclass that is not serializable counts as 0, like NULL. */
  static const cdr_rmi_class abstractlist = { .name = "java.util.AbstractList",
                                              .kind = CDR_RMI_NOT_SERIALIZABLE };
  cdr_rmi_class al = arraylist;
  al.superclass = &abstractlist;
  ck_assert_uint_eq(rmi_hash_ok(&al), 0xF655154F32815380ULL);

  /* Arrays. */
  static const cdr_rmi_class bytes = { .name = "[B", .kind = CDR_RMI_ARRAY };
  static const cdr_rmi_class ints2 = { .name = "[[I", .kind = CDR_RMI_ARRAY };
  static const cdr_rmi_class ifaces = { .name = "[[Lx.Iface;", .kind = CDR_RMI_ARRAY, .element = &iface };
  static const cdr_rmi_class exts = { .name = "[Lx.Ext;", .kind = CDR_RMI_ARRAY, .element = &ext };
  ck_rmi_id(&bytes, "RMI:[B:0000000000000000");
  ck_rmi_id(&ints2, "RMI:[[I:0000000000000000");
  ck_rmi_id(&ifaces, "RMI:[[Lx.Iface;:0000000000000000");
  ck_rmi_id(&exts, "RMI:[Lx.Ext;:0000000000000001:FEDCBA9876543210");
  ck_assert_int_eq(rmi_hash_rc(&bytes), CDR_E_INVALID);

  static const cdr_rmi_class bad_arrays[] = {
    { .name = "B", .kind = CDR_RMI_ARRAY },
    { .name = "[", .kind = CDR_RMI_ARRAY },
    { .name = "[Q", .kind = CDR_RMI_ARRAY },
    { .name = "[II", .kind = CDR_RMI_ARRAY },
    { .name = "[B", .kind = CDR_RMI_ARRAY, .element = &iface },
    { .name = "[Lx.Iface;", .kind = CDR_RMI_ARRAY },
    { .name = "[Lx.Other;", .kind = CDR_RMI_ARRAY, .element = &iface },
    { .name = "[Lx.Iface", .kind = CDR_RMI_ARRAY, .element = &iface },
    { .name = "[Lx.Iface;;", .kind = CDR_RMI_ARRAY, .element = &iface },
    { .name = "[Lx.If;", .kind = CDR_RMI_ARRAY, .element = &iface },
    { .name = "[L[B;", .kind = CDR_RMI_ARRAY, .element = &bytes },
    { .name = "x.Iface", .kind = CDR_RMI_NOT_SERIALIZABLE, .element = &iface },
    { .name = "x.K", .kind = (cdr_rmi_kind)9 },
    { .name = NULL, .kind = CDR_RMI_NOT_SERIALIZABLE },
  };
  for (size_t i = 0; i < sizeof bad_arrays / sizeof bad_arrays[0]; i++) {
    int rc;
    (void)rmi_id(&bad_arrays[i], &rc);
    ck_assert_msg(rc == CDR_E_INVALID, "case %zu: rc %d", i, rc);
  }
  char dims[300];
  memset(dims, '[', 256);
  strcpy(dims + 256, "I");
  cdr_rmi_class deep = { .name = dims, .kind = CDR_RMI_ARRAY };
  ck_rmi_err(&deep, CDR_E_INVALID);
  ck_rmi_err(NULL, CDR_E_INVALID);

  /* Superclasses: Externalizable or array is not a serializable class's
   * superclass; chains are followed to CDR_RMI_MAX_DEPTH, cycles stop there. */
  cdr_rmi_class sub = { .name = "x.Sub", .kind = CDR_RMI_SERIALIZABLE, .superclass = &ext };
  ck_assert_int_eq(rmi_hash_rc(&sub), CDR_E_INVALID);
  sub.superclass = &bytes;
  ck_assert_int_eq(rmi_hash_rc(&sub), CDR_E_INVALID);
  cdr_rmi_class self = { .name = "x.Self", .kind = CDR_RMI_SERIALIZABLE };
  self.superclass = &self;
  ck_assert_int_eq(rmi_hash_rc(&self), CDR_E_LIMIT);
  ck_rmi_err(&self, CDR_E_LIMIT);
  static cdr_rmi_class chain[CDR_RMI_MAX_DEPTH + 2];
  for (size_t i = 0; i < CDR_RMI_MAX_DEPTH + 2; i++) {
    chain[i] = (cdr_rmi_class){ .name = "x.C", .kind = CDR_RMI_SERIALIZABLE };
    chain[i].superclass = i ? &chain[i - 1] : NULL;
  }
  ck_assert_int_eq(rmi_hash_rc(&chain[CDR_RMI_MAX_DEPTH]), CDR_OK);
  ck_assert_int_eq(rmi_hash_rc(&chain[CDR_RMI_MAX_DEPTH + 1]), CDR_E_LIMIT);
  /* A bad field in a superclass fails the subclass. */
  static const cdr_rmi_field badf[] = { { "x", "Lbad.dots;", 0 } };
  static const cdr_rmi_class badsup = { .name = "x.B", .kind = CDR_RMI_SERIALIZABLE, .fields = badf, .nfields = 1 };
  sub.superclass = &badsup;
  ck_assert_int_eq(rmi_hash_rc(&sub), CDR_E_INVALID);
}
END_TEST

/* ---------------------------------------------------------------- RMI: class names */

START_TEST(test_rmi_class_names)
{
  static const struct { const char *name, *want; } ok[] = {
    { "a.Outer$Inner", "RMI:a.Outer\\U0024Inner:0000000000000000" },
    { "p.Caf\xC3\xA9", "RMI:p.Caf\xC3\xA9:0000000000000000" },   /* é is an IDL letter: kept */
    { "p.X\xC3\x97", "RMI:p.X\\U00D7:0000000000000000" },        /* × is not */
    { "p.\xC3\xBF\xC3\xB7", "RMI:p.\xC3\xBF\\U00F7:0000000000000000" }, /* ÿ kept, ÷ not */
    { "p.\xC3\x80\xC3\xA0\xC3\x90\xC3\xB0", /* À à kept, Ð ð not */
      "RMI:p.\xC3\x80\xC3\xA0\\U00D0\\U00F0:0000000000000000" },
    { "p.\xC2\xA9", "RMI:p.\\U00A9:0000000000000000" },          /* © */
    { "p.\xCE\xA9", "RMI:p.\\U03A9:0000000000000000" },          /* Ω, outside Latin-1 */
    { "p.\xF0\x9F\x98\x80", "RMI:p.\\UD83D\\UDE00:0000000000000000" },
    { "p.a-b\\c", "RMI:p.a\\U002Db\\U005Cc:0000000000000000" },
    { "p.\xC0\x80", "RMI:p.\\U0000:0000000000000000" },
    { "p.\xEF\xBF\xBF", "RMI:p.\\UFFFF:0000000000000000" },
    { "_x9.Y_", "RMI:_x9.Y_:0000000000000000" },
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    cdr_rmi_class c = { .name = ok[i].name, .kind = CDR_RMI_NOT_SERIALIZABLE };
    ck_rmi_id(&c, ok[i].want);
  }
  /* Every Latin-1 character against the JDK's RepositoryId.IDL_IDENTIFIER_CHARS
   * (1: written as it is; 0: \\UXXXX). */
  static const char jdk_keeps[256] = {
    0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0,  0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, /* 00-1f */
    0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,1,0,  1,1,1,1, 1,1,1,1, 1,1,0,0, 0,0,0,0, /* 20-3f */
    0,1,1,1, 1,1,1,1, 1,1,1,1, 1,1,1,1,  1,1,1,1, 1,1,1,1, 1,1,1,0, 0,0,0,1, /* 40-5f */
    0,1,1,1, 1,1,1,1, 1,1,1,1, 1,1,1,1,  1,1,1,1, 1,1,1,1, 1,1,1,0, 0,0,0,0, /* 60-7f */
    0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0,  0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, /* 80-9f */
    0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0,  0,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0, /* a0-bf */
    1,1,1,1, 1,1,1,1, 1,1,1,1, 1,1,1,1,  0,1,1,1, 1,1,1,0, 1,1,1,1, 1,0,0,1, /* c0-df */
    1,1,1,1, 1,1,1,1, 1,1,1,1, 1,1,1,1,  0,1,1,1, 1,1,1,0, 1,1,1,1, 1,0,0,1, /* e0-ff */
  };
  for (unsigned ch = 0; ch < 256; ch++) {
    char name[16], want[64], enc[3];
    if (ch == '/' || ch == ';' || ch == '[')
      continue; /* not in a Java binary name */
    if (ch == 0)
      strcpy(enc, "\xC0\x80");
    else if (ch < 0x80)
      enc[0] = (char)ch, enc[1] = '\0';
    else
      enc[0] = (char)(0xC0 | (ch >> 6)), enc[1] = (char)(0x80 | (ch & 0x3F)), enc[2] = '\0';
    snprintf(name, sizeof name, "p.a%sb", enc);
    if (jdk_keeps[ch])
      snprintf(want, sizeof want, "RMI:p.a%sb:0000000000000000", enc);
    else
      snprintf(want, sizeof want, "RMI:p.a\\U%04Xb:0000000000000000", ch);
    cdr_rmi_class c = { .name = name, .kind = CDR_RMI_NOT_SERIALIZABLE };
    int rc;
    const char *got = rmi_id(&c, &rc);
    ck_assert_msg(rc == CDR_OK && strcmp(got, want) == 0, "U+%04X: rc %d, %s, want %s", ch, rc, got, want);
  }

  /* Escapes in an array of objects' element name too. */
  static const cdr_rmi_class inner = { .name = "a.O$I", .kind = CDR_RMI_NOT_SERIALIZABLE };
  static const cdr_rmi_class inners = { .name = "[La.O$I;", .kind = CDR_RMI_ARRAY, .element = &inner };
  ck_rmi_id(&inners, "RMI:[La.O\\U0024I;:0000000000000000");

  static const struct { const char *name; int rc; } bad[] = {
    { "", CDR_E_INVALID }, { ".a", CDR_E_INVALID }, { "a.", CDR_E_INVALID },
    { "a..b", CDR_E_INVALID }, { "a/b", CDR_E_INVALID }, { "a;b", CDR_E_INVALID },
    { "[I", CDR_E_INVALID }, { "a\xFF", CDR_E_CODESET }, { "a\xC3", CDR_E_CODESET },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cdr_rmi_class c = { .name = bad[i].name, .kind = CDR_RMI_NOT_SERIALIZABLE };
    int rc;
    (void)rmi_id(&c, &rc);
    ck_assert_msg(rc == bad[i].rc, "case %zu: rc %d want %d", i, rc, bad[i].rc);
  }
}
END_TEST

START_TEST(test_rmi_buffer)
{
  const char *want = "RMI:java.util.ArrayList:F655154F32815380:7881D21D99C7619D";
  size_t n = strlen(want), len = 0;
  char buf[80];
  ck_assert_int_eq(cdr_repoid_rmi(&arraylist, NULL, NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, n);
  for (size_t size = 0; size <= n; size++) {
    memset(buf, 'x', sizeof buf);
    len = 77;
    ck_assert_int_eq(cdr_repoid_rmi(&arraylist, NULL, buf, size, &len), CDR_E_LIMIT);
    ck_assert_uint_eq(len, 77);
    for (size_t i = 0; i < sizeof buf; i++)
      ck_assert_int_eq(buf[i], 'x');
  }
  ck_assert_int_eq(cdr_repoid_rmi(&arraylist, NULL, buf, n + 1, &len), CDR_OK);
  ck_assert_str_eq(buf, want);
  ck_assert_uint_eq(len, n);
  ck_assert_int_eq(buf[n + 1], 'x');
  ck_assert_int_eq(cdr_repoid_rmi(&arraylist, NULL, buf, sizeof buf, NULL), CDR_E_INVALID);
  ck_assert_int_eq(cdr_repoid_rmi(&arraylist, NULL, NULL, 5, &len), CDR_E_INVALID);
  /* Validation comes before the size check. */
  cdr_rmi_class bad = { .name = "a..b", .kind = CDR_RMI_NOT_SERIALIZABLE };
  ck_assert_int_eq(cdr_repoid_rmi(&bad, NULL, buf, 1, &len), CDR_E_INVALID);
}
END_TEST

/* Every allocation fails in turn: each failure is CDR_E_NOMEM, leaks nothing
 * and leaves the output alone; then the call succeeds. */
START_TEST(test_rmi_alloc_failures)
{
  const cdr_rmi_class *classes[] = { &integer, &ste_array, &arraylist };
  for (size_t k = 0; k < 3; k++) {
    cdr_mem_counter mc;
    uint64_t at = 1;
    for (;; at++) {
      char *id = (char *)"untouched";
      cdr_mem_counter_init(&mc, NULL);
      mc.fail_at = at;
      int rc = cdr_repoid_rmi_compute(classes[k], &id, &mc.alloc);
      if (rc == CDR_OK) {
        ck_assert_uint_lt(mc.attempts, at);
        mc.alloc.free(id, mc.alloc.ud);
        ck_assert_int_eq(mc.live, 0);
        break;
      }
      ck_assert_int_eq(rc, CDR_E_NOMEM);
      ck_assert_str_eq(id, "untouched");
      ck_assert_int_eq(mc.live, 0);
    }
    ck_assert_uint_gt(at, 2); /* it did allocate, more than once */
  }
  char *id;
  ck_assert_int_eq(cdr_repoid_rmi_compute(NULL, &id, NULL), CDR_E_INVALID);
  ck_assert_int_eq(cdr_repoid_rmi_compute(&integer, NULL, NULL), CDR_E_INVALID);
}
END_TEST

/* ---------------------------------------------------------------- cache */

static unsigned computes;

static int counting_compute(const void *arg, char **id_out, const cdr_allocator *a)
{
  __atomic_add_fetch(&computes, 1, __ATOMIC_RELAXED);
  return cdr_repoid_rmi_compute(arg, id_out, a);
}

static int failing_compute(const void *arg, char **id_out, const cdr_allocator *a)
{
  (void)arg, (void)id_out, (void)a;
  return CDR_E_TYPE;
}

static int empty_compute(const void *arg, char **id_out, const cdr_allocator *a)
{
  (void)arg, (void)id_out, (void)a;
  return CDR_OK;
}

START_TEST(test_cache_single)
{
  static cdr_repoid_cache c = CDR_REPOID_CACHE_INIT;
  cdr_mem_counter mc;
  int st = 99;
  cdr_mem_counter_init(&mc, NULL);
  computes = 0;

  ck_assert_ptr_null(cdr_repoid_cache_get(&c, &mc.alloc, failing_compute, NULL, &st));
  ck_assert_int_eq(st, CDR_E_TYPE);
  ck_assert_ptr_null(c.id);
  ck_assert_ptr_null(cdr_repoid_cache_get(&c, &mc.alloc, empty_compute, NULL, &st));
  ck_assert_int_eq(st, CDR_E_INVALID);
  ck_assert_ptr_null(cdr_repoid_cache_get(&c, &mc.alloc, NULL, NULL, &st));
  ck_assert_int_eq(st, CDR_E_INVALID);
  ck_assert_ptr_null(cdr_repoid_cache_get(NULL, &mc.alloc, counting_compute, &date, &st));
  ck_assert_int_eq(st, CDR_E_INVALID);

  mc.fail_at = 1;
  ck_assert_ptr_null(cdr_repoid_cache_get(&c, &mc.alloc, counting_compute, &date, &st));
  ck_assert_int_eq(st, CDR_E_NOMEM);
  ck_assert_ptr_null(c.id);
  ck_assert_int_eq(mc.live, 0);
  mc.fail_at = 0;

  computes = 0;
  const char *id = cdr_repoid_cache_get(&c, &mc.alloc, counting_compute, &date, &st);
  ck_assert_int_eq(st, CDR_OK);
  ck_assert_str_eq(id, "RMI:java.util.Date:AC117E28FE36587A:686A81014B597419");
  st = 99;
  ck_assert_ptr_eq(cdr_repoid_cache_get(&c, &mc.alloc, counting_compute, &date, &st), id);
  ck_assert_int_eq(st, CDR_OK);
  ck_assert_ptr_eq(cdr_repoid_cache_get(&c, &mc.alloc, counting_compute, &date, NULL), id);
  ck_assert_uint_eq(computes, 1);
  ck_assert_int_eq(mc.live, 1);
  cdr_repoid_cache_clear(&c, &mc.alloc);
  ck_assert_ptr_null(c.id);
  ck_assert_int_eq(mc.live, 0);
  cdr_repoid_cache_clear(&c, &mc.alloc); /* empty: nothing happens */
  cdr_repoid_cache_clear(NULL, &mc.alloc);

  cdr_repoid_idl_name nm = { NULL, "Module::Name", "1.2" };
  ck_assert_str_eq(cdr_repoid_cache_get(&c, NULL, cdr_repoid_idl_compute, &nm, &st), "IDL:Module/Name:1.2");
  cdr_repoid_cache_clear(&c, NULL);
}
END_TEST

#define NTHREADS 8
#define ROUNDS 100

struct race {
  cdr_repoid_cache cache;
  cdr_mem_counter mc;
  pthread_barrier_t start, done;
  int forced;                 /* every thread computes before any publishes */
  unsigned entered;           /* computes begun this round */
  const char *got[NTHREADS];
  size_t len[NTHREADS];       /* read in the racer: the bytes must be published too */
  int status[NTHREADS];
};
static struct race race;

/* Holds each compute until all NTHREADS have begun one, so that every thread
 * computes and exactly NTHREADS - 1 of them lose the compare-and-set. */
static int gated_compute(const void *arg, char **id_out, const cdr_allocator *a)
{
  int rc = cdr_repoid_rmi_compute(arg, id_out, a);
  __atomic_add_fetch(&computes, 1, __ATOMIC_RELAXED);
  if (race.forced) {
    struct timespec t0, t;
    __atomic_add_fetch(&race.entered, 1, __ATOMIC_ACQ_REL);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__atomic_load_n(&race.entered, __ATOMIC_ACQUIRE) < NTHREADS) {
      sched_yield();
      clock_gettime(CLOCK_MONOTONIC, &t);
      if (t.tv_sec - t0.tv_sec > 20) /* a bug elsewhere: fail, don't hang */
        break;
    }
  }
  return rc;
}

static void *racer(void *p)
{
  size_t me = (size_t)(uintptr_t)p;
  for (int r = 0; r < 2 * ROUNDS; r++) {
    pthread_barrier_wait(&race.start);
    race.got[me] = cdr_repoid_cache_get(&race.cache, &race.mc.alloc, gated_compute, &arraylist,
                                        &race.status[me]);
    race.len[me] = race.got[me] ? strlen(race.got[me]) : 0;
    pthread_barrier_wait(&race.done);
  }
  return NULL;
}

START_TEST(test_cache_threads)
{
  pthread_t t[NTHREADS];
  unsigned total_natural = 0;
  memset(&race, 0, sizeof race);
  cdr_mem_counter_init(&race.mc, NULL);
  ck_assert_int_eq(pthread_barrier_init(&race.start, NULL, NTHREADS + 1), 0);
  ck_assert_int_eq(pthread_barrier_init(&race.done, NULL, NTHREADS + 1), 0);
  for (size_t i = 0; i < NTHREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, racer, (void *)(uintptr_t)i), 0);
  /* ROUNDS forced (all race to publish), then ROUNDS as they come. */
  for (int r = 0; r < 2 * ROUNDS; r++) {
    race.forced = r < ROUNDS;
    race.entered = 0;
    computes = 0;
    pthread_barrier_wait(&race.start);
    pthread_barrier_wait(&race.done);
    for (size_t i = 0; i < NTHREADS; i++) {
      ck_assert_int_eq(race.status[i], CDR_OK);
      ck_assert_ptr_eq(race.got[i], race.got[0]);
      ck_assert_uint_eq(race.len[i], 57);
    }
    ck_assert_ptr_eq(race.cache.id, race.got[0]);
    ck_assert_str_eq(race.got[0], "RMI:java.util.ArrayList:F655154F32815380:7881D21D99C7619D");
    if (race.forced)
      ck_assert_uint_eq(computes, NTHREADS);
    else
      total_natural += computes;
    ck_assert_uint_ge(computes, 1);
    /* Only the winner's copy is left: the losers freed theirs. */
    ck_assert_int_eq(race.mc.live, 1);
    cdr_repoid_cache_clear(&race.cache, &race.mc.alloc);
    ck_assert_int_eq(race.mc.live, 0);
    ck_assert_uint_eq(race.mc.mallocs, race.mc.frees);
  }
  for (size_t i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  pthread_barrier_destroy(&race.start);
  pthread_barrier_destroy(&race.done);
  ck_assert_uint_ge(total_natural, ROUNDS);
}
END_TEST

static Suite *repoid_suite(void)
{
  Suite *s = suite_create("repoid");
  TCase *tc = tcase_create("idl");
  tcase_add_test(tc, test_idl_forms);
  tcase_add_test(tc, test_idl_errors);
  tcase_add_test(tc, test_idl_buffer);
  tcase_add_test(tc, test_idl_compute);
  suite_add_tcase(s, tc);
  tc = tcase_create("rmi");
  tcase_add_test(tc, test_rmi_known_ids);
  tcase_add_test(tc, test_rmi_images);
  tcase_add_test(tc, test_rmi_modified_utf8);
  tcase_add_test(tc, test_rmi_field_errors);
  tcase_add_test(tc, test_rmi_kinds);
  tcase_add_test(tc, test_rmi_class_names);
  tcase_add_test(tc, test_rmi_buffer);
  tcase_add_test(tc, test_rmi_alloc_failures);
  suite_add_tcase(s, tc);
  tc = tcase_create("cache");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_cache_single);
  tcase_add_test(tc, test_cache_threads);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = repoid_suite };
