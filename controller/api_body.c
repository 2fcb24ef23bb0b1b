/* See api_body.h. */
#include "api_body.h"

#include <cjson/cJSON.h>

#include "json_dec.h"

int
api_body_none(struct api_req *rq, struct api_resp *rs)
{
	struct json_dec d;
	char err[256];
	cJSON *root = NULL;
	int rc = 0;

	if (rq->body_len == 0)
		return 0;
	json_dec_init(&d, err, sizeof(err));
	if (json_dec_parse(&d, rq->body, rq->body_len, API_BODY_MAX, 1, &root) == -1) {
		api_error(rs, 400, "%s", err);
		rc = -1;
	} else if (root->child != NULL) {
		api_error(rs, 400, "%.64s: this request takes no fields (send no body, or {})",
		    root->child->string);
		rc = -1;
	}
	cJSON_Delete(root);
	return rc;
}
