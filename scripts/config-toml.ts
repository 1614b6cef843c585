// Writes config/default.toml from the configuration definition tree.
import { renderDefaultToml } from '../src/platform/config/config.load'

await Bun.write('config/default.toml', renderDefaultToml())
