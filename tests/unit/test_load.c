/* SPDX-License-Identifier: MIT */
/* test_load.c - emp-load's pieces: the route mix (load/mix.c) and HTTP response framing (load/http.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "http.h"
#include "mix.h"

static int parse(const char *spec, struct emp_mix *m, char *err)
{
	return emp_mix_parse(m, spec, err, 200);
}

Test(mix, sequence_is_smooth_and_exact)
{
	struct emp_mix m;
	char err[200];
	cr_assert_eq(parse("cheap:70,alloc:20,cpu:10", &m, err), 0);
	cr_assert_eq(m.n, 3);
	cr_assert_str_eq(m.path[1], "/alloc");
	int count[3] = { 0 };
	char seq[11] = "";
	for (int i = 0; i < 100; i++) {
		size_t k = emp_mix_next(&m);
		count[k]++;
		if (i < 10)
			seq[i] = "cap"[k];
	}
	cr_assert_eq(count[0], 70);
	cr_assert_eq(count[1], 20);
	cr_assert_eq(count[2], 10);
	/* By hand: credits 70,20,10 -> c (-30,20,10); 40,40,20 -> c (first on a tie); 10,60,30 -> a; 80,-20,40 -> c;
	 * 50,0,50 -> c; 20,20,60 -> p; ...  java-sut's Mix.next() follows the same rule. */
	cr_assert_str_eq(seq, "ccaccpccac", "got %s", seq);
}

Test(mix, errors)
{
	struct emp_mix m;
	char err[200];
	cr_assert_eq(parse("cheap", &m, err), -EINVAL);
	cr_assert_str_eq(err, "--mix: expected route:weight,... (e.g. cheap:70,alloc:20,cpu:10), got 'cheap'");
	cr_assert_eq(parse("cheap:1,cheap:2", &m, err), -EINVAL);
	cr_assert_str_eq(err, "--mix: route 'cheap' given twice");
	cr_assert_eq(parse("cheap:x", &m, err), -EINVAL);
	cr_assert_str_eq(err, "--mix: weight of 'cheap' must be an integer 0..1000000, got 'x'");
	cr_assert_eq(parse("cheap:0", &m, err), -EINVAL);
	cr_assert_str_eq(err, "--mix: the weights add up to 0");
	cr_assert_eq(parse("a/b:1", &m, err), -EINVAL);
	cr_assert_eq(parse("cheap:1,", &m, err), -EINVAL);
	cr_assert_eq(parse("cheap:1000001", &m, err), -EINVAL);
}

static int http(const char *s, struct emp_http_response *r)
{
	return emp_http_parse(s, strlen(s), r);
}

Test(http, framing)
{
	struct emp_http_response r;
	const char *ok = "HTTP/1.1 200 OK\r\nDate: x\r\ncontent-length: 5\r\n\r\nhello";
	size_t n = strlen(ok);
	for (size_t cut = 0; cut < n; cut++)
		cr_assert_eq(emp_http_parse(ok, cut, &r), 0, "cut at %zu", cut);
	cr_assert_eq(http(ok, &r), 1);
	cr_assert_eq(r.status, 200);
	cr_assert_eq(r.length, n);
	cr_assert_eq(r.close, 0);
	cr_assert_eq(http("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", &r), 1);
	cr_assert_eq(r.status, 404);
	cr_assert_eq(r.close, 1);
	cr_assert_eq(http("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", &r), 1);
	cr_assert_eq(r.close, 1);
	cr_assert_eq(http("HTTP/1.1 204 No Content\r\n\r\n", &r), 1);
	cr_assert_eq(r.length, strlen("HTTP/1.1 204 No Content\r\n\r\n"));
}

Test(http, refused)
{
	struct emp_http_response r;
	cr_assert_eq(http("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", &r), -1);
	cr_assert_eq(http("HTTP/1.1 200 OK\r\n\r\n", &r), -1);
	cr_assert_eq(http("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", &r), -1);
	cr_assert_eq(http("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", &r), -1);
	cr_assert_eq(http("HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n", &r), -1);
	cr_assert_eq(http("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", &r), -1);
	cr_assert_eq(http("HTTP/1.1 999 OK\r\nContent-Length: 0\r\n\r\n", &r), -1);
	cr_assert_eq(http("SSH-2.0-OpenSSH\r\n\r\n", &r), -1);
}
