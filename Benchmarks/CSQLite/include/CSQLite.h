// The part of SQLite's C interface the benchmark uses, declared here and bound at run time.
//
// The benchmark compares Burrow with the system SQLite, but building Burrow must need nothing
// but the Swift toolchain: no SQLite headers, no SQLite library to link against. So this module
// declares the few types, constants and functions it calls (SQLite's stable C ABI, as documented
// at sqlite.org/c3ref) and `csqlite_load` finds the shared library with dlopen. The functions
// below keep SQLite's names, so the Swift code reads as it would against sqlite3.h; each is a
// static inline call through the table `csqlite_load` fills, never an exported symbol that could
// stand in for a real SQLite loaded by someone else in the process.

#ifndef BURROW_CSQLITE_H
#define BURROW_CSQLITE_H

#include <stddef.h>

typedef long long sqlite3_int64;
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_vfs sqlite3_vfs;
typedef struct sqlite3_io_methods sqlite3_io_methods;

typedef struct sqlite3_file {
    const struct sqlite3_io_methods * pMethods;
} sqlite3_file;

/// Version 3 of the file methods (older versions are prefixes of it).
struct sqlite3_io_methods {
    int iVersion;
    int (* xClose)(sqlite3_file *);
    int (* xRead)(sqlite3_file *, void *, int, sqlite3_int64);
    int (* xWrite)(sqlite3_file *, const void *, int, sqlite3_int64);
    int (* xTruncate)(sqlite3_file *, sqlite3_int64);
    int (* xSync)(sqlite3_file *, int);
    int (* xFileSize)(sqlite3_file *, sqlite3_int64 *);
    int (* xLock)(sqlite3_file *, int);
    int (* xUnlock)(sqlite3_file *, int);
    int (* xCheckReservedLock)(sqlite3_file *, int *);
    int (* xFileControl)(sqlite3_file *, int, void *);
    int (* xSectorSize)(sqlite3_file *);
    int (* xDeviceCharacteristics)(sqlite3_file *);
    int (* xShmMap)(sqlite3_file *, int, int, int, void volatile * *);
    int (* xShmLock)(sqlite3_file *, int, int, int);
    void (* xShmBarrier)(sqlite3_file *);
    int (* xShmUnmap)(sqlite3_file *, int);
    int (* xFetch)(sqlite3_file *, sqlite3_int64, int, void * *);
    int (* xUnfetch)(sqlite3_file *, sqlite3_int64, void *);
};

typedef void (*sqlite3_syscall_ptr)(void);

/// Version 3 of the VFS object (older versions are prefixes of it).
struct sqlite3_vfs {
    int iVersion;
    int szOsFile;
    int mxPathname;
    sqlite3_vfs * pNext;
    const char * zName;
    void * pAppData;
    int (* xOpen)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);
    int (* xDelete)(sqlite3_vfs *, const char *, int);
    int (* xAccess)(sqlite3_vfs *, const char *, int, int *);
    int (* xFullPathname)(sqlite3_vfs *, const char *, int, char *);
    void * (* xDlOpen)(sqlite3_vfs *, const char *);
    void (* xDlError)(sqlite3_vfs *, int, char *);
    void (* (* xDlSym)(sqlite3_vfs *, void *, const char *))(void);
    void (* xDlClose)(sqlite3_vfs *, void *);
    int (* xRandomness)(sqlite3_vfs *, int, char *);
    int (* xSleep)(sqlite3_vfs *, int);
    int (* xCurrentTime)(sqlite3_vfs *, double *);
    int (* xGetLastError)(sqlite3_vfs *, int, char *);
    int (* xCurrentTimeInt64)(sqlite3_vfs *, sqlite3_int64 *);
    int (* xSetSystemCall)(sqlite3_vfs *, const char *, sqlite3_syscall_ptr);
    sqlite3_syscall_ptr (* xGetSystemCall)(sqlite3_vfs *, const char *);
    const char * (* xNextSystemCall)(sqlite3_vfs *, const char *);
};

#define SQLITE_OK 0
#define SQLITE_ERROR 1
#define SQLITE_IOERR 10
#define SQLITE_ROW 100
#define SQLITE_DONE 101
#define SQLITE_OPEN_READWRITE 0x00000002
#define SQLITE_OPEN_CREATE 0x00000004
#define SQLITE_OPEN_NOMUTEX 0x00008000

/// The library's entry points, filled by `csqlite_load`.
struct csqlite_functions {
    const char * (* libversion)(void);
    int (* open_v2)(const char *, sqlite3 * *, int, const char *);
    int (* close)(sqlite3 *);
    int (* close_v2)(sqlite3 *);
    const char * (* errmsg)(sqlite3 *);
    int (* exec)(sqlite3 *, const char *, int (*)(void *, int, char * *, char * *), void *, char * *);
    void (* free)(void *);
    int (* prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt * *, const char * *);
    const char * (* sql)(sqlite3_stmt *);
    int (* step)(sqlite3_stmt *);
    int (* reset)(sqlite3_stmt *);
    int (* finalize)(sqlite3_stmt *);
    int (* bind_int64)(sqlite3_stmt *, int, sqlite3_int64);
    int (* bind_blob)(sqlite3_stmt *, int, const void *, int, void (*)(void *));
    int (* bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
    sqlite3_int64 (* column_int64)(sqlite3_stmt *, int);
    const void * (* column_blob)(sqlite3_stmt *, int);
    const unsigned char * (* column_text)(sqlite3_stmt *, int);
    int (* column_bytes)(sqlite3_stmt *, int);
    sqlite3_vfs * (* vfs_find)(const char *);
    int (* vfs_register)(sqlite3_vfs *, int);
};

/// The table of entry points; valid once `csqlite_load` has returned 1.
extern struct csqlite_functions csqlite;

/// Loads the system SQLite (the library named by the environment variable
/// BURROW_SQLITE_LIBRARY, else the platform's usual names) and fills `csqlite`. Returns 1 on
/// success; otherwise 0, with what went wrong in `error`. Call it once, before any other function
/// here, from one thread.
int csqlite_load(char * error, size_t errorSize);

static inline const char * sqlite3_libversion(void) { return csqlite.libversion(); }
static inline int sqlite3_open_v2(const char * path, sqlite3 * * db, int flags, const char * vfs) { return csqlite.open_v2(path, db, flags, vfs); }
static inline int sqlite3_close(sqlite3 * db) { return csqlite.close(db); }
static inline int sqlite3_close_v2(sqlite3 * db) { return csqlite.close_v2(db); }
static inline const char * sqlite3_errmsg(sqlite3 * db) { return csqlite.errmsg(db); }
static inline int sqlite3_exec(sqlite3 * db, const char * sql, int (* callback)(void *, int, char * *, char * *), void * context, char * * error) { return csqlite.exec(db, sql, callback, context, error); }
static inline void sqlite3_free(void * p) { csqlite.free(p); }
static inline int sqlite3_prepare_v2(sqlite3 * db, const char * sql, int length, sqlite3_stmt * * statement, const char * * tail) { return csqlite.prepare_v2(db, sql, length, statement, tail); }
static inline const char * sqlite3_sql(sqlite3_stmt * s) { return csqlite.sql(s); }
static inline int sqlite3_step(sqlite3_stmt * s) { return csqlite.step(s); }
static inline int sqlite3_reset(sqlite3_stmt * s) { return csqlite.reset(s); }
static inline int sqlite3_finalize(sqlite3_stmt * s) { return csqlite.finalize(s); }
static inline int sqlite3_bind_int64(sqlite3_stmt * s, int i, sqlite3_int64 v) { return csqlite.bind_int64(s, i, v); }
static inline int sqlite3_bind_blob(sqlite3_stmt * s, int i, const void * v, int n, void (* destructor)(void *)) { return csqlite.bind_blob(s, i, v, n, destructor); }
static inline int sqlite3_bind_text(sqlite3_stmt * s, int i, const char * v, int n, void (* destructor)(void *)) { return csqlite.bind_text(s, i, v, n, destructor); }
static inline sqlite3_int64 sqlite3_column_int64(sqlite3_stmt * s, int i) { return csqlite.column_int64(s, i); }
static inline const void * sqlite3_column_blob(sqlite3_stmt * s, int i) { return csqlite.column_blob(s, i); }
static inline const unsigned char * sqlite3_column_text(sqlite3_stmt * s, int i) { return csqlite.column_text(s, i); }
static inline int sqlite3_column_bytes(sqlite3_stmt * s, int i) { return csqlite.column_bytes(s, i); }
static inline sqlite3_vfs * sqlite3_vfs_find(const char * name) { return csqlite.vfs_find(name); }
static inline int sqlite3_vfs_register(sqlite3_vfs * vfs, int makeDefault) { return csqlite.vfs_register(vfs, makeDefault); }

#endif
