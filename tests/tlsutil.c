/* tlsutil.c - test certificates made with the openssl command (tlsutil.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tlsutil.h"

static char dir[64];

/* The key parameters of every key made here (unencrypted EC P-256). */
#define EC "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"

int tlsu_begin(const char *prog)
{
  dir[0] = 0;
  if (system("command -v openssl >/dev/null 2>&1") != 0)
    return 0;
  snprintf(dir, sizeof dir, "/tmp/%s.XXXXXX", prog);
  if (!mkdtemp(dir)) {
    dir[0] = 0;
    return 0;
  }
  return 1;
}

const char *tlsu_dir(void) { return dir; }

int tlsu_sh(const char *cmd)
{
  char full[1200];
  snprintf(full, sizeof full, "cd %s && (%s) >/dev/null 2>&1", dir, cmd);
  return system(full);
}

void tlsu_path(char *out, const char *name) { snprintf(out, TLSU_PATH_MAX, "%s/%s", dir, name); }

int tlsu_ca(const char *name, const char *crt, const char *subj)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd, "openssl req -x509 " EC " -keyout %s.key -out %s -days 2 -subj %s", name,
           crt, subj);
  return tlsu_sh(cmd);
}

int tlsu_leaf(const char *name, const char *crt, const char *subj, const char *ca,
              const char *ca_crt, const char *ext)
{
  char cmd[1000];
  int n = snprintf(cmd, sizeof cmd, "openssl req " EC " -keyout %s.key -out %s.csr -subj %s && ", name,
                   name, subj);
  if (ext)
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, "printf '%s\\n' > %s.ext && ", ext, name);
  snprintf(cmd + n, sizeof cmd - (size_t)n,
           "openssl x509 -req -in %s.csr -CA %s -CAkey %s.key -CAcreateserial -out %s -days 2%s%s%s",
           name, ca_crt, ca, crt, ext ? " -extfile " : "", ext ? name : "", ext ? ".ext" : "");
  return tlsu_sh(cmd);
}

void tlsu_end(const char *prog)
{
  if (!dir[0])
    return;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "%s: could not remove %s\n", prog, dir);
  dir[0] = 0;
}
