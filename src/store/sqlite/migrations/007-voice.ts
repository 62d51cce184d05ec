// Each account's language, voice and spoken intro (#16). Accounts from before speak as they did:
// English with the default voice and the default intro (NULL: the language's own).
export default `
ALTER TABLE accounts ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
ALTER TABLE accounts ADD COLUMN voice TEXT NOT NULL DEFAULT 'slt';
ALTER TABLE accounts ADD COLUMN intro TEXT;
`;
