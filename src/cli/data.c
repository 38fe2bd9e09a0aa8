/* data.c — where the CLI finds data/: the installed copy, unless this very
 * executable is the one in the build tree (tests, `make demo`, a developer
 * trying a change), which reads the source tree's data/ so that an
 * uninstalled build never depends on an older installed copy. An installed
 * tree moved whole (a DESTDIR, a copied prefix) reads the data beside its
 * bin/, as installed; never the source tree, which may be gone. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char *cli_data_dir(void)
{
	const char *env = getenv("LBTORUS_DATA");
	if (env && *env)
		return env;
	char exe[PATH_MAX], build[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); /* resolved, as realpath's */
	char *slash = n > 0 ? (exe[n] = 0, strrchr(exe, '/')) : NULL;
	if (!slash)
		return lbt_data_dir();
	*slash = 0;
	if (realpath(LBT_BUILD_ROOT, build) && !strcmp(exe, build))
		return LBT_SOURCE_DATADIR;
	/* exe is PREFIX/BINDIR: the data is in PREFIX/DATADIR/lbtorus (relative dirs only) */
	static char beside[PATH_MAX + 64];
	const size_t len = strlen(exe), b = strlen(LBT_BINDIR_REL);
	struct stat sb;
	if (b && *LBT_DATADIR_REL && len > b && exe[len - b - 1] == '/' && !strcmp(exe + len - b, LBT_BINDIR_REL) &&
	    snprintf(beside, sizeof beside, "%.*s/%s", (int)(len - b - 1), exe, LBT_DATADIR_REL) < (int)sizeof beside &&
	    !stat(beside, &sb) && S_ISDIR(sb.st_mode))
		return beside;
	return lbt_data_dir();
}
