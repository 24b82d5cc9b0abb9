CREATE TABLE IF NOT EXISTS ${table} (
    key_hash      VARBINARY(32)           NOT NULL PRIMARY KEY,
    idem_key      CHARACTER VARYING(2048) NOT NULL,
    state         VARCHAR(16)             NOT NULL,
    payload_hash  CHARACTER VARYING(256)  NOT NULL,
    owner         CHARACTER VARYING(1024) NOT NULL,
    fencing_token BIGINT                  NOT NULL,
    started_at    BIGINT                  NOT NULL,
    lease_until   BIGINT                  NOT NULL,
    completed_at  BIGINT,
    expires_at    BIGINT,
    result        BLOB
);

CREATE SEQUENCE IF NOT EXISTS ${table}_tokens
