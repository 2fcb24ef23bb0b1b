/*
 * The checkpointer thread.
 *
 * When the WAL passes CKPT_FRAMES pages, passive checkpoints copy it while
 * the writer goes on committing (each copies what was committed when it
 * began, so each leaves a shorter tail); once the tail is short, one more
 * runs under the store's lock, while no transaction is open, so that it copies
 * everything and the writer's next transaction starts the WAL over, at the
 * beginning of the same file.  So the WAL stays near CKPT_FRAMES pages and
 * commits overwrite it instead of growing it (a sync of a file that grew
 * must also write its inode), and a page written many times between two
 * checkpoints is copied once.
 */
#include "checkpointer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl.h"
#include "log.h"

#define CKPT_FRAMES 32768     /* WAL pages (128 MiB of 4 KiB pages) that start a checkpoint */
#define CKPT_TAIL 1024        /* pages left for the checkpoint under the lock, at most */
#define CKPT_ROUNDS 4         /* passive checkpoints tried before that one */
#define CKPT_POLL_MS 100

struct ckpt {
	struct ctrl *c;
	struct inv *inv;          /* the checkpointer's own connection */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, stopping;
};

struct ckpt_last {
	struct inv *own;          /* the checkpointer's connection */
	int frames, copied;
};

/*
 * store_fn: the last checkpoint, through the checkpointer's own connection
 * (not the store's inv): the lock only keeps the writer's transactions out.
 */
static int
checkpoint_locked(struct inv *inv, void *arg)
{
	struct ckpt_last *a = arg;

	(void)inv;
	return inv_checkpoint(a->own, &a->frames, &a->copied);
}

/* One checkpoint, up to the WAL starting over. */
static void
checkpoint(struct ckpt *k)
{
	struct ckpt_last last = { k->inv, 0, 0 };

	for (int i = 0; i < CKPT_ROUNDS; i++) {
		if (inv_checkpoint(k->inv, &last.frames, &last.copied) == -1)
			return;
		if (last.frames - last.copied <= CKPT_TAIL)
			break;
	}
	store_with(&k->c->store, checkpoint_locked, &last);
	if (last.copied < last.frames)
		log_warnx("the WAL could not be copied in full (%d of %d pages)", last.copied,
		    last.frames);
}

static void *
run(void *arg)
{
	struct ckpt *k = arg;
	struct timespec ts;

	pthread_mutex_lock(&k->mu);
	while (!k->stopping) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += CKPT_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&k->cv, &k->mu, &ts);
		/* any thread may ask (inventory.h): no lock */
		if (k->stopping || inv_wal_frames(k->c->store.inv) < CKPT_FRAMES)
			continue;
		pthread_mutex_unlock(&k->mu);
		checkpoint(k);
		pthread_mutex_lock(&k->mu);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

/* store_fn: the store's connection stops checkpointing by itself. */
static int
wal_watch(struct inv *inv, void *arg)
{
	(void)arg;
	inv_wal_watch(inv);
	return 0;
}

struct ckpt *
ckpt_start(struct ctrl *c, const char *path)
{
	struct ckpt *k = calloc(1, sizeof(*k));
	char err[256];
	int rc;

	if (k == NULL)
		return NULL;
	k->c = c;
	if ((k->inv = inv_open(path, err, sizeof(err))) == NULL) {
		log_warnx("checkpoints stay in the writer's commits: %s", err);
		free(k);
		return NULL;
	}
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	if ((rc = pthread_create(&k->thread, NULL, run, k)) != 0) {
		log_warnx("checkpoints stay in the writer's commits: pthread_create: %s",
		    strerror(rc));
		ckpt_stop(k);
		return NULL;
	}
	k->started = 1;
	store_with(&c->store, wal_watch, NULL);
	return k;
}

void
ckpt_stop(struct ckpt *k)
{
	if (k == NULL)
		return;
	if (k->started) {
		pthread_mutex_lock(&k->mu);
		k->stopping = 1;
		pthread_cond_signal(&k->cv);
		pthread_mutex_unlock(&k->mu);
		pthread_join(k->thread, NULL);
	}
	pthread_mutex_destroy(&k->mu);
	pthread_cond_destroy(&k->cv);
	inv_close(k->inv);
	free(k);
}
