-- Protected sites (docs/design.md, "Protected sites"): who may open a site's hosts, as JSON
-- (src/protection/site-protection.ts). NULL: the service's default for new sites, NEW_SITE_PREVIEWS.
ALTER TABLE sites ADD COLUMN protection TEXT;

-- Sites made before protection existed keep their previews public until their owners say otherwise.
UPDATE sites SET protection = '{"previews":"public","site":"public","password":null,"epoch":0}';
