#!/usr/bin/env python3
"""Raw TCP proxy that logs GIOP traffic in hex, both directions.

    giop-proxy.py --target HOST:PORT --out FILE [--listen HOST:PORT] [--ior IOR]

Listens (default 127.0.0.1:0), prints "PORT" on its first stdout line and, with
--ior, the IOR with the port of its IIOP profile replaced by the proxy's on the
second line; then forwards every accepted connection to --target and appends to
FILE, for each GIOP message in each direction, a header line and the message
bytes in hex, 16 per line, offsets relative to the message start.  Bytes are
logged exactly as received; messages are split by the GIOP header's size field.
Stops on SIGINT/SIGTERM or after --max-seconds.
"""
import argparse
import binascii
import os
import signal
import socket
import struct
import sys
import threading
import time

MSG_TYPES = ["Request", "Reply", "CancelRequest", "LocateRequest", "LocateReply",
             "CloseConnection", "MessageError", "Fragment"]

lock = threading.Lock()
t0 = time.monotonic()


def patch_ior_port(ior, port):
    """Return IOR with the port of each IIOP profile (tag 0) replaced."""
    assert ior.startswith("IOR:")
    b = bytearray(binascii.unhexlify(ior[4:]))
    le = b[0] & 1
    e = "<" if le else ">"

    def align(pos, n, base):
        return base + ((pos - base + n - 1) // n) * n

    pos = align(1, 4, 0)
    (idlen,) = struct.unpack_from(e + "I", b, pos)
    pos = align(pos + 4 + idlen, 4, 0)
    (nprof,) = struct.unpack_from(e + "I", b, pos)
    pos += 4
    for _ in range(nprof):
        pos = align(pos, 4, 0)
        tag, plen = struct.unpack_from(e + "II", b, pos)
        start = pos + 8
        if tag == 0:
            ple = "<" if b[start] & 1 else ">"
            p = start + 3  # byte order, version major/minor
            p = align(p, 4, start)
            (hlen,) = struct.unpack_from(ple + "I", b, p)
            p = align(p + 4 + hlen, 2, start)
            struct.pack_into(ple + "H", b, p, port)
        pos = start + plen
    return "IOR:" + binascii.hexlify(bytes(b)).decode()


class Logger:
    def __init__(self, out):
        self.out = out

    def message(self, conn, direction, msg, t):
        hdr = ""
        if len(msg) >= 12 and msg[:4] == b"GIOP":
            major, minor, flags, mtype = msg[4], msg[5], msg[6], msg[7]
            le = flags & 1
            (size,) = struct.unpack_from("<I" if le else ">I", msg, 8)
            name = MSG_TYPES[mtype] if mtype < len(MSG_TYPES) else "type%d" % mtype
            hdr = "GIOP %d.%d %s %s%s message_size=%d" % (
                major, minor, name, "LE" if le else "BE",
                " more-fragments" if flags & 2 else "", size)
            if mtype in (0, 1, 3, 4) and major == 1 and minor == 2 and len(msg) >= 16:
                (rid,) = struct.unpack_from("<I" if le else ">I", msg, 12)
                hdr += " request_id=%d" % rid
        else:
            hdr = "non-GIOP bytes"
        lines = ["# conn %d %s t=%.6f %s (%d bytes)" % (
            conn, direction, t - t0, hdr, len(msg))]
        for off in range(0, len(msg), 16):
            chunk = msg[off:off + 16]
            hx = " ".join("%02x" % c for c in chunk)
            lines.append("%06x  %s" % (off, hx))
        with lock:
            self.out.write("\n".join(lines) + "\n")
            self.out.flush()


def pump(src, dst, logger, conn, direction):
    buf = b""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            t = time.monotonic()  # time the bytes were received
            buf += data
            # log before forwarding, so that the log keeps causal order
            while len(buf) >= 12:
                if buf[:4] != b"GIOP":
                    logger.message(conn, direction, buf, t)
                    buf = b""
                    break
                le = buf[6] & 1
                (size,) = struct.unpack_from("<I" if le else ">I", buf, 8)
                if len(buf) < 12 + size:
                    break
                logger.message(conn, direction, buf[:12 + size], t)
                buf = buf[12 + size:]
            dst.sendall(data)
    except OSError:
        pass
    if buf:
        logger.message(conn, direction + " (incomplete at close)", buf, time.monotonic())
    for s in (dst, src):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--listen", default="127.0.0.1:0")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ior")
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    th, tp = a.target.rsplit(":", 1)
    lh, lp = a.listen.rsplit(":", 1)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((lh, int(lp)))
    ls.listen(16)
    port = ls.getsockname()[1]
    out = open(a.out, "w")
    out.write("# giop-proxy: %s -> %s, c2s = client to server, s2c = server to client\n"
              % ("%s:%d" % (lh, port), a.target))
    out.flush()
    print(port)
    if a.ior:
        print(patch_ior_port(a.ior, port))
    sys.stdout.flush()
    logger = Logger(out)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    signal.signal(signal.SIGALRM, lambda *_: os._exit(0))
    signal.alarm(int(a.max_seconds))
    n = 0
    while True:
        c, _ = ls.accept()
        n += 1
        s = socket.create_connection((th, int(tp)))
        for sock in (c, s):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=pump, args=(c, s, logger, n, "c2s"), daemon=True).start()
        threading.Thread(target=pump, args=(s, c, logger, n, "s2c"), daemon=True).start()


if __name__ == "__main__":
    main()
