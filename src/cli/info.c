/* info.c — `lbtorus info`: version, ISA targets, threads. */
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"

int cmd_info(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: lbtorus info\n\nPrints the version, the kernel targets compiled in, those this CPU\n"
		       "supports, the one chosen (auto, or $LBTORUS_ISA), the OpenMP thread count\n"
		       "and whether MPI is compiled in (with the rank count when started by mpirun).\n");
		return 0;
	}
	if (argc > 1)
		return cli_fail(LBT_EINVAL, "info: unexpected argument '%s'", argv[1]);
	if (lbt_comm_rank() != 0)
		return 0; /* under MPI: one rank speaks */
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
