/*
 * httpget: the benchmarks' load generator.  GETs one URL N times over one
 * kept-alive connection (after W warm-up requests) and prints the latency
 * distribution in microseconds:  "n=N median_us=M p90_us=P p99_us=Q bytes=B".
 *   httpget URL N [W]
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static size_t
sink(char *p, size_t sz, size_t n, void *arg)
{
	(void)p;
	*(size_t *)arg += sz * n;
	return sz * n;
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: httpget URL N [WARMUP]\n");
		return 2;
	}
	int n = atoi(argv[2]), warm = argc > 3 ? atoi(argv[3]) : 5;
	double *lat = calloc((size_t)n, sizeof(double));
	size_t bytes = 0;
	CURL *c = curl_easy_init();

	if (n <= 0 || lat == NULL || c == NULL)
		return 2;
	curl_easy_setopt(c, CURLOPT_URL, argv[1]);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &bytes);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	for (int i = 0; i < warm + n; i++) {
		long code = 0;
		bytes = 0;
		double t0 = now_us();
		if (curl_easy_perform(c) != CURLE_OK)
			return 1;
		double t1 = now_us();
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code != 200)
			return 1;
		if (i >= warm)
			lat[i - warm] = t1 - t0;
	}
	qsort(lat, (size_t)n, sizeof(double), cmp);
	printf("n=%d median_us=%.1f p90_us=%.1f p99_us=%.1f bytes=%zu\n", n, lat[n / 2],
	    lat[n * 9 / 10], lat[n * 99 / 100], bytes);
	curl_easy_cleanup(c);
	free(lat);
	return 0;
}
