/** A worker-thread stand-in: records what it is sent and answers only when told to. */
export class FakeWorker<Req, Reply> {
  sent: Req[] = []
  terminated = false
  /** Whether it would keep the process alive (ref'd). */
  held = false
  onmessage: ((e: MessageEvent) => void) | null = null
  onerror: ((e: ErrorEvent) => void) | null = null
  private closeListeners: ((e: Event) => void)[] = []
  postMessage(msg: Req): void {
    this.sent.push(msg)
  }
  terminate(): void {
    this.terminated = true
  }
  ref(): void {
    this.held = true
  }
  unref(): void {
    this.held = false
  }
  addEventListener(_type: 'close', listener: (e: Event) => void): void {
    this.closeListeners.push(listener)
  }
  reply(msg: Reply): void {
    this.onmessage?.({ data: msg } as MessageEvent)
  }
  /** The thread dies (its close event, as when it exits by itself). */
  exit(): void {
    for (const l of this.closeListeners) l(new Event('close'))
  }
  /** An uncaught error in the thread. */
  crash(message: string): void {
    this.onerror?.({ message, preventDefault: () => {} } as ErrorEvent)
  }
}
