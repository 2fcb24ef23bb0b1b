/*
 * The checkpointer thread.
 *
 * When the WAL passes CKPT_FRAMES pages, passive checkpoints copy it while
 * the writer goes on committing (each copies what was committed when it
 * began, so each leaves a shorter tail); once the tail is short, one more
 * runs under inv_mu, while no transaction is open, so that it copies
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
#define CKPT_TAIL 1024        /* pages left for the checkpoint under inv_mu, at most */
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

/* One checkpoint, up to the WAL starting over. */
static void
checkpoint(struct ckpt *k)
{
	int frames = 0, copied = 0;

	for (int i = 0; i < CKPT_ROUNDS; i++) {
		if (inv_checkpoint(k->inv, &frames, &copied) == -1)
			return;
		if (frames - copied <= CKPT_TAIL)
			break;
	}
	pthread_mutex_lock(&k->c->inv_mu);
	inv_checkpoint(k->inv, &frames, &copied);
	pthread_mutex_unlock(&k->c->inv_mu);
	if (copied < frames)
		log_warnx("the WAL could not be copied in full (%d of %d pages)", copied, frames);
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
		if (k->stopping || inv_wal_frames(k->c->inv) < CKPT_FRAMES)
			continue;
		pthread_mutex_unlock(&k->mu);
		checkpoint(k);
		pthread_mutex_lock(&k->mu);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
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
	pthread_mutex_lock(&c->inv_mu);
	inv_wal_watch(c->inv);
	pthread_mutex_unlock(&c->inv_mu);
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
