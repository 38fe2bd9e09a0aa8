/* provenance.h — what made a result: the build (version, git describe,
 * compiler and flags), the machine (CPU, host), the time (UTC), the ranks
 * and threads, the command line or API call, and the checksums of the input
 * files. Every record and output directory carries it (docs/formats.md). */
#ifndef LBTORUS_PROVENANCE_H
#define LBTORUS_PROVENANCE_H

#include <stdio.h>

#include "lbtorus/status.h"

#define LBT_FORMATS_VERSION 4 /* docs/formats.md: the records' "format" */

/* The call that makes this process's results, as given: the CLI passes its
 * argv (joined with blanks, an argument quoted where a shell would need it),
 * a binding its call's text ("lbtorus.run(shape=(64, 64))"). Set it once,
 * before any thread starts; until then it is "C API". */
void lbt_provenance_set_argv(int argc, char *const argv[]);
void lbt_provenance_set_call(const char *call);
const char *lbt_provenance_call(void);
/* An input file every record of this process depends on (a sweep's spec
 * file), named ROLE: its SHA-256, taken now, goes into each record as
 * ROLE_sha256. Like the call, set before any thread starts. */
int lbt_provenance_add_input(const char *role, const char *path, lbt_err *e);
/* The last input named ROLE taken out again (a library call whose records
 * depended on it has ended). */
void lbt_provenance_drop_input(const char *role);
/* The CPU's model name (the first "model name" of /proc/cpuinfo), or
 * "unknown CPU", into buf. */
void lbt_cpu_model(char *buf, size_t n);
/* `git describe --always --dirty` of the source the library was built from
 * (its version where there was no git), and the compiler and its flags. */
const char *lbt_build_git(void);
const char *lbt_build_compiler(void);
const char *lbt_build_flags(void);

/* Members of an open JSON object, each written as ,"key":value: format,
 * git, compiler, cflags, cpu, host, date_utc, ranks, command, the inputs'
 * ROLE_sha256; then isa and
 * threads unless isa is NULL (run records carry their own). */
void lbt_provenance_json(FILE *f, const char *isa, int threads);
/* ,"ROLE_sha256":"HEX" for an input file (null where it cannot be read). */
void lbt_provenance_file_json(FILE *f, const char *role, const char *path);
/* The same members as "# key: value" lines (a CSV trace's header). */
void lbt_provenance_comment(FILE *f, const char *isa, int threads);
/* DIR/NAME.manifest.json: one JSON object, the provenance (with isa and
 * threads) and "file:X": the SHA-256 of every other file X in dir. */
int lbt_provenance_manifest(const char *dir, const char *name, const char *isa, int threads, lbt_err *e);

#endif
