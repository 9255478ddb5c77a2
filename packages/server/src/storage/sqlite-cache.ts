/**
 * SQLite's own page cache per connection, in KiB (set as a negative `cache_size`). better-sqlite3 builds SQLite
 * with a 16 MB default; a connection's cache fills as the database grows and keeps what it took, so a gateway's
 * memory crept up by up to 16 MB per connection over its first hours (the soak's "native growth": a jemalloc heap
 * profile put 97 % of it under sqlite3BtreeInsert -> pcache1Alloc, and with 2 MB caches the main thread's malloc
 * heap stayed at 10.8 MB from the second minute on). The operating system's page cache holds the file anyway;
 * SQLite's own only saves copying a page out of it. The writer touches few pages per batch (the hot key, user and
 * channel rows, the tails of the logs and their indexes, the current hour's rollups); the readers' searches and
 * sums scan more, so they get more.
 */
export const SQLITE_CACHE_KIB = { writer: 2048, reader: 4096, checkpointer: 512 } as const;
