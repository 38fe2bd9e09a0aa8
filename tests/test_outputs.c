/* test_outputs.c — what an output name may be (issue 14, item 5): a device
 * or a FIFO is written through and never replaced, a symbolic link is
 * followed (the file it names is replaced, the link stays), a directory is
 * refused; no temporary is left beside any of them. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static int hidden(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

Test(outputs, links_are_followed_and_stay_links)
{
	char dir[64], p[160], q[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/real.json", dir);
	FILE *f = fopen(p, "w");
	fputs("old\n", f);
	fclose(f);
	snprintf(q, sizeof q, "%s/link.json", dir);
	cr_assert(!symlink("real.json", q));
	snprintf(q, sizeof q, "%s/dangling.csv", dir);
	cr_assert(!symlink("new.csv", q));
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "link.json", "--trace", "dangling.csv"), NULL, NULL), 0);
	struct stat sb;
	snprintf(q, sizeof q, "%s/link.json", dir);
	cr_assert(!lstat(q, &sb) && S_ISLNK(sb.st_mode), "the link was replaced by a file");
	char *s = th_read(p, NULL);
	cr_assert(!strncmp(s, "{\"lbtorus\"", 10), "the file the link names holds the summary: %s", s);
	free(s);
	snprintf(q, sizeof q, "%s/dangling.csv", dir);
	cr_assert(!lstat(q, &sb) && S_ISLNK(sb.st_mode));
	snprintf(q, sizeof q, "%s/new.csv", dir);
	s = th_read(q, NULL);
	cr_assert(!strncmp(s, "step,", 5), "%s", s);
	free(s);
	cr_assert_eq(hidden(dir), 0, "a temporary was left");
	th_rm_tree(dir);
}

Test(outputs, fifos_and_devices_are_written_through)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/pipe", dir);
	cr_assert(!mkfifo(p, 0600));
	int rd = open(p, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open does not block */
	cr_assert(rd >= 0);
	char *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "pipe"), NULL, &err), 0, "%s", err);
	free(err);
	char buf[64] = "";
	cr_assert(read(rd, buf, sizeof buf - 1) > 10 && !strncmp(buf, "{\"lbtorus\"", 10), "the summary came through the FIFO: %s",
	          buf);
	close(rd);
	struct stat sb;
	cr_assert(!lstat(p, &sb) && S_ISFIFO(sb.st_mode), "the FIFO was replaced");
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "/dev/null", "--dump", "/dev/null"), NULL, &err), 2,
	                    "the same file twice is refused");
	free(err);
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "/dev/null", "--trace", "/dev/stderr"), NULL, &err), 0,
	             "%s", err);
	cr_assert(strstr(err, "step,shifts,max"), "the trace went to stderr: %s", err);
	free(err);
	cr_assert(!stat("/dev/null", &sb) && S_ISCHR(sb.st_mode), "/dev/null is still a device");
	cr_assert_eq(hidden(dir), 0, "a temporary was left");
	th_rm_tree(dir);
}
