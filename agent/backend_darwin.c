/* Placeholder: replaced by the real darwin backend. */
#include "collector.h"
static int collect_darwin(const struct collect_opts *o, struct report *r) { (void)o; report_add_error(r, "darwin", "backend not built"); return -1; }
const struct backend backend_darwin = { "darwin", collect_darwin };
