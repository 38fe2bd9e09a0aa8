/* cli_internal.h — what some commands still take from the library's
 * private headers (src/include/lbtorus/), beyond the public API of
 * <lbtorus.h> that cli.h gives. Issue 26: the CLI uses only the public API;
 * a command moved onto it stops including this file, and the file goes when
 * no command includes it. */
#ifndef LBTORUS_CLI_INTERNAL_H
#define LBTORUS_CLI_INTERNAL_H

#include "cli.h"
#include "lbtorus/lbtorus.h"


#endif
