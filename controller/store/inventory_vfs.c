/*
 * The inventory's SQLite VFS: the default one, with the writes to the
 * write-ahead log gathered.
 *
 * SQLite appends a frame to the WAL as two writes (its 24-byte header,
 * then the page), so committing n pages costs 2n pwrite calls before the
 * one fsync that makes them durable.  Here the writes to a "-wal" file that
 * follow one another are kept in a buffer and reach the file in one pwrite:
 * before SQLite syncs the file (so a commit is as durable as without the
 * buffer: nothing counts before the sync), reads it, asks its size,
 * truncates or closes it, writes it elsewhere, or when the buffer is full.
 * The buffer is also written out when SQLite makes new WAL frames visible
 * to other connections (its shared-memory barrier on the database file,
 * just before it publishes the WAL index header), so that no connection
 * ever sees a frame that is not in the file, whatever the synchronous mode.
 *
 * Every other file, and every other call, goes straight to the default VFS.
 * A file object belongs to one connection, which one thread uses at a time
 * (inventory.h), so a buffer needs no lock.
 */
#include "inventory_db.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define VFS_NAME "tbmesh"
#define WAL_BUF_MAX (1 << 20)   /* 1 MiB: a commit of ~250 pages before a flush */
#define WAL_WRITE_MAX (1 << 16) /* the default VFS writes less than 128 KiB at once */

struct vfile {
	sqlite3_file base;          /* pMethods: vfile_methods */
	sqlite3_file *real;         /* the default VFS's file, right after this struct */
	struct vfile *wal;          /* a database file: its WAL while open, or NULL */
	struct vfile *db;           /* a WAL: its database file */
	char *buf;                  /* a WAL: the pending writes, at buf_off */
	sqlite3_int64 buf_off;
	int buf_len;
	int flush_rc;               /* a flush that failed where it could not be reported */
};

static sqlite3_vfs *root;

/* Write the pending writes out, WAL_WRITE_MAX at a time; SQLITE_OK or the error. */
static int
wal_flush(struct vfile *f)
{
	int done = 0, n, rc = SQLITE_OK;

	while (done < f->buf_len && rc == SQLITE_OK) {
		n = f->buf_len - done < WAL_WRITE_MAX ? f->buf_len - done : WAL_WRITE_MAX;
		rc = f->real->pMethods->xWrite(f->real, f->buf + done, n, f->buf_off + done);
		done += n;
	}
	if (rc == SQLITE_OK)
		f->buf_len = 0;
	return rc;
}

/* Flush, for the calls that must see the file as SQLite wrote it. */
static int
flushed(struct vfile *f)
{
	int rc = f->buf != NULL ? wal_flush(f) : SQLITE_OK;

	if (rc == SQLITE_OK && f->flush_rc != SQLITE_OK) {
		rc = f->flush_rc;   /* reported once, here */
		f->flush_rc = SQLITE_OK;
	}
	return rc;
}

static int
vfile_write(sqlite3_file *file, const void *data, int amt, sqlite3_int64 off)
{
	struct vfile *f = (struct vfile *)file;
	int rc;

	if (f->buf == NULL)
		return f->real->pMethods->xWrite(f->real, data, amt, off);
	if (f->buf_len > 0 && (off != f->buf_off + f->buf_len || amt > WAL_BUF_MAX - f->buf_len) &&
	    (rc = wal_flush(f)) != SQLITE_OK)
		return rc;
	if (amt > WAL_WRITE_MAX)
		return f->real->pMethods->xWrite(f->real, data, amt, off);
	if (f->buf_len == 0)
		f->buf_off = off;
	memcpy(f->buf + f->buf_len, data, (size_t)amt);
	f->buf_len += amt;
	return SQLITE_OK;
}

static int
vfile_read(sqlite3_file *file, void *data, int amt, sqlite3_int64 off)
{
	struct vfile *f = (struct vfile *)file;
	int rc = flushed(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xRead(f->real, data, amt, off);
}

static int
vfile_sync(sqlite3_file *file, int flags)
{
	struct vfile *f = (struct vfile *)file;
	int rc = flushed(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int
vfile_truncate(sqlite3_file *file, sqlite3_int64 size)
{
	struct vfile *f = (struct vfile *)file;
	int rc = flushed(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int
vfile_size(sqlite3_file *file, sqlite3_int64 *size)
{
	struct vfile *f = (struct vfile *)file;
	int rc = flushed(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int
vfile_close(sqlite3_file *file)
{
	struct vfile *f = (struct vfile *)file;
	int rc = flushed(f), rc2;

	if (f->db != NULL)
		f->db->wal = NULL;
	if (f->wal != NULL)
		f->wal->db = NULL;
	free(f->buf);
	f->buf = NULL;
	rc2 = f->real->pMethods->xClose(f->real);
	return rc != SQLITE_OK ? rc : rc2;
}

/*
 * Called on the database file before SQLite publishes new WAL frames (and
 * when it reads the WAL index header): the WAL's writes go out first.  A
 * failure is kept and reported by the WAL's next call that can report one.
 */
static void
vfile_shm_barrier(sqlite3_file *file)
{
	struct vfile *f = (struct vfile *)file;
	int rc;

	if (f->wal != NULL && (rc = wal_flush(f->wal)) != SQLITE_OK) {
		f->wal->flush_rc = rc;
		log_warnx("writing the WAL failed: %s", sqlite3_errstr(rc));
	}
	f->real->pMethods->xShmBarrier(f->real);
}

/* ---- the other calls, passed on ---- */

#define REAL(file) (((struct vfile *)(file))->real)

static int
vfile_lock(sqlite3_file *file, int lock)
{
	return REAL(file)->pMethods->xLock(REAL(file), lock);
}

static int
vfile_unlock(sqlite3_file *file, int lock)
{
	return REAL(file)->pMethods->xUnlock(REAL(file), lock);
}

static int
vfile_check_reserved(sqlite3_file *file, int *out)
{
	return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out);
}

/* Some file controls size or sync the file: the buffer goes out first. */
static int
vfile_control(sqlite3_file *file, int op, void *arg)
{
	struct vfile *f = (struct vfile *)file;
	int rc = f->buf != NULL ? wal_flush(f) : SQLITE_OK;

	return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}

static int
vfile_sector_size(sqlite3_file *file)
{
	return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int
vfile_device(sqlite3_file *file)
{
	return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

static int
vfile_shm_map(sqlite3_file *file, int pg, int pgsz, int extend, void volatile **p)
{
	return REAL(file)->pMethods->xShmMap(REAL(file), pg, pgsz, extend, p);
}

static int
vfile_shm_lock(sqlite3_file *file, int offset, int n, int flags)
{
	return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}

static int
vfile_shm_unmap(sqlite3_file *file, int delete_flag)
{
	return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}

static int
vfile_fetch(sqlite3_file *file, sqlite3_int64 off, int amt, void **p)
{
	struct vfile *f = (struct vfile *)file;
	int rc = flushed(f);

	return rc != SQLITE_OK ? rc : f->real->pMethods->xFetch(f->real, off, amt, p);
}

static int
vfile_unfetch(sqlite3_file *file, sqlite3_int64 off, void *p)
{
	return REAL(file)->pMethods->xUnfetch(REAL(file), off, p);
}

static const sqlite3_io_methods vfile_methods = {
	3, vfile_close, vfile_read, vfile_write, vfile_truncate, vfile_sync, vfile_size,
	vfile_lock, vfile_unlock, vfile_check_reserved, vfile_control, vfile_sector_size,
	vfile_device, vfile_shm_map, vfile_shm_lock, vfile_shm_barrier, vfile_shm_unmap,
	vfile_fetch, vfile_unfetch,
};

/* A WAL gets a buffer and is tied to its database file (opened by us too). */
static void
wal_attach(struct vfile *f, const char *name)
{
	struct vfile *db = (struct vfile *)sqlite3_database_file_object(name);

	if (db == NULL || db->base.pMethods != &vfile_methods ||
	    (f->buf = malloc(WAL_BUF_MAX)) == NULL)
		return;     /* unbuffered: every write goes straight to the file */
	f->db = db;
	db->wal = f;
}

static int
vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags)
{
	struct vfile *f = (struct vfile *)file;
	int rc;
	(void)vfs;

	memset(f, 0, sizeof(*f));
	f->real = (sqlite3_file *)(f + 1);
	rc = root->xOpen(root, name, f->real, flags, out_flags);
	if (f->real->pMethods == NULL)
		return rc;    /* nothing to close: the file has no methods either */
	if (f->real->pMethods->iVersion < 3) {
		f->real->pMethods->xClose(f->real);
		return SQLITE_CANTOPEN;
	}
	f->base.pMethods = &vfile_methods;
	if (rc == SQLITE_OK && (flags & SQLITE_OPEN_WAL) && name != NULL)
		wal_attach(f, name);
	return rc;
}

static int
vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	(void)vfs;
	return root->xDelete(root, name, sync_dir);
}

static int
vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return root->xAccess(root, name, flags, out);
}

static int
vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return root->xFullPathname(root, name, n, out);
}

static int
vfs_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return root->xRandomness(root, n, out);
}

static int
vfs_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return root->xSleep(root, us);
}

static int
vfs_current_time(sqlite3_vfs *vfs, double *t)
{
	(void)vfs;
	return root->xCurrentTime(root, t);
}

static int
vfs_last_error(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return root->xGetLastError(root, n, out);
}

static int
vfs_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	(void)vfs;
	return root->xCurrentTimeInt64(root, t);
}

/* No extensions are loaded: xDlOpen and its kin are left out. */
static sqlite3_vfs vfs = {
	.iVersion = 2, .mxPathname = 0, .zName = VFS_NAME, .xOpen = vfs_open,
	.xDelete = vfs_delete, .xAccess = vfs_access, .xFullPathname = vfs_full_pathname,
	.xRandomness = vfs_randomness, .xSleep = vfs_sleep, .xCurrentTime = vfs_current_time,
	.xGetLastError = vfs_last_error, .xCurrentTimeInt64 = vfs_current_time64,
};

static const char *vfs_name;

static void
vfs_register(void)
{
	sqlite3_vfs *def = sqlite3_vfs_find(NULL);

	if (def == NULL || def->iVersion < 2 || def->xCurrentTimeInt64 == NULL) {
		log_warnx("SQLite's default VFS is not usable here; WAL writes are not gathered");
		return;
	}
	root = def;
	vfs.szOsFile = (int)sizeof(struct vfile) + def->szOsFile;
	vfs.mxPathname = def->mxPathname;
	if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK) {
		log_warnx("cannot register the inventory's VFS; WAL writes are not gathered");
		return;
	}
	vfs_name = VFS_NAME;
}

const char *
inv_vfs(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, vfs_register);
	return vfs_name;
}
