/** A thumb up or down drawn in SVG: no emoji font is needed (the console ships no fonts, and a server may have none). */
export function Thumb({ down }: { down?: boolean }) {
  return (
    <svg
      class={`thumb${down ? ' thumb-down' : ''}`}
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
    >
      <path
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linejoin="round"
        d="M7 10v11H3V10h4Zm0 0 4-8c1.7 0 3 1.3 3 3v4h5.5a2 2 0 0 1 2 2.3l-1.4 8A2 2 0 0 1 18.1 21H7"
      />
    </svg>
  )
}
