/* net.h — the time model of Jeannot and Vernier (2006) that the speed
 * methods' reference and vector kernels both evaluate, once, so their bits
 * agree by construction (lbt_net: src/include/lbtorus/kernels.h). */
#ifndef LBTORUS_KERNELS_NET_H
#define LBTORUS_KERNELS_NET_H

#include <math.h>

#include "lbtorus/kernels.h"

/* §3.1: the seconds an exchange of |x| load units costs on a link. */
static inline double lbt_net_cost(const lbt_net *n, double x)
{
	x = fabs(x);
	return x * n->pack_s + n->lat + x * n->unit_bytes / n->bw;
}

/* Eq. (2): the pair's computation time before minus after moving x >= 0
 * from s (load ws, speed cs) to r (wr, cr). */
static inline double lbt_net_benefit(const lbt_net *n, double ws, double cs, double wr, double cr, double x)
{
	double before = fmax(ws / cs, wr / cr), after = fmax((ws - x) / cs, (wr + x) / cr);
	return (before - after) * n->unit_s;
}

#endif
