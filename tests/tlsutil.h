/* tlsutil.h - test certificates made at run time with the openssl command
 * (tests/tlsutil.c): one fresh directory per program under /tmp, EC P-256
 * keys, CAs and the certificates they sign, valid for 2 days.
 *
 * Every function that runs openssl returns system()'s status: 0 on success.
 * The directory is the process's one (the last tlsu_begin's); the tests
 * make it once before Check forks (tu_program's setup) or inside one test. */
#ifndef TLSUTIL_H
#define TLSUTIL_H

#include <stddef.h>
#include <stdio.h>

/* In a test function of PROG: when HAVE (the program's flag that its
 * certificates were made) is 0, "PROG: FUNCTION: no openssl command, not
 * run" on stderr, and return from the function. */
#define TLSU_NEED(have, prog)                                                    \
  do {                                                                           \
    if (!(have)) {                                                               \
      fprintf(stderr, "%s: %s: no openssl command, not run\n", prog, __func__); \
      return;                                                                    \
    }                                                                            \
  } while (0)

/* The size of the path buffers that tlsu_path fills. */
#define TLSU_PATH_MAX 128

/* A fresh directory /tmp/PROG.XXXXXX: 1, or 0 when the openssl command is
 * missing or mkdtemp fails (no directory then). */
int tlsu_begin(const char *prog);

/* The directory's name ("" before tlsu_begin, or when it failed). */
const char *tlsu_dir(void);

/* Run the shell command CMD in the directory, its output and errors
 * dropped: system()'s status.  CMD may be up to 1,000 octets. */
int tlsu_sh(const char *cmd);

/* OUT (TLSU_PATH_MAX octets) = the directory's path of NAME. */
void tlsu_path(char *out, const char *name);

/* A self-signed CA: key NAME.key, certificate CRT (e.g. "ca.crt"),
 * subject SUBJ (e.g. "/CN=check_tls-CA"). */
int tlsu_ca(const char *name, const char *crt, const char *subj);

/* A key NAME.key and a certificate CRT for subject SUBJ signed by the CA
 * of key CA.key and certificate CA_CRT, with the X.509 extension lines
 * EXT (e.g. "subjectAltName=IP:127.0.0.1,DNS:localhost"; NULL: none). */
int tlsu_leaf(const char *name, const char *crt, const char *subj, const char *ca,
              const char *ca_crt, const char *ext);

/* Remove the directory and everything in it (nothing when there is none);
 * PROG names the program in the message printed when that fails. */
void tlsu_end(const char *prog);

#endif
