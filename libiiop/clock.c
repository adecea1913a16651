/* clock.c - deadlines in CLOCK_MONOTONIC milliseconds and a poll() that
 * keeps its deadline across EINTR (internal.h); the transports, the
 * connection layer and the server share them. */
#include "internal.h"
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <cdr/error.h>

int64_t iiop__deadline(int timeout_ms)
{
  return timeout_ms > 0 ? iiop__now_ms() + timeout_ms : -1;
}

int iiop__remaining(int64_t deadline)
{
  if (deadline < 0)
    return -1;
  int64_t left = deadline - iiop__now_ms();
  if (left <= 0)
    return 0;
  return left > INT_MAX ? INT_MAX : (int)left;
}

int iiop__poll(int fd, short events, int timeout_ms)
{
  int64_t deadline = timeout_ms > 0 ? iiop__now_ms() + timeout_ms : -1;
  struct pollfd p = { fd, events, 0 };
  for (;;) {
    int r = poll(&p, 1, timeout_ms);
    if (r > 0)
      return CDR_OK;                  /* POLLERR/POLLHUP too: the next call says what */
    if (r == 0)
      return CDR_E_TIMEOUT;
    if (errno != EINTR)
      return CDR_E_IO;
    if (deadline >= 0) {
      timeout_ms = iiop__remaining(deadline);
      if (timeout_ms == 0)
        return CDR_E_TIMEOUT;
    }
  }
}
