/* data.c — where the CLI finds data/: the installed copy, unless this very
 * executable is the one in the build tree (tests, `make demo`, a developer
 * trying a change), which reads the source tree's data/ so that an
 * uninstalled build never depends on an older installed copy. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lbtorus/reproduce.h"

const char *cli_data_dir(void)
{
	const char *env = getenv("LBTORUS_DATA");
	if (env && *env)
		return env;
	char exe[PATH_MAX], build[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); /* resolved, as realpath's */
	char *slash = n > 0 ? (exe[n] = 0, strrchr(exe, '/')) : NULL;
	if (slash && realpath(LBT_BUILD_ROOT, build)) {
		*slash = 0;
		if (!strcmp(exe, build))
			return LBT_SOURCE_DATADIR;
	}
	return lbt_data_dir();
}
