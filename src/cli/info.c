/* info.c — `lbtorus info`: version, ISA targets, threads. */
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"

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

/* A JSON array of the names whose bit is set in mask, name i bit i. */
static void json_names(const char *const *name, unsigned mask)
{
	int n = 0;
	putchar('[');
	for (int i = 0; name[i]; i++)
		if (mask & (1u << i)) {
			printf("%s", n++ ? "," : "");
			json_str(name[i]);
		}
	putchar(']');
}

/* The registries as one JSON object: every method with its loads, flags,
 * kernel slots and parameters, every workload with its form and example. */
static void registries_json(void)
{
	static const char *const flag[] = {"deterministic", "random", "speeds", "cut", "scratch", NULL};
	printf("{\"methods\":[");
	lbt_method_info m;
	for (int i = 0; !lbt_method_describe(i, &m); i++) {
		printf("%s{\"name\":", i ? "," : "");
		json_str(m.name);
		printf(",\"load\":\"%s\",\"flags\":", m.real ? "real" : "int");
		json_names(flag, (unsigned)m.deterministic | (unsigned)m.random << 1 | (unsigned)m.speeds << 2 |
		                 (unsigned)m.cut << 3 | (unsigned)m.scratch << 4);
		printf(",\"kernels\":");
		json_names(m.slot, m.kernels);
		printf(",\"params\":[");
		lbt_param_info p;
		for (int j = 0; !lbt_param_describe(i, j, &p); j++) {
			printf("%s{\"name\":", j ? "," : "");
			json_str(p.name);
			printf(",\"default\":");
			json_str(p.def);
			printf("}");
		}
		printf("]}");
	}
	printf("],\"workloads\":[");
	lbt_workload_info w;
	for (int i = 0; !lbt_workload_describe(i, &w); i++) {
		printf("%s{\"name\":", i ? "," : "");
		json_str(w.name);
		printf(",\"usage\":");
		json_str(w.usage);
		printf(",\"example\":");
		json_str(w.example);
		printf(",\"tasks\":%s,\"loads\":", w.tasks ? "true" : "false");
		json_names((const char *const[]){"int", "real", NULL}, (unsigned)w.int_loads | (unsigned)w.real_loads << 1);
		printf("}");
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
	lbt_isa_info t;
	int chosen = -1, emu = 0;
	printf("compiled targets: ");
	for (int i = 0; !lbt_isa_describe(i, &t); i++)
		printf("%s%s", i ? " " : "", t.name);
	printf("\nsupported by this CPU: ");
	for (int i = 0; !lbt_isa_describe(i, &t); i++) {
		if (t.supported)
			printf("%s ", t.name);
		emu |= t.emulated;
		chosen = t.chosen ? i : chosen;
	}
	printf("\n");
	if (emu)
		printf("(avx512emu: the AVX-512 kernels emulated with AVX2, for tests; auto never chooses it)\n");
	if (chosen < 0) { /* LBTORUS_ISA names one this build or CPU lacks: a run says which */
		lbt_config c = lbt_config_default();
		c.shape = "2";
		lbt_err err;
		int st = lbt_config_check(&c, &err);
		return cli_fail(st ? st : LBT_EINTERNAL, "%s", st ? err.msg : "info: no ISA target chosen");
	}
	lbt_isa_describe(chosen, &t);
	printf("chosen: %s\n", t.name);
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
