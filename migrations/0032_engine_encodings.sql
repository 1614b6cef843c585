-- The built-in sentence encoder's vector of each passage, made once in the background after its base
-- is indexed (the engine's `encode` job), so the support check embeds only the question. `vec` is
-- int8: a float32 scale, then one signed byte per dimension (support/encodings.ts quantize).
CREATE TABLE IF NOT EXISTS engine_encodings (
  section_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  vec BLOB NOT NULL,
  PRIMARY KEY (section_id, ordinal)
) WITHOUT ROWID;
