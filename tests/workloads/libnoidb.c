/*
 * A shared object without a build-id, standing in for a vDSO image that
 * has none (tests/analyze/test_report_pprof.c): its one function at the
 * same address as libnoida.so's, which has another name.
 */
int pa_noid_bravo(int x);

int pa_noid_bravo(int x)
{
	return x * 3 + 1;
}
