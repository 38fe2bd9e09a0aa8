/* progress.c — the progress line of a run on stderr (run, demo): a line
 * rewritten in place on a terminal, or with --progress SECONDS a whole line
 * every that many seconds wherever stderr goes, with the rate and an ETA. */
#include <getopt.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

double cli_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cli_progress_init(cli_progress *p, int enabled, int64_t pes, int active_dims)
{
	p->on = enabled && isatty(2);
	p->every = 0;
	p->start = p->last = cli_seconds();
	p->pes = pes;
	p->active = active_dims;
}

void cli_progress_force(cli_progress *p, double every, int64_t target, int target_is_cap)
{
	p->on = 1;
	p->every = every;
	p->target = target;
	p->target_is_cap = target_is_cap;
}

int cli_progress_option(int argc, char **argv, double *every)
{
	const char *v = optarg;
	if (!v && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
		v = argv[optind++];
	*every = 60;
	return v ? cli_real("--progress", v, 0, 86400, 1, every) : 0;
}

void cli_progress_step(cli_progress *p, const lbt_record *r)
{
	if (p->on && p->every > 0) { /* a whole line every `every` seconds */
		double t = cli_seconds();
		if (t - p->last < p->every)
			return;
		p->last = t;
		double rate = r->step / (t - p->start);
		char el[32], eta[32] = "?";
		cli_hms(el, sizeof el, t - p->start);
		if (rate > 0 && p->target > r->step)
			cli_hms(eta, sizeof eta, (double)(p->target - r->step) / rate);
		fprintf(stderr, "lbtorus: step %lld  ldiff %.10g  %.3g steps/s  %.3g site updates/s  elapsed %s  ETA %s%s\n",
		        (long long)r->step, r->max - r->min, rate, rate * (double)(p->pes * p->active), el,
		        p->target_is_cap ? "<= " : "", eta);
		return;
	}
	if (!p->on || (r->step & 63))
		return;
	double t = cli_seconds();
	if (t - p->last < 0.25)
		return;
	p->last = t;
	double rate = (double)r->step * (double)(p->pes * p->active) / (t - p->start);
	fprintf(stderr, "\r  step %lld  max %.10g  min %.10g  ldiff %.10g  %.3g site updates/s  %.1f s ",
	        (long long)r->step, r->max, r->min, r->max - r->min, rate, t - p->start);
}

void cli_progress_done(cli_progress *p)
{
	if (p->on && !p->every && p->last > p->start)
		fputs("\r\033[K", stderr);
}
