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
