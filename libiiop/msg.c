#include "config.h"
/* msg.c - GIOP 1.0-1.2 message headers: encoding into a cdr_out whose
 * position 0 is the GIOP header's first octet, parsing a complete message
 * with pointers into its buffer.  Only libcdr's public API is used (the
 * short path of the common GIOP 1.2 Request reads cdr_in's public fields). */
#include <stdbool.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include "internal.h"

/* ---------------------------------------------------------------- service contexts */

const giop_service_context *giop_sc_find(const giop_sc_list *l, uint32_t id)
{
  if (!l)
    return NULL;
  for (uint32_t k = 0; k < l->n; k++)
    if (l->v[k].id == id)
      return &l->v[k];
  return NULL;
}

/* CONV_FRAME::CodeSetContext in an encapsulation: the byte-order octet at 0,
 * padding, the two ulongs at 4 and 8 (aligned relative to the octet at 0).
 * Octets after them are ignored: encapsulations may grow. */
int giop_codeset_context_decode(const giop_service_context *c, giop_codeset_context *out)
{
  if (!c || !out || (!c->data && c->len))
    return CDR_E_INVALID;
  if (c->len < 1)
    return CDR_E_SHORT;
  if (c->data[0] > 1)
    return CDR_E_VALUE;
  if (c->len < 12)
    return CDR_E_SHORT;
  out->char_data = iiop__load32(c->data + 4, c->data[0]);
  out->wchar_data = iiop__load32(c->data + 8, c->data[0]);
  return CDR_OK;
}

void giop_codeset_context_encode(const giop_codeset_context *cs, uint8_t out[12])
{
  out[0] = CDR_HOST_ORDER;
  out[1] = out[2] = out[3] = 0;
  memcpy(out + 4, &cs->char_data, 4);
  memcpy(out + 8, &cs->wchar_data, 4);
}

/* ---------------------------------------------------------------- system exceptions */

#define SYSEX_PREFIX "IDL:omg.org/CORBA/"
#define SYSEX_SUFFIX ":1.0"
#define SYSEX(n) { #n, SYSEX_PREFIX #n SYSEX_SUFFIX, sizeof #n - 1 }

static const struct sysex {
  const char *name;
  const char *id;
  size_t name_len;
} sysex_table[] = {
  SYSEX(UNKNOWN), SYSEX(BAD_PARAM), SYSEX(NO_MEMORY), SYSEX(IMP_LIMIT),
  SYSEX(COMM_FAILURE), SYSEX(INV_OBJREF), SYSEX(NO_PERMISSION), SYSEX(INTERNAL),
  SYSEX(MARSHAL), SYSEX(INITIALIZE), SYSEX(NO_IMPLEMENT), SYSEX(BAD_TYPECODE),
  SYSEX(BAD_OPERATION), SYSEX(NO_RESOURCES), SYSEX(NO_RESPONSE), SYSEX(PERSIST_STORE),
  SYSEX(BAD_INV_ORDER), SYSEX(TRANSIENT), SYSEX(FREE_MEM), SYSEX(INV_IDENT),
  SYSEX(INV_FLAG), SYSEX(INTF_REPOS), SYSEX(BAD_CONTEXT), SYSEX(OBJ_ADAPTER),
  SYSEX(DATA_CONVERSION), SYSEX(OBJECT_NOT_EXIST), SYSEX(TRANSACTION_REQUIRED),
  SYSEX(TRANSACTION_ROLLEDBACK), SYSEX(INVALID_TRANSACTION), SYSEX(INV_POLICY),
  SYSEX(CODESET_INCOMPATIBLE), SYSEX(REBIND), SYSEX(TIMEOUT),
  SYSEX(TRANSACTION_UNAVAILABLE), SYSEX(TRANSACTION_MODE), SYSEX(BAD_QOS),
  SYSEX(INVALID_ACTIVITY), SYSEX(ACTIVITY_COMPLETED), SYSEX(ACTIVITY_REQUIRED)
};
#define SYSEX_COUNT (sizeof sysex_table / sizeof sysex_table[0])

const char *giop_system_exception_id(const char *name)
{
  if (!name)
    return NULL;
  for (size_t k = 0; k < SYSEX_COUNT; k++)
    if (strcmp(sysex_table[k].name, name) == 0)
      return sysex_table[k].id;
  return NULL;
}

const char *giop_system_exception_name(const char *repo_id, size_t len)
{
  const size_t pl = sizeof SYSEX_PREFIX - 1, sl = sizeof SYSEX_SUFFIX - 1;
  if (!repo_id || len <= pl + sl || memcmp(repo_id, SYSEX_PREFIX, pl) != 0
      || memcmp(repo_id + len - sl, SYSEX_SUFFIX, sl) != 0)
    return NULL;
  const char *n = repo_id + pl;
  size_t nl = len - pl - sl;
  for (size_t k = 0; k < SYSEX_COUNT; k++)
    if (sysex_table[k].name_len == nl && memcmp(sysex_table[k].name, n, nl) == 0)
      return sysex_table[k].name;
  return NULL;
}

void giop_put_system_exception(cdr_out *o, const giop_system_exception *e)
{
  if (!e || !e->repo_id || e->completed > GIOP_COMPLETED_MAYBE) {
    cdr_out_fail(o, CDR_E_INVALID, !e || !e->repo_id ? "system exception without a repository ID"
                                                     : "completion status not YES, NO or MAYBE");
    return;
  }
  cdr_put_string_utf8(o, e->repo_id);
  cdr_put_ulong(o, e->minor);
  cdr_put_ulong(o, e->completed);
}

int giop_get_system_exception(cdr_in *i, giop_system_exception *e)
{
  const char *id = NULL;
  uint32_t idlen;
  if (cdr_get_string_utf8(i, &id, &idlen) != CDR_OK)
    return cdr_in_status(i);
  uint32_t minor = cdr_get_ulong(i);
  uint32_t completed = cdr_get_ulong(i);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  if (completed > GIOP_COMPLETED_MAYBE) {
    cdr_in_seek(i, cdr_in_pos(i) - 4);
    return cdr_in_fail(i, CDR_E_VALUE, "completion status not YES, NO or MAYBE");
  }
  e->repo_id = id;
  e->minor = minor;
  e->completed = completed;
  return CDR_OK;
}

/* ---------------------------------------------------------------- encoding */

/* Validate the stream for a new message and write the 12-octet header
 * (message_size 0 until giop_end()).  Returns the GIOP minor version, or -1
 * when the stream has failed. */
static int put_header(cdr_out *o, uint8_t type)
{
  if (cdr_out_status(o) != CDR_OK)
    return -1;
  if (cdr_out_size(o) != 0) {
    cdr_out_fail(o, CDR_E_STATE, "GIOP message begun on a stream that is not empty");
    return -1;
  }
  const cdr_opts *op = cdr_out_opts(o);
  giop_header h = { op->giop_major, op->giop_minor,
                    (uint8_t)(op->byte_order == CDR_LITTLE_ENDIAN ? GIOP_FLAG_LITTLE_ENDIAN : 0),
                    type, 0 };
  uint8_t b[GIOP_HEADER_SIZE];
  int rc = giop_header_write(&h, b);
  if (rc != CDR_OK) {
    cdr_out_fail(o, rc, "GIOP header invalid (version, flags or message type)");
    return -1;
  }
  cdr_put_raw(o, b, sizeof b);
  return cdr_out_status(o) == CDR_OK ? op->giop_minor : -1;
}

static int octets_ok(const void *p, uint32_t n) { return p != NULL || n == 0; }

static int sc_list_ok(const giop_sc_list *l)
{
  if (!octets_ok(l->v, l->n))
    return 0;
  for (uint32_t k = 0; k < l->n; k++)
    if (!octets_ok(l->v[k].data, l->v[k].len))
      return 0;
  return 1;
}

static void put_sc_list(cdr_out *o, const giop_sc_list *l)
{
  cdr_put_ulong(o, l->n);
  for (uint32_t k = 0; k < l->n; k++) {
    cdr_put_ulong(o, l->v[k].id);
    cdr_put_seq(o, l->v[k].data, l->v[k].len, 1);
  }
}

/* The smallest IOR: type_id "" (ulong 1, NUL), padding, profile count 0. */
#define IOR_MIN 12u

static int target_ok(const giop_target *t, int minor)
{
  switch (t->disposition) {
  case GIOP_KEY_ADDR:
    return octets_ok(t->key, t->key_len);
  case GIOP_PROFILE_ADDR:
    return minor >= 2 && octets_ok(t->profile, t->profile_len);
  case GIOP_REFERENCE_ADDR:
    return minor >= 2 && t->ior && t->ior_len >= IOR_MIN;
  default:
    return 0;
  }
}

/* GIOP 1.2 TargetAddress: a union switched on short. */
static void put_target(cdr_out *o, const giop_target *t)
{
  cdr_put_short(o, (int16_t)t->disposition);
  switch (t->disposition) {
  case GIOP_KEY_ADDR:
    cdr_put_seq(o, t->key, t->key_len, 1);
    break;
  case GIOP_PROFILE_ADDR:
    cdr_put_ulong(o, t->profile_tag);
    cdr_put_seq(o, t->profile, t->profile_len, 1);
    break;
  default: /* GIOP_REFERENCE_ADDR: the IOR's octets as they are (4-aligned here) */
    cdr_put_ulong(o, t->profile_index);
    cdr_put_raw(o, t->ior, t->ior_len);
    break;
  }
}

static const uint8_t zero3[3];

int giop_begin_request(cdr_out *o, const giop_request_header *h)
{
  if (cdr_out_status(o) != CDR_OK)
    return cdr_out_status(o);
  int minor = cdr_out_opts(o)->giop_minor;
  if (!h || !h->operation || !target_ok(&h->target, minor) || !sc_list_ok(&h->contexts)
      || (minor < 2 && !octets_ok(h->principal, h->principal_len)))
    return cdr_out_fail(o, CDR_E_INVALID, "Request header invalid (operation, target, contexts or principal)");
  if (put_header(o, GIOP_REQUEST) < 0)
    return cdr_out_status(o);
  if (minor >= 2) {
    cdr_put_ulong(o, h->request_id);
    cdr_put_octet(o, h->response_flags);
    cdr_put_raw(o, zero3, 3);
    put_target(o, &h->target);
    cdr_put_string_n(o, h->operation, h->operation_len);
    put_sc_list(o, &h->contexts);
  } else {
    put_sc_list(o, &h->contexts);
    cdr_put_ulong(o, h->request_id);
    /* Bit 0 of the 1.2 flags: the target sends a Reply (SYNC_WITH_SERVER
     * and SYNC_WITH_TARGET both map to response_expected TRUE). */
    cdr_put_boolean(o, (h->response_flags & GIOP_RESPONSE_SYNC_WITH_SERVER) != 0);
    if (minor == 1)
      cdr_put_raw(o, zero3, 3);
    cdr_put_seq(o, h->target.key, h->target.key_len, 1);
    cdr_put_string_n(o, h->operation, h->operation_len);
    cdr_put_seq(o, h->principal, h->principal_len, 1);
  }
  return cdr_out_status(o);
}

int giop_begin_reply(cdr_out *o, const giop_reply_header *h)
{
  if (cdr_out_status(o) != CDR_OK)
    return cdr_out_status(o);
  int minor = cdr_out_opts(o)->giop_minor;
  if (!h || h->reply_status > (minor >= 2 ? GIOP_NEEDS_ADDRESSING_MODE : GIOP_LOCATION_FORWARD)
      || !sc_list_ok(&h->contexts))
    return cdr_out_fail(o, CDR_E_INVALID, "Reply header invalid (reply status or contexts)");
  if (minor >= 2 && h->contexts.n == 0 && cdr_out_size(o) == 0 && !iiop__msg_general) {
    /* The common GIOP 1.2 Reply, no contexts: the 24 octets put_header()
     * and the three ulongs below write (the stream starts at its origin, so
     * they need no padding), in one piece. */
    const cdr_opts *op = cdr_out_opts(o);
    int le = op->byte_order == CDR_LITTLE_ENDIAN;
    uint8_t b[24] = { 'G', 'I', 'O', 'P', 1, 2, (uint8_t)(le ? GIOP_FLAG_LITTLE_ENDIAN : 0),
                      GIOP_REPLY };
    iiop__store32(b + 12, h->request_id, le);
    iiop__store32(b + 16, h->reply_status, le);
    cdr_put_raw(o, b, sizeof b);
    return cdr_out_status(o);
  }
  if (put_header(o, GIOP_REPLY) < 0)
    return cdr_out_status(o);
  if (minor >= 2) {
    cdr_put_ulong(o, h->request_id);
    cdr_put_ulong(o, h->reply_status);
    put_sc_list(o, &h->contexts);
  } else {
    put_sc_list(o, &h->contexts);
    cdr_put_ulong(o, h->request_id);
    cdr_put_ulong(o, h->reply_status);
  }
  return cdr_out_status(o);
}

int giop_begin_locate_request(cdr_out *o, const giop_locate_request_header *h)
{
  if (cdr_out_status(o) != CDR_OK)
    return cdr_out_status(o);
  int minor = cdr_out_opts(o)->giop_minor;
  if (!h || !target_ok(&h->target, minor))
    return cdr_out_fail(o, CDR_E_INVALID, "LocateRequest header invalid (target)");
  if (put_header(o, GIOP_LOCATE_REQUEST) < 0)
    return cdr_out_status(o);
  cdr_put_ulong(o, h->request_id);
  if (minor >= 2)
    put_target(o, &h->target);
  else
    cdr_put_seq(o, h->target.key, h->target.key_len, 1);
  return cdr_out_status(o);
}

int giop_begin_locate_reply(cdr_out *o, const giop_locate_reply_header *h)
{
  if (cdr_out_status(o) != CDR_OK)
    return cdr_out_status(o);
  int minor = cdr_out_opts(o)->giop_minor;
  if (!h || h->locate_status > (minor >= 2 ? GIOP_LOC_NEEDS_ADDRESSING_MODE : GIOP_OBJECT_FORWARD))
    return cdr_out_fail(o, CDR_E_INVALID, "LocateReply header invalid (locate status)");
  if (put_header(o, GIOP_LOCATE_REPLY) < 0)
    return cdr_out_status(o);
  cdr_put_ulong(o, h->request_id);
  cdr_put_ulong(o, h->locate_status);
  return cdr_out_status(o);
}

int giop_begin_cancel_request(cdr_out *o, uint32_t request_id)
{
  if (put_header(o, GIOP_CANCEL_REQUEST) < 0)
    return cdr_out_status(o);
  cdr_put_ulong(o, request_id);
  return cdr_out_status(o);
}

int giop_begin_close_connection(cdr_out *o)
{
  (void)put_header(o, GIOP_CLOSE_CONNECTION);
  return cdr_out_status(o);
}

int giop_begin_message_error(cdr_out *o)
{
  (void)put_header(o, GIOP_MESSAGE_ERROR);
  return cdr_out_status(o);
}

void giop_begin_body(cdr_out *o)
{
  /* Already on 8 (a Reply header without contexts ends at 24): no call. */
  if (cdr_out_opts(o)->giop_minor >= 2 && ((o->origin - o->pos) & 7) != 0)
    cdr_out_align(o, 8);
}

int giop_end(cdr_out *o)
{
  if (cdr_out_status(o) != CDR_OK)
    return cdr_out_status(o);
  size_t n = cdr_out_total(o);       /* by-reference segments included */
  if (cdr_out_size(o) < GIOP_HEADER_SIZE || memcmp(cdr_out_data(o), "GIOP", 4) != 0)
    return cdr_out_fail(o, CDR_E_STATE, "end of a GIOP message that was not begun");
  if (n - GIOP_HEADER_SIZE > UINT32_MAX)
    return cdr_out_fail(o, CDR_E_LIMIT, "GIOP message body longer than 2^32-1 octets");
  int rc = cdr_out_patch_ulong(o, 8, (uint32_t)(n - GIOP_HEADER_SIZE), cdr_out_byte_order(o));
  if (rc != CDR_OK)
    return cdr_out_fail(o, rc, "GIOP message size not patchable");
  return CDR_OK;
}

/* Where a message begun with an empty service context list keeps its
 * request ID: GIOP 1.2 right after the GIOP header, 1.0/1.1 after the list
 * (a zero count). */
static size_t request_id_pos(int minor) { return minor >= 2 ? 12 : 16; }

/* Patch V at DELTA octets past the request ID of O's message, which must
 * be a Request or Reply (REPLY_ONLY: a Reply) begun with an empty service
 * context list. */
static int patch_at(cdr_out *o, size_t delta, uint32_t v, int reply_only)
{
  if (cdr_out_status(o) != CDR_OK)
    return cdr_out_status(o);
  size_t n = cdr_out_size(o);
  const uint8_t *d = cdr_out_data(o);
  if (n < GIOP_HEADER_SIZE || memcmp(d, "GIOP", 4) != 0 || d[7] > GIOP_REPLY
      || (reply_only && d[7] != GIOP_REPLY))
    return CDR_E_STATE;
  size_t pos = request_id_pos(d[5]) + delta;
  if (n < pos + 4
      || (d[5] < 2 && iiop__load32(d + GIOP_HEADER_SIZE, d[6] & GIOP_FLAG_LITTLE_ENDIAN) != 0))
    return CDR_E_STATE;
  return cdr_out_patch_ulong(o, pos, v, cdr_out_byte_order(o));
}

int giop_patch_request_id(cdr_out *o, uint32_t request_id)
{
  return patch_at(o, 0, request_id, 0);
}

int giop_patch_reply_status(cdr_out *o, uint32_t reply_status)
{
  return patch_at(o, 4, reply_status, 1);
}

int giop_peek_request_id(const uint8_t *buf, size_t len, uint32_t *id)
{
  giop_header h;
  if (!buf || !id)
    return CDR_E_INVALID;
  if (giop_header_parse(buf, len, &h) != CDR_OK)
    return CDR_E_PROTOCOL;
  int little = h.flags & GIOP_FLAG_LITTLE_ENDIAN;
  switch (h.type) {
  case GIOP_REQUEST:
  case GIOP_REPLY:
    if (h.minor >= 2)
      break;
    /* 1.0/1.1: the service context list comes first. */
    cdr_in i;
    cdr_in_init(&i, buf, len, little ? CDR_LITTLE_ENDIAN : CDR_BIG_ENDIAN, NULL);
    cdr_in_seek(&i, GIOP_HEADER_SIZE);
    uint32_t n = cdr_get_seq_count(&i, 8);
    for (uint32_t k = 0; k < n && cdr_in_status(&i) == CDR_OK; k++) {
      const uint8_t *d;
      uint32_t dl;
      (void)cdr_get_ulong(&i);
      (void)cdr_get_octets_view(&i, &d, &dl);
    }
    uint32_t v = cdr_get_ulong(&i);
    int rc = cdr_in_status(&i);
    cdr_in_close(&i);
    if (rc != CDR_OK)
      return CDR_E_PROTOCOL;
    *id = v;
    return CDR_OK;
  case GIOP_FRAGMENT:
    if (h.minor < 2)
      return CDR_E_INVALID;
    break;
  case GIOP_CANCEL_REQUEST:
  case GIOP_LOCATE_REQUEST:
  case GIOP_LOCATE_REPLY:
    break;
  default:
    return CDR_E_INVALID;
  }
  if (len < GIOP_HEADER_SIZE + 4)
    return CDR_E_PROTOCOL;
  *id = iiop__load32(buf + GIOP_HEADER_SIZE, little);
  return CDR_OK;
}

/* ---------------------------------------------------------------- parsing */

/* IOP::ServiceContextList.  The count is checked against what remains
 * (each context takes at least 8 octets: id and data length) before the
 * array is allocated, so a bogus count allocates nothing. */
static int get_sc_list(cdr_in *i, giop_sc_list *l)
{
  uint32_t n = cdr_get_seq_count(i, 8);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  l->n = 0;
  l->v = NULL;
  if (n == 0)
    return CDR_OK;
  cdr_arena *a = cdr_in_arena(i);
  if (!a)
    return cdr_in_fail(i, CDR_E_STATE, "no arena for the service context list");
  giop_service_context *v = cdr_arena_alloc(a, (size_t)n * sizeof *v, _Alignof(giop_service_context));
  if (!v)
    return cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed (service contexts)");
  for (uint32_t k = 0; k < n; k++) {
    v[k].id = cdr_get_ulong(i);
    if (cdr_get_octets_view(i, &v[k].data, &v[k].len) != CDR_OK)
      return cdr_in_status(i);
  }
  l->n = n;
  l->v = v;
  return CDR_OK;
}

/* An IOR (string type_id, sequence<TaggedProfile>), skipped and kept as
 * its raw octets. */
static void skip_ior(cdr_in *i, const uint8_t *buf, giop_target *t)
{
  size_t start = cdr_in_pos(i); /* 4-aligned: selected_profile_index precedes it */
  const char *type_id;
  uint32_t tl;
  if (cdr_get_string_view(i, &type_id, &tl) != CDR_OK)
    return;
  uint32_t n = cdr_get_seq_count(i, 8);
  for (uint32_t k = 0; k < n && cdr_in_status(i) == CDR_OK; k++) {
    const uint8_t *d;
    uint32_t dl;
    (void)cdr_get_ulong(i);
    (void)cdr_get_octets_view(i, &d, &dl);
  }
  if (cdr_in_status(i) != CDR_OK)
    return;
  t->ior = buf + start;
  t->ior_len = (uint32_t)(cdr_in_pos(i) - start);
}

/* GIOP 1.2 TargetAddress. */
static int get_target(cdr_in *i, const uint8_t *buf, giop_target *t)
{
  memset(t, 0, sizeof *t);
  uint16_t d = cdr_get_ushort(i);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  t->disposition = d;
  switch (d) {
  case GIOP_KEY_ADDR:
    cdr_get_octets_view(i, &t->key, &t->key_len);
    break;
  case GIOP_PROFILE_ADDR:
    t->profile_tag = cdr_get_ulong(i);
    cdr_get_octets_view(i, &t->profile, &t->profile_len);
    break;
  case GIOP_REFERENCE_ADDR:
    t->profile_index = cdr_get_ulong(i);
    skip_ior(i, buf, t);
    break;
  default:
    cdr_in_seek(i, cdr_in_pos(i) - 2);
    return cdr_in_fail(i, CDR_E_VALUE, "TargetAddress disposition not 0, 1 or 2");
  }
  return cdr_in_status(i);
}

static void key_target(cdr_in *i, giop_target *t)
{
  memset(t, 0, sizeof *t);
  t->disposition = GIOP_KEY_ADDR;
  cdr_get_octets_view(i, &t->key, &t->key_len);
}

/* Read an enum-valued ulong and check it against MAX. */
static uint32_t get_status(cdr_in *i, uint32_t max, const char *msg)
{
  uint32_t v = cdr_get_ulong(i);
  if (cdr_in_status(i) == CDR_OK && v > max) {
    cdr_in_seek(i, cdr_in_pos(i) - 4);
    cdr_in_fail(i, CDR_E_VALUE, msg);
  }
  return v;
}

static void parse_request(cdr_in *i, const uint8_t *buf, int minor, giop_request_header *r)
{
  r->principal = NULL;
  r->principal_len = 0;
  if (minor >= 2) {
    r->contexts.n = 0;
    r->contexts.v = NULL;
    r->request_id = cdr_get_ulong(i);
    r->response_flags = cdr_get_octet(i);
    /* reserved[3]: ignored whatever it holds (inline reads, no call) */
    (void)cdr_get_octet(i);
    (void)cdr_get_octet(i);
    (void)cdr_get_octet(i);
    if (get_target(i, buf, &r->target) != CDR_OK)
      return;
    if (cdr_get_string_view(i, &r->operation, &r->operation_len) != CDR_OK)
      return;
    get_sc_list(i, &r->contexts);
  } else {
    memset(&r->target, 0, sizeof r->target);
    r->operation = NULL;
    r->operation_len = 0;
    if (get_sc_list(i, &r->contexts) != CDR_OK)
      return;
    r->request_id = cdr_get_ulong(i);
    r->response_flags = cdr_get_boolean(i) ? GIOP_RESPONSE_EXPECTED : GIOP_RESPONSE_NONE;
    if (minor == 1)
      (void)cdr_get_raw_view(i, 3);
    key_target(i, &r->target);
    if (cdr_get_string_view(i, &r->operation, &r->operation_len) != CDR_OK)
      return;
    cdr_get_octets_view(i, &r->principal, &r->principal_len);
  }
}

static void parse_reply(cdr_in *i, int minor, giop_reply_header *r)
{
  r->contexts.n = 0;
  r->contexts.v = NULL;
  if (minor >= 2) {
    r->request_id = cdr_get_ulong(i);
    r->reply_status = get_status(i, GIOP_NEEDS_ADDRESSING_MODE, "reply status above 5");
    if (cdr_in_status(i) == CDR_OK)
      get_sc_list(i, &r->contexts);
  } else {
    if (get_sc_list(i, &r->contexts) != CDR_OK)
      return;
    r->request_id = cdr_get_ulong(i);
    r->reply_status = get_status(i, GIOP_LOCATION_FORWARD, "reply status above 3 in GIOP 1.0/1.1");
  }
}

int iiop__msg_general;

/* The common GIOP 1.2 Request's header after the 12-octet GIOP header,
 * read straight from the END octets at B (LE: little-endian): KeyAddr, an
 * operation name, no service contexts.  Every check the general path
 * (parse_request() and the body's 8-alignment) makes with options O is
 * made here; true only when all of them pass, with *R filled and *BODY the
 * position the general path leaves the stream at.  False: nothing is
 * written, and the general path parses the message from the start,
 * failing where and how it always does. */
static inline __attribute__((always_inline)) bool scan_request_12(const uint8_t *b, size_t end,
                                                                  bool le, const cdr_opts *o,
                                                                  giop_request_header *r,
                                                                  size_t *body)
{
  if (end < 28)
    return false;
  uint16_t d = le ? (uint16_t)(b[20] | b[21] << 8) : (uint16_t)(b[20] << 8 | b[21]);
  if (d != GIOP_KEY_ADDR)
    return false;
  uint32_t kl = iiop__load32(b + 24, le);
  if (kl > end - 28 || kl > o->max_seq)
    return false;
  size_t p = (28 + (size_t)kl + 3) & ~(size_t)3;   /* operation's length */
  if (p > end || end - p < 4)
    return false;
  uint32_t ol = iiop__load32(b + p, le);
  size_t op = p + 4;
  if (ol == 0 || ol > end - op || ol > o->max_string)
    return false;
  const char *name = (const char *)b + op;
  if (name[ol - 1] != 0)
    return false;
  if (ol <= 32) {                    /* an operation name: a loop beats a call */
    for (uint32_t k = 0; k + 1 < ol; k++)
      if (name[k] == 0)
        return false;
  } else if (memchr(name, 0, ol - 1) != NULL) {
    return false;
  }
  p = (op + ol + 3) & ~(size_t)3;                  /* service context count */
  if (p > end || end - p < 4 || iiop__load32(b + p, le) != 0)
    return false;
  p += 4;
  if (p < end) {
    p = (p + 7) & ~(size_t)7;                      /* the body on 8 */
    if (p > end)
      return false;
  }
  r->principal = NULL;
  r->principal_len = 0;
  r->contexts.n = 0;
  r->contexts.v = NULL;
  r->request_id = iiop__load32(b + 12, le);
  r->response_flags = b[16];
  memset(&r->target, 0, sizeof r->target);
  r->target.disposition = GIOP_KEY_ADDR;
  r->target.key = b + 28;
  r->target.key_len = kl;
  r->operation = name;
  r->operation_len = ol - 1;
  *body = p;
  return true;
}

/* scan_request_12() on the stream I just set up by giop_parse(). */
static bool fast_request_12(cdr_in *i, giop_request_header *r)
{
  if (i->in_chunk || i->origin != 0 || i->pos != GIOP_HEADER_SIZE)
    return false;
  size_t p;
  if (!scan_request_12(i->buf, i->end, i->order == CDR_LITTLE_ENDIAN, &i->opts, r, &p))
    return false;
  i->pos = p;
  return true;
}

bool iiop__parse_request_12(giop_message *m, const uint8_t *buf, size_t len, const cdr_opts *opts,
                            cdr_arena *arena, iiop__req_memo *memo)
{
  if (memo && iiop__parse_request_memo(m, buf, len, opts, arena, memo))
    return true;
  /* What giop_parse() checks of the header, for this one case: "GIOP",
   * version 1.2, no flag but the byte order, a Request, message_size the
   * rest of the buffer. */
  if (iiop__msg_general || len < 28 || opts->giop_major != 1 || opts->giop_minor != 2
      || memcmp(buf, "GIOP\1\2", 6) != 0 || (buf[6] & ~GIOP_FLAG_LITTLE_ENDIAN) != 0
      || buf[7] != GIOP_REQUEST)
    return false;
  bool le = buf[6] != 0;
  uint32_t size = iiop__load32(buf + 8, le);
  if ((uint64_t)size + GIOP_HEADER_SIZE != (uint64_t)len)
    return false;
  size_t body;
  if (!scan_request_12(buf, len, le, opts, &m->u.request, &body))
    return false;
  m->hdr.major = 1;
  m->hdr.minor = 2;
  m->hdr.flags = buf[6];
  m->hdr.type = GIOP_REQUEST;
  m->hdr.size = size;
  cdr_in_init_trusted(&m->body, buf, len, le ? CDR_LITTLE_ENDIAN : CDR_BIG_ENDIAN, opts, body,
                      arena);
  if (memo && body - 16 <= IIOP__MEMO_MAX && len <= UINT32_MAX) {
    memo->len = (uint32_t)len;
    memo->span = (uint32_t)(body - 16);
    memo->body = (uint32_t)body;
    memo->kl = m->u.request.target.key_len;
    memo->op = (uint32_t)((const uint8_t *)m->u.request.operation - buf);
    memo->ol = m->u.request.operation_len + 1;
    memcpy(memo->head, buf, 12);
    memcpy(memo->o, buf + 16, body - 16);
  }
  return true;
}

static int parse_fail(giop_message *m, const uint8_t *buf, size_t len, int err, const char *msg)
{
  /* Leave a body that reports the error, so that m->body is always valid. */
  cdr_in_init(&m->body, buf, buf ? len : 0, CDR_BIG_ENDIAN, NULL);
  return cdr_in_fail(&m->body, err, msg);
}

int giop_parse(giop_message *m, const uint8_t *buf, size_t len, const cdr_opts *opts,
               cdr_arena *arena)
{
  if (!m)
    return CDR_E_INVALID;
  if (!buf)
    return parse_fail(m, NULL, 0, CDR_E_INVALID, "no message buffer");
  int rc = iiop__header_parse(buf, len, &m->hdr);
  if (rc != CDR_OK)
    return parse_fail(m, buf, len, CDR_E_PROTOCOL,
                      rc == CDR_E_SHORT ? "message shorter than the GIOP header"
                                        : "malformed GIOP header");
  if (m->hdr.type == GIOP_FRAGMENT || (m->hdr.flags & GIOP_FLAG_MORE_FRAGMENTS))
    return parse_fail(m, buf, len, CDR_E_PROTOCOL, "fragment: reassemble the message first");
  if ((uint64_t)m->hdr.size + GIOP_HEADER_SIZE != (uint64_t)len)
    return parse_fail(m, buf, len, CDR_E_PROTOCOL, "message_size does not match the message");

  /* The body's options must carry the message's GIOP version.  Copy them
   * only when they do not already (input streams ignore byte_order): the
   * common 1.2 message with default options copies nothing here. */
  int order = (m->hdr.flags & GIOP_FLAG_LITTLE_ENDIAN) ? CDR_LITTLE_ENDIAN : CDR_BIG_ENDIAN;
  cdr_in *i = &m->body;
  cdr_opts o;
  const cdr_opts *use = opts;
  if (opts ? opts->giop_major != 1 || opts->giop_minor != m->hdr.minor : m->hdr.minor != 2) {
    if (opts)
      o = *opts;
    else
      cdr_opts_default(&o);
    o.giop_major = 1;
    o.giop_minor = m->hdr.minor;
    use = &o;
  }
  rc = cdr_in_init(i, buf, len, order, use);
  if (rc != CDR_OK)
    return rc;
  cdr_in_set_arena(i, arena);
  cdr_in_seek(i, GIOP_HEADER_SIZE);

  int minor = m->hdr.minor;
  switch (m->hdr.type) {
  case GIOP_REQUEST:
    if (minor == 2 && !iiop__msg_general && fast_request_12(i, &m->u.request))
      break;
    parse_request(i, buf, minor, &m->u.request);
    /* GIOP 1.2: a body, when there is one, starts on 8 (omniORB, too,
     * aligns only when octets remain). */
    if (minor >= 2 && cdr_in_status(i) == CDR_OK && cdr_in_remaining(i) > 0)
      cdr_in_align(i, 8);
    break;
  case GIOP_REPLY:
    parse_reply(i, minor, &m->u.reply);
    if (minor >= 2 && cdr_in_status(i) == CDR_OK && cdr_in_remaining(i) > 0)
      cdr_in_align(i, 8);
    break;
  case GIOP_CANCEL_REQUEST:
    m->u.cancel_request_id = cdr_get_ulong(i);
    break;
  case GIOP_LOCATE_REQUEST: {
    giop_locate_request_header *r = &m->u.locate_request;
    r->request_id = cdr_get_ulong(i);
    if (minor >= 2)
      get_target(i, buf, &r->target);
    else
      key_target(i, &r->target);
    break;
  }
  case GIOP_LOCATE_REPLY: {
    /* The body (an IOR, a system exception, a short) follows the header
     * immediately, without 8-alignment, even in GIOP 1.2 (CORBA 3.0
     * 15.4.6.2; TAO, omniORB and the Java ORB agree). */
    giop_locate_reply_header *r = &m->u.locate_reply;
    r->request_id = cdr_get_ulong(i);
    r->locate_status = get_status(i, minor >= 2 ? GIOP_LOC_NEEDS_ADDRESSING_MODE : GIOP_OBJECT_FORWARD,
                                  minor >= 2 ? "locate status above 5"
                                             : "locate status above 2 in GIOP 1.0/1.1");
    break;
  }
  default: /* CloseConnection, MessageError: the header only */
    break;
  }
  return cdr_in_status(i);
}
