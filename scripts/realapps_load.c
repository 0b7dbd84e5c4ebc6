/* SPDX-License-Identifier: MIT */
/*
 * The loads with which scripts/realapps.sh makes a real program's own
 * RCU readers meet a priority inversion.  Not part of the build: the
 * script compiles it.
 *
 * usage: realapps_load hog CPU PRIO SECONDS ON_MS OFF_MS
 *   A SCHED_FIFO PRIO spinner on CPU alone: it spins ON_MS, sleeps
 *   OFF_MS, and again, for SECONDS in all (at most 30), then exits.
 *   The program's reader threads, pinned to CPU at a lower SCHED_FIFO
 *   priority, run only in its pauses; whichever of them was inside a
 *   read-side critical section when a burst began stays there, holding
 *   up any grace period, until the burst ends or rcuboost boosts it.
 *   Hard time bound: the spin reads the clock on every turn, and
 *   alarm() ends the process two seconds after SECONDS whatever
 *   happens.  Prints the number of bursts.
 *
 * usage: realapps_load dns ADDRESS PORT SECONDS NAME...
 *   UDP DNS queries (type A, then AAAA and TXT, round robin over the
 *   NAMEs; EDNS0 with the DNSSEC OK bit) to ADDRESS:PORT, WINDOW (16)
 *   of them outstanding, for SECONDS (at most 120) or until SIGTERM, at
 *   the caller's own priority.  Prints the queries sent and the
 *   answers received.
 *
 * usage: realapps_load mpath SECONDS PERIOD_MS CONNECTIONS COMMAND
 *   multipathd's own client protocol (libmpathcmd: a size_t length,
 *   then the command with its NUL; the reply the same way) on its
 *   socket (abstract, "/org/kernel/linux/storage/multipathd"):
 *   CONNECTIONS threads each send COMMAND, read the reply, wait
 *   PERIOD_MS (0: not at all) and again, for SECONDS (at most 120) or
 *   until SIGTERM.  Prints the commands sent and the replies read.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The DNS queries the dns load keeps outstanding. */
#define WINDOW 16

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: realapps_load hog CPU PRIO SECONDS ON_MS OFF_MS\n"
		"       realapps_load dns ADDRESS PORT SECONDS NAME...\n"
		"       realapps_load mpath SECONDS PERIOD_MS CONNECTIONS COMMAND\n");
	return 2;
}

static int hog(int cpu, int prio, int secs, int on_ms, int off_ms)
{
	struct sched_param sp = { .sched_priority = prio };
	struct timespec pause = { off_ms / 1000, (off_ms % 1000) * 1000000L };
	double end, burst_end;
	long bursts = 0;
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE || prio < 1 || prio > 98 ||
	    secs < 1 || secs > 30 || on_ms < 1 || on_ms > 1000 ||
	    off_ms < 1 || off_ms > 1000)
		return usage();
	/* The backstop: SIGALRM's default action ends the process. */
	alarm((unsigned)secs + 2);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Pinned before it becomes real-time: it never spins elsewhere. */
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("realapps_load: sched_setaffinity");
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
		perror("realapps_load: sched_setscheduler");
		return 1;
	}
	end = now() + secs;
	while (now() < end) {
		burst_end = now() + on_ms / 1000.0;
		if (burst_end > end)
			burst_end = end;
		while (now() < burst_end)
			;
		bursts++;
		nanosleep(&pause, NULL);
	}
	printf("%ld\n", bursts);
	return 0;
}

/* A query for @name of @type into @buf; its length, or 0 if too long. */
static size_t dns_query(unsigned char *buf, size_t len, unsigned id,
			const char *name, unsigned type)
{
	size_t off = 12;
	const char *p = name;

	if (len < 12 + strlen(name) + 6 + 11)
		return 0;
	memset(buf, 0, 12);
	buf[0] = (unsigned char)(id >> 8);
	buf[1] = (unsigned char)id;
	buf[2] = 0x01;	/* RD */
	buf[5] = 1;	/* QDCOUNT */
	buf[11] = 1;	/* ARCOUNT: the OPT record below */
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (l == 0 || l > 63)
			return 0;
		buf[off++] = (unsigned char)l;
		memcpy(&buf[off], p, l);
		off += l;
		p += l + (dot ? 1 : 0);
	}
	buf[off++] = 0;
	buf[off++] = (unsigned char)(type >> 8);
	buf[off++] = (unsigned char)type;
	buf[off++] = 0;
	buf[off++] = 1;	/* IN */
	/* EDNS0 OPT: root name, type 41, 4096 bytes, DO set (DNSSEC
	 * records wanted: a signing server signs this answer), no data. */
	memcpy(&buf[off], "\0\0\x29\x10\0\0\0\x80\0\0\0", 11);
	return off + 11;
}

static int dns(const char *addr, int port, int secs, char **names, int n)
{
	static const unsigned types[] = { 1, 28, 16 };	/* A, AAAA, TXT */
	struct sigaction sa_term = { .sa_handler = on_term };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned char q[512], a[4096];
	long sent = 0, answered = 0;
	int fd, burst = WINDOW;
	double end;

	if (port < 1 || port > 65535 || secs < 1 || secs > 120 || n < 1 ||
	    inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return usage();
	sa.sin_port = htons((unsigned short)port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("realapps_load: socket");
		return 1;
	}
	sigaction(SIGTERM, &sa_term, NULL);
	end = now() + secs;
	while (!stop && now() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		/* A query for each answer, and one more when none came for
		 * 200 ms (one may have been lost): WINDOW stay outstanding,
		 * so that the server always has the next one queued. */
		for (; burst > 0; burst--, sent++) {
			size_t ql = dns_query(q, sizeof(q), (unsigned)sent & 0xffff,
					      names[sent % n], types[sent % 3]);

			if (!ql)
				return usage();
			if (send(fd, q, ql, 0) < 0 && errno != ECONNREFUSED)
				break;
		}
		if (poll(&pfd, 1, 200) != 1) {
			burst = 1;
			continue;
		}
		if (recv(fd, a, sizeof(a), 0) >= 12) {
			answered++;
			burst = 1;
		}
	}
	close(fd);
	printf("%ld %ld\n", sent, answered);
	return 0;
}

/* multipathd's socket (libmpathcmd's DEFAULT_SOCKET), abstract. */
#define MPATH_SOCKET "/org/kernel/linux/storage/multipathd"

static const char *mp_cmd;
static int mp_period_ms;
static double mp_end;
static atomic_long mp_sent, mp_replied;

static int mp_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(sizeof(sa_family_t) + 1 +
				    strlen(MPATH_SOCKET));
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memcpy(&sa.sun_path[1], MPATH_SOCKET, strlen(MPATH_SOCKET));
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, len) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* All of @len bytes; false at an error or the end of the stream. */
static bool mp_io(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;

	while (len) {
		ssize_t r = out ? send(fd, p, len, MSG_NOSIGNAL)
				: recv(fd, p, len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		len -= (size_t)r;
	}
	return true;
}

static void *mp_client(void *arg)
{
	struct timespec period = { mp_period_ms / 1000,
				   (mp_period_ms % 1000) * 1000000L };
	struct timespec retry = { 0, 100000000L };
	size_t clen = strlen(mp_cmd) + 1;
	char reply[65536];	/* its content is not looked at */
	int fd = -1;

	(void)arg;
	while (!stop && now() < mp_end) {
		size_t rlen;

		if (fd < 0 && (fd = mp_connect()) < 0) {
			nanosleep(&retry, NULL);
			continue;
		}
		atomic_fetch_add(&mp_sent, 1);
		if (!mp_io(fd, &clen, sizeof(clen), true) ||
		    !mp_io(fd, (void *)mp_cmd, clen, true) ||
		    !mp_io(fd, &rlen, sizeof(rlen), false)) {
			close(fd);
			fd = -1;
			continue;
		}
		/* In pieces: only the stream's framing matters here. */
		while (rlen) {
			size_t n = rlen < sizeof(reply) ? rlen : sizeof(reply);

			if (!mp_io(fd, reply, n, false))
				break;
			rlen -= n;
		}
		if (rlen) {
			close(fd);
			fd = -1;
			continue;
		}
		atomic_fetch_add(&mp_replied, 1);
		if (mp_period_ms)
			nanosleep(&period, NULL);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int mpath(int secs, int period_ms, int conns, const char *cmd)
{
	struct sigaction sa_term = { .sa_handler = on_term };
	pthread_t t[16];

	if (secs < 1 || secs > 120 || period_ms < 0 || period_ms > 10000 ||
	    conns < 1 || conns > 16 || !*cmd)
		return usage();
	sigaction(SIGTERM, &sa_term, NULL);
	mp_cmd = cmd;
	mp_period_ms = period_ms;
	mp_end = now() + secs;
	for (int i = 0; i < conns; i++)
		if (pthread_create(&t[i], NULL, mp_client, NULL) != 0) {
			fprintf(stderr, "realapps_load: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	printf("%ld %ld\n", atomic_load(&mp_sent), atomic_load(&mp_replied));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && strcmp(argv[1], "hog") == 0)
		return hog(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
			   atoi(argv[5]), atoi(argv[6]));
	if (argc >= 6 && strcmp(argv[1], "dns") == 0)
		return dns(argv[2], atoi(argv[3]), atoi(argv[4]), &argv[5],
			   argc - 5);
	if (argc == 6 && strcmp(argv[1], "mpath") == 0)
		return mpath(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
			     argv[5]);
	return usage();
}
