-- The settlement of each region for each fire of orderSettlement, written through FencedJdbc (SettlementStore).
-- Spring Boot runs this file at start-up on the sample's in-memory H2 only (spring.sql.init.mode: embedded, the
-- default); a shared database gets it once, from a migration, as the end-to-end drill does. H2 and PostgreSQL both
-- read it.
CREATE TABLE IF NOT EXISTS settlement (
    region VARCHAR(32) NOT NULL,
    fire_time TIMESTAMP WITH TIME ZONE NOT NULL,
    total BIGINT NOT NULL,
    settled_by VARCHAR(255) NOT NULL,
    -- The highest fencing token that wrote the row: FencedJdbc updates it only for a run holding at least that token.
    fence BIGINT,
    PRIMARY KEY (region, fire_time)
);
