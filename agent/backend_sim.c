/* Placeholder: replaced by the real sim backend. */
#include "collector.h"
static int collect_sim(const struct collect_opts *o, struct report *r) { (void)o; report_add_error(r, "sim", "backend not built"); return -1; }
const struct backend backend_sim = { "sim", collect_sim };
