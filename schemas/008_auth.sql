-- 008_auth: CURVE identities.  agents.public_key: the key (Z85) an agent
-- registered its name with; another key cannot take the name while this
-- one is still allowed.  rejected_keys: keys the controller refused, per
-- ZAP domain ('agents' or 'admins'), for `iofleet agents --rejected`.
ALTER TABLE agents ADD COLUMN public_key TEXT;
CREATE TABLE rejected_keys (
    public_key TEXT NOT NULL,
    domain     TEXT NOT NULL,
    address    TEXT NOT NULL DEFAULT '',
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    attempts   INTEGER NOT NULL,
    PRIMARY KEY (public_key, domain)
) WITHOUT ROWID;
