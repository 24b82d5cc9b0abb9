CREATE TABLE IF NOT EXISTS ${table} (
    key_hash      BLOB    NOT NULL PRIMARY KEY,
    idem_key      TEXT    NOT NULL,
    state         TEXT    NOT NULL,
    payload_hash  TEXT    NOT NULL,
    owner         TEXT    NOT NULL,
    fencing_token INTEGER NOT NULL,
    started_at    INTEGER NOT NULL,
    lease_until   INTEGER NOT NULL,
    completed_at  INTEGER,
    expires_at    INTEGER,
    result        BLOB
);

CREATE TABLE IF NOT EXISTS ${table}_tokens (
    id    INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
);
INSERT INTO ${table}_tokens (id, value) VALUES (1, 0) ON CONFLICT (id) DO NOTHING
