CREATE TABLE IF NOT EXISTS ${table} (
    key_hash      BYTEA        NOT NULL PRIMARY KEY,
    idem_key      TEXT         NOT NULL,
    state         VARCHAR(16)  NOT NULL,
    payload_hash  TEXT         NOT NULL,
    owner         TEXT         NOT NULL,
    fencing_token BIGINT       NOT NULL,
    started_at    BIGINT       NOT NULL,
    lease_until   BIGINT       NOT NULL,
    completed_at  BIGINT,
    expires_at    BIGINT,
    result        BYTEA
);

CREATE SEQUENCE IF NOT EXISTS ${table}_tokens
