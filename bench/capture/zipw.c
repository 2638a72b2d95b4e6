/* zip writer: local headers, central directory, ZIP64 where needed.
 * Field layouts from the PKWARE APPNOTE 6.3 (4.3.7 local header, 4.3.12
 * central header, 4.3.14-16 ZIP64 end records, 4.5.3 ZIP64 extra). */
#include "capture/zipw.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Offsets go to pread/pwrite/ftruncate as off_t: a 32-bit off_t would
 * wrap past 2 GiB, and a six-hour capture is larger. 32-bit hosts build
 * with -D_FILE_OFFSET_BITS=64 (the Makefile); this catches a build that
 * does not. */
_Static_assert(sizeof(off_t) == 8, "zipw needs a 64-bit off_t: build with -D_FILE_OFFSET_BITS=64");

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define LOCAL_LEN 30
#define CENTRAL_LEN 46
#define END_LEN 22
#define END64_LEN 56
#define LOC64_LEN 20
#define VER_20 20 /* deflate */
#define VER_45 45 /* ZIP64 */
#define MADE_BY_UNIX (3u << 8)
#define MAX32 0xFFFFFFFFu
#define MAX16 0xFFFFu
/* a regular file, rw-r--r--, in the high half (unix external attributes) */
#define EXT_ATTR (0100644u << 16)
/* members up to this size go out in one write with their header */
#define ZIPW_SMALL 4096

struct entry {
	uint64_t off, csize, usize;
	uint32_t crc, name_at;
	uint16_t method, name_len;
};

struct bn_zipw {
	int fd;
	int err; /* sticky errno */
	uint64_t pos; /* end of the complete members */
	uint64_t zip64_from;
	uint16_t dos_time, dos_date;
	struct entry *e;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

/* ---- little-endian fields ---- */

static unsigned char *put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	return p + 2;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return p + 8;
}

static uint32_t get16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const unsigned char *p)
{
	return get16(p) | get16(p + 2) << 16;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int pwrite_all(int fd, const void *data, size_t len, uint64_t at)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno ? errno : EIO;
		if (n == 0)
			return EIO;
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static struct bn_zipw *zipw_alloc(int fd, uint64_t at)
{
	struct bn_zipw *z = calloc(1, sizeof(*z));
	struct tm tm;
	time_t now = time(NULL);

	if (!z)
		return NULL;
	z->fd = fd;
	z->pos = at;
	z->zip64_from = MAX32;
	/* MS-DOS time, as zip tools show it: local time, 2 s resolution */
	if (localtime_r(&now, &tm) && tm.tm_year >= 80) {
		z->dos_time = (uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
		z->dos_date = (uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
	} else {
		z->dos_date = 1 << 5 | 1; /* 1980-01-01 */
	}
	return z;
}

struct bn_zipw *bn_zipw_new(int fd, uint64_t at)
{
	return zipw_alloc(fd, at);
}

void bn_zipw_set_zip64_from(struct bn_zipw *z, uint64_t at)
{
	if (z && at > 0)
		z->zip64_from = at < MAX32 ? at : MAX32;
}

uint64_t bn_zipw_bytes(const struct bn_zipw *z)
{
	return z ? z->pos : 0;
}

uint64_t bn_zipw_count(const struct bn_zipw *z)
{
	return z ? z->n : 0;
}

void bn_zipw_free(struct bn_zipw *z)
{
	if (!z)
		return;
	free(z->e);
	free(z->names);
	free(z);
}

/* Remember a member for the central directory. 0 or ENOMEM. */
static int entry_push(struct bn_zipw *z, const char *name, size_t name_len, const struct entry *e)
{
	if (z->n == z->cap) {
		size_t cap = z->cap ? z->cap * 2 : 64;
		struct entry *ne = realloc(z->e, cap * sizeof(*ne));

		if (!ne)
			return ENOMEM;
		z->e = ne;
		z->cap = cap;
	}
	if (z->names_len + name_len > z->names_cap) {
		size_t cap = z->names_cap ? z->names_cap * 2 : 1024;
		char *nn;

		while (cap < z->names_len + name_len)
			cap *= 2;
		nn = realloc(z->names, cap);
		if (!nn)
			return ENOMEM;
		z->names = nn;
		z->names_cap = cap;
	}
	z->e[z->n] = *e;
	z->e[z->n].name_at = (uint32_t)z->names_len;
	z->e[z->n].name_len = (uint16_t)name_len;
	memcpy(z->names + z->names_len, name, name_len);
	z->names_len += name_len;
	z->n++;
	return 0;
}

int bn_zipw_add(struct bn_zipw *z, const char *name, int method, uint32_t crc32, uint64_t usize,
		const void *data, uint64_t csize)
{
	/* the header, and a small member's data with it: one write */
	unsigned char h[LOCAL_LEN + BN_ZIPW_NAME_MAX + 20 + ZIPW_SMALL], *p = h;
	size_t name_len = name ? strlen(name) : 0;
	bool big = usize >= z->zip64_from || csize >= z->zip64_from;
	struct entry e = { .off = z->pos, .csize = csize, .usize = usize, .crc = crc32,
			   .method = (uint16_t)method };
	int rc;

	if (z->err)
		return z->err;
	if (!name_len || name_len > BN_ZIPW_NAME_MAX ||
	    (method != BN_ZIPW_STORE && method != BN_ZIPW_DEFLATE) ||
	    (method == BN_ZIPW_STORE && usize != csize) || (csize && !data) ||
	    (uint64_t)(size_t)csize != csize || z->names_len + name_len > MAX32)
		return EINVAL;
	p = put32(p, SIG_LOCAL);
	p = put16(p, big ? VER_45 : VER_20);
	p = put16(p, 0); /* flags: sizes and CRC here, no data descriptor */
	p = put16(p, (unsigned)method);
	p = put16(p, z->dos_time);
	p = put16(p, z->dos_date);
	p = put32(p, crc32);
	/* in the local header ZIP64 takes both sizes, or neither (4.5.3) */
	p = put32(p, big ? MAX32 : (uint32_t)csize);
	p = put32(p, big ? MAX32 : (uint32_t)usize);
	p = put16(p, (unsigned)name_len);
	p = put16(p, big ? 20 : 0);
	memcpy(p, name, name_len);
	p += name_len;
	if (big) {
		p = put16(p, 0x0001);
		p = put16(p, 16);
		p = put64(p, usize);
		p = put64(p, csize);
	}
	rc = entry_push(z, name, name_len, &e);
	if (!rc && csize <= ZIPW_SMALL) {
		if (csize)
			memcpy(p, data, (size_t)csize);
		rc = pwrite_all(z->fd, h, (size_t)(p - h) + (size_t)csize, z->pos);
	} else if (!rc) {
		rc = pwrite_all(z->fd, h, (size_t)(p - h), z->pos);
		if (!rc)
			rc = pwrite_all(z->fd, data, (size_t)csize, z->pos + (uint64_t)(p - h));
	}
	if (rc) {
		z->err = rc;
		return rc;
	}
	z->pos += (uint64_t)(p - h) + csize;
	return 0;
}

/* One central directory header into p (room for CENTRAL_LEN + name + 28). */
static unsigned char *central(const struct bn_zipw *z, const struct entry *e, unsigned char *p)
{
	bool bu = e->usize >= z->zip64_from, bc = e->csize >= z->zip64_from,
	     bo = e->off >= z->zip64_from, big = bu || bc || bo;
	unsigned extra = (bu ? 8u : 0u) + (bc ? 8u : 0u) + (bo ? 8u : 0u);

	p = put32(p, SIG_CENTRAL);
	p = put16(p, MADE_BY_UNIX | VER_45);
	p = put16(p, big ? VER_45 : VER_20);
	p = put16(p, 0);
	p = put16(p, e->method);
	p = put16(p, z->dos_time);
	p = put16(p, z->dos_date);
	p = put32(p, e->crc);
	p = put32(p, bc ? MAX32 : (uint32_t)e->csize);
	p = put32(p, bu ? MAX32 : (uint32_t)e->usize);
	p = put16(p, e->name_len);
	p = put16(p, extra ? extra + 4 : 0);
	p = put16(p, 0); /* comment */
	p = put16(p, 0); /* disk */
	p = put16(p, 0); /* internal attributes */
	p = put32(p, EXT_ATTR);
	p = put32(p, bo ? MAX32 : (uint32_t)e->off);
	memcpy(p, z->names + e->name_at, e->name_len);
	p += e->name_len;
	if (extra) {
		/* only the fields that are MAX32 above, in this order (4.5.3) */
		p = put16(p, 0x0001);
		p = put16(p, extra);
		if (bu)
			p = put64(p, e->usize);
		if (bc)
			p = put64(p, e->csize);
		if (bo)
			p = put64(p, e->off);
	}
	return p;
}

int bn_zipw_finish(struct bn_zipw *z)
{
	enum { BUF = 65536 };
	unsigned char *buf, *p;
	uint64_t at, cd_off = z->pos, cd_size, count_max;
	struct stat st;
	bool big;
	int rc = 0;

	if (z->err)
		return z->err;
	buf = malloc(BUF);
	if (!buf)
		return z->err = ENOMEM;
	p = buf;
	at = cd_off;
	for (size_t i = 0; i < z->n && !rc; i++) {
		if ((size_t)(p - buf) > BUF - (CENTRAL_LEN + BN_ZIPW_NAME_MAX + 28)) {
			rc = pwrite_all(z->fd, buf, (size_t)(p - buf), at);
			at += (uint64_t)(p - buf);
			p = buf;
		}
		p = central(z, &z->e[i], p);
	}
	cd_size = at + (uint64_t)(p - buf) - cd_off;
	count_max = z->zip64_from < MAX16 ? z->zip64_from : MAX16;
	big = z->n >= count_max || cd_size >= z->zip64_from || cd_off >= z->zip64_from;
	if (!rc && (size_t)(p - buf) > BUF - (END64_LEN + LOC64_LEN + END_LEN)) {
		rc = pwrite_all(z->fd, buf, (size_t)(p - buf), at);
		at += (uint64_t)(p - buf);
		p = buf;
	}
	if (big) {
		uint64_t end64_off = cd_off + cd_size;

		p = put32(p, SIG_END64);
		p = put64(p, END64_LEN - 12); /* the record after this field */
		p = put16(p, MADE_BY_UNIX | VER_45);
		p = put16(p, VER_45);
		p = put32(p, 0); /* this disk */
		p = put32(p, 0); /* the central directory's */
		p = put64(p, z->n);
		p = put64(p, z->n);
		p = put64(p, cd_size);
		p = put64(p, cd_off);
		p = put32(p, SIG_LOC64);
		p = put32(p, 0);
		p = put64(p, end64_off);
		p = put32(p, 1); /* disks */
	}
	p = put32(p, SIG_END);
	p = put16(p, 0);
	p = put16(p, 0);
	p = put16(p, z->n >= count_max ? MAX16 : (unsigned)z->n);
	p = put16(p, z->n >= count_max ? MAX16 : (unsigned)z->n);
	p = put32(p, cd_size >= z->zip64_from ? MAX32 : (uint32_t)cd_size);
	p = put32(p, cd_off >= z->zip64_from ? MAX32 : (uint32_t)cd_off);
	p = put16(p, 0); /* comment */
	if (!rc)
		rc = pwrite_all(z->fd, buf, (size_t)(p - buf), at);
	at += (uint64_t)(p - buf);
	free(buf);
	/* a member a dead writer left half written lay beyond: cut it off */
	if (!rc && fstat(z->fd, &st) == 0 && (uint64_t)st.st_size > at &&
	    ftruncate(z->fd, (off_t)at) < 0)
		rc = errno;
	if (rc)
		z->err = rc;
	return rc;
}

/* ---- recovery ---- */

static int pread_all(int fd, void *buf, size_t len, uint64_t at)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EINVAL;
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* The ZIP64 sizes of a local header's extra field, if it has them. */
static void local_zip64(const unsigned char *x, size_t len, uint64_t *usize, uint64_t *csize)
{
	while (len >= 4) {
		unsigned id = get16(x), n = get16(x + 2);

		if (n + 4u > len)
			return;
		if (id == 0x0001 && n >= 16) {
			*usize = get64(x + 4);
			*csize = get64(x + 12);
			return;
		}
		x += 4 + n;
		len -= 4 + n;
	}
}

struct bn_zipw *bn_zipw_recover(int fd, uint64_t end)
{
	struct bn_zipw *z = zipw_alloc(fd, 0);
	unsigned char h[LOCAL_LEN + BN_ZIPW_NAME_MAX + 64 * 1024];
	int rc = z ? 0 : ENOMEM;

	while (!rc && z->pos < end) {
		struct entry e = { .off = z->pos };
		unsigned name_len, extra_len;

		if (end - z->pos < LOCAL_LEN) {
			rc = EINVAL;
			break;
		}
		rc = pread_all(fd, h, LOCAL_LEN, z->pos);
		if (rc)
			break;
		name_len = get16(h + 26);
		extra_len = get16(h + 28);
		/* name and extra inside end first: the csize check below
		 * subtracts them from end - pos, which must not wrap */
		if (get32(h) != SIG_LOCAL || (get16(h + 6) & 0x0008) || !name_len ||
		    name_len > BN_ZIPW_NAME_MAX ||
		    (uint64_t)name_len + extra_len > end - z->pos - LOCAL_LEN) {
			rc = EINVAL;
			break;
		}
		rc = pread_all(fd, h + LOCAL_LEN, name_len + extra_len, z->pos + LOCAL_LEN);
		if (rc)
			break;
		e.method = (uint16_t)get16(h + 8);
		e.crc = get32(h + 14);
		e.csize = get32(h + 18);
		e.usize = get32(h + 22);
		if (e.csize == MAX32 || e.usize == MAX32)
			local_zip64(h + LOCAL_LEN + name_len, extra_len, &e.usize, &e.csize);
		if (e.csize > end - z->pos - LOCAL_LEN - name_len - extra_len ||
		    (e.method != BN_ZIPW_STORE && e.method != BN_ZIPW_DEFLATE)) {
			rc = EINVAL;
			break;
		}
		rc = entry_push(z, (const char *)h + LOCAL_LEN, name_len, &e);
		z->pos += LOCAL_LEN + name_len + extra_len + e.csize;
	}
	if (z && !rc) {
		if (z->dos_date == 0)
			z->dos_date = 1 << 5 | 1;
		return z;
	}
	bn_zipw_free(z);
	errno = rc;
	return NULL;
}
