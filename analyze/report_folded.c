/* report_folded: folded stacks; see report_folded.h. */
#include "report_folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

int pa_report_folded(FILE *out, const struct pa_profile *prof)
{
	for (size_t i = 0; i < prof->nstacks; i++) {
		char *s = pa_stack_fold(&prof->stacks[i]);

		if (!s)
			return -ENOMEM;
		fprintf(out, "%s %" PRIu64 "\n", s, prof->stacks[i].count);
		free(s);
	}
	return ferror(out) ? -EIO : 0;
}
