-- Passage vectors from an embeddings server (when one is configured), for re-ranking by meaning.
-- `model` names what made them: vectors of another model are never compared with a question's.
CREATE TABLE IF NOT EXISTS engine_vectors (
  section_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  model TEXT NOT NULL,
  vec BLOB NOT NULL,
  PRIMARY KEY (section_id, ordinal)
) WITHOUT ROWID;
