/* tests/fuzz/fuzz_value_reader.c - fuzz target: the value-graph reader
 * (cdr/value.h): value tags, repository IDs and ID lists, codebase URLs,
 * indirections, chunks and end tags, truncation, value boxes, custom and
 * abstract values, values inside structs and sequences.
 *
 * Input: a selector octet (the declared type), a configuration octet, then
 * CDR octets.  Declared types: Node (Bench::Node { long id; Node next; },
 * with SubNode, truncatable TruncNode and custom CustNode derived from it;
 * Node, SubNode, CustNode and the string box from tests/valuenodes.h),
 * the struct Pair { Node a; Node b; }, a string box, Bag (a sequence of
 * Nodes, an array of two, a string box, a wstring), the custom Cust (long,
 * Node), the abstract AbsA (AbsC : AbsA { long c; Node n; }), and Holder (a
 * value holding a struct holding a value).  Configuration: bit 0 byte
 * order, bits 1-2 GIOP minor, bit 3 reading with a registry that knows
 * only Node (so truncatable values are truncated and others refused), bit 4
 * small limits (16 values, depth 8), bits 5-6 the writer's options
 * (type information always, every value chunked).
 *
 * Checks: a graph that decodes is written back with the writer's options
 * and read again (with every type known); writing that second graph gives
 * the same octets (decode-encode-decode: sharing, cycles, types and
 * contents preserved).
 */
#include <cdr/cdr.h>
#include "fuzz.h"
#include "../valuenodes.h"

typedef struct Pair {
  Node *a, *b;
} Pair;
typedef struct Bag {
  cdr_value hdr;
  cdr_seq items;
  Node *arr[2];
  StrBox *label;
  cdr_wchar *w;
} Bag;
typedef struct Cust {
  cdr_value hdr;
  int32_t n;
  Node *node;
} Cust;
typedef struct AbsC {
  cdr_value hdr;
  int32_t c;
  Node *n;
} AbsC;
typedef struct Holder Holder;
typedef struct HBox {
  Holder *h;
  int32_t tag;
} HBox;
struct Holder {
  cdr_value hdr;
  int32_t id;
  HBox inner;
};

static cdr_value_type Holder_vt;

#define VALUE_REF(desc, nm) \
  { .kind = CDR_K_VALUE, .size = sizeof(void *), .align = _Alignof(void *), .name = nm, .u.val.vt = desc }
static const cdr_type StrBoxRef = VALUE_REF(&StrBox_vt, "StringValue");
static const cdr_type HolderRef = VALUE_REF(&Holder_vt, "Holder");

static cdr_value_type TruncNode_vt = {
  .name = "TruncNode", .repo_id = "IDL:Bench/TruncNode:1.0", .base = &Node_vt,
  .flags = CDR_VT_TRUNCATABLE, .members = SubNode_members, .nmembers = 1,
  .size = sizeof(SubNode), .align = _Alignof(SubNode), .codebase = "http://cb/",
};

static const cdr_type SeqNode = CDR_SEQUENCE_TYPE(&NodeRef, 0);
static const cdr_type ArrNode2 = { .kind = CDR_K_ARRAY, .size = 2 * sizeof(Node *),
                                   .align = _Alignof(Node *), .u.arr = { &NodeRef, 2 } };
static const cdr_member Bag_m[] = {
  CDR_MEMBER(Bag, items, &SeqNode), CDR_MEMBER(Bag, arr, &ArrNode2),
  CDR_MEMBER(Bag, label, &StrBoxRef), CDR_MEMBER(Bag, w, &cdr_type_wstring),
};
static cdr_value_type Bag_vt = {
  .name = "Bag", .repo_id = "IDL:Fuzz/Bag:1.0", .members = Bag_m, .nmembers = 4,
  .size = sizeof(Bag), .align = _Alignof(Bag),
};

static int cust_marshal(cdr_out *o, const void *value, const cdr_value_type *t)
{
  (void)t;
  const Cust *c = value;
  cdr_put_long(o, c->n);
  return cdr_put_value(o, &Node_vt, c->node);
}

static int cust_unmarshal(cdr_in *i, void *value, const cdr_value_type *t)
{
  (void)t;
  Cust *c = value;
  c->n = cdr_get_long(i);
  void *p = NULL;
  int rc = cdr_get_value(i, &Node_vt, &p);
  if (rc == CDR_OK)
    c->node = p;
  return rc;
}

static cdr_value_type Cust_vt = {
  .name = "Cust", .repo_id = "IDL:Fuzz/Cust:1.0", .flags = CDR_VT_CUSTOM, .size = sizeof(Cust),
  .align = _Alignof(Cust), .marshal = cust_marshal, .unmarshal = cust_unmarshal,
};

static cdr_value_type AbsA_vt = {
  .name = "AbsA", .repo_id = "IDL:Fuzz/AbsA:1.0", .flags = CDR_VT_ABSTRACT,
  .size = sizeof(cdr_value), .align = _Alignof(cdr_value),
};
static const cdr_member AbsC_m[] = {
  CDR_MEMBER(AbsC, c, &cdr_type_long),
  CDR_MEMBER(AbsC, n, &NodeRef),
};
static cdr_value_type AbsC_vt = {
  .name = "AbsC", .repo_id = "IDL:Fuzz/AbsC:1.0", .base = &AbsA_vt, .members = AbsC_m,
  .nmembers = 2, .size = sizeof(AbsC), .align = _Alignof(AbsC),
};

static const cdr_member HBox_m[] = {
  CDR_MEMBER(HBox, h, &HolderRef),
  CDR_MEMBER(HBox, tag, &cdr_type_long),
};
static const cdr_type HBox_t = CDR_STRUCT_TYPE(HBox, "HBox", "IDL:Fuzz/HBox:1.0", HBox_m);
static const cdr_member Holder_m[] = {
  CDR_MEMBER(Holder, id, &cdr_type_long),
  CDR_MEMBER(Holder, inner, &HBox_t),
};
static cdr_value_type Holder_vt = {
  .name = "Holder", .repo_id = "IDL:Fuzz/Holder:1.0", .members = Holder_m, .nmembers = 2,
  .size = sizeof(Holder), .align = _Alignof(Holder),
};

static const cdr_member Pair_m[] = {
  CDR_MEMBER(Pair, a, &NodeRef),
  CDR_MEMBER(Pair, b, &NodeRef),
};
static const cdr_type Pair_t = CDR_STRUCT_TYPE(Pair, "Pair", "IDL:Bench/Pair:1.0", Pair_m);

/* The declared types the selector picks (NULL: the struct Pair). */
static cdr_value_type *const declared[] = {
  &Node_vt, NULL, &StrBox_vt, &Bag_vt, &Cust_vt, &AbsA_vt, &Holder_vt, &SubNode_vt,
};

static cdr_registry *reg_full, *reg_node;

static void setup(void)
{
  cdr_value_type *all[] = { &Node_vt, &SubNode_vt, &TruncNode_vt, &CustNode_vt, &StrBox_vt,
                            &Bag_vt, &Cust_vt, &AbsA_vt, &AbsC_vt, &Holder_vt };
  reg_full = cdr_registry_new();
  reg_node = cdr_registry_new();
  FUZZ_CHECK(reg_full && reg_node);
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    FUZZ_CHECK(cdr_registry_add(reg_full, all[k]) == CDR_OK);
  FUZZ_CHECK(cdr_registry_add(reg_node, &Node_vt) == CDR_OK);
  FUZZ_CHECK(cdr_type_validate(&Pair_t) == CDR_OK);
}

/* Read the declared value (or Pair) from I into *OUT (a Pair's storage
 * for the struct). */
static int read_graph(cdr_in *i, const cdr_value_type *t, void **v, Pair *p)
{
  return t ? cdr_get_value(i, t, v) : cdr_read(i, &Pair_t, p);
}

static int write_graph(cdr_out *o, const cdr_value_type *t, const void *v, const Pair *p)
{
  return t ? cdr_put_value(o, t, v) : cdr_write(o, &Pair_t, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (!reg_full)
    setup();
  fuzz_in f = { data, size };
  uint8_t sel = fuzz_byte(&f), cfg = fuzz_byte(&f);
  const cdr_value_type *t = declared[sel % (sizeof declared / sizeof declared[0])];
  cdr_opts opts;
  cdr_opts_default(&opts);
  opts.byte_order = cfg & 1;
  opts.giop_minor = ((cfg >> 1) & 3) == 3 ? 2 : (cfg >> 1) & 3;
  cdr_value_opts rvo, wvo, fvo;
  cdr_value_opts_default(&rvo);
  rvo.registry = (cfg & 8) ? reg_node : reg_full;
  if (cfg & 16) {
    rvo.max_values = 16;
    rvo.max_depth = 8;
  }
  cdr_value_opts_default(&fvo);
  fvo.registry = reg_full;
  cdr_value_opts_default(&wvo);
  wvo.typeinfo = (cfg & 32) ? CDR_TYPEINFO_ALWAYS : CDR_TYPEINFO_MINIMAL;
  wvo.chunk_all = (cfg >> 6) & 1;

  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in i;
  cdr_in_init(&i, f.p, f.n, opts.byte_order, &opts);
  cdr_in_set_arena(&i, &a);
  void *v1 = NULL, *v2 = NULL;
  Pair p1 = { 0 }, p2 = { 0 };
  if (cdr_in_set_value_opts(&i, &rvo) == CDR_OK && read_graph(&i, t, &v1, &p1) == CDR_OK) {
    cdr_out o1, o2;
    cdr_out_init(&o1, &opts);
    FUZZ_CHECK(cdr_out_set_value_opts(&o1, &wvo) == CDR_OK);
    FUZZ_CHECK(write_graph(&o1, t, v1, &p1) == CDR_OK);
    cdr_in j;
    cdr_in_init(&j, cdr_out_data(&o1), cdr_out_size(&o1), opts.byte_order, &opts);
    cdr_in_set_arena(&j, &a);
    FUZZ_CHECK(cdr_in_set_value_opts(&j, &fvo) == CDR_OK);
    FUZZ_CHECK(read_graph(&j, t, &v2, &p2) == CDR_OK);
    FUZZ_CHECK(cdr_in_remaining(&j) == 0);
    cdr_out_init(&o2, &opts);
    FUZZ_CHECK(cdr_out_set_value_opts(&o2, &wvo) == CDR_OK);
    FUZZ_CHECK(write_graph(&o2, t, v2, &p2) == CDR_OK);
    FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
    cdr_in_close(&j);
    cdr_out_close(&o1);
    cdr_out_close(&o2);
  }
  cdr_in_close(&i);
  cdr_arena_free(&a);
  return 0;
}
