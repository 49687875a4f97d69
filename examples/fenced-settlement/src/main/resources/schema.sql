CREATE TABLE IF NOT EXISTS settlement (
    region VARCHAR(16) PRIMARY KEY,
    total BIGINT,
    settled_by VARCHAR(64),
    fence BIGINT
);
MERGE INTO settlement (region) KEY (region) VALUES ('north'), ('south'), ('east'), ('west');
