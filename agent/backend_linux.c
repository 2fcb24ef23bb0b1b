/* Placeholder: replaced by the real linux backend. */
#include "collector.h"
static int collect_linux(const struct collect_opts *o, struct report *r) { (void)o; report_add_error(r, "linux", "backend not built"); return -1; }
const struct backend backend_linux = { "linux", collect_linux };
