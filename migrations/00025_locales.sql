-- Languages and formats (docs/i18n.md): an org has a locale, a BCP 47 tag
-- such as en-US or de-DE, that decides the language and formats its people
-- read by default; a user and a technician may have their own language
-- (NULL: the org's). The application accepts only the tags it supports
-- (internal/i18n); the database checks the tag's shape, so a hand-written
-- row cannot hold something that is no tag at all.

-- +goose Up
ALTER TABLE orgs ADD COLUMN locale text NOT NULL DEFAULT 'en-US'
    CONSTRAINT orgs_locale_format CHECK (length(locale) BETWEEN 2 AND 35
        AND locale ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$');
ALTER TABLE users ADD COLUMN language text
    CONSTRAINT users_language_format CHECK (length(language) BETWEEN 2 AND 35
        AND language ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$');
ALTER TABLE technicians ADD COLUMN language text
    CONSTRAINT technicians_language_format CHECK (length(language) BETWEEN 2 AND 35
        AND language ~ '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$');

-- +goose Down
ALTER TABLE technicians DROP COLUMN language;
ALTER TABLE users DROP COLUMN language;
ALTER TABLE orgs DROP COLUMN locale;
