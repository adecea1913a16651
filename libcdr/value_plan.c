/* value_plan.c - walk plans: a value type's members flattened into ops
 * that the walk loops of value_out_fast.c and value_in_fast.c dispatch on. */
#include "value_impl.h"

/* Member kinds the walk loops copy themselves, by size. */
#define FAST_K4 ((1u << CDR_K_LONG) | (1u << CDR_K_ULONG) | (1u << CDR_K_FLOAT))
#define FAST_K8 ((1u << CDR_K_LONGLONG) | (1u << CDR_K_ULONGLONG) | (1u << CDR_K_DOUBLE))
#define FAST_K2 ((1u << CDR_K_SHORT) | (1u << CDR_K_USHORT))
#define FAST_K1 ((1u << CDR_K_OCTET) | (1u << CDR_K_CHAR))
_Static_assert(CDR_K_CUSTOM < 32, "member kinds fit a 32-bit mask");

/* Build VT's plan into P (room for plan_nops(VT) + 1 ops). */
static void plan_build(vplan *p, const cdr_value_type *vt)
{
  unsigned nlv = level_count(vt);
  unsigned k = 0, total = 0;
  for (unsigned lvl = 0; lvl < nlv; lvl++) {
    const cdr_value_type *x = level_type(vt, nlv, lvl);
    p->lvl_start[lvl] = (uint8_t)(k < PLAN_MAX_OPS ? k : PLAN_MAX_OPS);
    total += x->nmembers;
    for (uint32_t mi = 0; mi < x->nmembers && k < PLAN_MAX_OPS; mi++, k++) {
      const cdr_member *m = &x->members[mi];
      vop *op = &p->ops[k];
      op->lvl = (uint8_t)lvl;
      op->member = (uint16_t)mi;
      op->offset = (uint32_t)m->offset;
      op->dt = NULL;
      op->code = P_STOP;
      if (k == PLAN_MAX_OPS - 1 || m->offset > UINT32_MAX)
        continue; /* the general walk from here on */
      uint32_t kind = m->type->kind;
      uint32_t bit = kind < 32 ? 1u << kind : 0;
      if (bit & FAST_K4)
        op->code = P_K4;
      else if (bit & FAST_K8)
        op->code = P_K8;
      else if (bit & FAST_K2)
        op->code = P_K2;
      else if (bit & FAST_K1)
        op->code = P_K1;
      else if (kind == CDR_K_VALUE) {
        const cdr_value_type *dt = m->type->u.val.vt;
        if (dt && !(dt->flags & VT_SLOW) && !dt->codebase && !dt->factory && dt->size
            && (dt->align & (dt->align - 1)) == 0 && dt->align <= 16) {
          op->code = P_VAL;
          op->dt = dt;
          op->u.size = dt->size;
          op->align = (uint8_t)(dt->align ? dt->align : 8);
        }
      }
    }
  }
  p->lvl_start[nlv] = (uint8_t)(k < PLAN_MAX_OPS ? k : PLAN_MAX_OPS);
  p->nops = (uint16_t)k;
  p->ops[k].code = P_STOP; /* the loops stop at the end without counting */
  p->ops[k].lvl = 0;
  p->ops[k].member = 0;
  p->ops[k].offset = 0;
  p->ops[k].dt = NULL;
  p->tail_same = k == total && k > 0 && p->ops[k - 1].code == P_VAL && p->ops[k - 1].dt == vt;
  /* The padding of each member from a 4-aligned start (position mod 4
   * tracked; a value member ends 4-aligned: null, tag or indirection, or
   * the loop leaves), and the most octets from there to the end. */
  uint32_t mod = 0, room_out = 0, room_in = 0;
  for (unsigned j = 0; j < k; j++) {
    vop *op = &p->ops[j];
    uint32_t pad = 0;
    switch (op->code) {
    case P_K4:
      pad = (4 - mod) & 3;
      room_out += pad + 4;
      room_in += pad + 4;
      mod = 0;
      break;
    case P_K8:
      room_out += 7 + 8; /* the padding depends on the position mod 8 */
      room_in += 7 + 8;
      mod = 0;
      break;
    case P_K2:
      pad = mod & 1;
      room_out += pad + 2;
      room_in += pad + 2;
      mod = (mod + pad + 2) & 3;
      break;
    case P_K1:
      room_out += 1;
      room_in += 1;
      mod = (mod + 1) & 3;
      break;
    case P_VAL:
      pad = (4 - mod) & 3;
      room_out += pad + 8;
      room_in += pad + 4;
      mod = 0;
      break;
    default:
      break; /* P_STOP: the loops leave there */
    }
    op->pad = (uint8_t)pad;
  }
  p->room_out = room_out;
  p->room_in = room_in;
  /* A list plan: the wire layout of the primitives for both starts. */
  p->list = p->tail_same && k < PLAN_MAX_OPS;
  for (unsigned j = 0; p->list && j + 1 < k; j++)
    if (p->ops[j].code < P_K4 || p->ops[j].code > P_K1)
      p->list = 0;
  for (unsigned ph = 0; p->list && ph < 2; ph++) {
    uint32_t at = ph * 4, zero = 0; /* position mod 8 of the start, then on */
    for (unsigned j = 0; j + 1 < k; j++) {
      vop *op = &p->ops[j];
      uint32_t sz = op->code == P_K4 ? 4 : op->code == P_K8 ? 8 : op->code == P_K2 ? 2 : 1;
      uint32_t pad = (sz - (at & (sz - 1))) & (sz - 1);
      zero |= pad;
      op->u.wof[ph] = (uint16_t)(at + pad - ph * 4);
      at += pad + sz;
    }
    uint32_t tpad = (4 - (at & 3)) & 3;
    p->pre_len[ph] = (uint16_t)(at - ph * 4);
    p->pre_zero[ph] = zero != 0;
    p->tail_pad[ph] = (uint8_t)tpad;
  }
  p->k4len = 0;
  if (p->list && k > 1) {
    uint32_t j = 0;
    while (j + 1 < k && p->ops[j].code == P_K4 && p->ops[j].offset == p->ops[0].offset + 4 * j)
      j++;
    if (j + 1 == k)
      p->k4len = (uint16_t)(4 * j); /* no padding: 4-aligned from a 4-aligned start */
  }
  p->nlv = (uint8_t)nlv;
}

/* Ops of VT's plan: its levels' members, at most PLAN_MAX_OPS. */
static unsigned plan_nops(const cdr_value_type *vt)
{
  unsigned nlv = level_count(vt), total = 0;
  for (unsigned lvl = 0; lvl < nlv && total < PLAN_MAX_OPS; lvl++)
    total += level_type(vt, nlv, lvl)->nmembers;
  return total < PLAN_MAX_OPS ? total : PLAN_MAX_OPS;
}

const vplan *cdr__value_plan_make(const cdr_value_type *vt)
{
  if (vt->flags & CDR_VT_NOCACHE)
    return NULL; /* the general walk, every time */
  const cdr_allocator *a = cdr_mem_global();
  unsigned nops = plan_nops(vt);
  vplan *p = cdr__malloc(a, sizeof *p + (nops + 1) * sizeof p->ops[0]);
  if (!p)
    return NULL;
  plan_build(p, vt);
  p->alloc = a;
  /* Published as the repository ID is (cdr_repoid_cache_get): the first
   * plan offered wins, the others are freed; release on success, acquire
   * on failure, so the winner's ops are seen complete. */
  cdr_value_type *m = (cdr_value_type *)vt; /* only the atomic cache is written */
  const vplan *expected = NULL;
  if (!__atomic_compare_exchange_n(&m->plan, &expected, p, 0, __ATOMIC_RELEASE,
                                   __ATOMIC_ACQUIRE)) {
    cdr__free(a, p);
    return expected;
  }
  return p;
}

void cdr__value_plan_free(const vplan *p)
{
  cdr__free(p->alloc, (void *)p);
}

const cdr_value_plan *cdr_value_type_plan(const cdr_value_type *t, int *status)
{
  const vplan *p = plan_get(t);
  if (status)
    *status = p || (t->flags & CDR_VT_NOCACHE) ? CDR_OK : CDR_E_NOMEM;
  return p;
}
