// Finds the system SQLite at run time and binds the entry points CSQLite.h declares.

#include "CSQLite.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct csqlite_functions csqlite;

#if defined(__APPLE__)
static const char *const libraryNames[] = {"libsqlite3.dylib", "/usr/lib/libsqlite3.dylib"};
#else
static const char *const libraryNames[] = {"libsqlite3.so.0", "libsqlite3.so"};
#endif

/// Binds `symbol` into `*slot`; on failure writes why into `error` and returns 0.
static int bind(void *library, const char *symbol, void **slot, char *error, size_t errorSize) {
    void *address = dlsym(library, symbol);
    if (address == NULL) {
        snprintf(error, errorSize, "the SQLite library has no %s (it is older than 3.7)", symbol);
        return 0;
    }
    *slot = address;
    return 1;
}

int csqlite_load(char *error, size_t errorSize) {
    void *library = NULL;
    const char *chosen = getenv("BURROW_SQLITE_LIBRARY");
    if (chosen != NULL && chosen[0] != '\0') {
        library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            snprintf(error, errorSize, "cannot load BURROW_SQLITE_LIBRARY=%s: %s", chosen, dlerror());
            return 0;
        }
    } else {
        for (size_t i = 0; i < sizeof libraryNames / sizeof libraryNames[0] && library == NULL; i++) {
            library = dlopen(libraryNames[i], RTLD_NOW | RTLD_LOCAL);
        }
        if (library == NULL) {
            snprintf(error, errorSize,
                     "cannot find the system SQLite library (%s); install it (Debian and Ubuntu: apt-get install "
                     "libsqlite3-0) or name it in BURROW_SQLITE_LIBRARY",
                     libraryNames[0]);
            return 0;
        }
    }
    struct { const char *symbol; void **slot; } const entries[] = {
        {"sqlite3_libversion", (void **)&csqlite.libversion},
        {"sqlite3_open_v2", (void **)&csqlite.open_v2},
        {"sqlite3_close", (void **)&csqlite.close},
        {"sqlite3_close_v2", (void **)&csqlite.close_v2},
        {"sqlite3_errmsg", (void **)&csqlite.errmsg},
        {"sqlite3_exec", (void **)&csqlite.exec},
        {"sqlite3_free", (void **)&csqlite.free},
        {"sqlite3_prepare_v2", (void **)&csqlite.prepare_v2},
        {"sqlite3_sql", (void **)&csqlite.sql},
        {"sqlite3_step", (void **)&csqlite.step},
        {"sqlite3_reset", (void **)&csqlite.reset},
        {"sqlite3_finalize", (void **)&csqlite.finalize},
        {"sqlite3_bind_int64", (void **)&csqlite.bind_int64},
        {"sqlite3_bind_blob", (void **)&csqlite.bind_blob},
        {"sqlite3_bind_text", (void **)&csqlite.bind_text},
        {"sqlite3_column_int64", (void **)&csqlite.column_int64},
        {"sqlite3_column_blob", (void **)&csqlite.column_blob},
        {"sqlite3_column_text", (void **)&csqlite.column_text},
        {"sqlite3_column_bytes", (void **)&csqlite.column_bytes},
        {"sqlite3_vfs_find", (void **)&csqlite.vfs_find},
        {"sqlite3_vfs_register", (void **)&csqlite.vfs_register},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        if (!bind(library, entries[i].symbol, entries[i].slot, error, errorSize)) return 0;
    }
    return 1;
}
