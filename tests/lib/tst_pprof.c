/* tst_pprof_decode (tst_run.h): a pprof report, gunzip'd and decoded. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "eventinfo.h"
#include "profile.pb-c.h"
#include "report.h"
#include "tst_run.h"

/* gunzip len bytes of gz into a malloc'd buffer; its size in *size. */
static uint8_t *tst_gunzip(const char *gz, size_t len, size_t *size)
{
	z_stream z = { .next_in = (Bytef *)gz, .avail_in = (uInt)len };
	size_t cap = 1 << 16;
	uint8_t *buf = malloc(cap);
	int zr = Z_OK;

	cr_assert(buf);
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK, "gzip only");
	while (zr == Z_OK) {
		if (z.total_out == cap) {
			buf = realloc(buf, cap *= 2);
			cr_assert(buf);
		}
		z.next_out = buf + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
	}
	cr_assert_eq(zr, Z_STREAM_END, "not a whole gzip stream: %d", zr);
	cr_assert_eq(z.avail_in, 0, "bytes after the gzip stream");
	*size = z.total_out;
	inflateEnd(&z);
	return buf;
}

Perftools__Profiles__Profile *tst_pprof_decode(const struct pa_run *run, const char *event)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	size_t len, size;
	char *gz;
	uint8_t *raw;
	Perftools__Profiles__Profile *p;

	cr_assert_eq(pa_events_choose(run, &f, event, PA_EVENTS_SAMPLES, &err), 0, "%s",
		     err.reason);
	gz = tst_run_report(&pa_report_pprof, run, &f, NULL, &len);
	raw = tst_gunzip(gz, len, &size);
	p = perftools__profiles__profile__unpack(NULL, size, raw);
	cr_assert_not_null(p, "protobuf-c cannot decode the profile");
	free(raw);
	free(gz);
	return p;
}
