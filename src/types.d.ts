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
