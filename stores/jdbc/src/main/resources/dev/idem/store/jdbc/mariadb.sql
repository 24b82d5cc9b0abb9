CREATE TABLE IF NOT EXISTS ${table} (
    key_hash      BINARY(32)    NOT NULL PRIMARY KEY,
    idem_key      VARCHAR(2048) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    state         VARCHAR(16)   NOT NULL,
    payload_hash  VARCHAR(256)  NOT NULL,
    owner         VARCHAR(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    fencing_token BIGINT        NOT NULL,
    started_at    BIGINT        NOT NULL,
    lease_until   BIGINT        NOT NULL,
    completed_at  BIGINT,
    expires_at    BIGINT,
    result        LONGBLOB
) ENGINE=InnoDB;

-- fencing tokens: one sequence, so a token never depends on a row that the sweeper may delete
CREATE SEQUENCE IF NOT EXISTS ${table}_tokens
