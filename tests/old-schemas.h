/*
 * old-schemas.h - the store's schema as versions 1 to 4 shipped it (the
 * migrations of src/base/store.c), frozen here so that the migration
 * tests build a database of an old version as it really was, whatever
 * later changes to store.c do. A version's text, then
 * "PRAGMA user_version = N;", makes a database of version N.
 */
#ifndef KJIT_TEST_OLD_SCHEMAS_H
#define KJIT_TEST_OLD_SCHEMAS_H

/* Version 1: every table but manifests. */
#define TU_SCHEMA_V1 \
	"CREATE TABLE devices(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE," \
	" name TEXT NOT NULL, arch TEXT NOT NULL, sm_count INTEGER NOT NULL," \
	" driver_version INTEGER NOT NULL, first_seen REAL NOT NULL, last_seen REAL NOT NULL);" \
	"CREATE TABLE kernels(signature TEXT PRIMARY KEY, name TEXT NOT NULL," \
	" source TEXT NOT NULL, params TEXT NOT NULL, created REAL NOT NULL);" \
	"CREATE TABLE binaries(id INTEGER PRIMARY KEY, key TEXT NOT NULL," \
	" signature TEXT NOT NULL, options TEXT NOT NULL, arch TEXT NOT NULL," \
	" nvrtc TEXT NOT NULL, lowered_name TEXT NOT NULL, size INTEGER NOT NULL," \
	" checksum TEXT NOT NULL, compile_ms REAL NOT NULL, created REAL NOT NULL," \
	" last_used REAL NOT NULL, cubin BLOB NOT NULL);" \
	"CREATE INDEX binaries_lru ON binaries(last_used);" \
	"CREATE INDEX binaries_signature ON binaries(signature);" \
	"CREATE TABLE cache_size(id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);" \
	"INSERT INTO cache_size VALUES(1, 0);" \
	"CREATE TRIGGER binaries_add AFTER INSERT ON binaries BEGIN" \
	" UPDATE cache_size SET bytes = bytes + NEW.size; END;" \
	"CREATE TRIGGER binaries_remove AFTER DELETE ON binaries BEGIN" \
	" UPDATE cache_size SET bytes = bytes - OLD.size; END;" \
	"CREATE TRIGGER binaries_resize AFTER UPDATE OF size ON binaries BEGIN" \
	" UPDATE cache_size SET bytes = bytes - OLD.size + NEW.size; END;" \
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, signature TEXT NOT NULL," \
	" device_key TEXT NOT NULL, kernel TEXT NOT NULL, spec TEXT, strategy TEXT NOT NULL," \
	" problem TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'running', total INTEGER," \
	" evaluated INTEGER NOT NULL DEFAULT 0, pid INTEGER, started REAL NOT NULL," \
	" updated REAL NOT NULL, finished REAL);" \
	"CREATE INDEX runs_status ON runs(status);" \
	"CREATE TABLE results(id INTEGER PRIMARY KEY, run_id INTEGER REFERENCES runs(id)," \
	" signature TEXT NOT NULL, device_key TEXT NOT NULL, problem TEXT NOT NULL," \
	" config TEXT NOT NULL, binary_key TEXT, status TEXT NOT NULL, timer TEXT, l2 TEXT," \
	" median_ns REAL, spread_ns REAL, min_ns REAL, max_ns REAL, n_samples INTEGER," \
	" samples BLOB, objective REAL, compile_ms REAL, message TEXT, created REAL NOT NULL," \
	" UNIQUE(signature, device_key, problem, config, l2));" \
	"CREATE TABLE best(signature TEXT NOT NULL, device_key TEXT NOT NULL," \
	" problem TEXT NOT NULL, arch TEXT NOT NULL, config TEXT NOT NULL," \
	" result_id INTEGER REFERENCES results(id), median_ns REAL NOT NULL," \
	" nvrtc TEXT NOT NULL, stale INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL," \
	" PRIMARY KEY(signature, device_key, problem));" \
	"CREATE TABLE events(id INTEGER PRIMARY KEY, ts REAL NOT NULL, pid INTEGER NOT NULL," \
	" kind TEXT NOT NULL, signature TEXT, kernel TEXT, variant TEXT, tier TEXT," \
	" value REAL, count INTEGER NOT NULL DEFAULT 1, detail TEXT);" \
	"CREATE INDEX events_ts ON events(ts);" \
	"CREATE INDEX events_kind_ts ON events(kind, ts);"

/* Version 2 adds the header manifests of binaries. */
#define TU_SCHEMA_V2 \
	"CREATE TABLE manifests(key TEXT PRIMARY KEY, base_key TEXT NOT NULL," \
	" files TEXT NOT NULL, created REAL NOT NULL);" \
	"CREATE INDEX manifests_base_key ON manifests(base_key, created);" \
	"CREATE TRIGGER binaries_manifest AFTER DELETE ON binaries BEGIN" \
	" DELETE FROM manifests WHERE key = OLD.key; END;"

/* Version 3 adds the device that measured a result. */
#define TU_SCHEMA_V3 \
	"ALTER TABLE results ADD COLUMN device_ordinal INTEGER;" \
	"ALTER TABLE results ADD COLUMN device_uuid TEXT;"

/* Version 4 counts the cache size from each binary's blob. */
#define TU_SCHEMA_V4 \
	"DROP TRIGGER binaries_add; DROP TRIGGER binaries_remove; DROP TRIGGER binaries_resize;" \
	"CREATE TRIGGER binaries_add AFTER INSERT ON binaries BEGIN" \
	" UPDATE cache_size SET bytes = bytes + length(NEW.cubin); END;" \
	"CREATE TRIGGER binaries_remove AFTER DELETE ON binaries BEGIN" \
	" UPDATE cache_size SET bytes = bytes - length(OLD.cubin); END;" \
	"CREATE TRIGGER binaries_resize AFTER UPDATE OF cubin ON binaries BEGIN" \
	" UPDATE cache_size SET bytes = bytes - length(OLD.cubin) + length(NEW.cubin); END;" \
	"UPDATE cache_size SET bytes = (SELECT coalesce(sum(length(cubin)), 0) FROM binaries);"

#endif /* KJIT_TEST_OLD_SCHEMAS_H */
