/**
 * Password hashes: argon2id at the configured memory cost, and checks that cost the same whether
 * or not there is a hash to check against.
 */
export class PasswordHasher {
  private dummyHash: Promise<string> | null = null

  constructor(private readonly memoryKib: number) {}

  /** Hashes a password with argon2id at the configured memory cost. */
  hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: this.memoryKib, timeCost: 2 })
  }

  /**
   * Whether `password` matches `hash`. With no hash (no such account, or one with no local
   * password) it verifies against a dummy hash all the same, so timing does not reveal accounts.
   */
  async matches(password: string, hash: string | null | undefined): Promise<boolean> {
    const ok = await Bun.password.verify(password, hash ?? (await this.dummy()))
    return Boolean(hash) && ok
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.hash('not-a-real-password')
    return this.dummyHash
  }
}
