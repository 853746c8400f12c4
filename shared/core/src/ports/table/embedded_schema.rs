//! The embedded table's SQLite schema, and the rewrite of data files of earlier layouts.

use rusqlite::{Connection, TransactionBehavior::Immediate};

/// Rows live in a rowid table and keys in indexes beside it: in a `WITHOUT ROWID` table every key
/// comparison on a row too long for its page (an article body) copied the whole row. The
/// secondary indexes end with the table key, so a page in index order needs no sort.
const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS items (
        pk TEXT NOT NULL, sk TEXT NOT NULL, item TEXT NOT NULL, expires_at INTEGER,
        gsi1pk TEXT, gsi1sk TEXT, gsi2pk TEXT, gsi2sk TEXT, gsi3pk TEXT, gsi3sk TEXT,
        UNIQUE (pk, sk)
    );
    CREATE INDEX IF NOT EXISTS items_gsi1 ON items (gsi1pk, gsi1sk, pk, sk);
    CREATE INDEX IF NOT EXISTS items_gsi2 ON items (gsi2pk, gsi2sk, pk, sk);
    CREATE INDEX IF NOT EXISTS items_gsi3 ON items (gsi3pk, gsi3sk, pk, sk);";

/// Sets the earliest layout's table (`WITHOUT ROWID`) aside before [`SCHEMA`] is created.
const SET_ASIDE_EARLIER_TABLE: &str = "
    ALTER TABLE items RENAME TO items_without_rowid;
    DROP INDEX IF EXISTS items_gsi1;
    DROP INDEX IF EXISTS items_gsi2;";

/// Copies the rows set aside into [`SCHEMA`]'s table, then drops their table.
const COPY_EARLIER_TABLE: &str = "
    INSERT INTO items (pk, sk, item, expires_at, gsi1pk, gsi1sk, gsi2pk, gsi2sk)
        SELECT pk, sk, item, expires_at, gsi1pk, gsi1sk, gsi2pk, gsi2sk FROM items_without_rowid;
    DROP TABLE items_without_rowid;";

/// Gives a table of two indexes the columns of the third, filled from the items that carry
/// both of its attributes (as the rows' writer does), before [`SCHEMA`] indexes them.
const ADD_THIRD_INDEX: &str = "
    ALTER TABLE items ADD COLUMN gsi3pk TEXT;
    ALTER TABLE items ADD COLUMN gsi3sk TEXT;
    UPDATE items SET gsi3pk = json_extract(item, '$.gsi3pk.S'),
                     gsi3sk = json_extract(item, '$.gsi3sk.S')
        WHERE json_extract(item, '$.gsi3pk.S') <> '' AND json_extract(item, '$.gsi3sk.S') <> '';";

/// Creates the schema, first rewriting a file of an earlier layout, all in one transaction (a
/// second process opening the file meanwhile waits, then finds it done).
pub(super) fn create_or_migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(Immediate)?;
    let earliest: bool = tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'items' \
         AND sql LIKE '%WITHOUT ROWID%'",
        [],
        |row| row.get(0),
    )?;
    let two_indexes: bool = !earliest
        && tx.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'items' \
             AND sql NOT LIKE '%gsi3pk%'",
            [],
            |row| row.get(0),
        )?;
    if earliest {
        tx.execute_batch(SET_ASIDE_EARLIER_TABLE)?;
    }
    if two_indexes {
        tx.execute_batch(ADD_THIRD_INDEX)?;
    }
    tx.execute_batch(SCHEMA)?;
    if earliest {
        tx.execute_batch(COPY_EARLIER_TABLE)?;
    }
    tx.commit()
}
