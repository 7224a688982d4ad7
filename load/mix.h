/* SPDX-License-Identifier: MIT */
/* mix.h - emp-load's route mix (--mix cheap:70,alloc:20,cpu:10) and its deterministic request sequence:
 * smooth weighted round robin, the same rule as java-sut's emp.sut.Mix, so emp-load and the server's in-process
 * generator send the same sequence for the same mix. */
#ifndef EMP_MIX_H
#define EMP_MIX_H

#include <stddef.h>
#include <stdint.h>

#define EMP_MIX_MAX 16

struct emp_mix {
	size_t n;
	char path[EMP_MIX_MAX][64]; /* "/cheap" */
	int64_t weight[EMP_MIX_MAX];
	int64_t credit[EMP_MIX_MAX];
	int64_t total;
};

/* emp_mix_parse - parse "name:weight,..." (names [A-Za-z0-9_.-], 1…48 characters, each once; weights 0…10^6,
 * not all 0) into @m.  Return: 0, or -EINVAL with a one-line reason in @err (size @errlen). */
int emp_mix_parse(struct emp_mix *m, const char *spec, char *err, size_t errlen);

/* emp_mix_next - the index of the next request's route: every route's credit grows by its weight, the largest
 * credit wins (the first on a tie) and loses the total weight. */
size_t emp_mix_next(struct emp_mix *m);

#endif /* EMP_MIX_H */
