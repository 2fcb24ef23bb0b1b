/* See api_body.h. */
#include "api_body.h"

#include "json_dec.h"

int
api_body_none(struct api_req *rq, struct api_resp *rs)
{
	char err[256];

	if (json_dec_no_fields(rq->body, rq->body_len, API_BODY_MAX, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return -1;
	}
	return 0;
}
