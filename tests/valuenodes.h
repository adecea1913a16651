/* valuenodes.h - the valuetypes of Bench::Node (tests/interop/Bench.idl)
 * that the value-graph tests share (tests/check_value.c, the fuzz target
 * tests/fuzz/fuzz_value_reader.c), as libcdr's cdr_value_type
 * descriptors:
 *   valuetype Node { public long id; public Node next; };
 *   valuetype SubNode : Node { public long extra; };
 *   custom valuetype CustNode : Node { long extra; }: marshals id, extra,
 *     then next last (so its end tag compacts with the nested value's);
 *   valuetype StringValue string; (CORBA's box, StrBox here).
 * Static: each including file has its own. */
#ifndef TESTS_VALUENODES_H
#define TESTS_VALUENODES_H

#include <cdr/cdr.h>

#define ID_NODE "IDL:Bench/Node:1.0"
#define ID_SUB "IDL:Bench/SubNode:1.0"
#define ID_CUSTNODE "IDL:Bench/CustNode:1.0"
#define ID_BOX "IDL:omg.org/CORBA/StringValue:1.0"

typedef struct Node {
  cdr_value hdr;
  int32_t id;
  struct Node *next;
} Node;
typedef struct SubNode {
  Node base;
  int32_t extra;
} SubNode;
typedef struct CustNode {
  Node base;
  int32_t extra;
} CustNode;
typedef struct StrBox {
  cdr_value hdr;
  char *value;
} StrBox;

static cdr_value_type Node_vt;

/* A member or element of type Node (a Node *). */
static const cdr_type NodeRef = {
  .kind = CDR_K_VALUE, .size = sizeof(void *), .align = _Alignof(void *), .name = "Node",
  .u.val.vt = &Node_vt,
};

static const cdr_member Node_members[] = {
  CDR_MEMBER(Node, id, &cdr_type_long),
  CDR_MEMBER(Node, next, &NodeRef),
};
static cdr_value_type Node_vt = {
  .name = "Node", .repo_id = ID_NODE, .members = Node_members, .nmembers = 2,
  .size = sizeof(Node), .align = _Alignof(Node),
};

static const cdr_member SubNode_members[] = { CDR_MEMBER(SubNode, extra, &cdr_type_long) };
static cdr_value_type SubNode_vt = {
  .name = "SubNode", .repo_id = ID_SUB, .base = &Node_vt, .members = SubNode_members,
  .nmembers = 1, .size = sizeof(SubNode), .align = _Alignof(SubNode),
};

static int custnode_marshal(cdr_out *o, const void *value, const cdr_value_type *t)
{
  (void)t;
  const CustNode *c = value;
  cdr_put_long(o, c->base.id);
  cdr_put_long(o, c->extra);
  return cdr_put_value(o, &Node_vt, c->base.next);
}

static int custnode_unmarshal(cdr_in *i, void *value, const cdr_value_type *t)
{
  (void)t;
  CustNode *c = value;
  c->base.id = cdr_get_long(i);
  c->extra = cdr_get_long(i);
  void *p = NULL;
  int rc = cdr_get_value(i, &Node_vt, &p);
  if (rc == CDR_OK)
    c->base.next = p;
  return rc;
}

static cdr_value_type CustNode_vt = {
  .name = "CustNode", .repo_id = ID_CUSTNODE, .base = &Node_vt, .flags = CDR_VT_CUSTOM,
  .size = sizeof(CustNode), .align = _Alignof(CustNode), .marshal = custnode_marshal,
  .unmarshal = custnode_unmarshal,
};

static const cdr_member StrBox_members[] = { CDR_MEMBER(StrBox, value, &cdr_type_string) };
static cdr_value_type StrBox_vt = {
  .name = "StringValue", .repo_id = ID_BOX, .flags = CDR_VT_BOX, .members = StrBox_members,
  .nmembers = 1, .size = sizeof(StrBox), .align = _Alignof(StrBox),
};

#endif
