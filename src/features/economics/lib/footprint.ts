/** The answer engine's parts the footprint reads: the base's sections, the warm copies and the base's route. */
export interface CartridgeSource {
  sectionsOf(baseId: string): { cartKey: string }[]
  cache: { get(key: string): { bytes: number } | undefined }
  /** Bytes of the index over the base's cartridges the cart search keeps (0 until a question builds it). */
  routeBytes(baseId: string): number
}

/**
 * What a base's cartridges occupy when serving cart: the distinct cartridges (identical texts share
 * one) and their warm bytes, with the route over them. A cartridge that is not warm now is counted at
 * its stored size, a lower bound of its warm copy.
 */
export async function cartridgeFootprint(
  engine: CartridgeSource,
  storedSize: (key: string) => Promise<number | null>,
  baseId: string,
): Promise<{ cartridges: number; warmBytes: number }> {
  const keys = [...new Set(engine.sectionsOf(baseId).map((s) => s.cartKey))]
  let bytes = engine.routeBytes(baseId)
  for (const key of keys) bytes += engine.cache.get(key)?.bytes ?? (await storedSize(key)) ?? 0
  return { cartridges: keys.length, warmBytes: bytes }
}
