/*
 * The inventory's schema and its migrations, and the checks made when a file
 * is opened.
 *
 * The file is marked with PRAGMA application_id (INV_APP_ID) and its schema
 * version is PRAGMA user_version: 0 for a new file, n once migrations[0..n-1]
 * are applied.  Each migration runs in its own transaction together with the
 * user_version update, so a crash leaves the file at one version or the
 * next, never between.  To change the schema, append a migration; never edit
 * one that has shipped.
 *
 * Schema (version 11: the tables below, and what migrations 3 to 11 add,
 * described at each; node_ssh, ssh_credentials, rollouts, rollout_nodes and
 * rollout_log of 6 also in inventory_rollout.c, jobs and job_ranks of 11 and 12
 * in inventory_jobs.c).  Times are unix seconds
 * (REAL).  NULL is "unknown" or "none" everywhere: the report's NAN,
 * REPORT_NULL_I64 and "" map to NULL.
 * Enumerations are stored as the API spells them ("ready", "enabled",
 * "bootstrap"); the code validates them, so a new value needs no table
 * rebuild.
 *
 *   clusters  id, name UNIQUE, created_at
 *   nodes     id, name UNIQUE, hardware_uuid UNIQUE, cluster_id -> clusters
 *             (ON DELETE SET NULL), state, reason, unexpected_reboot (0/1),
 *             the summary of the latest report (serial, model, chip,
 *             os_version, os_build, rdma, memory_total, memory_used =
 *             total - free, power_watts = power.system_watts, boot_time =
 *             the last one known), last_report_at, enrolled_at, report_json
 *             (the last column of version 1, so that listing nodes never
 *             reads its overflow pages), samples_pending and
 *             samples_pending_n (9: the newest samples and their count,
 *             until they go to samples; inventory_db.h)
 *   samples   node_id -> nodes (ON DELETE CASCADE), t, memory_used,
 *             memory_total, power_watts, link_speeds ("2:80,3:40": receptacle
 *             and negotiated Gb/s of the ports whose speed is known);
 *             PRIMARY KEY (node_id, t) WITHOUT ROWID, so that a node's
 *             history is one range of the table, storing a sample updates
 *             one b-tree (not a table and two indexes), and pruning deletes
 *             one range per node (version 1 had a rowid table indexed on
 *             (node_id, t) and on t)
 *   tokens    id (the 12 hex digits of "tbm_<id>_<secret>") PRIMARY KEY, role,
 *             hash (SHA-256 of the secret, 32 bytes), cluster, node (names,
 *             not keys: a token outlives what it names), label, created_at,
 *             expires_at, used_at, revoked (0/1)
 *   events    id INTEGER PRIMARY KEY (insertion order), time, actor, node (a
 *             name, kept after the node is removed), what, reason; indexed on
 *             (node, id) and on time
 *   cluster_wiring  cluster_id -> clusters (ON DELETE CASCADE) PRIMARY KEY,
 *             topology ("mesh", "ring", "plan"), plan_dot (the plan as DOT,
 *             for "plan"), updated_at; no row: a full mesh
 *   models    name PRIMARY KEY, json (a catalog model, validated), added_at:
 *             the models added through POST /v1/models
 *   placements  id INTEGER PRIMARY KEY AUTOINCREMENT (never reused), model
 *             ("MODEL:QUANT"), cluster, strategy, state ("active" or
 *             "degraded"), reason (why degraded), created_at, plan_json,
 *             rollout_id (the OS update campaign that stopped it; NULL none)
 *   placement_nodes  placement_id -> placements (ON DELETE CASCADE), node (a
 *             name), bytes held there; PRIMARY KEY (placement_id, node),
 *             indexed on node
 */
#include "inventory_db.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"

#define INV_APP_ID 1413631315   /* 0x54424d53, "TBMS" */
#define STR(x) #x
#define XSTR(x) STR(x)
#define INV_BUSY_MS 5000
#define INV_CACHE_KIB 65536   /* 64 MiB: the pages of ~10,000 nodes and their samples */

static const char *const migrations[] = {
	/* 1: the initial schema. */
	"PRAGMA application_id = " XSTR(INV_APP_ID) ";"
	"CREATE TABLE clusters ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  created_at REAL NOT NULL);"
	"CREATE TABLE nodes ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  hardware_uuid TEXT NOT NULL UNIQUE,"
	"  cluster_id INTEGER REFERENCES clusters(id) ON DELETE SET NULL,"
	"  state TEXT NOT NULL,"
	"  reason TEXT,"
	"  unexpected_reboot INTEGER NOT NULL DEFAULT 0,"
	"  serial TEXT, model TEXT, chip TEXT, os_version TEXT, os_build TEXT,"
	"  rdma TEXT,"
	"  memory_total INTEGER, memory_used INTEGER, power_watts REAL,"
	"  boot_time REAL,"
	"  last_report_at REAL,"
	"  enrolled_at REAL NOT NULL,"
	"  report_json TEXT);"
	"CREATE INDEX nodes_cluster ON nodes(cluster_id);"
	"CREATE TABLE samples ("
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  t REAL NOT NULL,"
	"  memory_used INTEGER, memory_total INTEGER, power_watts REAL,"
	"  link_speeds TEXT);"
	"CREATE INDEX samples_node_t ON samples(node_id, t);"
	"CREATE INDEX samples_t ON samples(t);"
	"CREATE TABLE tokens ("
	"  id TEXT PRIMARY KEY NOT NULL,"
	"  role TEXT NOT NULL,"
	"  hash BLOB NOT NULL CHECK (length(hash) = 32),"
	"  cluster TEXT, node TEXT, label TEXT,"
	"  created_at REAL NOT NULL,"
	"  expires_at REAL,"
	"  used_at REAL,"
	"  revoked INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX tokens_node ON tokens(node) WHERE node IS NOT NULL;"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  time REAL NOT NULL,"
	"  actor TEXT NOT NULL,"
	"  node TEXT,"
	"  what TEXT NOT NULL,"
	"  reason TEXT);"
	"CREATE INDEX events_node_id ON events(node, id);"
	"CREATE INDEX events_time ON events(time);",

	/* 2: samples clustered by (node_id, t), without the two indexes. */
	"CREATE TABLE samples_v2 ("
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  t REAL NOT NULL,"
	"  memory_used INTEGER, memory_total INTEGER, power_watts REAL,"
	"  link_speeds TEXT,"
	"  PRIMARY KEY (node_id, t)) WITHOUT ROWID;"
	"INSERT OR REPLACE INTO samples_v2 (node_id, t, memory_used, memory_total, "
	"  power_watts, link_speeds) SELECT node_id, t, memory_used, memory_total, "
	"  power_watts, link_speeds FROM samples ORDER BY rowid;"
	"DROP TABLE samples;"
	"ALTER TABLE samples_v2 RENAME TO samples;",

	/*
	 * 3: zero-touch enrolment.  tokens.accept (a bootstrap token whose nodes
	 * are accepted at enrolment), tokens.pending (a node token of a
	 * re-enrolment not yet accepted), nodes.accepted (accepted, ready at its
	 * next healthy report), cluster_allow (serials accepted at enrolment,
	 * per cluster) and enrol_requests (a pending re-enrolment: its token and
	 * its latest report, kept apart from the node's record).
	 */
	"ALTER TABLE tokens ADD COLUMN accept INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE tokens ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE nodes ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE cluster_allow ("
	"  cluster_id INTEGER NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,"
	"  serial TEXT NOT NULL,"
	"  PRIMARY KEY (cluster_id, serial)) WITHOUT ROWID;"
	"CREATE TABLE enrol_requests ("
	"  token_id TEXT PRIMARY KEY NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,"
	"  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,"
	"  requested_at REAL NOT NULL,"
	"  received_at REAL NOT NULL,"
	"  report_json TEXT NOT NULL);"
	"CREATE INDEX enrol_requests_node ON enrol_requests(node_id);",
	/* 4: each cluster's expected topology and cabling plan. */
	"CREATE TABLE cluster_wiring ("
	"  cluster_id INTEGER PRIMARY KEY REFERENCES clusters(id) ON DELETE CASCADE,"
	"  topology TEXT NOT NULL,"
	"  plan_dot TEXT,"
	"  updated_at REAL NOT NULL);",
	/* 5: models added through the API (the catalog file holds
	 * the shipped ones), placements applied, and the bytes each holds on each
	 * of its nodes (names, not keys: a placement outlives a removed node). */
	"CREATE TABLE models ("
	"  name TEXT PRIMARY KEY,"
	"  json TEXT NOT NULL,"
	"  added_at REAL NOT NULL);"
	"CREATE TABLE placements ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  model TEXT NOT NULL,"
	"  cluster TEXT NOT NULL,"
	"  strategy TEXT NOT NULL,"
	"  state TEXT NOT NULL,"
	"  reason TEXT,"
	"  created_at REAL NOT NULL,"
	"  plan_json TEXT NOT NULL);"
	"CREATE TABLE placement_nodes ("
	"  placement_id INTEGER NOT NULL REFERENCES placements(id) ON DELETE CASCADE,"
	"  node TEXT NOT NULL,"
	"  bytes INTEGER NOT NULL,"
	"  PRIMARY KEY (placement_id, node)) WITHOUT ROWID;"
	"CREATE INDEX placement_nodes_node ON placement_nodes(node);",
	/* 6: SSH access per node (address, user, pinned host key), who owns
	 * each node's or cluster's update credentials (the password is kept
	 * outside the inventory), and OS update campaigns: their nodes' steps
	 * and a log of every step's start and end. */
	"CREATE TABLE node_ssh ("
	"  node TEXT PRIMARY KEY NOT NULL,"
	"  host TEXT NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  user TEXT NOT NULL,"
	"  host_key TEXT,"
	"  trusted_at REAL);"
	"CREATE TABLE ssh_credentials ("
	"  scope TEXT PRIMARY KEY NOT NULL,"
	"  user TEXT NOT NULL,"
	"  set_at REAL NOT NULL);"
	"CREATE TABLE rollouts ("
	"  id INTEGER PRIMARY KEY,"
	"  cluster TEXT NOT NULL,"
	"  target TEXT NOT NULL,"
	"  label TEXT,"
	"  mode TEXT NOT NULL,"
	"  max_unavailable INTEGER NOT NULL,"
	"  window_start INTEGER, window_end INTEGER,"
	"  state TEXT NOT NULL,"
	"  reason TEXT,"
	"  created_at REAL NOT NULL,"
	"  updated_at REAL NOT NULL);"
	"CREATE TABLE rollout_nodes ("
	"  rollout_id INTEGER NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,"
	"  ord INTEGER NOT NULL,"
	"  node TEXT NOT NULL,"
	"  step TEXT NOT NULL,"
	"  running INTEGER NOT NULL DEFAULT 0,"
	"  since REAL,"
	"  cordoned_before INTEGER,"
	"  cordoned_by_us INTEGER NOT NULL DEFAULT 0,"
	"  boot_before REAL,"
	"  wired_before INTEGER,"
	"  links_before INTEGER,"
	"  failed_step TEXT,"
	"  last_line TEXT,"
	"  reason TEXT,"
	"  PRIMARY KEY (rollout_id, ord)) WITHOUT ROWID;"
	"CREATE TABLE rollout_log ("
	"  id INTEGER PRIMARY KEY,"
	"  rollout_id INTEGER NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,"
	"  node TEXT NOT NULL,"
	"  step TEXT NOT NULL,"
	"  phase TEXT NOT NULL,"
	"  time REAL NOT NULL,"
	"  status INTEGER,"
	"  output TEXT);"
	"CREATE INDEX rollout_log_rollout ON rollout_log(rollout_id, id);",

	/* 7: provisioning runs (tbctl node add / node deprovision), their
	 * preflight lines and every step's outcome (inventory_prov.c). */
	"CREATE TABLE provisions ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  host TEXT NOT NULL,"
	"  port INTEGER NOT NULL,"
	"  user TEXT,"
	"  key_file TEXT,"
	"  node TEXT,"
	"  cluster TEXT,"
	"  state TEXT NOT NULL,"
	"  dry_run INTEGER NOT NULL,"
	"  fingerprint TEXT,"
	"  failed_step TEXT,"
	"  reason TEXT,"
	"  manual TEXT,"
	"  started_at REAL NOT NULL,"
	"  finished_at REAL);"
	"CREATE INDEX provisions_node ON provisions(node, id);"
	"CREATE TABLE provision_lines ("
	"  provision_id INTEGER NOT NULL REFERENCES provisions(id) ON DELETE CASCADE,"
	"  ord INTEGER NOT NULL,"
	"  what TEXT NOT NULL,"
	"  verdict TEXT NOT NULL,"
	"  text TEXT NOT NULL,"
	"  PRIMARY KEY (provision_id, ord)) WITHOUT ROWID;"
	"CREATE TABLE provision_steps ("
	"  provision_id INTEGER NOT NULL REFERENCES provisions(id) ON DELETE CASCADE,"
	"  ord INTEGER NOT NULL,"
	"  step TEXT NOT NULL,"
	"  title TEXT,"
	"  outcome TEXT NOT NULL,"
	"  command TEXT,"
	"  detail TEXT,"
	"  PRIMARY KEY (provision_id, ord)) WITHOUT ROWID;",
	/* 8: the OS update campaign that stopped a placement (drain, or
	 * lockstep's stop before any node updates), so that the campaign's end
	 * restores it, after a controller restart too; NULL when none. */
	"ALTER TABLE placements ADD COLUMN rollout_id INTEGER;",
	/* 9: a node's newest samples, kept in its row until there are
	 * INV_SAMPLES_PENDING of them (inventory_db.h).  Two statements, one
	 * migration: the parentheses tell clang the literals join on purpose. */
	("ALTER TABLE nodes ADD COLUMN samples_pending TEXT;"
	 "ALTER TABLE nodes ADD COLUMN samples_pending_n INTEGER;"),
	/* 10: when a rollout sent softwareupdate --install to a node (NULL
	 * not sent), written before the command goes out, so that a
	 * controller restarted during an install waits for it instead of
	 * sending a second one (rollout_steps.c). */
	"ALTER TABLE rollout_nodes ADD COLUMN install_at REAL;",
	/* 11: jobs (a model run from a placement) and their ranks
	 * (inventory_jobs.c).  placement_id is not a key: a job outlives a
	 * removed placement.  want is what the operator asked ("run",
	 * "stop"); start_sent_at is written before a rank's start goes out,
	 * so that a controller killed meanwhile stops what it may have
	 * started. */
	("CREATE TABLE jobs ("
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	 "  placement_id INTEGER NOT NULL,"
	 "  model TEXT, cluster TEXT, backend TEXT,"
	 "  state TEXT NOT NULL,"
	 "  reason TEXT,"
	 "  want TEXT NOT NULL DEFAULT 'run',"
	 "  generation INTEGER NOT NULL DEFAULT 0,"
	 "  restarts INTEGER NOT NULL DEFAULT 0,"
	 "  restart_policy TEXT NOT NULL,"
	 "  max_restarts INTEGER NOT NULL,"
	 "  port INTEGER NOT NULL,"
	 "  python TEXT NOT NULL,"
	 "  endpoint TEXT,"
	 "  created_at REAL NOT NULL,"
	 "  started_at REAL, probe_ok_at REAL,"
	 "  updated_at REAL NOT NULL);"
	 "CREATE INDEX jobs_placement ON jobs(placement_id);"
	 "CREATE TABLE job_ranks ("
	 "  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
	 "  rank INTEGER NOT NULL,"
	 "  node TEXT NOT NULL,"
	 "  host TEXT,"
	 "  pid INTEGER, started_at REAL, start_sent_at REAL,"
	 "  alive INTEGER, cpu_seconds REAL, rss_bytes INTEGER, seen_at REAL,"
	 "  PRIMARY KEY (job_id, rank)) WITHOUT ROWID;"),
	/* 12: a job's replan policy ("never", "auto") and how many times it
	 * moved to a new placement; who read a rank's process ("agent": its
	 * node's report, "ssh": ps over SSH). */
	("ALTER TABLE jobs ADD COLUMN replan TEXT NOT NULL DEFAULT 'never';"
	 "ALTER TABLE jobs ADD COLUMN replans INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE job_ranks ADD COLUMN seen_by TEXT;"),
};

#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int
inv_schema_latest(void)
{
	return N_MIGRATIONS;
}

/* Run a statement that returns one integer (a pragma, a count). */
static int
query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL)) != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(s, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

/* Run a pragma that answers with one text value and compare it. */
static int
pragma_text_is(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *s = NULL;
	int ok = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);
		ok = v != NULL && strcasecmp(v, want) == 0;
	}
	sqlite3_finalize(s);
	return ok;
}

/*
 * Is this file a tbmesh inventory (or empty) of a version we know?  Sets
 * *version.  The first read of the file is here, so a file that is not a
 * SQLite database is found here.
 */
static int
check_file(sqlite3 *db, const char *path, int *version, char *err, size_t errlen)
{
	int64_t app = 0, ver = 0, tables = 0;
	int rc;

	rc = query_int(db, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = query_int(db, "PRAGMA user_version", &ver);
	if (rc == SQLITE_OK)
		rc = query_int(db, "SELECT count(*) FROM sqlite_master", &tables);
	if ((rc & 0xff) == SQLITE_NOTADB) {
		snprintf(err, errlen, "%s is not a SQLite database", path);
		return -1;
	}
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot read %s: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	if ((app != 0 && app != INV_APP_ID) || (app == 0 && (ver != 0 || tables != 0))) {
		snprintf(err, errlen, "%s is a SQLite database but not a tbmesh inventory",
		    path);
		return -1;
	}
	if (ver > N_MIGRATIONS) {
		snprintf(err, errlen, "%s has inventory schema version %lld, newer than "
		    "the %d this program knows: use a newer tbcontrollerd", path,
		    (long long)ver, N_MIGRATIONS);
		return -1;
	}
	*version = (int)ver;
	return 0;
}

/*
 * WAL, durable commits, foreign keys, and a page cache of INV_CACHE_KIB
 * (SQLite's default is 2 MiB: with thousands of nodes, whose rows take a
 * page each, storing a report would read its page back from the file
 * every time): per connection, outside transactions.
 */
static int
set_pragmas(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	int64_t fk = 0;

	if (!pragma_text_is(db, "PRAGMA journal_mode = WAL", "wal")) {
		snprintf(err, errlen, "%s: cannot use write-ahead logging: %s", path,
		    sqlite3_errmsg(db));
		return -1;
	}
	if (sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
	    "PRAGMA cache_size = -" XSTR(INV_CACHE_KIB), NULL, NULL, NULL) != SQLITE_OK ||
	    query_int(db, "PRAGMA foreign_keys", &fk) != SQLITE_OK || fk != 1) {
		snprintf(err, errlen, "%s: cannot enable durability and foreign keys: %s",
		    path, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/*
 * Apply migration v (1-based) in its own transaction, unless another
 * process applied it meanwhile.
 */
static int
migrate_to(sqlite3 *db, int v, char *err, size_t errlen)
{
	char sql[64];
	char *msg = NULL;
	int64_t cur = 0;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	if (query_int(db, "PRAGMA user_version", &cur) != SQLITE_OK)
		goto fail;
	if (cur < v) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
		if (sqlite3_exec(db, migrations[v - 1], NULL, NULL, &msg) != SQLITE_OK ||
		    sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "schema migration %d failed: %s", v,
	    msg != NULL ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
inv_schema_setup(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	int version = 0;

	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, INV_BUSY_MS);
	if (check_file(db, path, &version, err, errlen) == -1)
		return -1;
	if (set_pragmas(db, path, err, errlen) == -1)
		return -1;
	for (int v = version + 1; v <= N_MIGRATIONS; v++) {
		if (migrate_to(db, v, err, errlen) == -1)
			return -1;
		log_info("%s: schema migrated to version %d", path, v);
	}
	return N_MIGRATIONS;
}
