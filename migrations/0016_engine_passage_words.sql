-- A passage's content words as rag ranks them (src/features/engine/lib/passage-words.ts): term
-- hashes, token kinds and noun senses, worked out when it is indexed instead of at every search.
-- Passages indexed before have none and are read from their text as before.
ALTER TABLE engine_passages ADD COLUMN words BLOB;
