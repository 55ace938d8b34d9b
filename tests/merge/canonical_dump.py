#!/usr/bin/env python3
"""Canonical dump of a tracekit store, independent of row ids (tests/merge/merge.sh).

Every row of every store table (and, with --analysis, of the analysis tables) is printed with
each id column replaced by the content of the row it names (recursively: an event by its track,
kind, name, times...), the row's own id dropped, and the rows of a table sorted: two stores that
hold the same content give the same dump whatever order their rows were written in. Meta keys
that name the writing tracekit are left out.
"""
import sqlite3
import sys

REFS = {"process_id": "processes", "device_id": "devices", "src_device_id": "devices",
        "dst_device_id": "devices", "track_id": "tracks", "event_id": "events",
        "src_event_id": "events", "dst_event_id": "events", "op_event_id": "events",
        "step_event_id": "events", "prev_event_id": "events", "next_event_id": "events",
        "explained_by_event_id": "events", "source_id": "sources"}
STORE = ["meta", "sources", "processes", "devices", "tracks", "events", "kernel_details",
         "copy_details", "set_details", "op_details", "step_details", "flows", "counters",
         "memory_records", "args"]
SKIP_META = ("tracekit_version", "analysis_version", "job_summary")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    db = sqlite3.connect("file:" + args[0] + "?mode=ro", uri=True)
    tables = list(STORE)
    if "--analysis" in sys.argv:
        tables += [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'analysis_%' "
            "ORDER BY name")]
    if "--only" in sys.argv:
        tables = args[1:]
    cols = {t: [r[1] for r in db.execute("PRAGMA table_info(%s)" % t)] for t in
            set(tables) | set(REFS.values())}
    strings = dict(db.execute("SELECT id, str FROM strings"))
    memo = {}

    def row_of(table, rid):
        key = (table, rid)
        if key not in memo:
            memo[key] = None  # cycles: none in the schema, but never loop
            r = db.execute("SELECT * FROM %s WHERE rowid = ?" % table, (rid,)).fetchone()
            memo[key] = resolve(table, r) if r else ("dangling", table, rid)
        return memo[key]

    def resolve(table, r):
        out = []
        for c, v in zip(cols[table], r):
            if c == "id" and table in ("processes", "devices", "tracks", "events", "sources",
                                       "flows", "memory_records"):
                continue
            if v is not None and c in REFS and not (table == "events" and c == "event_id"):
                v = row_of(REFS[c], v)
            elif v is not None and c.endswith("_id") and c not in ("pid", "tid") and \
                    table in STORE and c in ("name_id", "host_id", "category_id", "key_id",
                                             "mangled_name_id", "hlo_op_id", "hlo_module_id",
                                             "framework_op_id", "op_category_id",
                                             "allocator_id", "op_name_id"):
                v = strings.get(v, ("dangling string", v))
            out.append((c, v))
        return tuple(out)

    for t in tables:
        rows = []
        for r in db.execute("SELECT * FROM %s" % t):
            if t == "meta" and r[0] in SKIP_META:
                continue
            rows.append(repr(resolve(t, r)))
        rows.sort()
        print("== %s (%d rows)" % (t, len(rows)))
        for r in rows:
            print(r)


if __name__ == "__main__":
    main()
