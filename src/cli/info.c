/* info.c — `lbtorus info`: version, ISA targets, threads. */
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli_internal.h"

/* s as a JSON string (the registries' texts: names, forms, examples). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	putchar('"');
}

/* The registries as one JSON object: every method with its loads, flags,
 * kernel slots and parameters, every workload with its form and example. */
static void registries_json(void)
{
	static const struct {
		unsigned flag;
		const char *name;
	} flags[] = {{LBT_M_DETERMINISTIC, "deterministic"}, {LBT_M_RANDOM, "random"}, {LBT_M_SPEEDS, "speeds"},
	             {LBT_M_CUT, "cut"}, {LBT_M_SCRATCH, "scratch"}};
	printf("{\"methods\":[");
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		printf("%s{\"name\":", m == lbt_methods() ? "" : ",");
		json_str((*m)->name);
		printf(",\"load\":\"%s\",\"flags\":[", (*m)->load == LBT_LOAD_REAL ? "real" : "int");
		int n = 0;
		for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
			if ((*m)->flags & flags[i].flag)
				printf("%s\"%s\"", n++ ? "," : "", flags[i].name);
		printf("],\"kernels\":[");
		n = 0;
		for (int i = 0; lbt_kernel_slot_name(i); i++)
			if ((*m)->kernels & (1u << i))
				printf("%s\"%s\"", n++ ? "," : "", lbt_kernel_slot_name(i));
		printf("],\"params\":[");
		for (int i = 0; i < (*m)->nparams; i++) {
			printf("%s{\"name\":", i ? "," : "");
			json_str((*m)->params[i].name);
			printf(",\"default\":");
			json_str((*m)->params[i].def);
			printf("}");
		}
		printf("]}");
	}
	printf("],\"workloads\":[");
	for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
		printf("%s{\"name\":", w == lbt_workloads() ? "" : ",");
		json_str((*w)->name);
		printf(",\"usage\":");
		json_str((*w)->usage);
		printf(",\"example\":");
		json_str((*w)->example);
		printf(",\"tasks\":%s,\"loads\":[", (*w)->tasks ? "true" : "false");
		lbt_workload x; /* which loads its example runs on: what its parse accepts */
		lbt_err e;
		const int i = lbt_workload_parse(&x, (*w)->example, LBT_LOAD_INT, &e) == LBT_OK,
		          r = lbt_workload_parse(&x, (*w)->example, LBT_LOAD_REAL, &e) == LBT_OK;
		printf("%s%s%s]}", i ? "\"int\"" : "", i && r ? "," : "", r ? "\"real\"" : "");
	}
	printf("]}\n");
}

int cmd_info(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: lbtorus info [--json]\n\nPrints the version, the kernel targets compiled in, those this CPU\n"
		       "supports, the one chosen (auto, or $LBTORUS_ISA), the OpenMP thread count\n"
		       "and whether MPI is compiled in (with the rank count when started by mpirun).\n\n"
		       "  --json   instead, the registries as one JSON object: every method (name,\n"
		       "           loads, flags, kernel slots, parameters with their defaults) and\n"
		       "           every workload (name, form, an example spec, whether it is tasks,\n"
		       "           the loads its example runs on)\n");
		return 0;
	}
	const int json = argc == 2 && !strcmp(argv[1], "--json");
	if (argc > 1 && !json)
		return cli_fail(LBT_EINVAL, "info: unexpected argument '%s'", argv[1]);
	if (lbt_comm_rank() != 0)
		return 0; /* under MPI: one rank speaks */
	if (json) {
		registries_json();
		return 0;
	}
	printf("lbtorus %s\n", LBT_VERSION);
	printf("compiled targets: ");
	for (const char *const *t = lbt_isa_compiled(); *t; t++)
		printf("%s%s", *t, t[1] ? " " : "\n");
	printf("supported by this CPU: ");
	int emu = 0;
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		if (lbt_isa_supported(*t))
			printf("%s ", *t);
		emu |= !strcmp(*t, "avx512emu");
	}
	printf("\n");
	if (emu)
		printf("(avx512emu: the AVX-512 kernels emulated with AVX2, for tests; auto never chooses it)\n");
	lbt_kernels k;
	lbt_err err;
	int st = lbt_kernels_select(&k, NULL, &err);
	if (st)
		return cli_fail(st, "%s", err.msg);
	printf("chosen: %s\n", k.isa);
#ifdef _OPENMP
	printf("threads: %d (OpenMP)\n", omp_get_num_procs());
#else
	printf("threads: 1 (built without OpenMP)\n");
#endif
	if (lbt_comm_mpi())
		printf("mpi: yes (ranks: %d)\n", lbt_comm_size());
	else
		printf("mpi: no (built without MPI)\n");
	return 0;
}
