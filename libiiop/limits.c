/* limits.c - the defaults of iiop/limits.h. */
#include "config.h"
#include <iiop/limits.h>
#include "internal.h"

void iiop_limits_default(iiop_limits *l)
{
  if (!l)
    return;
  l->max_message = IIOP_DEFAULT_MAX_MESSAGE;
  l->max_fragmented = IIOP_DEFAULT_MAX_MESSAGE;
  l->max_string = IIOP_DEFAULT_MAX_STRING;
  l->max_sequence = IIOP_DEFAULT_MAX_SEQUENCE;
  l->max_depth = IIOP_DEFAULT_MAX_DEPTH;
  l->max_values = IIOP_DEFAULT_MAX_VALUES;
  l->max_indirections = IIOP_DEFAULT_MAX_INDIRECTIONS;
  l->max_connections = IIOP_DEFAULT_MAX_CONNECTIONS;
  l->max_in_flight = IIOP_DEFAULT_MAX_IN_FLIGHT;
  l->header_timeout_ms = IIOP_DEFAULT_HEADER_TIMEOUT_MS;
  l->message_timeout_ms = IIOP_DEFAULT_MESSAGE_TIMEOUT_MS;
  l->idle_timeout_ms = IIOP_DEFAULT_IDLE_TIMEOUT_MS;
  l->handshake_timeout_ms = IIOP_DEFAULT_HANDSHAKE_TIMEOUT_MS;
  l->call_timeout_ms = IIOP_DEFAULT_CALL_TIMEOUT_MS;
}

void iiop__limits_fill(iiop_limits *l, const iiop_limits *d)
{
#define FILL(f)                                                                              \
  if (l->f <= 0)                                                                             \
  l->f = d->f
  FILL(max_message);
  FILL(max_string);
  FILL(max_sequence);
  FILL(max_depth);
  FILL(max_values);
  FILL(max_indirections);
  FILL(max_connections);
  FILL(max_in_flight);
  FILL(header_timeout_ms);
  FILL(message_timeout_ms);
  FILL(idle_timeout_ms);
  FILL(handshake_timeout_ms);
  FILL(call_timeout_ms);
#undef FILL
  if (l->max_fragmented == 0 || l->max_fragmented > l->max_message)
    l->max_fragmented = l->max_message;
}
