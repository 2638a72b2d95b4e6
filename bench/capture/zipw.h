/* A small streaming zip writer for members that are compressed already:
 * each member goes out as its local header (CRC-32 and sizes known, so
 * no data descriptor) and its data at once, the central directory and
 * the end record at finish, with ZIP64 extra fields and end records
 * where an offset, a size or the count needs them.
 *
 * Why our own: libzip 1.7.3 has no documented way to add a member that is
 * compressed already, and its zip_close copies the whole archive into a
 * temporary file (whose name it draws from OpenSSL's RNG: 1.65 ms a run).
 *
 * It writes to an fd the caller owns, from the offset it is given, with
 * write(): what a member wrote is in the page cache even if the process
 * dies, and bn_zipw_recover finds every member whose local header and
 * data are complete. The central directory costs 48 bytes of memory a
 * member (plus its name) until finish. Not thread-safe: one writer. */
#ifndef BN_CAPTURE_ZIPW_H
#define BN_CAPTURE_ZIPW_H

#include <stddef.h>
#include <stdint.h>

#define BN_ZIPW_STORE 0
#define BN_ZIPW_DEFLATE 8
#define BN_ZIPW_NAME_MAX 255

struct bn_zipw;

/* A writer appending to fd at offset at (0 for a new file; the fd's
 * position is set there). Returns NULL when out of memory. */
struct bn_zipw *bn_zipw_new(int fd, uint64_t at);
/* Add a member: data (csize bytes) is its stored or raw-deflate content,
 * usize and crc32 those of the uncompressed content. 0, or an errno
 * (ENOMEM, a write's: ENOSPC, EFBIG, EIO) after which the file is
 * incomplete; what was added before stays recoverable. */
int bn_zipw_add(struct bn_zipw *z, const char *name, int method, uint32_t crc32, uint64_t usize,
		const void *data, uint64_t csize);
/* Bytes of the file that hold complete members (the local headers and
 * data of everything added so far), and how many members. */
uint64_t bn_zipw_bytes(const struct bn_zipw *z);
uint64_t bn_zipw_count(const struct bn_zipw *z);
/* The central directory and end records: 0 or an errno. */
int bn_zipw_finish(struct bn_zipw *z);
void bn_zipw_free(struct bn_zipw *z);

/* A writer continuing a file another writer left unfinished (it died):
 * reads the members whose local headers and data lie within [0, end) of
 * fd, positions the writer after the last of them (a partial member after
 * it is cut off by the next add or finish). NULL with errno: EINVAL for
 * bytes that are not local headers (EINVAL), ENOMEM, a read's errno. */
struct bn_zipw *bn_zipw_recover(int fd, uint64_t end);

/* Tests only: fields from this value on take their ZIP64 form (default
 * 0xFFFFFFFF; member counts from min(this, 0xFFFF)), so the ZIP64 records
 * can be checked against readers without writing 4 GB. */
void bn_zipw_set_zip64_from(struct bn_zipw *z, uint64_t at);

#endif
